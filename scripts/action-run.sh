#!/usr/bin/env bash
# The GitHub Action's gate step (action.yml). With a gate file it runs
# `loopgate gate --github`: annotations in the log, a summary appended to
# $GITHUB_STEP_SUMMARY, JUnit and SARIF when asked. With transcripts it runs
# `loopgate replay --fail-on`, its markdown report appended to the summary.
# Its exit status is loopgate's: 0 passed, 1 the gate failed, 2 the gate
# could not run. It writes result, junit and sarif to $GITHUB_OUTPUT.
#
# main_action_test.go runs this script with a fake GitHub environment.
set -uo pipefail

out="${GITHUB_OUTPUT:-/dev/null}"
extra=()
[ -n "${INPUT_JUNIT:-}" ] && extra+=(--junit "$INPUT_JUNIT")
[ -n "${INPUT_SARIF:-}" ] && extra+=(--sarif "$INPUT_SARIF")

if [ -n "${INPUT_PRESET:-}" ] && [ -n "${INPUT_RULES:-}" ]; then
  echo "::error::give preset or rules, not both"
  echo "result=error" >> "$out"
  exit 2
fi

if [ -n "${INPUT_TRANSCRIPTS:-}" ]; then
  if [ -n "${INPUT_JUNIT:-}${INPUT_SARIF:-}" ]; then
    echo "::error::junit and sarif are written by a gate file's run, not with transcripts"
    echo "result=error" >> "$out"
    exit 2
  fi
  rules=()
  [ -n "${INPUT_PRESET:-}" ] && rules=(--preset "$INPUT_PRESET")
  [ -n "${INPUT_RULES:-}" ] && rules=(--rules "$INPUT_RULES")
  mapfile -t paths < <(printf '%s\n' "$INPUT_TRANSCRIPTS" | sed '/^[[:space:]]*$/d')
  report=$(mktemp)
  loopgate replay --fail-on "${INPUT_FAIL_ON:-harmful}" --format markdown "${rules[@]}" "${paths[@]}" > "$report"
  status=$?
  cat "$report"
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$report" >> "$GITHUB_STEP_SUMMARY"
else
  if [ -n "${INPUT_PRESET:-}${INPUT_RULES:-}" ]; then
    echo "::error::preset and rules apply to transcripts; the gate file ${INPUT_GATE_FILE:-loopgate.gate.yaml} names its own rules"
    echo "result=error" >> "$out"
    exit 2
  fi
  loopgate gate --github "${extra[@]}" "${INPUT_GATE_FILE:-loopgate.gate.yaml}"
  status=$?
fi

case $status in
  0) echo "result=pass" >> "$out" ;;
  1) echo "result=fail" >> "$out" ;;
  *) echo "result=error" >> "$out" ;;
esac
[ -n "${INPUT_JUNIT:-}" ] && echo "junit=$INPUT_JUNIT" >> "$out"
[ -n "${INPUT_SARIF:-}" ] && echo "sarif=$INPUT_SARIF" >> "$out"
exit $status
