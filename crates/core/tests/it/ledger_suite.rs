//! The bundled suite's ledger sessions: every `ledger_env` loads, every gold call is
//! implemented, and strict replay holds byte for byte — the observations of the ledger
//! tools in `data/suite.jsonl` are what the environment computes. `WILDTOOL_BLESS=1`
//! rewrites them in `data/suite-src/10-finance-ledger.json` (then run
//! `python3 data/build_suite.py`), printing every value that changed.

use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::json::{dump_indent, dumps, loads, Escape, Value};
use wildtool_core::ledger::run_file::SessionEnv;
use wildtool_core::ledger::scenario::has_scenario;
use wildtool_core::ledger::tools::is_implemented;

fn root(path: &str) -> String {
    crate::support::root()
        .join(path)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn ledger_suite_strict_replay_holds() {
    let text = std::fs::read_to_string(root("data/suite.jsonl")).expect("suite");
    let loaded = load_dataset(&text, Lang::En);
    let bless = std::env::var_os("WILDTOOL_BLESS").is_some();
    let src_path = root("data/suite-src/10-finance-ledger.json");
    let mut src = loads(&std::fs::read_to_string(&src_path).expect("source")).expect("json");
    let mut problems = Vec::new();
    let mut changed = 0;
    let mut envs = 0;
    for s in loaded.sessions.iter().filter(|s| has_scenario(s)) {
        envs += 1;
        let env = match SessionEnv::of(s) {
            Ok(Some(e)) => e,
            Ok(None) => unreachable!(),
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        for c in &env.replay.calls {
            if !is_implemented(&c.name) {
                problems.push(format!(
                    "{} task {}: {} is not implemented",
                    s.id, c.task, c.name
                ));
            }
            if c.outcome.result.get("status").and_then(Value::as_str) == Some("error") {
                problems.push(format!(
                    "{} task {} node {} ({}): the gold call fails: {}",
                    s.id,
                    c.task,
                    c.node,
                    c.name,
                    dumps(&c.outcome.result, Escape::Utf8)
                ));
            }
            if c.matches_bytes() {
                continue;
            }
            changed += 1;
            if bless {
                println!(
                    "{} task {} node {} {}:\n  was {}\n  now {}",
                    s.id,
                    c.task,
                    c.node,
                    c.name,
                    dumps(&c.recorded, Escape::Utf8),
                    dumps(&c.outcome.result, Escape::Utf8)
                );
                let node = src
                    .as_array_mut()
                    .and_then(|a| a.get_mut(s.index))
                    .and_then(|v| v.as_object_mut())
                    .and_then(|v| v.get_mut("answer_list"))
                    .and_then(|v| v.as_array_mut())
                    .and_then(|a| a.get_mut(c.task))
                    .and_then(|v| v.as_array_mut())
                    .and_then(|a| a.get_mut(c.node))
                    .and_then(|v| v.as_object_mut())
                    .expect("the source holds the node");
                node.insert("observation", c.outcome.result.clone());
            } else {
                problems.push(format!(
                    "{} task {} node {} ({}): the dataset says\n    {}\n  the environment computes\n    {}",
                    s.id,
                    c.task,
                    c.node,
                    c.name,
                    dumps(&c.recorded, Escape::Utf8),
                    dumps(&c.outcome.result, Escape::Utf8)
                ));
            }
        }
    }
    assert_eq!(envs, 16, "the 16 finance-ledger sessions carry ledger_env");
    // The canonical bytes, which the WebAssembly test (crates/web/tests/web_wasm.rs)
    // compares with the same file.
    let digests = wildtool_core::ledger::run_file::suite_digests(&text);
    let fixture = root("tests/fixtures/ledger-canonical.txt");
    if bless || !std::path::Path::new(&fixture).exists() {
        std::fs::write(&fixture, &digests).expect("write digests");
    }
    assert_eq!(
        std::fs::read_to_string(&fixture).expect("digests"),
        digests,
        "tests/fixtures/ledger-canonical.txt is stale (WILDTOOL_BLESS=1 cargo test -p wildtool-core --test it ledger_suite)"
    );
    if bless && changed > 0 {
        std::fs::write(&src_path, dump_indent(&src, 1)).expect("write source");
        panic!("blessed {changed} observation(s); now run python3 data/build_suite.py and re-run the tests");
    }
    assert!(
        problems.is_empty(),
        "strict replay fails (WILDTOOL_BLESS=1 cargo test -p wildtool-core --test it ledger_suite regenerates the observations):\n{}",
        problems.join("\n")
    );
}
