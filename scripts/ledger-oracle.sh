#!/usr/bin/env bash
# The ledger environment's independent oracle: Beancount's own checker (PyPI
# beancount==3.2.3, GPL-2.0, run only as a separate process — never linked, vendored or
# copied) judges what wildtool's ledger environment writes. One Python process
# (scripts/ledger_oracle.py) loads every file with Beancount's loader exactly as
# bean-check does (hard-core validations; any error fails the file), instead of one
# bean-check process per file; a deliberately unbalanced ledger in every batch must fail:
#   1. every initial and expected ledger of the bundled suite's ledger sessions;
#   2. every ledger the gold agent leaves;
#   3. a seeded chaos agent's ~2,000 ledgers: our checker's verdict (valid, or the set of
#      error classes) equals Beancount's;
#   4. sampled ledger_balance / ledger_spending answers equal sums from Beancount's loader.
# (5, the reader against the beancount-parser crate, runs in `cargo test`.)
# Idempotent: the virtual environment .venv-ledger (ignored) is created once.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-ledger
if ! "$VENV/bin/python" -c 'import beancount, sys; sys.exit(beancount.__version__ != "3.2.3")' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'beancount==3.2.3'
fi
export WILDTOOL_LEDGER_PYTHON="$PWD/$VENV/bin/python"
cargo test --test it ledger_oracle -- --ignored --nocapture
