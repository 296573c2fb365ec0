#!/usr/bin/env python3
"""Code bytes of a wasm module per crate (or per path prefix), from its name section.

A dev tool for the app shell's budget (docs/page-modules.md): build the module with names
kept (wasm-bindgen keeps the name section; run wasm-opt with -g), then

    python3 scripts/shell-profile.py www/pkg/wildtool_bg.wasm            # per crate
    python3 scripts/shell-profile.py FILE --depth 2                       # per crate::module
    python3 scripts/shell-profile.py FILE --top 40                        # largest functions
    python3 scripts/shell-profile.py FILE --grep serde                    # functions matching

A generic instantiation is counted under the crate of its self type's path
(`<serde_json::de::Deserializer as ..>::f` is serde_json's); the bytes are the function
bodies' raw sizes in the code section (not gzip), plus the data section's total.
"""
import argparse
import re
import sys


def leb(buf, i):
    out = shift = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return out, i


def sections(buf):
    if buf[:4] != b"\0asm":
        sys.exit("not a wasm module")
    i = 8
    while i < len(buf):
        sid = buf[i]
        size, j = leb(buf, i + 1)
        yield sid, buf[j : j + size]
        i = j + size


def imported_funcs(body):
    n, i = leb(body, 0)
    count = 0
    for _ in range(n):
        for _ in range(2):  # module, field
            ln, i = leb(body, i)
            i += ln
        kind = body[i]
        i += 1
        if kind == 0:
            _, i = leb(body, i)
            count += 1
        elif kind == 1:  # table: reftype + limits
            i += 1
            flags, i = leb(body, i)
            _, i = leb(body, i)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 2:  # memory
            flags, i = leb(body, i)
            _, i = leb(body, i)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 3:  # global
            i += 2
        elif kind == 4:  # tag
            i += 1
            _, i = leb(body, i)
    return count


def names(body):
    i = 0
    out = {}
    while i < len(body):
        sub = body[i]
        size, j = leb(body, i + 1)
        if sub == 1:
            n, k = leb(body, j)
            for _ in range(n):
                idx, k = leb(body, k)
                ln, k = leb(body, k)
                out[idx] = body[k : k + ln].decode("utf-8", "replace")
                k += ln
        i = j + size
    return out


ESC = {"$LT$": "<", "$GT$": ">", "$u20$": " ", "$RF$": "&", "$BP$": "*", "$C$": ",",
       "$u7b$": "{", "$u7d$": "}", "$u5b$": "[", "$u5d$": "]", "$u27$": "'", "$u3b$": ";",
       "$u21$": "!", "$u22$": '"', "$u2b$": "+", "$u3d$": "="}


def demangle(name):
    """Rust's legacy mangling (_ZN...E) to a path; other names as they are."""
    m = re.match(r"^_?_ZN(.*)E$", name)
    if not m:
        return name
    s, parts, i = m.group(1), [], 0
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        ln = int(s[i:j])
        parts.append(s[j : j + ln])
        i = j + ln
    if parts and re.match(r"^h[0-9a-f]{16}$", parts[-1]):
        parts.pop()
    path = "::".join(parts)
    for k, v in ESC.items():
        path = path.replace(k, v)
    path = path.replace("..", "::")
    return path.lstrip("_")


def owner(path, depth):
    p = path
    while p.startswith(("<", "&", "*", " ", "(", "[")):
        p = p.lstrip("<&*([ ")
        if p.startswith("mut "):
            p = p[4:]
        if p.startswith("dyn "):
            p = p[4:]
    segs = re.split(r"::", re.split(r"[ <>,()\[\]]", p, maxsplit=1)[0] if depth == 1 else p)
    segs = [re.split(r"[ <>,()\[\];]", s)[0] for s in segs]
    key = "::".join(s for s in segs[:depth] if s)
    return key or path[:40]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wasm")
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--grep", default="")
    ap.add_argument("--rows", type=int, default=40)
    a = ap.parse_args()
    buf = open(a.wasm, "rb").read()
    nimp, code, nm, data = 0, None, {}, 0
    for sid, body in sections(buf):
        if sid == 2:
            nimp = imported_funcs(body)
        elif sid == 10:
            code = body
        elif sid == 11:
            data = len(body)
        elif sid == 0:
            ln, k = leb(body, 0)
            if body[k : k + ln] == b"name":
                nm = names(body[k + ln :])
    if code is None:
        sys.exit("no code section")
    n, i = leb(code, 0)
    funcs = []
    for f in range(n):
        size, j = leb(code, i)
        full = nm.get(nimp + f, f"func{nimp + f}")
        funcs.append((size + (j - i), demangle(full)))
        i = j + size
    total = sum(s for s, _ in funcs)
    print(f"{a.wasm}: {len(buf)} B; code {total} B in {len(funcs)} functions; data {data} B;"
          f" {len(nm)} names")
    if a.grep:
        rx = re.compile(a.grep)
        hits = sorted(((s, p) for s, p in funcs if rx.search(p)), reverse=True)
        print(f"{sum(s for s, _ in hits)} B in {len(hits)} functions matching {a.grep!r}")
        for s, p in hits[: a.top or a.rows]:
            print(f"{s:8d}  {p[:160]}")
        return
    if a.top:
        for s, p in sorted(funcs, reverse=True)[: a.top]:
            print(f"{s:8d}  {p[:160]}")
        return
    by = {}
    for s, p in funcs:
        k = owner(p, a.depth)
        c = by.setdefault(k, [0, 0])
        c[0] += s
        c[1] += 1
    for k, (s, c) in sorted(by.items(), key=lambda kv: -kv[1][0])[: a.rows]:
        print(f"{s:8d} {100 * s / total:5.1f}% {c:5d}  {k}")


if __name__ == "__main__":
    main()
