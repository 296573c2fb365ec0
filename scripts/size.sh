#!/usr/bin/env bash
# Measures the app shell (HTML + JS + CSS + WASM, each gzip -9) against the 400 KB budget.
# Run after scripts/build-web.sh. Exits 1 when over budget. Not part of the shell: www/data/
# (datasets, leaderboard, jieba's dictionary), www/pkg/jieba/ (the segmenter module,
# loaded together with the dictionary only when Chinese text must be segmented) and
# www/pkg/lab/ (the lab module, loaded the first time the page needs one of its views)
# www/pkg/scorer/ (the upload scorer, loaded by the worker on the first upload) and
# www/js/workers/ (the workers' scripts, fetched when a worker starts: the lab module's on
# its first call, the scoring worker for an upload); their sizes are reported below the
# shell's.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=$((400 * 1024))
[ -f www/pkg/wildtool_bg.wasm ] || { echo "www/pkg is missing: run scripts/build-web.sh first" >&2; exit 2; }
total_raw=0; total_gz=0
printf '%-32s %10s %10s\n' file bytes gzip-9
while IFS= read -r f; do
  raw=$(wc -c < "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  printf '%-32s %10d %10d\n' "${f#www/}" "$raw" "$gz"
done < <(find www -path www/pkg/jieba -prune -o -path www/pkg/lab -prune -o -path www/pkg/scorer -prune -o -path www/js/workers -prune -o -path www/data -prune -o -type f \( -name '*.html' -o -name '*.js' -o -name '*.css' -o -name '*.wasm' \) -print | sort)
printf '%-32s %10d %10d\n' TOTAL "$total_raw" "$total_gz"
awk -v t="$total_gz" -v b="$BUDGET" 'BEGIN { printf "app shell: %.1f KB gzip of %d KB budget\n", t / 1024, b / 1024 }'
# A lazily loaded module's size, reported beside the shell's.
lazy() {
  local dir=$1 what=$2 raw=0 gz=0
  [ -d "$dir" ] || return 0
  while IFS= read -r f; do
    raw=$((raw + $(wc -c < "$f"))); gz=$((gz + $(gzip -9 -c "$f" | wc -c)))
  done < <(find "$dir" -type f \( -name '*.js' -o -name '*.wasm' \) -print | sort)
  awk -v r="$raw" -v g="$gz" -v w="$what" 'BEGIN { printf "%s (lazy, not in the shell): %.1f KB, %.1f KB gzip\n", w, r / 1024, g / 1024 }'
}
lazy www/pkg/lab 'lab module'
lazy www/pkg/scorer 'upload scorer'
lazy www/js/workers 'worker scripts'
# The ledger environment lives in the lab module only: none of its strings is in the shell.
if grep -a -q -e 'TXN_NOT_FOUND' -e 'wildtool-ledger-env/' www/pkg/wildtool_bg.wasm; then
  echo "the ledger environment is in the app shell's module" >&2; exit 1
fi
[ "$total_gz" -le "$BUDGET" ] || { echo "over budget" >&2; exit 1; }
