#!/usr/bin/env bash
# Whole-process comparison of `wildtool score` with the official scorer (eval_runner) on the
# same dataset and result file: CPU seconds (user + system), wall seconds and peak memory of
# each, RUNS runs in turn (wildtool, official, wildtool, …), medians printed; the score and
# metric files of both are compared byte for byte.
#
# The official code is used only when you point to it: WTB_DIR=/path/to/wild-tool-bench (a
# checkout of github.com/yupeijei1997/WildToolBench, the directory holding wtb/). Its Python
# needs jieba 0.42.1, rouge 1.0.1 and tqdm: PYTHON=/path/to/venv/bin/python (default python3).
# Nothing of it is copied into this repository: the script copies the checkout into a
# temporary directory, puts the dataset and results where eval_runner reads them, and runs it.
#
# Usage: WTB_DIR=… [PYTHON=…] [RUNS=5] [JOBS=N] bash scripts/compare-official.sh [DATASET RESULTS]
#   (JOBS: `wildtool score --jobs N`; default: its own default)
#   (default: the files of scripts/bench-file.sh, made if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${WTB_DIR:?set WTB_DIR to a checkout of the official WildToolBench code (the directory with wtb/)}"
[ -f "$WTB_DIR/wtb/eval_runner.py" ] || { echo "no wtb/eval_runner.py under $WTB_DIR" >&2; exit 2; }
python=${PYTHON:-python3}
runs=${RUNS:-5}
bin=$PWD/target/release/wildtool
[ -x "$bin" ] || cargo build --release
if [ $# -ge 2 ]; then
  dataset=$(realpath "$1"); results=$(realpath "$2")
else
  [ -f target/bench-file/gold/result.jsonl ] || bash scripts/bench-file.sh
  dataset=$PWD/target/bench-file/dataset.jsonl; results=$PWD/target/bench-file/gold/result.jsonl
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$WTB_DIR" "$work/official"
mkdir -p "$work/official/data" "$work/official/result/model"
cp "$dataset" "$work/official/data/Wild-Tool-Bench.jsonl"
cp "$results" "$work/official/result/model/Wild-Tool-Bench_result.jsonl"

# One timed run: prints "cpu wall peak_kb". CPU is perf's task-clock (user + system, in
# milliseconds) when perf is installed; GNU time's user and system seconds (printed to
# 10 ms, coarse for a process of 60 ms) otherwise. Wall and peak memory from GNU time.
if command -v perf >/dev/null && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then
  timed() {
    perf stat -x, -e task-clock -o "$work/perf" /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>&1
    cpu=$(awk -F, '/task-clock/ {printf "%.4f", $1 / 1000}' "$work/perf")
    awk -v cpu="$cpu" '{printf "%s %.3f %d\n", cpu, $1, $2}' "$work/time"
  }
else
  timed() { /usr/bin/time -f '%U %S %e %M' -o "$work/time" "$@" >/dev/null 2>&1; awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$work/time"; }
fi

: > "$work/ours"; : > "$work/theirs"
for _ in $(seq "$runs"); do
  timed "$bin" score --dataset "$dataset" --results "$results" --out "$work/wildtool" --model-name model ${JOBS:+--jobs "$JOBS"} >> "$work/ours"
  (cd "$work/official" && timed "$python" -m wtb.eval_runner --model model) >> "$work/theirs"
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { awk -v c="$2" '{print $c}' "$1" | median; }
printf '%-26s %10s %10s %12s\n' "" "cpu s" "wall s" "peak MiB"
for who in ours theirs; do
  name=$([ $who = ours ] && echo "wildtool score" || echo "official eval_runner")
  printf '%-26s %10s %10s %12.1f\n' "$name" "$(col "$work/$who" 1)" "$(col "$work/$who" 2)" "$(echo "$(col "$work/$who" 3) / 1024" | bc -l)"
done
echo "CPU ratio (official / wildtool): $(echo "$(col "$work/theirs" 1) / $(col "$work/ours" 1)" | bc -l | cut -c1-5)× (medians of $runs runs each, $(wc -c < "$results") bytes of results)"
if cmp -s "$work/wildtool/score.jsonl" "$work/official/score/model/Wild-Tool-Bench_score.jsonl" \
  && cmp -s "$work/wildtool/metric.json" "$work/official/score/model/Wild-Tool-Bench_metric.json"; then
  echo "score.jsonl and metric.json: byte-identical"
else
  echo "score.jsonl or metric.json DIFFER" >&2; exit 1
fi
