//! The architecture's invariants (ARCHITECTURE.md, "Invariants"), checked mechanically so a
//! regression fails the build instead of eroding the design quietly.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::import_graph;
use crate::support::root;

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
        // The element tree, the modules' contract and the movable views are pure.
        for krate in ["wildtool-ui", "wildtool-contract", "wildtool-views"] {
            let names = tree(krate, target);
            assert!(names.iter().any(|n| n == krate), "{names:?}");
            for bad in FORBIDDEN_IN_CORE {
                assert!(
                    !names.iter().any(|n| n == bad),
                    "{bad} is in {krate}'s dependency tree ({target:?})"
                );
            }
        }
        // The page's main module reaches the lab module only through its JSON calls, and
        // the upload scorer only through the worker's messages.
        let web = tree("wildtool-web", target);
        assert!(web.iter().any(|n| n == "wildtool-ui"), "{web:?}");
        for other in ["wildtool-lab", "wildtool-scorer"] {
            assert!(
                !web.iter().any(|n| n == other),
                "{other} is linked into the page's main module ({target:?})"
            );
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
    import_graph::rust_files(&root().join("crates/core/src"), &mut files);
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

/// Every comment line (`//`, `///`, `//!`, `#[doc`) of the workspace's Rust sources:
/// file, line number, text.
fn comment_lines() -> Vec<(PathBuf, usize, String)> {
    let mut files = Vec::new();
    for dir in ["crates", "src", "tests", "benches"] {
        import_graph::rust_files(&root().join(dir), &mut files);
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("utf-8 source");
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") || t.starts_with("#[doc") {
                out.push((file.clone(), i + 1, t.to_owned()));
            }
        }
    }
    assert!(out.len() > 1000, "found the comments");
    out
}

#[test]
fn rustdoc_names_no_process_vocabulary() {
    let mut found = Vec::new();
    for (file, n, t) in comment_lines() {
        let lower = t.to_lowercase();
        let issue_ref = lower
            .match_indices("issue ")
            .any(|(i, m)| lower[i + m.len()..].starts_with(|c: char| c.is_ascii_digit()));
        // `wt-id` and `wt-recurring` are the ledger format's own names.
        let names = lower.replace("wt-id", "").replace("wt-recurring", "");
        if issue_ref || lower.contains("(branch ") || names.contains("wt-") {
            found.push(format!("{}:{n}: {t}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "process vocabulary in comments:\n{}",
        found.join("\n")
    );
}

/// The paths a comment names: words with a `/` that start at one of the repository's
/// top-level folders (`crates/web/src/lab/mod.rs`, `data/packs/`), or that name a source or
/// document file (`runner/checkpoint.rs`, `www/js/io.js`). Words with a placeholder
/// (`<name>`, `*`, `{…}`, `DIR/`) are no path.
fn named_paths(comment: &str) -> Vec<String> {
    const TOP: &[&str] = &[
        "crates", "src", "tests", "benches", "data", "www", "scripts", "docs", ".ci",
    ];
    comment
        .split(|c: char| c.is_whitespace() || "`'\"()[],;:".contains(c))
        .map(|w| w.trim_end_matches(['.', ',']))
        .filter(|w| w.contains('/') && !w.contains("//"))
        .filter(|w| !w.contains(['<', '>', '*', '{', '}', '…', '$']))
        .filter(|w| {
            let first = w.split('/').next().unwrap_or("");
            let placeholder = !first.is_empty() && first.chars().all(|c| c.is_ascii_uppercase());
            let file = [".rs", ".md", ".sh", ".js", ".mjs", ".toml"]
                .iter()
                .any(|e| w.ends_with(e));
            !placeholder && (TOP.contains(&first) || file)
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn comments_name_only_paths_that_exist() {
    // Build output and other ignored places exist only after a build.
    const GENERATED: &[&str] = &["www/pkg", "www/data", "target/", "test-artifacts"];
    assert_eq!(
        named_paths("see `crates/lab/src/lib.rs` (`calls!`), data/packs/, OUT/x.json, views/<name>.rs; a/b, x/y.md"),
        ["crates/lab/src/lib.rs", "data/packs/", "x/y.md"]
    );
    let mut found = Vec::new();
    for (file, n, t) in comment_lines() {
        for p in named_paths(&t) {
            if GENERATED.iter().any(|g| p.starts_with(g)) {
                continue;
            }
            // From the repository's root, from a crate's folder or its `src/` (module
            // files are named from there), or from the commenting file's own folder.
            let crate_dir = file
                .ancestors()
                .find(|d| d.join("Cargo.toml").is_file())
                .unwrap_or(&file)
                .to_path_buf();
            let mut bases = vec![
                crate_dir,
                file.parent().map(Path::to_path_buf).unwrap_or_default(),
                root().join("src"),
            ];
            for c in std::fs::read_dir(root().join("crates"))
                .expect("crates/")
                .flatten()
            {
                bases.push(c.path().join("src"));
                bases.push(c.path());
            }
            let rooted = p.split('/').next().is_some_and(|f| root().join(f).exists());
            let exists = if rooted {
                root().join(&p).exists()
            } else {
                bases.iter().any(|b| b.join(&p).exists())
            };
            if !exists {
                found.push(format!("{}:{n}: {p}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "comments name paths that do not exist:\n{}",
        found.join("\n")
    );
}

/// The floors of one table in ARCHITECTURE.md's "Floors" section, ground first: the
/// table whose header row names `heading`, one row per floor, the modules in backticks in
/// its last column.
fn floors_table(heading: &str) -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Floors"))
        .expect("ARCHITECTURE.md has a \"Floors\" section");
    let mut rows = section
        .lines()
        .skip_while(|l| !(l.starts_with('|') && l.contains(heading)))
        .skip(2)
        .take_while(|l| l.starts_with('|'));
    let mut floors = Vec::new();
    for row in rows.by_ref() {
        let last = row.trim_end_matches('|').rsplit('|').next().unwrap_or("");
        let modules: Vec<String> = last
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect();
        floors.push(modules);
    }
    assert!(
        floors.len() > 1,
        "the {heading:?} table lists floors: {floors:?}"
    );
    floors
}

fn assert_floors(graph: &import_graph::Graph, folder: &str, heading: &str) {
    let floors = floors_table(heading);
    let floors: Vec<Vec<&str>> = floors
        .iter()
        .map(|f| f.iter().map(String::as_str).collect())
        .collect();
    let floors: Vec<&[&str]> = floors.iter().map(Vec::as_slice).collect();
    let breaks = import_graph::floor_breaks(graph, folder, &floors);
    assert!(
        breaks.is_empty(),
        "the floors of {heading:?} (ARCHITECTURE.md) do not hold:\n{}",
        breaks.join("\n")
    );
}

#[test]
fn the_core_keeps_to_its_floors_and_no_circle_has_more_than_three_files() {
    let graph = import_graph::crate_graph(&root().join("crates/core/src"));
    // The scan sees imports: a use, a re-export followed to its file, an inline path.
    let sees = |from: &str, to: &str| graph.get(from).is_some_and(|t| t.contains(to));
    assert!(
        sees("runner/engine/mod.rs", "runner/checkpoint.rs"),
        "{graph:?}"
    );
    assert!(sees("score/mod.rs", "input/lines.rs"), "{graph:?}");
    assert!(sees("runner/policy.rs", "runner/registry.rs"), "{graph:?}");
    assert_floors(&graph, "", "core module");
    assert_floors(&graph, "runner/", "runner module");
    let big = import_graph::circles_over(&root().join("crates/core/src"), 3);
    assert!(
        big.is_empty(),
        "circles of more than 3 files in the core:\n{}",
        big.join("\n")
    );
}

/// The page's module (`crates/web/src`): its floors (the "page module" table of
/// ARCHITECTURE.md: ground, shared machinery, features, composition), features seen from
/// outside only through their sub-state types and pure functions, no circle of more than
/// 3 files.
#[test]
fn the_page_keeps_to_its_floors_and_its_features_to_themselves() {
    let src = root().join("crates/web/src");
    let graph = import_graph::crate_graph(&src);
    let sees = |from: &str, to: &str| graph.get(from).is_some_and(|t| t.contains(to));
    assert!(sees("run/update.rs", "state.rs"), "{graph:?}");
    assert!(sees("state.rs", "run/mod.rs"), "{graph:?}");
    assert!(sees("verify/update.rs", "cx.rs"), "{graph:?}");
    let big = import_graph::circles_over(&src, 3);
    assert!(
        big.is_empty(),
        "circles of more than 3 files in the page:\n{}",
        big.join("\n")
    );
    let floors = floors_table("page module");
    let floors: Vec<Vec<&str>> = floors
        .iter()
        .map(|f| f.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        floors.len(),
        4,
        "ground, shared, features, composition: {floors:?}"
    );
    // Handlers written as methods of `AppState` and views of `&AppState` import the
    // composed state: that import is the one allowed upward.
    let below_state: import_graph::Graph = graph
        .iter()
        .map(|(f, ts)| {
            let ts = ts.iter().filter(|t| *t != "state.rs").cloned().collect();
            (f.clone(), ts)
        })
        .collect();
    let as_slices: Vec<&[&str]> = floors.iter().map(Vec::as_slice).collect();
    let mut breaks = import_graph::upward_imports(&below_state, "", &as_slices);
    breaks.extend(import_graph::internal_imports(
        &graph, &floors[2], &floors[3], "state.rs",
    ));
    assert!(
        breaks.is_empty(),
        "the page's floors (ARCHITECTURE.md, \"page module\") do not hold:\n{}",
        breaks.join("\n")
    );
}

#[test]
fn a_feature_seen_through_its_handlers_or_views_is_found() {
    let file = |name: &str, to: &[&str]| {
        (
            name.to_owned(),
            to.iter()
                .map(|t| (*t).to_owned())
                .collect::<std::collections::BTreeSet<_>>(),
        )
    };
    let graph: import_graph::Graph = [
        file("state.rs", &["a/mod.rs", "b/mod.rs"]),
        file("a/mod.rs", &[]),
        file("a/update.rs", &["a/mod.rs"]),
        file("a/panel.rs", &["state.rs"]),
        file("b/mod.rs", &["a/mod.rs"]),
        file("b/update.rs", &["state.rs", "a/update.rs"]),
        file("b/view.rs", &["a/panel.rs"]),
        file("views/mod.rs", &["a/update.rs", "state.rs"]),
    ]
    .into_iter()
    .collect();
    let found =
        import_graph::internal_imports(&graph, &["a", "b"], &["state", "views"], "state.rs");
    assert_eq!(
        found,
        [
            "b/update.rs imports a/update.rs, a handler or view of the feature a",
            "b/view.rs imports a/panel.rs, a handler or view of the feature a"
        ]
    );
}

#[test]
fn the_import_scan_reads_uses_aliases_re_exports_and_skips_tests() {
    let dir = std::env::temp_dir().join(format!("wildtool-graph-{}", std::process::id()));
    let file = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("temp dir");
        std::fs::write(path, text).expect("temp file");
    };
    file(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\nmod d;\npub use c::Thing;\n",
    );
    file(
        "a/mod.rs",
        "mod x;\nmod y;\npub use x::X;\npub struct Shared;\n",
    );
    file("a/x.rs", "use super::Shared;\npub struct X;\n");
    file(
        "a/y.rs",
        "// use crate::b::Gone;\nconst S: &str = \"crate::b::Q\";\npub fn f() -> super::X { crate::c::make() }\n#[cfg(test)]\nmod tests { use crate::b::T; }\n",
    );
    file(
        "b.rs",
        "use crate::{a::X, Thing as T};\npub fn g(_: X, _: T) {}\n",
    );
    file(
        "c.rs",
        "pub struct Thing;\npub fn make() {}\nuse crate::b::g;\n",
    );
    file("d.rs", "use crate::a;\nfn h(_: a::x::X) {}\n");
    let graph = import_graph::crate_graph(&dir);
    std::fs::remove_dir_all(&dir).ok();
    let to = |f: &str| graph[f].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(to("a/x.rs"), ["a/mod.rs"]);
    assert_eq!(
        to("a/y.rs"),
        ["a/x.rs", "c.rs"],
        "re-export followed, comments, strings and tests skipped"
    );
    assert_eq!(to("b.rs"), ["a/x.rs", "c.rs"]);
    assert_eq!(to("c.rs"), ["b.rs"]);
    assert_eq!(
        to("d.rs"),
        ["a/mod.rs", "a/x.rs"],
        "a module brought in by a use"
    );
    assert!(to("lib.rs").is_empty(), "a root's own files stand above it");
    assert_eq!(
        import_graph::circles(&graph),
        [vec!["b.rs".to_owned(), "c.rs".to_owned()]]
    );
}

/// The page's `data-action` vocabulary is the contract's `Action` and `FileAction`: views
/// of both modules name actions only through them (no bare name where an element gets its
/// action), and every action is named by a view or dispatched by the JS runtime. With the
/// shell's own test that `Msg::from_action` handles every action, an action added fails
/// until the shell handles it and a view names it.
#[test]
fn the_page_names_its_actions_through_the_contract() {
    let vocabulary = std::fs::read_to_string(root().join("crates/contract/src/actions.rs"))
        .expect("the action vocabulary");
    // `Variant => "name",` rows of the two `actions!` lists.
    let variants: Vec<(String, String)> = vocabulary
        .lines()
        .filter_map(|l| {
            let (v, n) = l.trim().split_once(" => \"")?;
            let n = n.strip_suffix("\",")?;
            v.chars()
                .all(|c| c.is_ascii_alphanumeric())
                .then(|| (v.to_owned(), n.to_owned()))
        })
        .collect();
    assert!(variants.len() > 50, "{variants:?}");
    let bare = [
        ".action(\"",
        ".on_drop(\"",
        "\"data-action\", \"",
        "\"data-drop\", \"",
    ];
    let mut code = String::new();
    let mut found = Vec::new();
    for dir in ["crates/web/src", "crates/views/src", "crates/lab/src"] {
        let mut files = Vec::new();
        import_graph::rust_files(&root().join(dir), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).expect("source");
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            for (n, line) in text.lines().enumerate() {
                let l = line.trim_start();
                let button_name = l.starts_with('"')
                    && variants.iter().any(|(_, name)| l == format!("\"{name}\","))
                    && text
                        .lines()
                        .nth(n.saturating_sub(2))
                        .is_some_and(|p| p.contains("button("));
                if !l.starts_with("//") && (bare.iter().any(|b| l.contains(b)) || button_name) {
                    found.push(format!("{}:{}: {l}", f.display(), n + 1));
                }
            }
            code.push_str(text);
        }
    }
    assert!(
        found.is_empty(),
        "actions named by a bare string (use wildtool_contract::Action):\n{}",
        found.join("\n")
    );
    let js: String = page_js().into_iter().map(|(_, t)| t).collect();
    let unused: Vec<&str> = variants
        .iter()
        .filter(|(v, n)| {
            !code.contains(&format!("Action::{v}.name()"))
                && !js.contains(&format!("dispatch('{n}'"))
        })
        .map(|(_, n)| n.as_str())
        .collect();
    assert!(
        unused.is_empty(),
        "actions no view names and the runtime does not dispatch: {unused:?}"
    );
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
        import_graph::rust_files(dir, &mut files);
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
