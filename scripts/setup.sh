#!/usr/bin/env bash
# Installs the build and test prerequisites, idempotently:
#   rustup target wasm32-unknown-unknown, wasm-bindgen-cli at the version pinned in
#   Cargo.lock, the npm devDependencies (binaryen's wasm-opt, playwright-core) and,
#   with --browser, Debian's chromium + chromium-driver.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
log() { printf '[setup] %s\n' "$*" >&2; }

if [ "${1:-}" = "--browser" ]; then
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    log "installing chromium and chromium-driver (apt)"
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium chromium-driver
  fi
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

WB_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
if [ -z "$WB_VERSION" ]; then
  log "cannot find the wasm-bindgen version in Cargo.lock"; exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WB_VERSION" ] \
   || ! command -v wasm-bindgen-test-runner >/dev/null; then
  log "installing wasm-bindgen-cli $WB_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -f node_modules/.package-lock.json ] \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund
fi
