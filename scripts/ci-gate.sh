#!/usr/bin/env bash
# The CI recipe's steps, runnable locally (docs/ci.md; docs/ci-workflow.yml runs the same):
#   1. the baseline run: $WILDTOOL_BASELINE (a run directory kept from main), or a run made
#      now into $WILDTOOL_OUT/baseline;
#   2. the candidate run into $WILDTOOL_OUT/candidate: a live run (resumable: re-running
#      continues it), or with $WILDTOOL_CASSETTE a replay of that cassette (recorded by
#      `wildtool run --cassette FILE`) with --offline: nothing is sent, a request not in
#      it ends its task incomplete;
#   3. the gate, writing $WILDTOOL_OUT/junit.xml and $WILDTOOL_OUT/summary.md; its exit
#      code is this script's (0 no regression with evidence, 1 regression, 2 unusable).
# Settings (environment): WILDTOOL (the binary, default wildtool), WILDTOOL_DATASET,
# WILDTOOL_BASE_URL, WILDTOOL_MODEL, WILDTOOL_OUT, optional WILDTOOL_BASELINE,
# WILDTOOL_PROVIDER (openai), WILDTOOL_MAX_COST, WILDTOOL_CASSETTE, WILDTOOL_GATE_ARGS
# (e.g. "--margin 2").
set -euo pipefail
W="${WILDTOOL:-wildtool}"
: "${WILDTOOL_DATASET:?set WILDTOOL_DATASET}" "${WILDTOOL_MODEL:?set WILDTOOL_MODEL}"
: "${WILDTOOL_BASE_URL:?set WILDTOOL_BASE_URL}" "${WILDTOOL_OUT:?set WILDTOOL_OUT}"
mkdir -p "$WILDTOOL_OUT"
run_args=(--dataset "$WILDTOOL_DATASET" --provider "${WILDTOOL_PROVIDER:-openai}"
          --model "$WILDTOOL_MODEL" --base-url "$WILDTOOL_BASE_URL")
if [ -n "${WILDTOOL_MAX_COST:-}" ]; then run_args+=(--max-cost "$WILDTOOL_MAX_COST"); fi

baseline="${WILDTOOL_BASELINE:-}"
if [ -z "$baseline" ]; then
  baseline="$WILDTOOL_OUT/baseline"
  "$W" run "${run_args[@]}" --out "$baseline"
fi

# --- candidate run ---------------------------------------------------------------------
candidate_args=()
if [ -n "${WILDTOOL_CASSETTE:-}" ]; then
  candidate_args=(--cassette "$WILDTOOL_CASSETTE" --offline)
fi
"$W" run "${run_args[@]}" "${candidate_args[@]}" --out "$WILDTOOL_OUT/candidate" \
  --junit "$WILDTOOL_OUT/candidate-junit.xml"

# --- the gate --------------------------------------------------------------------------
# shellcheck disable=SC2086
"$W" gate --baseline "$baseline" --candidate "$WILDTOOL_OUT/candidate" \
  --dataset "$WILDTOOL_DATASET" ${WILDTOOL_GATE_ARGS:-} \
  --junit "$WILDTOOL_OUT/junit.xml" --summary-md "$WILDTOOL_OUT/summary.md"
