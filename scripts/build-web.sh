#!/usr/bin/env bash
# Builds the static page into www/: Rust → wasm32 → wasm-bindgen (version pinned in
# Cargo.lock) → wasm-opt (npm binaryen). Installs what it needs first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[build-web] %s\n' "$*" >&2; }

bash scripts/setup.sh

# Compile, bind, optimise.
log "cargo build (wasm32, release)"
cargo build --lib --target wasm32-unknown-unknown --release --no-default-features
rm -rf www/pkg
wasm-bindgen --target web --no-typescript --out-dir www/pkg --out-name wildtool \
  target/wasm32-unknown-unknown/release/wildtool.wasm
# Exactly the features rustc enables by default for wasm32-unknown-unknown (the
# module's target_features section; see `wasm-opt --detect-features --print-features`).
node_modules/.bin/wasm-opt -Oz \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  --enable-bulk-memory-opt --enable-call-indirect-overlong \
  www/pkg/wildtool_bg.wasm -o www/pkg/wildtool_bg.wasm
# Reference data the page loads at run time (not part of the app shell).
cp data/paper-leaderboard.json www/pkg/paper-leaderboard.json
log "built www/ ($(wc -c < www/pkg/wildtool_bg.wasm) bytes of wasm)"
