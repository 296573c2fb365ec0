//! `wildtool audit` end to end: runs of several scripted models against the mock on a copy
//! of the mini fixture with a planted impossible item (its gold books the flight its own
//! observation shows is not the cheapest) list that item first, with every sign of a
//! broken item; its figures and every item's pass counts, difficulty and discrimination
//! equal a recomputation from the runs' per-task labels in `score.jsonl` (the Rasch fit
//! recomputed by plain gradient ascent, not the audit's Newton steps). The audit also
//! reads runs of a generated suite.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::mock_server::{Action, MockServer};
use crate::runner_live::{locate, mini, mini_path, model_reply, run_at, stderr, Behaviour};
use crate::support::{tmp, wildtool};
use wildtool_core::json::{loads, Value};

/// The planted task: session 1, task 3 (0-based line 0, position 2).
const PLANTED: (u32, u8) = (0, 2);

/// mini.jsonl with the planted item's gold booking the dearer flight (AF1300, 132) after
/// a search whose observation shows IB3401 at 89 as the cheapest.
fn planted_dataset(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(mini_path()).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let first = lines.first().cloned().unwrap_or_default();
    let gold = r#"{"flight_id": "IB3401", "passengers": 2}"#;
    assert_eq!(first.matches(gold).count(), 2, "both languages' gold");
    if let Some(l) = lines.first_mut() {
        *l = first.replace(gold, r#"{"flight_id": "AF1300", "passengers": 2}"#);
    }
    let path = dir.join("planted.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap_or_default();
    path
}

/// A scripted model: gold answers of the *original* fixture (so it books the cheapest
/// flight), corrupted by `behaviour` on the tasks `pick(line * 4 + task)` selects.
fn scripted(behaviour: Behaviour, pick: fn(usize) -> bool) -> MockServer {
    let ds = mini();
    MockServer::start(move |req| {
        let chosen = loads(&req.body)
            .ok()
            .and_then(|v| v.get("messages").and_then(Value::as_array).cloned())
            .and_then(|m| locate(&ds, &m))
            .map(|(line, task, _)| {
                if pick(line * 4 + task) {
                    behaviour
                } else {
                    Behaviour::Gold
                }
            })
            .unwrap_or(Behaviour::Gold);
        match model_reply(&ds, &req.body, chosen) {
            Some(body) => Action::ok(body),
            None => Action::status(400, r#"{"error": {"message": "unplaced"}}"#),
        }
    })
}

/// A scripted model's name, deviation and the tasks it deviates on.
type Scripted = (&'static str, Behaviour, fn(usize) -> bool);

/// Per run, per (line, position): correct or not, read from `score.jsonl`.
fn labels(dir: &Path) -> BTreeMap<(u32, u8), bool> {
    let text = std::fs::read_to_string(dir.join("score.jsonl")).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = loads(line) else { continue };
        let id = v.get("id").and_then(Value::as_str).unwrap_or("");
        let Some(n) = id.rsplit('_').next().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        for (k, t) in v
            .get("results")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let correct = t.get("label").and_then(Value::as_str) == Some("correct");
            out.insert((n, k as u8), correct);
        }
    }
    out
}

/// The penalised Rasch fit by gradient ascent on all parameters at once.
fn gradient_fit(y: &[Vec<Option<bool>>], items: usize) -> (Vec<f64>, Vec<f64>) {
    let prec = 1.0 / 4.0; // prior sd 2
    let mut theta = vec![0.0_f64; y.len()];
    let mut b = vec![0.0_f64; items];
    for _ in 0..40_000 {
        let mut gt: Vec<f64> = theta.iter().map(|t| -t * prec).collect();
        let mut gb: Vec<f64> = b.iter().map(|x| -x * prec).collect();
        for (r, row) in y.iter().enumerate() {
            for (i, cell) in row.iter().enumerate() {
                if let Some(c) = cell {
                    let p = 1.0 / (1.0 + (b[i] - theta[r]).exp());
                    let resid = if *c { 1.0 } else { 0.0 } - p;
                    gt[r] += resid;
                    gb[i] -= resid;
                }
            }
        }
        for (t, g) in theta.iter_mut().zip(&gt) {
            *t += 0.05 * g;
        }
        for (x, g) in b.iter_mut().zip(&gb) {
            *x += 0.05 * g;
        }
    }
    (theta, b)
}

fn correlation(pairs: &[(f64, f64)]) -> f64 {
    let n = pairs.len() as f64;
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = pairs.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

fn num(v: &Value, key: &str) -> f64 {
    match v.get(key) {
        Some(Value::Float(f)) => *f,
        Some(other) => other.as_i64().map(|i| i as f64).unwrap_or(f64::NAN),
        None => f64::NAN,
    }
}

#[test]
fn a_planted_impossible_item_is_listed_first_and_its_figures_are_recomputable() {
    let dir = tmp("audit-planted");
    let dataset = planted_dataset(&dir);
    let models: [Scripted; 4] = [
        ("gold", Behaviour::Gold, |_| false),
        ("args", Behaviour::BadArguments, |k| k % 3 == 0),
        ("names", Behaviour::WrongNames, |k| k % 4 == 1),
        ("text", Behaviour::TextOnly, |k| k % 5 == 3),
    ];
    let mut dirs = Vec::new();
    for (name, behaviour, pick) in models {
        let server = scripted(behaviour, pick);
        let out = dir.join(name);
        let o = run_at(&server.base_url(), &dataset, &out, &[], None);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        dirs.push(out);
    }
    let (json, md) = (dir.join("audit.json"), dir.join("audit.md"));
    let mut args: Vec<String> = vec!["audit".into()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    for a in [
        "--dataset",
        &dataset.display().to_string(),
        "--json",
        &json.display().to_string(),
        "--md",
        &md.display().to_string(),
    ] {
        args.push(a.to_owned());
    }
    for (name, _, _) in &models {
        args.push("--label".into());
        args.push((*name).into());
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = wildtool(&argv);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        stdout
            .lines()
            .nth(1)
            .unwrap_or("")
            .contains("session 1 task 3"),
        "{stdout}"
    );
    let doc = loads(&std::fs::read_to_string(&json).unwrap_or_default()).unwrap_or(Value::Null);
    let items = doc
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let first = items.first().cloned().unwrap_or(Value::Null);
    assert_eq!(num(&first, "session"), 1.0);
    assert_eq!(num(&first, "task"), 3.0);
    let flags: Vec<String> = first
        .get("flags")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        flags,
        [
            "never_passed",
            "shared_argument",
            "shared_error",
            "agree_against_gold"
        ]
    );
    assert_eq!(
        first.get("shared_argument").and_then(Value::as_str),
        Some(r#"book_flight.flight_id = "IB3401""#)
    );
    let agreeing = first
        .get("agreement")
        .and_then(|a| a.get("runs"))
        .and_then(Value::as_array)
        .map(Vec::len);
    assert_eq!(agreeing, Some(4), "every model booked the cheapest flight");
    // No other item shows all four signs.
    assert!(items.iter().skip(1).all(|i| {
        i.get("flags")
            .and_then(Value::as_array)
            .is_none_or(|f| f.len() < 4)
    }));

    // Recomputation from the per-task labels.
    let per_run: Vec<BTreeMap<(u32, u8), bool>> = dirs.iter().map(|d| labels(d)).collect();
    let keys: Vec<(u32, u8)> = per_run
        .first()
        .map(|m| m.keys().copied().collect())
        .unwrap_or_default();
    assert_eq!(keys.len(), 32);
    assert!(per_run.iter().all(|m| m.get(&PLANTED) == Some(&false)));
    let y: Vec<Vec<Option<bool>>> = per_run
        .iter()
        .map(|m| keys.iter().map(|k| m.get(k).copied()).collect())
        .collect();
    let (theta, b) = gradient_fit(&y, keys.len());
    assert_eq!(items.len(), keys.len());
    for item in &items {
        let key = (num(item, "session") as u32 - 1, num(item, "task") as u8 - 1);
        let i = keys.iter().position(|k| *k == key).unwrap_or(usize::MAX);
        let column: Vec<bool> = y.iter().filter_map(|row| row[i]).collect();
        let passes = column.iter().filter(|c| **c).count();
        assert_eq!(num(item, "responses"), column.len() as f64, "{key:?}");
        assert_eq!(num(item, "passes"), passes as f64, "{key:?}");
        assert!(
            (num(item, "difficulty") - b[i]).abs() < 1e-6,
            "{key:?}: {} vs {}",
            num(item, "difficulty"),
            b[i]
        );
        let pairs: Vec<(f64, f64)> = y
            .iter()
            .zip(&theta)
            .filter_map(|(row, t)| row[i].map(|c| (if c { 1.0 } else { 0.0 }, *t)))
            .collect();
        assert!(
            (num(item, "discrimination") - correlation(&pairs)).abs() < 1e-6,
            "{key:?}"
        );
    }
    let hardest = b.iter().copied().fold(f64::MIN, f64::max);
    assert!((num(&first, "difficulty") - hardest).abs() < 1e-9);
    let report = std::fs::read_to_string(&md).unwrap_or_default();
    let row = report
        .lines()
        .find(|l| l.starts_with("| 1 |"))
        .unwrap_or("");
    assert!(
        row.contains("| 1 | 1 | 3 |") && row.contains("IB3401"),
        "{row}"
    );
}

#[test]
fn the_audit_reads_runs_of_a_generated_suite() {
    let dir = tmp("audit-generated");
    let suite = dir.join("suite.jsonl");
    let s = suite.display().to_string();
    let g = wildtool(&["generate", "--seed", "3", "--sessions", "12", "--out", &s]);
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    let mut runs = Vec::new();
    for agent in ["gold", "baseline"] {
        let out = dir.join(agent).display().to_string();
        let r = wildtool(&["run", "--provider", agent, "--dataset", &s, "--out", &out]);
        assert!(r.status.code().is_some_and(|c| c == 0), "{agent}");
        runs.push(out);
    }
    let json = dir.join("audit.json").display().to_string();
    let o = wildtool(&[
        "audit",
        &runs[0],
        &runs[1],
        "--dataset",
        &s,
        "--json",
        &json,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc = loads(&std::fs::read_to_string(&json).unwrap_or_default()).unwrap_or(Value::Null);
    let summary = doc.get("summary").cloned().unwrap_or(Value::Null);
    assert_eq!(num(&summary, "items"), 48.0);
    // The gold agent passes every task: no item is never passed.
    assert_eq!(num(&summary, "never_passed"), 0.0);
}
