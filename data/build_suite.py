#!/usr/bin/env python3
"""Builds data/suite.jsonl from the authoring files in data/suite-src/.

Each authoring file is a JSON array of sessions written with the English-side fields only:
  {"domain", "env_info", "tools", "tasks", "answer_list", "task_types", "turn_subtypes"}
Nodes are {"action": {"name", "arguments"}, "observation", "dependency_list", "user_input"?}.
A session may carry "ledger_env" (wildtool's ledger environment, ignored by the official
code); its "initial_file" (a .beancount file beside the authoring files) is inlined as
"initial". The observations of ledger tools are computed by the environment: after editing
a ledger or a gold call, regenerate them with
  WILDTOOL_BLESS=1 cargo test --test it ledger_suite
and build again.

The builder assigns ids (wild_tool_bench_<line>), node idx fields, and writes every field of
the official format in the official order. The Chinese-side fields are copies of the English
ones (as in the conformance fixtures); wildtool's validator checks the result.

Usage: python3 data/build_suite.py            (writes data/suite.jsonl)
       python3 data/build_suite.py --check    (exit 1 if data/suite.jsonl is stale)
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
FIELDS = ["env_info", "tools", "tasks", "answer_list", "task_types", "turn_subtypes"]


def build():
    lines = []
    for path in sorted((HERE / "suite-src").glob("*.json")):
        sessions = json.loads(path.read_text(encoding="utf-8"))
        for n, s in enumerate(sessions):
            missing = [f for f in FIELDS + ["domain"] if f not in s]
            if missing:
                sys.exit(f"{path.name}: session {n}: missing {missing}")
            answer_list = [
                [dict({"idx": i}, **node) for i, node in enumerate(task)]
                for task in s["answer_list"]
            ]
            out = {"id": f"wild_tool_bench_{len(lines)}"}
            for f in FIELDS:
                out[f] = answer_list if f == "answer_list" else s[f]
            for f in FIELDS:
                out["english_" + f] = answer_list if f == "answer_list" else s[f]
            out["domain"] = s["domain"]
            if "ledger_env" in s:
                env = dict(s["ledger_env"])
                initial = (HERE / "suite-src" / env.pop("initial_file")).read_text(encoding="utf-8")
                out["ledger_env"] = dict({"format": env.pop("format"), "initial": initial}, **env)
            lines.append(json.dumps(out, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def main():
    text = build()
    target = HERE / "suite.jsonl"
    if "--check" in sys.argv:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            sys.exit("data/suite.jsonl is stale: run python3 data/build_suite.py")
        return
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target} ({text.count(chr(10))} sessions)")


if __name__ == "__main__":
    main()
