//! A page run's manifest: the lab module logs every request and reply of a run with an
//! endpoint and writes `manifest.json` with the core's `Manifest::new` and `with_log`
//! (the CLI's functions); the run export and the history carry it; a key typed in Setup appears
//! nowhere in the export.

use super::*;
use wildtool_core::provenance::manifest::Manifest;
use wildtool_core::provenance::sha256_hex;

const KEY: &str = "sk-manifest-0a1b2c3d4e5f6789";

#[test]
fn a_page_run_exports_a_manifest_of_every_exchange_and_never_the_key() {
    let mut b = open(&endpoint("&backoff=0.01"));
    b.act("set", "m-key", KEY);
    b.server = Some(chat_server(
        r#""model": "m-served", "system_fingerprint": "fp_page", "#,
    ));
    b.act("start", "", "");
    finish(&mut b);
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    let run = export(&mut b, "run");
    assert!(
        !run.contains(KEY) && !run.contains(&KEY[3..15]),
        "the key is in the export"
    );
    for (k, v) in &b.kv {
        assert!(!v.contains(&KEY[3..15]), "the key is stored under {k}");
    }
    let doc: serde_json::Value = serde_json::from_str(&run).expect("the export is JSON");
    let m = Manifest::parse(&doc["manifest"].to_string()).expect("a manifest");
    let id = b.state.shown.as_ref().unwrap().id.clone();
    assert_eq!(
        b.kv.get(&format!("man/{id}"))
            .map(|t| Manifest::parse(t).ok()),
        Some(Some(m.clone())),
        "the history keeps it"
    );

    // Every request sent, in order per task, and every reply received.
    let mut want: BTreeMap<(u32, usize, usize), Vec<String>> = BTreeMap::new();
    let mut preflight = Vec::new();
    for o in &b.sent {
        let hash = sha256_hex(o.transmit.request.body.as_bytes());
        match o.transmit.task {
            Some(k) => want
                .entry((k.trial, k.line, k.task))
                .or_default()
                .push(hash),
            None => preflight.push(hash),
        }
    }
    let got: BTreeMap<(u32, usize, usize), Vec<String>> = m
        .exchanges
        .iter()
        .map(|t| {
            let hashes = t.exchanges.iter().map(|e| e.request_sha256.clone());
            ((t.trial, t.line, t.task), hashes.collect())
        })
        .collect();
    assert_eq!(got, want);
    let pre: Vec<String> = m
        .preflight
        .iter()
        .map(|e| e.request_sha256.clone())
        .collect();
    assert_eq!(pre, preflight);
    assert!(
        m.exchanges
            .iter()
            .flat_map(|t| &t.exchanges)
            .all(|e| e.status == Some(200)
                && e.reply_sha256.as_deref().is_some_and(|h| h.len() == 64))
    );
    assert_eq!(m.server.system_fingerprints, vec!["fp_page".to_owned()]);
    assert_eq!(m.server.models, vec!["m-served".to_owned()]);

    // The rest of the CLI's fields.
    let d = b.state.dataset.unwrap();
    assert_eq!(m.kind, "official");
    assert_eq!(m.dataset.fingerprint, d.fingerprint);
    assert_eq!(m.model, "m");
    assert_eq!(m.provider, "openai");
    assert_eq!(m.wildtool_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(m.scorer_version, wildtool_core::SCORER_VERSION);
    assert_eq!(m.requests, b.sent.len() as u64);
    // Token totals are the tasks' (the preflight's reply is not a task's).
    assert_eq!(m.tokens.input, 12 * (m.requests - m.preflight.len() as u64));
    assert!(m.started_at.is_some() && m.finished_at.is_some());
    assert_eq!(
        m.settings["endpoint"],
        serde_json::json!("http://127.0.0.1:9")
    );
    for s in [
        "temperature",
        "concurrency",
        "timeout",
        "retries",
        "backoff",
        "trials",
        "preflight",
        "seeds",
    ] {
        assert!(m.settings.contains_key(s), "setting {s}: {:?}", m.settings);
    }
    assert_eq!(m.cassette, None);
    let out = &m.outputs[0];
    assert_eq!(out.dir, ".");
    for (file, what) in [
        ("result.jsonl", "result"),
        ("score.jsonl", "score"),
        ("metric.json", "metric"),
    ] {
        assert_eq!(
            out.files.get(file),
            Some(&sha256_hex(export(&mut b, what).as_bytes())),
            "{file}"
        );
    }
    let metric: serde_json::Value = serde_json::from_str(&export(&mut b, "metric")).unwrap();
    assert_eq!(
        out.claims["task.accuracy"],
        metric["total_info"]["task"]["accuracy"]
    );
}

#[test]
fn the_verify_drop_zone_checks_a_page_run_file_by_its_manifest() {
    let mut b = open(&endpoint("&backoff=0.01"));
    b.server = Some(chat_server(""));
    b.act("start", "", "");
    finish(&mut b);
    let run = export(&mut b, "run");
    b.act("nav", "offline", "");
    b.drop_file("verify-file", "m.wildtool-run.json", run.as_bytes());
    let shown = verify_claims(&b);
    assert!(shown.len() >= 4, "{shown:?} {}", b.text("verify-result"));
    assert!(shown.iter().all(|c| c.starts_with('✓')), "{shown:?}");
    assert!(shown.iter().any(|c| c.contains("headline")), "{shown:?}");
    // One claimed number changed in the manifest: that claim fails.
    let changed = run.replacen("\"task.correct_count\": ", "\"task.correct_count\": 1", 1);
    assert_ne!(changed, run);
    b.drop_file("verify-file", "m.wildtool-run.json", changed.as_bytes());
    let shown = verify_claims(&b);
    assert!(
        shown
            .iter()
            .any(|c| c.starts_with('✗') && c.contains("headline")),
        "{shown:?}"
    );
}

#[test]
fn a_built_in_agent_run_has_a_manifest_too_and_it_verifies() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    finish(&mut b);
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    let run = export(&mut b, "run");
    let doc: serde_json::Value = serde_json::from_str(&run).expect("the export is JSON");
    let m = Manifest::parse(&doc["manifest"].to_string()).expect("a manifest");
    assert_eq!(m.provider, "gold");
    assert_eq!(m.kind, "official");
    assert!(m.preflight.is_empty() && m.exchanges.iter().all(|t| t.exchanges.is_empty()));
    assert_eq!(m.tokens.input + m.tokens.output, 0);
    assert_eq!(
        m.outputs[0].files.get("metric.json"),
        Some(&sha256_hex(export(&mut b, "metric").as_bytes()))
    );
    b.act("nav", "offline", "");
    b.drop_file("verify-file", "gold.wildtool-run.json", run.as_bytes());
    let shown = verify_claims(&b);
    assert!(shown.len() >= 4, "{shown:?} {}", b.text("verify-result"));
    assert!(shown.iter().all(|c| c.starts_with('✓')), "{shown:?}");
}

#[test]
fn a_run_opened_from_the_history_after_a_reload_exports_its_stored_manifest() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    finish(&mut b);
    let id = b.state.shown.as_ref().unwrap().id.clone();
    let stored = b.kv.get(&format!("man/{id}")).cloned().expect("kept");
    let mut r = Browser::open("http://page/", b.kv.clone());
    r.act("nav", "history", "");
    r.act("history-open", &id, "");
    assert_eq!(r.hook("view").as_deref(), Some("dashboard"));
    let run = export(&mut r, "run");
    let doc: serde_json::Value = serde_json::from_str(&run).expect("the export is JSON");
    assert_eq!(
        Manifest::parse(&doc["manifest"].to_string()).ok(),
        Manifest::parse(&stored).ok(),
        "the export carries the manifest the run was made with"
    );
    r.act("nav", "offline", "");
    r.drop_file("verify-file", "gold.wildtool-run.json", run.as_bytes());
    let shown = verify_claims(&r);
    assert!(
        shown.len() >= 4 && shown.iter().all(|c| c.starts_with('✓')),
        "{shown:?}"
    );
}

#[test]
fn a_run_with_repeated_trials_claims_every_trial_and_each_one_verifies() {
    let mut b = open("http://page/?provider=baseline&trials=3");
    b.act("start", "", "");
    finish(&mut b);
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    let run = export(&mut b, "run");
    let doc: serde_json::Value = serde_json::from_str(&run).expect("the export is JSON");
    let m = Manifest::parse(&doc["manifest"].to_string()).expect("a manifest");
    let dirs: Vec<&str> = m.outputs.iter().map(|o| o.dir.as_str()).collect();
    assert_eq!(dirs, ["trial-1", "trial-2", "trial-3"]);
    // Trial 1's files are the ones the page exports.
    assert_eq!(
        m.outputs[0].files.get("metric.json"),
        Some(&sha256_hex(export(&mut b, "metric").as_bytes()))
    );
    assert!(m
        .outputs
        .iter()
        .all(|o| o.files.len() == 3 && !o.claims.is_empty()));
    b.act("nav", "offline", "");
    b.drop_file("verify-file", "b.wildtool-run.json", run.as_bytes());
    let shown = verify_claims(&b);
    for t in 1..=3 {
        assert!(
            shown
                .iter()
                .any(|c| c.starts_with('✓') && c.contains(&format!("trial-{t}/headline"))),
            "trial {t}: {shown:?}"
        );
    }
    assert!(shown.iter().all(|c| c.starts_with('✓')), "{shown:?}");
    // A changed claim of trial 2 fails there, and only there.
    let two = &m.outputs[1].claims["task.correct_count"];
    let mut changed = m.clone();
    changed.outputs[1].claims.insert(
        "task.correct_count".into(),
        serde_json::json!(two.as_u64().unwrap() + 1),
    );
    let mut doc = doc;
    doc["manifest"] = serde_json::from_str(&changed.to_json()).unwrap();
    b.drop_file(
        "verify-file",
        "b.wildtool-run.json",
        doc.to_string().as_bytes(),
    );
    let failed: Vec<String> = verify_claims(&b)
        .into_iter()
        .filter(|c| c.starts_with('✗'))
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].contains("trial-2/headline"), "{failed:?}");
}
