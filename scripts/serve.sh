#!/usr/bin/env bash
# Builds the page, then serves www/ on 127.0.0.1 (port: first argument, $PORT or 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-web.sh
exec node scripts/serve.mjs "$@"
