"""The ledger oracle's helper, run only as a separate process by scripts/ledger-oracle.sh
(through the ledger_oracle test). It uses Beancount 3.2.3 (GPL-2.0) as a program: nothing
of it is linked into, vendored in or copied to wildtool.

Reads a manifest (JSON: [{"path", "queries"?: [{"account", "from"?, "to"?}]}]) on stdin and
writes, for each ledger, what Beancount's loader reports the way bean-check runs it
(loader.load_file with the hard-core validations; bean-check fails a file on any of these
errors): the error messages, and for each query
the sum per currency of the postings to the account and its sub-accounts in the date
range (inclusive), from Beancount's realization of the entries.
"""
import datetime
import json
import sys

from beancount import loader
from beancount.core import data, realization
from beancount.ops import validation


def day(s):
    return datetime.date.fromisoformat(s) if s else None


def answer(entries, q):
    lo, hi = day(q.get("from")), day(q.get("to"))
    chosen = [
        e for e in entries
        if isinstance(e, data.Transaction)
        and (lo is None or e.date >= lo)
        and (hi is None or e.date <= hi)
    ]
    root = realization.realize(chosen)
    node = realization.get(root, q["account"])
    if node is None:
        return {}
    inv = realization.compute_balance(node)
    return {pos.units.currency: str(pos.units.number) for pos in inv}


def main():
    loader.initialize(use_cache=False)
    out = []
    for item in json.load(sys.stdin):
        entries, errors, _ = loader.load_file(
            item["path"], extra_validations=validation.HARDCORE_VALIDATIONS
        )
        out.append({
            "errors": [e.message for e in errors],
            "answers": [answer(entries, q) for q in item.get("queries", [])],
        })
    json.dump(out, sys.stdout)


main()
