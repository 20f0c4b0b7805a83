#!/usr/bin/env bash
# Checks the release configuration (.goreleaser.yaml) and builds every
# release archive locally, publishing nothing: `goreleaser check`, then
# `goreleaser release --snapshot --clean` into dist/. Then it opens the
# archive for this machine and runs the binary in it. .ci/run runs it.
#
# GoReleaser and cyclonedx-gomod (the SBOMs) are Go modules at pinned
# versions, installed from the Go module proxy into a cache folder outside
# the checkout (LOOPGATE_TOOLS, default ~/.cache/loopgate-tools), so a
# fresh clone on the same machine does not build them again.
set -euo pipefail
cd "$(dirname "$0")/.."

goreleaser_version=v2.15.1
cyclonedx_version=v1.10.0
tools="${LOOPGATE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/loopgate-tools}"
mkdir -p "$tools"
if ! "$tools/goreleaser" --version 2>/dev/null | grep -q "${goreleaser_version#v}"; then
  echo "== installing GoReleaser $goreleaser_version"
  GOBIN="$tools" go install "github.com/goreleaser/goreleaser/v2@$goreleaser_version"
fi
if ! "$tools/cyclonedx-gomod" version 2>/dev/null | grep -q "${cyclonedx_version#v}"; then
  echo "== installing cyclonedx-gomod $cyclonedx_version"
  GOBIN="$tools" go install "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$cyclonedx_version"
fi
export PATH="$tools:$PATH"

echo "== goreleaser check"
goreleaser check

echo "== goreleaser release --snapshot --clean (nothing is published)"
# The archives are built in parallel by GoReleaser; two builds at a time
# keep a two-core machine responsive.
mkdir -p build
goreleaser release --snapshot --clean --parallelism 2 > build/release-check.log 2>&1 || {
  tail -n 40 build/release-check.log; exit 1; }

echo "== archives"
(cd dist && ls -1 *.tar.gz *.zip checksums.txt *.cdx.json homebrew/Casks/*.rb scoop/*.json 2>/dev/null) | sed 's/^/  /'
for os in linux darwin windows; do
  for arch in amd64 arm64; do
    ls dist/loopgate_*_"${os}_${arch}".* >/dev/null 2>&1 || { echo "no archive for $os/$arch"; exit 1; }
  done
done
(cd dist && sha256sum -c --quiet checksums.txt) || { echo "checksums.txt does not match the archives"; exit 1; }

echo "== the archive for this machine, opened"
here="$(go env GOOS)_$(go env GOARCH)"
x=$(mktemp -d)
tar -xzf dist/loopgate_*_"$here".tar.gz -C "$x"
for f in loopgate loopgate-hook LICENSE README.md completions/loopgate.bash completions/_loopgate completions/loopgate.fish man/loopgate.1; do
  [ -s "$x/$f" ] || { echo "the $here archive lacks $f"; exit 1; }
done
"$x/loopgate" --version
"$x/loopgate-hook" --version
# The two binaries are of one build: hook install writes loopgate-hook.
mkdir "$x/home"
HOME="$x/home" "$x/loopgate" hook install --agent claude-code --dry-run > "$x/install.txt" 2>&1
grep -q "\"$x/loopgate-hook --agent claude-code\"" "$x/install.txt" || { echo "hook install in the $here archive does not write its loopgate-hook:"; cat "$x/install.txt"; exit 1; }
bash -c "source '$x/completions/loopgate.bash'" || { echo "the archive's bash completion does not source"; exit 1; }
rm -rf "$x"

echo "== the Homebrew cask and the Scoop manifest, installed by hand from the archives"
/usr/bin/env python3 scripts/manifest-check.py dist
echo "release check passed"
