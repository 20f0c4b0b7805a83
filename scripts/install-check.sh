#!/usr/bin/env bash
# install-check.sh: try `go install github.com/loopgate/loopgate@VERSION` the way a user
# without a checkout runs it, before anything is published.
#
# The files a tag would publish (git ls-files of HEAD) are laid out as a module proxy on disk
# (the GOPROXY protocol: @v/list, .info, .mod, .zip; https://go.dev/ref/mod#goproxy-protocol),
# put in front of the real proxy, and `go install module@version` builds from that zip alone,
# outside any checkout, into an empty GOBIN. So a go.mod with a replace directive, a main
# package not at the module's root, a file the build needs but git does not track, or a
# dependency missing from go.sum fails here as it would for a user. The binary is then run
# on the demo transcripts; the hook's own binary (cmd/loopgate-hook) is installed beside it at
# the same version, and `hook install` must write it.
#
# What it cannot show: that the module path resolves on the public proxy (nothing is
# published) and the checksum database's answer (GONOSUMDB skips it for this module only).
set -euo pipefail
cd "$(dirname "$0")/.."

module=$(go list -m)
version=v0.0.0-installcheck
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

proxy=$work/proxy/$module/@v
mkdir -p "$proxy" "$work/bin" "$work/gopath"
echo "$version" >"$proxy/list"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI)" >"$proxy/$version.info"
git show HEAD:go.mod >"$proxy/$version.mod"
# The module zip: every tracked file under MODULE@VERSION/ (a module zip's layout).
git archive --format=tar --prefix="$module@$version/" HEAD | (
  mkdir -p "$work/tree" && cd "$work/tree" && tar -xf - &&
    /usr/bin/env python3 -c '
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(d, f)
            if not os.path.islink(p):
                z.write(p, os.path.relpath(p, root))
' . "$proxy/$version.zip"
)

echo "install-check: go install $module@$version from a proxy on disk"
# A fresh module cache, so a version of loopgate extracted by an earlier run is never reused;
# the dependencies come from this machine's module cache where it has them (the same bytes
# the proxy serves, checked against go.sum), else from the proxy. GOFLAGS and GOWORK cleared
# as on a user's machine.
(cd "$work" && env GOPATH="$work/gopath" GOBIN="$work/bin" GOFLAGS= GOWORK=off \
  GOPROXY="file://$work/proxy,file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)" \
  GONOSUMDB="$module" \
  go install "$module@$version" "$module/cmd/loopgate-hook@$version")
bin=$work/bin/loopgate
[ -x "$bin" ] || { echo "install-check: no binary in GOBIN" >&2; exit 1; }
"$bin" --version
"$bin" replay --color never fixtures/demo >"$work/replay.out"
grep -q "blocked\|steered\|stopped" "$work/replay.out" || {
  echo "install-check: the installed binary's replay of fixtures/demo shows no decision" >&2
  cat "$work/replay.out" >&2
  exit 1
}
echo "install-check: installed and ran $(wc -l <"$work/replay.out") lines of replay on fixtures/demo"
# The hook's own binary, installed beside it at the same version, is what hook install writes.
"$work/bin/loopgate-hook" --version
mkdir -p "$work/home"
HOME="$work/home" "$bin" hook install --agent claude-code --dry-run >"$work/install.out" 2>&1
grep -q "\"$work/bin/loopgate-hook --agent claude-code\"" "$work/install.out" || {
  echo "install-check: hook install does not write the loopgate-hook installed beside loopgate:" >&2
  cat "$work/install.out" >&2
  exit 1
}
echo "install-check: hook install writes $work/bin/loopgate-hook"
