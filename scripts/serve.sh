#!/usr/bin/env bash
# Builds the page, then serves www/ on 127.0.0.1 (port: first argument, $PORT or 8080).
# The build's own output (cargo, wasm-bindgen, wasm-opt, first-time installs) goes to
# target/serve-build.log; the terminal gets one line per step, and the log's end when a
# step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
log=target/serve-build.log
: > "$log"
status=0
# Every line goes to the log; the step lines of setup.sh and build-web.sh also to the terminal.
bash scripts/build-web.sh > >(tee -a "$log" | grep --line-buffered -E '^\[(setup|build-web)\]' >&2) 2>&1 || status=$?
# Let the filter drain before printing more.
wait 2>/dev/null || true
if [ "$status" -ne 0 ]; then
  echo "[serve] the build failed (exit $status); the last lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit "$status"
fi
echo "[serve] build log: $log" >&2
exec node scripts/serve.mjs "$@"
