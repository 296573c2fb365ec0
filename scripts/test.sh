#!/usr/bin/env bash
# The project's single test command: installs prerequisites, then runs the native
# tests, the wasm-bindgen tests in headless Chromium, builds the page, checks its size
# and runs the end-to-end suite (last, so the output ends with node's test summary).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '\n==> %s\n' "$*"; }

step "prerequisites"
bash scripts/setup.sh --browser

step "format and lints (rustfmt, clippy)"
cargo fmt --check
cargo clippy --all-targets -- -D warnings

step "native tests (cargo test)"
cargo test

step "WebAssembly tests in headless Chromium (wasm-bindgen-test)"
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_ONLY_WEB=1 \
  cargo test --target wasm32-unknown-unknown --no-default-features --test web_wasm

step "runner browser transport in headless Chromium, against the CORS mock"
bash scripts/test-runner-wasm.sh

step "build the page"
bash scripts/build-web.sh

step "app shell size"
bash scripts/size.sh

step "end-to-end tests (node --test)"
node --test tests/e2e/
