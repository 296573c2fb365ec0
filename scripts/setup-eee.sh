#!/usr/bin/env bash
# Installs the Every Eval Ever validator (the every-eval-ever package from PyPI, which
# needs Python >= 3.12) into the ignored virtualenv .venv-eee, idempotently. The tests
# run its own validator (`python -m every_eval_ever.validate`) on wildtool's exports as a
# separate process; they are skipped with a note when the virtualenv is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.3.0
if ! .venv-eee/bin/python -c 'import every_eval_ever.validate' 2>/dev/null; then
  PY=""
  for c in python3.12 python3.13 "$HOME/.pyenv/versions/3.12.1/bin/python"; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
      PY="$c"
      break
    fi
  done
  if [ -z "$PY" ]; then
    echo "[setup] every-eval-ever needs Python >= 3.12; none found" >&2
    exit 1
  fi
  printf '[setup] %s\n' "every-eval-ever $VERSION into .venv-eee ($PY)" >&2
  "$PY" -m venv .venv-eee
  .venv-eee/bin/pip install --quiet "every-eval-ever==$VERSION"
fi
