#!/usr/bin/env bash
# Makes the 1,024-task English result file the speed figures use, with wildtool's own
# generator and agents: 256 generated sessions (seed 42, four distractor tools each) run by
# the gold agent (every task correct, so every argument is checked), about 12 MB.
# Usage: bash scripts/bench-file.sh [DIR]   (default target/bench-file; needs a release build)
# Writes DIR/dataset.jsonl and DIR/gold/result.jsonl; with AGENT=baseline, DIR/baseline/.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/bench-file}
agent=${AGENT:-gold}
bin=target/release/wildtool
[ -x "$bin" ] || cargo build --release
mkdir -p "$dir"
"$bin" generate --seed 42 --sessions 256 --distractors 4 --out "$dir/dataset.jsonl" >&2
rm -rf "${dir:?}/$agent"
"$bin" run --dataset "$dir/dataset.jsonl" --out "$dir/$agent" --provider "$agent" >/dev/null 2>&1
ls -l "$dir/dataset.jsonl" "$dir/$agent/result.jsonl" >&2
