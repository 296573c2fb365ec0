#!/usr/bin/env python3
"""Differential case generator for wildtool's `json` module (run with CPython 3.11).

Writes JSONL lines {"input": s, "ok": json.dumps(json.loads(s))} or {"input": s, "err":
str(JSONDecodeError)} or {"input": s, "other": exception name} for random JSON-ish text,
mutated documents, float literals and escape-heavy strings. Inputs whose parse result holds
a lone surrogate are skipped (wildtool's documented U+FFFD deviation).

    python3 fuzz/json_cpython_cases.py SEED > /tmp/cases.jsonl
    WILDTOOL_JSON_DIFF=/tmp/cases.jsonl cargo test --test json_parity differential -- --ignored
"""
import json
import random
import struct
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
ALPHA = list('[]{}",:0123456789eE.+-ntrufalsNIiy \\u\t\n\rdD8FcA/bx') + ['é', '\x7f', '\x01', '😀', '\u2028']
FRAGS = ['null', 'true', 'false', 'NaN', 'Infinity', '-Infinity', '\\ud83d', '\\ude00', '\\u00e9',
         '1e400', '-0', '0.5', '{"a":', '[1,', '"x"', '\\"', '12345678901234567890123']
STR_ALPHA = list('abcdefgh é😀中') + ['\\n', '\\"', '\\u00e9', '\\ud83d\\ude00', '\x01', '\n', '\x1f', '\\', '"']


def random_text():
    s = ''.join(rng.choice(FRAGS) if rng.random() < 0.3 else rng.choice(ALPHA)
                for _ in range(rng.randint(0, 12)))
    if rng.random() < 0.3:
        try:
            doc = json.dumps(json.loads(s))
        except Exception:
            doc = json.dumps({"k": [1, 2.5, "s\u00e9", None, {"z": True}]})
        j = rng.randint(0, len(doc))
        s = doc[:j] + (rng.choice(ALPHA) if rng.random() < 0.5 else '') + doc[j + rng.randint(0, 2):]
    return s


def random_float_literal():
    r = rng.random()
    if r < 0.4:
        x = struct.unpack('<d', struct.pack('<Q', rng.getrandbits(64)))[0]
    elif r < 0.7:
        x = rng.uniform(1e15, 1e18) * rng.choice([1, -1])
    else:
        x = float('%de%d' % (rng.randint(1, 99999), rng.randint(-330, 305)))
    if x != x or x in (float('inf'), float('-inf')):
        return '1.5'
    return repr(x) if rng.random() < 0.5 else '%.17e' % x


def random_string_literal():
    body = ''.join(rng.choice(STR_ALPHA) if rng.random() < 0.15 else rng.choice('abcdefghij klmnop')
                   for _ in range(rng.randint(0, 60)))
    return '"' + body + ('"' if rng.random() < 0.9 else '')


for _ in range(30000):
    s = rng.choice([random_text, random_text, random_float_literal, random_string_literal])()
    rec = {"input": s}
    try:
        v = json.loads(s)
        try:
            json.dumps(v, ensure_ascii=False).encode('utf-8')
        except UnicodeEncodeError:
            continue
        rec["ok"] = json.dumps(v)
    except json.JSONDecodeError as e:
        rec["err"] = str(e)
    except Exception as e:  # ValueError (int digits limit), RecursionError
        rec["other"] = type(e).__name__
    print(json.dumps(rec))
