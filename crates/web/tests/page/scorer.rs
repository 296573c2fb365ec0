//! Scoring runs in the lab module: a live run in the page gives the score files `wildtool
//! score` writes for its result file, byte for byte; a run does not start, and nothing is
//! scored, while the lab module cannot be loaded.

use super::*;

use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::formats::score_file::model_name;
use wildtool_core::formats::ScoreFile;
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};

/// What `wildtool score` computes on `result` (the CLI's scorer, natively).
fn cli_score(dataset: &str, result: &str, model: &str) -> (String, String, String) {
    let loaded = load_dataset(dataset, Lang::En);
    let seg = wildtool_core::checker::default_segmenter();
    let check = OfficialChecker::new(seg.as_ref());
    let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
    let mut file = ScoreFile::new();
    for (i, line) in result.lines().enumerate() {
        if !line.trim().is_empty() {
            file.push(
                i + 1,
                scorer.score_line(i + 1, line).expect("a scorable line"),
            );
        }
    }
    let metric = scorer.metric_json(&model_name(Some(model), &scorer));
    let out = file.finish();
    let outcomes = serde_json::to_string(&out.outcomes).unwrap();
    (out.score_jsonl, metric, outcomes)
}

fn download(b: &mut Browser, kind: &str) -> String {
    b.act("export", kind, "");
    b.downloads.last().cloned().unwrap().1
}

#[test]
fn a_live_run_in_the_page_scores_byte_for_byte_like_the_cli() {
    for (href, dataset, model) in [
        ("http://page/?provider=baseline", SUITE, "baseline"),
        ("http://page/?provider=gold", SUITE, "gold"),
        (
            "http://page/?dataset=mini.jsonl&provider=baseline",
            MINI,
            "baseline",
        ),
    ] {
        let mut b = open(href);
        b.act("start", "", "");
        assert_eq!(b.hook("runState").as_deref(), Some("done"), "{href}");
        let result = download(&mut b, "result");
        let (score, metric, outcomes) = cli_score(dataset, &result, model);
        assert_eq!(
            download(&mut b, "score").trim_end(),
            score.trim_end(),
            "{href}"
        );
        assert_eq!(download(&mut b, "metric"), metric, "{href}");
        let id = b.state.history.entries[0].id.clone();
        let sorted = |text: &str| {
            let mut o = wildtool_core::outcome::outcomes_from_json(text).expect("outcomes");
            o.sort_by_key(|t| (t.session, t.position));
            o
        };
        assert_eq!(
            sorted(&b.kv[&format!("out/{id}")]),
            sorted(&outcomes),
            "{href}"
        );
    }
}

#[test]
fn a_run_does_not_start_without_the_lab_module_and_says_why() {
    let mut b = open("http://page/?provider=gold");
    wildtool_web::scoring::uninstall();
    b.lab_fails = Some("the lab module could not be loaded: HTTP 404".into());
    b.act("start", "", "");
    assert!(b.state.run.is_none(), "no run started");
    assert!(!b.kv.keys().any(|k| k.starts_with("ck/")), "nothing stored");
    let status = b.text("status");
    assert!(
        status.contains("Cannot start the run") && status.contains("HTTP 404"),
        "{status}"
    );
    // Once the module loads, the same Start runs and scores.
    b.lab_fails = None;
    b.act("start", "", "");
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert_eq!(b.headline()["task_accuracy"], "100.0%");
}

#[test]
fn start_waits_for_the_lab_module_with_a_loading_note() {
    let mut b = open("http://page/?provider=gold");
    wildtool_web::scoring::uninstall();
    b.deliver(Msg::from_action("start", "", "").unwrap());
    assert!(b.state.run.is_none(), "the run waits for the scorer");
    assert!(
        b.text("status").contains("Loading the scorer"),
        "{}",
        b.text("status")
    );
    b.settle();
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert_eq!(b.headline()["tasks_scored"], 256);
}

#[test]
fn a_stored_run_reopened_without_the_lab_module_is_not_shown_as_scored() {
    let mut b = open("http://page/?dataset=mini.jsonl&provider=baseline");
    b.act("start", "", "");
    let expected = download(&mut b, "score");
    let kv = b.kv.clone();
    // A reload: the stored run is scored again (traces, exports) by the lab module.
    let mut r = Browser::open("http://page/?dataset=mini.jsonl", kv.clone());
    let id = r.state.history.entries[0].id.clone();
    r.act("history-open", &id, "");
    assert_eq!(download(&mut r, "score"), expected);
    // Without the module, the re-scoring fails with the reason and no score file exists.
    let mut gone = Browser::open("http://page/?dataset=mini.jsonl", kv);
    wildtool_web::scoring::uninstall();
    gone.lab_fails = Some("the lab module could not be loaded: HTTP 404".into());
    gone.act("history-open", &id, "");
    let status = gone.text("status");
    assert!(
        status.contains("scorer") && status.contains("HTTP 404"),
        "{status}"
    );
    gone.act("export", "score", "");
    assert!(
        gone.downloads
            .iter()
            .all(|(n, _)| !n.ends_with("_score.jsonl")),
        "{:?}",
        gone.downloads.iter().map(|d| &d.0).collect::<Vec<_>>()
    );
}
