#!/usr/bin/env bash
# Browser transport of the runner: starts the scripted mock (CORS) on 127.0.0.1, runs the
# wasm-bindgen tests in headless Chromium against it, then stops the mock.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${WILDTOOL_MOCK_PORT:-18765}"
cargo test --test it --no-run >/dev/null 2>&1
WILDTOOL_MOCK_PORT="$PORT" cargo test --test it runner_mock_serve -- --ignored --nocapture >/tmp/wildtool-mock-$PORT.log 2>&1 &
MOCK_PID=$!
trap 'curl -s -X POST "http://127.0.0.1:$PORT/shutdown" >/dev/null 2>&1 || true; wait "$MOCK_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q "mock serving" "/tmp/wildtool-mock-$PORT.log" 2>/dev/null && break
  sleep 0.1
done
WILDTOOL_MOCK_URL="http://127.0.0.1:$PORT" CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_ONLY_WEB=1 \
  cargo test ${WILDTOOL_WASM_PROFILE:-} -p wildtool-web --target wasm32-unknown-unknown --test runner_wasm -- --nocapture
