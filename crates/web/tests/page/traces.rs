//! Traces built for diagnosis, driven like the browser does: search, sorting, the error
//! class filter and its way in from the dashboard, argument differences, per-task tokens
//! and latency, 1-based numbering (page, CSV, addresses), deep links and Back/Forward,
//! and the glossary.

use super::*;
use wildtool_web::ui::wire::{Wire, WireElement};

/// The `session:task` keys of the rows in the trace list, in order.
fn rows(b: &Browser) -> Vec<String> {
    let f = b.frame();
    let Some(list) = f.root.by_id("trace-list") else {
        return Vec::new();
    };
    list.elements()
        .into_iter()
        .filter(|e| e.get("data-action") == Some("trace-task"))
        .filter_map(|e| e.get("data-arg").map(str::to_owned))
        .collect()
}

/// The page with the lab module's answers spliced in, as the browser renders it.
fn expanded(b: &Browser) -> Wire {
    b.frame().root
}

fn with_class<'a>(root: &'a WireElement, class: &str) -> Vec<&'a WireElement> {
    root.elements()
        .into_iter()
        .filter(|e| e.has_class(class))
        .collect()
}

/// Per-task `(session, task) → (tokens, latency)` read from a score file independently.
fn usage_of(score: &str) -> Vec<((u32, u8), u64, f64)> {
    let mut out = Vec::new();
    for line in score.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let session: u32 = v["id"]
            .as_str()
            .unwrap()
            .rsplit('_')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let Some(tasks) = v["results"].as_array() else {
            continue;
        };
        for (i, t) in tasks.iter().enumerate() {
            let sum = |k: &str| -> u64 {
                t[k].as_array()
                    .map(|a| a.iter().filter_map(|x| x.as_u64()).sum())
                    .unwrap_or(0)
            };
            let latency: f64 = t["latency"]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_f64()).sum())
                .unwrap_or(0.0);
            out.push((
                (session, i as u8),
                sum("input_token_count") + sum("output_token_count"),
                latency,
            ));
        }
    }
    out
}

fn scored_mini() -> Browser {
    let mut b = open("http://page/?dataset=mini.jsonl");
    b.act("nav", "offline", "");
    b.drop_file("upload", "mini_result.jsonl", SEED0_RESULT.as_bytes());
    assert_eq!(b.hook("offline").as_deref(), Some("done"));
    b.act("nav", "traces", "");
    b
}

#[test]
fn rows_are_numbered_from_one_and_carry_tokens_and_latency() {
    let b = scored_mini();
    assert_eq!(rows(&b).len(), 32);
    let f = b.frame();
    let first = f
        .root
        .by_id("trace-1-1")
        .expect("session 1, task 1")
        .text_content();
    assert!(
        first.starts_with("Session 1 (id wild_tool_bench_0) · Task 1 · "),
        "{first}"
    );
    let usage = usage_of(SEED0_SCORE);
    let ((_, _), tokens, latency) = usage[0];
    assert!(
        first.contains(&format!("{tokens} tokens · {latency:.1} s")),
        "{first} ({tokens}, {latency})"
    );
    let last = f
        .root
        .by_id("trace-8-4")
        .expect("session 8, task 4")
        .text_content();
    assert!(
        last.starts_with("Session 8 (id wild_tool_bench_7) · Task 4"),
        "{last}"
    );
}

#[test]
fn search_sort_and_argument_differences() {
    let mut b = scored_mini();
    // Search looks through arguments: the extra key the model sent in session 2.
    b.act("trace-filter", "search", "NOTE 全聚德");
    let found = rows(&b);
    assert_eq!(found.first().map(String::as_str), Some("1:0"), "{found:?}");
    assert!(found.iter().all(|k| k.starts_with("1:")), "{found:?}");
    assert!(b
        .text("trace-count")
        .starts_with(&format!("{} of 32 tasks match", found.len())));
    // Verdicts too.
    b.act("trace-filter", "search", "\"args not defined\"");
    let found = rows(&b);
    assert!(
        found.contains(&"1:0".to_owned()) && found.contains(&"6:2".to_owned()),
        "{found:?}"
    );
    b.act("trace-filter", "search", "no such words anywhere");
    assert!(rows(&b).is_empty());
    b.act("trace-filter", "search", "");
    assert_eq!(rows(&b).len(), 32);

    // Sorting by tokens and latency follows the recorded log.
    let mut usage = usage_of(SEED0_SCORE);
    usage.sort_by_key(|u| std::cmp::Reverse(u.1));
    b.act("trace-filter", "sort", "tokens");
    let by_tokens = rows(&b);
    assert_eq!(by_tokens.len(), 32);
    let top = usage[0].0;
    assert_eq!(by_tokens[0], format!("{}:{}", top.0, top.1));
    usage.sort_by(|a, b| b.2.total_cmp(&a.2));
    b.act("trace-filter", "sort", "latency");
    let top = usage[0].0;
    assert_eq!(rows(&b)[0], format!("{}:{}", top.0, top.1));
    b.act("trace-filter", "sort", "task");
    assert_eq!(rows(&b)[..2], ["0:0".to_owned(), "0:1".to_owned()]);

    // The extra argument is marked, with its name for screen readers.
    b.act("trace-task", "1:0", "true");
    for k in 0..3 {
        b.act("trace-step", &format!("1:0:{k}"), "true");
    }
    assert_eq!(
        b.lab_calls,
        [
            "trace_search_texts",
            "trace_step",
            "trace_step",
            "trace_step"
        ],
        "the search texts once, then each opened step, are read by the lab"
    );
    let f = expanded(&b);
    let list = f.by_id("trace-list").unwrap();
    let extra: Vec<String> = with_class(list, "d-extra")
        .iter()
        .map(|e| e.text_content())
        .collect();
    assert!(
        extra.iter().any(|t| t == "extra: \"note\": \"extra\""),
        "{extra:?}"
    );
    let hidden = with_class(list, "d-extra")[0].elements()[1].clone();
    assert!(hidden.has_class("visually-hidden"));
    assert!(list.text_content().contains("Candidate 1 (closest)"));
    assert!(list
        .text_content()
        .contains("1 argument difference from the gold"));
    // The address names the open step, 1-based.
    assert!(
        b.urls.last().unwrap().ends_with("session=2&task=1&step=3"),
        "{:?}",
        b.urls.last()
    );
}

#[test]
fn a_changed_value_is_marked_with_the_expected_one() {
    let mut b = scored_mini();
    // Session 5, task 1: the model asked for "AAPL." where the gold has "AAPL".
    b.act("trace-filter", "search", "\"aapl.\"");
    let key = rows(&b).first().cloned().expect("a task with AAPL.");
    b.act("trace-task", &key, "true");
    b.act("trace-step", &format!("{key}:0"), "true");
    let f = expanded(&b);
    let list = f.by_id("trace-list").unwrap();
    let changed: Vec<String> = with_class(list, "d-changed")
        .iter()
        .map(|e| e.text_content())
        .collect();
    assert_eq!(changed, ["changed: \"AAPL.\""]);
    let expected: Vec<String> = with_class(list, "d-expected")
        .iter()
        .map(|e| e.text_content())
        .collect();
    assert_eq!(expected, ["(expected \"AAPL\")"]);
}

#[test]
fn error_class_buttons_on_the_dashboard_open_the_matching_traces() {
    let mut b = scored_mini();
    b.act("nav", "dashboard", "");
    let report = b.state.shown.as_ref().unwrap().report.clone();
    let f = b.frame();
    let buttons: Vec<(String, String)> = f
        .root
        .elements()
        .into_iter()
        .filter(|e| e.get("data-action") == Some("trace-class"))
        .map(|e| (e.get("data-arg").unwrap().to_owned(), e.text_content()))
        .collect();
    // One button per class the chart shows, named by its column title, with its count.
    let columns: Vec<(String, u64)> = report
        .errors
        .columns
        .iter()
        .filter(|c| c.1 > 0)
        .map(|c| (c.0.clone(), c.1))
        .collect();
    assert!(!columns.is_empty());
    assert_eq!(buttons.len(), columns.len(), "{buttons:?}");
    for ((arg, label), (title, n)) in buttons.iter().zip(&columns) {
        assert_eq!(arg, title);
        assert!(label.starts_with(&format!("{title} · {n} task")), "{label}");
    }
    for (title, n) in &columns {
        b.act("nav", "dashboard", "");
        b.act("trace-class", title, "");
        assert_eq!(b.hook("view").as_deref(), Some("traces"));
        assert_eq!(b.state.focus.as_deref(), Some("traces-title"));
        let keys = rows(&b);
        assert_eq!(keys.len() as u64, *n, "{title}");
        let list = b.text("trace-list");
        assert_eq!(
            list.matches(title.as_str()).count() as u64,
            *n,
            "{title}: {list:.300}"
        );
        // The filter menu says the same name.
        let f = b.frame();
        assert_eq!(
            f.root.by_id("f-error").unwrap().get("value"),
            Some(title.as_str())
        );
    }
}

#[test]
fn the_csv_numbers_from_one_and_carries_class_tokens_and_latency() {
    let mut b = scored_mini();
    b.act("export", "csv", "");
    let csv = b.downloads.last().unwrap().1.clone();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 33);
    assert!(lines[0].ends_with(",error,error_class,input_tokens,output_tokens,latency_s"));
    assert!(
        lines[1].starts_with("1,wild_tool_bench_0,1,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[32].starts_with("8,wild_tool_bench_7,4,"),
        "{}",
        lines[32]
    );
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |row: &str, name: &str| {
        let i = header.iter().position(|h| *h == name).unwrap();
        row.split(',').nth(i).unwrap().to_owned()
    };
    let usage = usage_of(SEED0_SCORE);
    let (_, tokens, latency) = usage[0];
    let row1 = lines[1];
    let both: u64 = col(row1, "input_tokens").parse::<u64>().unwrap()
        + col(row1, "output_tokens").parse::<u64>().unwrap();
    assert_eq!(both, tokens);
    assert_eq!(col(row1, "latency_s"), format!("{latency:.3}"));
    for (row, o) in lines[1..]
        .iter()
        .zip(&b.state.shown.as_ref().unwrap().outcomes)
    {
        let class = o.error.map(|e| e.default_column().as_str()).unwrap_or("");
        assert_eq!(col(row, "error_class"), class);
    }
}

#[test]
fn a_deep_link_shows_focuses_and_keeps_a_task_beyond_the_first_page() {
    let mut b = open("http://page/?provider=baseline");
    b.act("start", "", "");
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    let id = b.state.shown.as_ref().unwrap().id.clone();
    let link = format!("http://page/?view=traces&run={id}&session=40&task=3&step=1");
    let mut r = Browser::open(&link, b.kv.clone());
    assert_eq!(r.hook("view").as_deref(), Some("traces"));
    assert!(r.state.traces.open_tasks.contains(&(39, 2)));
    let keys = rows(&r);
    assert_eq!(keys.len(), 51, "the first 50 rows, then the linked task");
    assert_eq!(keys[50], "39:2");
    assert!(r
        .text("trace-list")
        .contains("… the linked task, row 159 of 256:"));
    // The browser reports the disclosures the page opened: the address keeps its step.
    let urls = r.urls.len();
    r.act("trace-task", "39:2", "true");
    r.act("trace-step", "39:2:0", "true");
    assert_eq!(r.urls.len(), urls, "nothing changed, nothing rewritten");
    assert_eq!(r.state.route.step, Some(0));
    // The step is open and focused (which scrolls it into view) once the run's files are read.
    assert_eq!(r.state.focus.as_deref(), Some("trace-40-3-1"));
    let f = r.frame();
    let step = f.root.by_id("trace-40-3-1").expect("the step's summary");
    assert!(step.text_content().starts_with("Step 1 · "));
    assert!(r.deep_text("trace-list").contains("Verdict:"));
    assert_eq!(
        r.lab_calls,
        ["trace_step", "trace_search_texts"],
        "the named step, read once its files are there, and the search texts"
    );

    // Filters that hide the named task are lifted by Back/Forward to its address.
    r.act("trace-filter", "type", "Chat");
    r.act("trace-task", "39:2", "false");
    r.state.focus = None;
    let other = format!("http://page/?view=traces&run={id}&session=2&task=4");
    let named = r
        .state
        .shown
        .as_ref()
        .unwrap()
        .outcomes
        .iter()
        .find(|o| o.session == 1 && o.position == 3)
        .unwrap()
        .task_type;
    assert_ne!(
        named.as_str(),
        "Chat",
        "the suite's session 2, task 4 is not Chat"
    );
    r.act("popstate", "", &other);
    assert!(rows(&r).contains(&"1:3".to_owned()));
    assert_eq!(r.state.traces.task_type, "");
    assert_eq!(r.state.focus.as_deref(), Some("trace-2-4"));
    assert!(r.state.traces.open_tasks.contains(&(1, 3)));
    r.act("popstate", "", &link);
    assert_eq!(r.state.focus.as_deref(), Some("trace-40-3-1"));
    assert!(r.state.traces.open_steps.contains(&(39, 2, 0)));
}

#[test]
fn the_dashboard_explains_every_metric() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    assert!(b.lab_calls.is_empty(), "nothing is read while it is folded");
    b.act("toggle", "glossary", "true");
    assert_eq!(b.lab_calls, ["glossary_view"]);
    let f = expanded(&b);
    let g = f.by_id("glossary").expect("a glossary on the dashboard");
    let terms: Vec<String> = g
        .elements()
        .into_iter()
        .filter(|e| e.tag == "dt")
        .map(|e| e.text_content())
        .collect();
    for term in [
        "Task accuracy",
        "Session accuracy",
        "Optimal-path rate",
        "Progress rate (node-based)",
        "Official step-based progress",
        "95% interval (Wilson)",
        "Session bootstrap",
        "Scored, unscored, partial",
        "Instruction transitions",
        "Hidden-intent subtypes",
        "Error classes",
    ] {
        assert!(terms.iter().any(|t| t == term), "{term} in {terms:?}");
    }
    assert!(g
        .text_content()
        .contains("even the gold agent stays below 100%"));
    // Folded and unfolded again: read once.
    b.act("toggle", "glossary", "false");
    b.act("toggle", "glossary", "true");
    assert_eq!(b.lab_calls, ["glossary_view"]);
    // The gold agent's own step-based progress is indeed below 100%.
    let p = b.state.shown.as_ref().unwrap().report.progress["Total"];
    assert!(
        p.step_based < 1.0 && (p.ap_nodes - 1.0).abs() < 1e-12,
        "{p:?}"
    );
}

/// The first task the baseline fails (the gold agent passes every task).
fn failed_by(b: &Browser, id: &str) -> wildtool_core::outcome::TaskOutcome {
    let outcomes: Vec<wildtool_core::outcome::TaskOutcome> =
        serde_json::from_str(&b.kv[&format!("out/{id}")]).unwrap();
    outcomes
        .into_iter()
        .find(|o| !o.correct && !o.incomplete)
        .expect("a failed task")
}

#[test]
fn two_runs_of_a_task_side_by_side_each_with_its_own_verdict_and_steps() {
    let (mut b, gold, baseline) = gold_and_baseline();
    let o = failed_by(&b, &baseline);
    let (s, t) = (o.session + 1, o.position + 1);
    // The comparison table's row links to both traces side by side.
    b.act("nav", "compare", "");
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    let tree = expanded(&b);
    let href = format!("?view=traces&run={gold}&vs={baseline}&session={s}&task={t}");
    let link = tree
        .elements()
        .into_iter()
        .find(|e| e.tag == "a" && e.get("href") == Some(href.as_str()))
        .expect("a side-by-side link for the task");
    assert_eq!(link.text_content(), "side by side");
    b.act("go", &href, "");
    assert_eq!(b.hook("view").as_deref(), Some("traces"));
    assert_eq!(b.state.route.vs.as_deref(), Some(baseline.as_str()));
    assert!(b
        .urls
        .last()
        .is_some_and(|u| u.contains(&format!("vs={baseline}"))));
    let check = |b: &Browser| {
        let tree = expanded(b);
        let pair = tree.by_id("trace-pair").expect("the side-by-side panel");
        assert_eq!(pair.get("data-pair"), Some("ready"));
        let a = tree.by_id("pair-a").expect("column A");
        let bb = tree.by_id("pair-b").expect("column B");
        assert_eq!(a.get("data-verdict"), Some("correct"));
        assert_eq!(bb.get("data-verdict"), Some("failed"));
        let (ta, tb) = (a.text_content(), bb.text_content());
        let label = |id: &str| b.state.history.get(id).unwrap().label.clone();
        assert!(ta.contains(&format!("A · {}", label(&gold))), "{ta:.200}");
        assert!(
            tb.contains(&format!("B · {}", label(&baseline))),
            "{tb:.200}"
        );
        let class = o.error.unwrap().default_column().as_str();
        assert!(tb.contains(&format!("failed · {class}")), "{tb:.300}");
        // Each column shows its own run's steps as an opened step shows them.
        assert!(ta.contains("Step 1 · names correct"), "{ta:.400}");
        assert!(ta.contains("Verdict: correct"), "{ta:.400}");
        assert!(tb.contains("Step 1 ·"), "{tb:.400}");
        assert!(tb.contains("Model output"), "{tb:.400}");
        assert_ne!(ta, tb);
        // Ready means final: neither column is still reading its trace.
        assert!(!format!("{ta}{tb}").contains("Reading the trace"));
    };
    check(&b);
    // A reload keeps it (the address names both runs).
    let r = Browser::open(&format!("http://page/{href}"), b.kv.clone());
    assert_eq!(r.hook("view").as_deref(), Some("traces"));
    check(&r);
    // Back leaves it, Forward brings it back.
    b.deliver(Msg::PopState("http://page/?view=compare".into()));
    b.settle();
    assert!(b.frame().root.by_id("trace-pair").is_none());
    b.deliver(Msg::PopState(format!("http://page/{href}")));
    b.settle();
    check(&b);
}

#[test]
fn a_second_run_this_browser_does_not_have_says_so_in_its_column() {
    let (b, gold, baseline) = gold_and_baseline();
    let o = failed_by(&b, &baseline);
    let (s, t) = (o.session + 1, o.position + 1);
    let r = Browser::open(
        &format!("http://page/?view=traces&run={gold}&vs=run-elsewhere&session={s}&task={t}"),
        b.kv.clone(),
    );
    let tree = expanded(&r);
    let a = tree.by_id("pair-a").expect("column A");
    assert_eq!(a.get("data-verdict"), Some("correct"));
    let bb = tree.by_id("pair-b").expect("column B");
    assert_eq!(bb.get("data-verdict"), Some(""));
    let tb = bb.text_content();
    assert!(
        tb.contains("No trace recorded in this browser for run run-elsewhere."),
        "{tb}"
    );
    assert!(!tb.contains("Step"), "never the other run's steps: {tb}");
    // A run opened from a share link is in the history with its outcomes but no trace:
    // its verdict, and no steps.
    let link = b
        .state
        .shown
        .as_ref()
        .unwrap()
        .share
        .clone()
        .unwrap()
        .unwrap();
    let mut r = Browser::open(&format!("http://page/#{link}"), b.kv.clone());
    assert_eq!(r.hook("share").as_deref(), Some("opened"));
    let shared = r.state.shown.as_ref().unwrap().id.clone();
    assert_ne!(shared, baseline);
    r.act(
        "go",
        &format!("?view=traces&run={gold}&vs={shared}&session={s}&task={t}"),
        "",
    );
    let tree = expanded(&r);
    assert_eq!(
        tree.by_id("pair-a").and_then(|a| a.get("data-verdict")),
        Some("correct")
    );
    let bb = tree.by_id("pair-b").expect("column B");
    assert_eq!(bb.get("data-verdict"), Some("failed"));
    let tb = bb.text_content();
    assert!(
        tb.contains(&format!(
            "No trace recorded in this browser for run {shared}."
        )),
        "{tb}"
    );
    assert!(!tb.contains("Step"), "{tb}");
    // A run of another dataset: its tasks are other tasks, so neither verdict nor steps.
    let mut kv = b.kv.clone();
    let key = format!("run/{baseline}");
    let mut meta: serde_json::Value = serde_json::from_str(&kv[&key]).unwrap();
    meta["dataset_fingerprint"] = "0123456789abcdef".into();
    kv.insert(key, meta.to_string());
    let r = Browser::open(
        &format!("http://page/?view=traces&run={gold}&vs={baseline}&session={s}&task={t}"),
        kv,
    );
    let tree = expanded(&r);
    let bb = tree.by_id("pair-b").expect("column B");
    assert_eq!(bb.get("data-verdict"), Some(""));
    let tb = bb.text_content();
    assert!(tb.contains("was made on another dataset"), "{tb}");
    assert!(!tb.contains("Step"), "{tb}");
}
