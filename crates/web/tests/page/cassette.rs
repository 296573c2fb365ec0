//! Cassettes in the page: a run recorded with *Record a cassette* and replayed from the
//! downloaded `cassette.jsonl` without any server gives the same result and score files;
//! a replay whose requests are not in the cassette ends those tasks incomplete, nothing
//! sent; the page's cassette is the CLI's format (the lab module's lines).

use super::*;

/// Where two texts first differ, with some context (for a failure message).
fn first_difference(a: &str, b: &str) -> String {
    let i = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let at = |t: &str| {
        t.get(i.saturating_sub(60)..(i + 60).min(t.len()))
            .unwrap_or("")
            .to_owned()
    };
    format!("at byte {i}: {:?} vs {:?}", at(a), at(b))
}

#[test]
fn a_recorded_run_replays_without_a_server_and_a_missing_request_is_refused() {
    let mut rec = open(&endpoint("&backoff=0.01"));
    rec.act("cassette-record", "", "true");
    // Replies differ per request, so a replay must find each one by its key.
    rec.server = Some(chat_server(""));
    rec.act("start", "", "");
    finish(&mut rec);
    assert_eq!(rec.hook("runOutcome").as_deref(), Some("done"));
    rec.act("cassette-download", "", "");
    let (name, tape) = rec.downloads.last().cloned().unwrap_or_default();
    assert_eq!(name, "cassette.jsonl");
    let c =
        wildtool_core::provenance::cassette::Cassette::parse(tape.as_bytes()).expect("a cassette");
    assert_eq!(c.entries().len(), rec.sent.len(), "every response recorded");
    assert!(!tape.contains("127.0.0.1"), "no origin in the cassette");
    let (result, score) = (export(&mut rec, "result"), export(&mut rec, "score"));
    assert!(!result.is_empty() && !score.is_empty());

    let mut rep = open(&endpoint("&backoff=0.01"));
    rep.state.cassette.replay = Some(("cassette.jsonl".into(), tape.clone()));
    rep.act("start", "", "");
    finish(&mut rep);
    assert_eq!(
        rep.hook("runOutcome").as_deref(),
        Some("done"),
        "{:?}",
        rep.hook("runError")
    );
    assert!(rep.sent.is_empty(), "nothing sent while replaying");
    let (r2, s2) = (export(&mut rep, "result"), export(&mut rep, "score"));
    assert!(
        r2 == result,
        "the same result file, {}",
        first_difference(&r2, &result)
    );
    assert!(
        s2 == score,
        "the same score file, {}",
        first_difference(&s2, &score)
    );

    // Both runs' manifests: how the cassette was used, and the same exchanges (the
    // replay's replies are the recorded ones, task by task).
    let manifest = |b: &mut Browser| {
        let doc: serde_json::Value = serde_json::from_str(&export(b, "run")).unwrap();
        wildtool_core::provenance::manifest::Manifest::parse(&doc["manifest"].to_string())
            .expect("a manifest")
    };
    let (m1, m2) = (manifest(&mut rec), manifest(&mut rep));
    let mode = |m: &wildtool_core::provenance::manifest::Manifest| {
        m.cassette
            .as_ref()
            .map(|c| (c.mode.clone(), c.file.clone()))
    };
    assert_eq!(mode(&m1), Some(("record".into(), "cassette.jsonl".into())));
    assert_eq!(mode(&m2), Some(("replay".into(), "cassette.jsonl".into())));
    assert_eq!(m2.exchanges, m1.exchanges);
    assert_eq!(m2.outputs, m1.outputs);

    // A cassette without its last exchange: that request is refused, not sent.
    let cut: Vec<&str> = tape.lines().collect();
    let short = cut[..cut.len() - 1].join("\n") + "\n";
    let mut miss = open(&endpoint("&backoff=0.01"));
    miss.state.cassette.replay = Some(("cassette.jsonl".into(), short));
    miss.act("start", "", "");
    finish(&mut miss);
    assert!(miss.sent.is_empty(), "nothing sent while replaying");
    assert_eq!(miss.hook("runOutcome").as_deref(), Some("incomplete"));
    let why = miss.state.run.as_ref().and_then(|r| r.last_error.clone());
    let why = why.unwrap_or_default();
    assert!(
        why.starts_with("offline: this request is not in the cassette (key ")
            && why.ends_with("nothing was sent"),
        "{why}"
    );
    // The dashboard says why: how many tasks did not finish and the refusal.
    let said = miss.hook("runError").unwrap_or_default();
    assert!(
        said.starts_with("1 of ") && said.ends_with(&format!("last failure: {why}")),
        "{said}"
    );
}
