//! The architecture's invariants (ARCHITECTURE.md, "Invariants"), checked mechanically so a
//! regression fails the build instead of eroding the design quietly.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Crates that do IO or belong to a front end; none may be in the core's dependency tree.
const FORBIDDEN_IN_CORE: &[&str] = &[
    "wasm-bindgen",
    "wasm-bindgen-futures",
    "web-sys",
    "js-sys",
    "gloo",
    "gloo-timers",
    "gloo-net",
    "gloo-file",
    "ureq",
    "clap",
    "indicatif",
    "ctrlc",
    "getrandom",
];

fn core_tree(target: Option<&str>) -> Vec<String> {
    tree("wildtool-core", target)
}

fn tree(package: &str, target: Option<&str>) -> Vec<String> {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root()).args([
        "tree", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}",
    ]);
    if let Some(t) = target {
        cmd.args(["--target", t]);
    }
    let out = cmd.output().expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn the_core_depends_on_no_io_or_front_end_crate() {
    for target in [None, Some("wasm32-unknown-unknown")] {
        let names = core_tree(target);
        assert!(
            names.iter().any(|n| n == "wildtool-core"),
            "the tree lists the core itself: {names:?}"
        );
        for bad in FORBIDDEN_IN_CORE {
            assert!(
                !names.iter().any(|n| n == bad),
                "{bad} is in wildtool-core's dependency tree ({target:?})"
            );
        }
    }
}

#[test]
fn the_element_tree_crate_is_pure_and_the_lab_module_stays_out_of_the_app_shell() {
    for target in [None, Some("wasm32-unknown-unknown")] {
        let ui = tree("wildtool-ui", target);
        assert!(ui.iter().any(|n| n == "wildtool-ui"), "{ui:?}");
        for bad in FORBIDDEN_IN_CORE {
            assert!(
                !ui.iter().any(|n| n == bad),
                "{bad} is in wildtool-ui's dependency tree ({target:?})"
            );
        }
        // The page's main module reaches the lab module only through its JSON calls.
        let web = tree("wildtool-web", target);
        assert!(web.iter().any(|n| n == "wildtool-ui"), "{web:?}");
        assert!(
            !web.iter().any(|n| n == "wildtool-lab"),
            "wildtool-lab is linked into the page's main module ({target:?})"
        );
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("readable source dir")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Source lines that are code (comments and doc comments stripped, roughly).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        let code = l.split("//").next().unwrap_or("");
        (!code.trim().is_empty()).then_some((i + 1, code))
    })
}

#[test]
fn the_core_sources_do_no_io_and_read_no_clock() {
    const FORBIDDEN: &[&str] = &[
        "std::fs",
        "std::net",
        "std::io::stdin",
        "std::io::stdout",
        "std::io::stderr",
        "println!",
        "eprintln!",
        "std::process",
        "std::thread",
        "std::env",
        "Instant::now",
        "SystemTime",
        "web_sys",
        "js_sys",
        "wasm_bindgen",
    ];
    let mut files = Vec::new();
    rust_files(&root().join("crates/core/src"), &mut files);
    assert!(files.len() > 50, "found the core sources");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("utf-8 source");
        for (n, line) in code_lines(&text) {
            for bad in FORBIDDEN {
                if line.contains(bad) {
                    found.push(format!("{}:{n}: {bad}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "IO or clock in the core:\n{}",
        found.join("\n")
    );
}

#[test]
fn rustdoc_names_no_process_vocabulary() {
    let mut files = Vec::new();
    for dir in ["crates", "src"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("utf-8 source");
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if !(t.starts_with("//") || t.starts_with("#[doc")) {
                continue;
            }
            let lower = t.to_lowercase();
            let issue_ref = lower
                .match_indices("issue ")
                .any(|(i, m)| lower[i + m.len()..].starts_with(|c: char| c.is_ascii_digit()));
            // `wt-id` and `wt-recurring` are the ledger format's own names.
            let names = lower.replace("wt-id", "").replace("wt-recurring", "");
            if issue_ref || lower.contains("(branch ") || names.contains("wt-") {
                found.push(format!("{}:{}: {}", file.display(), i + 1, t));
            }
        }
    }
    assert!(
        found.is_empty(),
        "process vocabulary in comments:\n{}",
        found.join("\n")
    );
}

/// The runner's top-level modules and the sibling modules each one imports
/// (`super::x`, `super::super::x` from submodules, `crate::runner::x`).
fn runner_imports() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let dir = root().join("crates/core/src/runner");
    let mut modules = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("runner dir").flatten() {
        let path = entry.path();
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == "mod" {
            continue;
        }
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path.clone());
        } else {
            continue;
        }
        modules.insert(name, files);
    }
    let names: Vec<String> = modules.keys().cloned().collect();
    let mut graph = std::collections::BTreeMap::new();
    for (name, files) in &modules {
        let mut deps = std::collections::BTreeSet::new();
        for file in files {
            // Code only; tests may use anything.
            if file.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(file).expect("utf-8 source");
            let code = text
                .find("#[cfg(test)]\nmod tests {")
                .map_or(text.as_str(), |i| &text[..i]);
            for (_, line) in code_lines(code) {
                for other in &names {
                    if other == name {
                        continue;
                    }
                    let hit = [
                        format!("super::{other}::"),
                        format!("super::{other}}}"),
                        format!("super::{other};"),
                        format!("super::{other},"),
                        format!("super::super::{other}::"),
                        format!("crate::runner::{other}::"),
                    ]
                    .iter()
                    .any(|p| line.contains(p.as_str()));
                    let braced =
                        line.contains("use super::{") || line.contains("use super::super::{");
                    let in_brace = braced
                        && line
                            .split(['{', '}', ',', ' '])
                            .any(|w| w == other || w.starts_with(&format!("{other}::")));
                    if hit || in_brace {
                        deps.insert(other.clone());
                    }
                }
            }
        }
        graph.insert(name.clone(), deps);
    }
    graph
}

#[test]
fn the_runner_modules_import_each_other_without_cycles() {
    let graph = runner_imports();
    assert!(graph.contains_key("engine") && graph.contains_key("driver"));
    assert!(
        graph["engine"].contains("checkpoint") && graph["driver"].contains("retry"),
        "the import scan sees imports: {graph:?}"
    );
    // Kahn's algorithm: every module must be removable (no cycle).
    let mut left = graph.clone();
    loop {
        let ready: Vec<String> = left
            .iter()
            .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
            .map(|(n, _)| n.clone())
            .collect();
        if ready.is_empty() {
            break;
        }
        for n in ready {
            left.remove(&n);
        }
    }
    assert!(
        left.is_empty(),
        "import cycle among runner modules: {left:?}"
    );
    for low in [
        "provider",
        "http",
        "policy",
        "exec",
        "checkpoint",
        "retry",
        "driver",
    ] {
        assert!(
            !graph[low].contains("engine"),
            "{low} imports the engine (layers point one way)"
        );
    }
}

/// The page's own JavaScript (`www/`, not the generated `www/pkg`): path and text.
fn page_js() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if name != "pkg" && name != "data" {
                    walk(&p, out);
                }
            } else if name.ends_with(".js") || name.ends_with(".mjs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("www"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            (p, text)
        })
        .collect()
}

/// The page's JavaScript builds DOM, wires events and does IO; everything else is Rust.
const JS_LINE_BUDGET: usize = 900;

#[test]
fn the_page_javascript_stays_small() {
    let files = page_js();
    assert!(files.len() >= 3, "www/ JS files: {files:?}");
    let lines: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    assert!(
        lines <= JS_LINE_BUDGET,
        "www/ JavaScript is {lines} lines (budget {JS_LINE_BUDGET})"
    );
}

#[test]
fn the_page_javascript_knows_no_file_format_and_counts_nothing() {
    // Official field names, wildtool's own formats, and the decisions that come with them.
    const FORBIDDEN: &[&str] = &[
        "inference_log",
        "inference_output",
        "inference_answer",
        "inference_input",
        "action_name_label",
        "action_arguments",
        "candidate_",
        "answer_list",
        "english_tasks",
        "task_types",
        "turn_subtypes",
        "wildtool_checkpoint",
        "wildtool_run",
        "result_jsonl",
        "model_name",
        "is_optimal",
        "score.jsonl",
        "metric.json",
        "total_info",
        "task_accuracy",
        "correct_count",
        "fingerprint",
        "outcomes",
        "tool_calls",
        "JSON.stringify",
        "runReport",
        "scoreLine",
    ];
    for (path, text) in page_js() {
        for word in FORBIDDEN {
            assert!(
                !text.contains(word),
                "{} mentions {word:?}: formats and counting belong to Rust",
                path.display()
            );
        }
    }
}

#[test]
fn the_page_has_no_html_string_sinks_or_eval() {
    const SINKS: &[&str] = &[
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
        "srcdoc",
        "setAttribute('on",
        "createContextualFragment",
    ];
    let mut files = page_js();
    files.push((
        root().join("www/index.html"),
        std::fs::read_to_string(root().join("www/index.html")).unwrap_or_default(),
    ));
    for (path, text) in files {
        for sink in SINKS {
            assert!(!text.contains(sink), "{} uses {sink}", path.display());
        }
    }
}

/// The ledger environment never enters the page's main module, and the run engine and
/// the protocol never import it: the page's sources and the core's `runner` and
/// `protocol` trees name no `ledger` path (an environment's answers reach the engine
/// only as JSON values through `handle_env_result`). `scripts/size.sh` also checks the
/// built app shell for the environment's strings.
#[test]
fn the_ledger_stays_out_of_the_engine_and_the_page_shell() {
    let mut found = Vec::new();
    let dirs = [
        root().join("crates/web/src"),
        root().join("crates/core/src/runner"),
        root().join("crates/core/src/protocol"),
    ];
    for dir in &dirs {
        let mut files = Vec::new();
        rust_files(dir, &mut files);
        assert!(!files.is_empty(), "{} has sources", dir.display());
        for file in &files {
            let text = std::fs::read_to_string(file).expect("utf-8 source");
            for (n, line) in code_lines(&text) {
                let code = line.split("//").next().unwrap_or("");
                if code.contains("ledger::") || code.contains("ledger;") || code.contains("ledger}")
                {
                    found.push(format!("{}:{n}: {line}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the ledger is imported outside the lab side:\n{}",
        found.join("\n")
    );
}
