#!/usr/bin/env bash
# The project's single test command: installs prerequisites, then runs the native
# tests, the wasm-bindgen tests in headless Chromium, builds the page, checks its size
# and runs the end-to-end suite (last, so the output ends with node's test summary).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# Each step says how long the one before it took, so a slow step is seen in the log.
last=$SECONDS
step() {
  if [ -n "${current:-}" ]; then printf '<== %s: %ss\n' "$current" $((SECONDS - last)); fi
  current="$*"; last=$SECONDS
  printf '\n==> %s\n' "$*"
}

step "prerequisites"
bash scripts/setup.sh --browser
bash scripts/setup-junit.sh
bash scripts/setup-eee.sh

step "format and lints (rustfmt, clippy native and wasm32)"
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p wildtool-core -p wildtool-ui -p wildtool-web -p wildtool-lab -p wildtool-jieba --all-targets --target wasm32-unknown-unknown -- -D warnings

step "native tests (cargo test --workspace)"
cargo test --workspace

# The two long checks reuse the debug build of the step before (a release build of the
# workspace cost 8 of their 10 minutes; the checks themselves take about as long either way).
step "10,000 generated sessions over random seeds and factors: valid, gold agent scores all"
cargo test -p wildtool-core --test it generate::ten -- --ignored

step "ledger environment oracle: Beancount 3.2.3's checks (one separate process) on the suite's and 2,000 chaos ledgers"
bash scripts/ledger-oracle.sh

step "WebAssembly tests in headless Chromium (wasm-bindgen-test)"
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_ONLY_WEB=1 \
  cargo test -p wildtool-web --target wasm32-unknown-unknown --test web_wasm

step "runner browser transport in headless Chromium, against the CORS mock"
bash scripts/test-runner-wasm.sh

step "build the page"
bash scripts/build-web.sh

step "app shell size"
bash scripts/size.sh

step "end-to-end tests (node --test)"
printf '(%ss since the start)\n' "$SECONDS"
node --test tests/e2e/
