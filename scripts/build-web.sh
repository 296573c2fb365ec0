#!/usr/bin/env bash
# Builds the static page into www/: Rust → wasm32 → wasm-bindgen (version pinned in
# Cargo.lock) → wasm-opt (npm binaryen). Installs what it needs, idempotently.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[build-web] %s\n' "$*" >&2; }

# 1. Rust target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen CLI at exactly the version of the wasm-bindgen crate in Cargo.lock.
WB_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
if [ -z "$WB_VERSION" ]; then
  log "cannot find the wasm-bindgen version in Cargo.lock"; exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WB_VERSION" ]; then
  log "installing wasm-bindgen-cli $WB_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

# 3. Node tooling (binaryen's wasm-opt, playwright-core) from package-lock.json.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -f node_modules/.package-lock.json ] \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund
fi

# 4. Compile, bind, optimise.
log "cargo build (wasm32, release)"
cargo build --lib --target wasm32-unknown-unknown --release --no-default-features
rm -rf www/pkg
wasm-bindgen --target web --no-typescript --out-dir www/pkg --out-name wildtool \
  target/wasm32-unknown-unknown/release/wildtool.wasm
# Features rustc enables by default for wasm32-unknown-unknown (Rust ≥ 1.82 / LLVM 19+).
node_modules/.bin/wasm-opt -Oz \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  www/pkg/wildtool_bg.wasm -o www/pkg/wildtool_bg.wasm
# Reference data the page loads at run time (not part of the app shell).
cp data/paper-leaderboard.json www/pkg/paper-leaderboard.json
log "built www/ ($(wc -c < www/pkg/wildtool_bg.wasm) bytes of wasm)"
