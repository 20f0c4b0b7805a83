#!/usr/bin/env bash
# The GitHub Action's install step (action.yml): puts a loopgate binary on
# the job's PATH. Either the release archive for the runner's platform,
# checked against the release's checksums.txt, or, with from-source, a
# build of the action's own checkout.
#
# Inputs (environment): INPUT_VERSION (a tag, or latest), INPUT_FROM_SOURCE
# (true|false); the runner's RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP,
# GITHUB_PATH, GITHUB_ACTION_PATH, GITHUB_TOKEN. With
# LOOPGATE_ACTION_PRINT_URL=1 it prints the archive's address and stops
# (how the test checks the platform mapping without a network).
set -euo pipefail

repo="loopgate/loopgate"
bindir="${RUNNER_TEMP:-/tmp}/loopgate-bin"
mkdir -p "$bindir"

if [ "${INPUT_FROM_SOURCE:-false}" = "true" ]; then
  command -v go >/dev/null || { echo "::error::from-source needs Go on the runner (actions/setup-go)"; exit 2; }
  (cd "$GITHUB_ACTION_PATH" && go build -trimpath -o "$bindir/loopgate" .)
  echo "$bindir" >> "$GITHUB_PATH"
  "$bindir/loopgate" --version
  exit 0
fi

case "${RUNNER_OS:-Linux}" in
  Linux) os=linux ext=tar.gz ;;
  macOS) os=darwin ext=tar.gz ;;
  Windows) os=windows ext=zip ;;
  *) echo "::error::no loopgate release for RUNNER_OS=$RUNNER_OS; set from-source: true"; exit 2 ;;
esac
case "${RUNNER_ARCH:-X64}" in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) echo "::error::no loopgate release for RUNNER_ARCH=$RUNNER_ARCH; set from-source: true"; exit 2 ;;
esac

tag="${INPUT_VERSION:-latest}"
if [ "$tag" = "latest" ] && [ "${LOOPGATE_ACTION_PRINT_URL:-}" != "1" ]; then
  auth=()
  [ -n "${GITHUB_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $GITHUB_TOKEN")
  tag=$(curl -fsSL "${auth[@]}" "https://api.github.com/repos/$repo/releases/latest" | sed -n 's/.*"tag_name": *"\([^"]*\)".*/\1/p' | head -n 1)
  [ -n "$tag" ] || { echo "::error::cannot find the latest loopgate release"; exit 2; }
fi
version="${tag#v}"
archive="loopgate_${version}_${os}_${arch}.${ext}"
base="https://github.com/$repo/releases/download/$tag"
if [ "${LOOPGATE_ACTION_PRINT_URL:-}" = "1" ]; then
  echo "$base/$archive"
  exit 0
fi

tmp=$(mktemp -d)
curl -fsSL -o "$tmp/$archive" "$base/$archive"
curl -fsSL -o "$tmp/checksums.txt" "$base/checksums.txt"
(cd "$tmp" && grep " $archive\$" checksums.txt | sha256sum -c -) || { echo "::error::$archive does not match the release's checksums.txt"; exit 2; }
if [ "$ext" = zip ]; then
  unzip -q -o "$tmp/$archive" -d "$tmp/x"
else
  mkdir -p "$tmp/x" && tar -xzf "$tmp/$archive" -C "$tmp/x"
fi
install -m 0755 "$tmp/x/loopgate"* "$bindir/"
echo "$bindir" >> "$GITHUB_PATH"
"$bindir/loopgate"* --version
