#!/usr/bin/env bash
# Installs the JUnit parser the tests check wildtool's JUnit files with (junitparser from
# PyPI) into the ignored virtualenv .venv-junit, idempotently.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv-junit/bin/python -c 'import junitparser' 2>/dev/null; then
  printf '[setup] %s\n' "junitparser into .venv-junit" >&2
  python3 -m venv .venv-junit
  .venv-junit/bin/pip install --quiet junitparser==3.2.0
fi
