//! Repeated-trial and paired-comparison statistics against hand-computed cases, exact
//! McNemar p-values computed independently (Python's `math.comb` with exact fractions),
//! the documented bootstrap re-implemented from its description, and the category
//! definitions checked against `report::RunReport`.

use wildtool_core::compare::exact::mcnemar_exact;
use wildtool_core::compare::paired::{CategoryGroup, DiffClass};
use wildtool_core::compare::runs::{unique_labels, RunStatus};
use wildtool_core::compare::{
    compare_pair, compare_runs, trials_report, BootstrapOptions, CompareDoc, CompareError,
    DatasetRef, RunInput, TrialsDoc,
};
use wildtool_core::outcome::{RawErrorLabel, TaskOutcome, TaskType, TurnSubtype};
use wildtool_core::report::RunReport;
use wildtool_core::share::TaskShape;

const FP: u64 = 0xfeed_beef_0000_0001;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// `sessions` sessions of `per` tasks, types cycling through the six types.
fn shapes(sessions: u32, per: u8) -> Vec<TaskShape> {
    let mut out = Vec::new();
    for s in 0..sessions {
        let types: Vec<TaskType> = (0..per)
            .map(|p| TaskType::ALL[((s as usize) + p as usize) % 6])
            .collect();
        let transitions = wildtool_core::outcome::transition_count(&types);
        for (p, t) in types.iter().enumerate() {
            out.push(TaskShape {
                session: s,
                position: p as u8,
                task_type: *t,
                subtype: (p > 0).then(|| TurnSubtype::ALL[(s as usize + p) % 3]),
                transitions,
                nodes_total: 2,
                min_length: 1,
            });
        }
    }
    out
}

fn outcome(shape: &TaskShape, correct: bool) -> TaskOutcome {
    TaskOutcome {
        session: shape.session,
        position: shape.position,
        task_type: shape.task_type,
        subtype: shape.subtype,
        transitions: shape.transitions,
        correct,
        name_correct: correct,
        optimal: false,
        steps_logged: 1,
        nodes_total: shape.nodes_total,
        nodes_done: if correct { 2 } else { 0 },
        error: (!correct).then_some(RawErrorLabel::Refusal),
        incomplete: false,
    }
}

/// One trial: `marks[i]` is `Some(correct)` for a scored task, `None` to leave it out.
fn trial(shapes: &[TaskShape], marks: &[Option<bool>]) -> Vec<TaskOutcome> {
    shapes
        .iter()
        .zip(marks)
        .filter_map(|(s, m)| m.map(|c| outcome(s, c)))
        .collect()
}

fn run(label: &str, trials: Vec<Vec<TaskOutcome>>) -> RunInput {
    RunInput {
        label: label.to_owned(),
        fingerprint: FP,
        trials,
    }
}

fn quick() -> BootstrapOptions {
    BootstrapOptions::default()
}

#[test]
fn pass_hat_k_and_pass_at_k_by_hand_with_a_resumed_trial() {
    // Sessions S0 = {T0, T1}, S1 = {T2, T3}; trial 3 never finished S1.
    let sh = shapes(2, 2);
    let (t, f) = (Some(true), Some(false));
    let r = run(
        "m",
        vec![
            trial(&sh, &[t, t, t, f]),
            trial(&sh, &[t, f, t, t]),
            trial(&sh, &[t, f, None, None]),
        ],
    );
    let doc = trials_report(
        &r,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("report");
    // (n, c): T0 (3, 3), T1 (3, 1), T2 (2, 2), T3 (2, 1).
    let hat = |j: usize| doc.pass_hat_k.get(j).copied().flatten().unwrap_or(-1.0);
    let at = |j: usize| doc.pass_at_k.get(j).copied().flatten().unwrap_or(-1.0);
    let sess = |j: usize| {
        doc.session_pass_hat_k
            .get(j)
            .copied()
            .flatten()
            .unwrap_or(-1.0)
    };
    assert!(
        close(hat(1), (1.0 + 1.0 / 3.0 + 1.0 + 0.5) / 4.0),
        "{}",
        hat(1)
    );
    // j = 2 > c for T1 and T3: C(1, 2) = 0.
    assert!(close(hat(2), 0.5), "{}", hat(2));
    // j = 3 > n for T2, T3: left out; T0 = 1, T1 = 0.
    assert!(close(hat(3), 0.5), "{}", hat(3));
    assert_eq!(doc.tasks_per_j.0, vec![4, 4, 2]);
    assert!(close(at(1), hat(1)));
    // T1: 1 − C(2,2)/C(3,2) = 2/3; T3: 1 − C(1,2)/C(2,2) = 1.
    assert!(
        close(at(2), (1.0 + 2.0 / 3.0 + 1.0 + 1.0) / 4.0),
        "{}",
        at(2)
    );
    assert!(close(at(3), 1.0));
    // Sessions: S0 passed trial 1 of 3, S1 passed trial 2 of 2.
    assert!(close(sess(1), (1.0 / 3.0 + 0.5) / 2.0), "{}", sess(1));
    assert!(close(sess(2), 0.0));
    assert!(close(sess(3), 0.0));
    assert_eq!(doc.sessions_per_j.0, vec![2, 2, 1]);
    assert_eq!(
        (
            doc.consistency.overall.all,
            doc.consistency.overall.some,
            doc.consistency.overall.none
        ),
        (2, 2, 0)
    );
    assert_eq!(doc.tasks_by_trial_count.get(&2), Some(&2));
    assert_eq!(doc.tasks_by_trial_count.get(&3), Some(&2));
    assert_eq!(
        doc.task_accuracy_by_trial,
        vec![Some(0.75), Some(0.75), Some(0.5)]
    );
    assert_eq!(doc.status, RunStatus::Partial);
    assert_eq!((doc.tasks, doc.tasks_scored, doc.trials), (4, 4, 3));
    // By type: each task has its own type here (types cycle), so the counts split.
    let by_type_all: u64 = doc.consistency.by_type.values().map(|c| c.all).sum();
    assert_eq!(by_type_all, 2);
    // Intervals bracket the estimates and are reproducible.
    for j in 1..=3 {
        let ci = doc.pass_hat_k_ci95.get(j).copied().flatten().expect("ci");
        assert!(
            ci.lo <= hat(j) + 1e-12 && hat(j) <= ci.hi + 1e-12,
            "{j}: {ci:?}"
        );
    }
    let again = trials_report(
        &r,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("report");
    assert_eq!(doc, again);
    // The JSON document round-trips and has the documented keys.
    let text = doc.to_json();
    let back: TrialsDoc = serde_json::from_str(&text).expect("parses");
    // serde_json's default float parser may differ in the last bit; compare values closely.
    assert_eq!(
        (
            back.trials,
            &back.tasks_per_j,
            &back.consistency,
            &back.status
        ),
        (doc.trials, &doc.tasks_per_j, &doc.consistency, &doc.status)
    );
    for (x, y) in back.pass_at_k.0.iter().zip(&doc.pass_at_k.0) {
        assert!((x.unwrap_or(9.0) - y.unwrap_or(0.0)).abs() < 1e-15);
    }
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["trials"], 3);
    assert_eq!(v["tasks"], 4);
    assert!(v["pass_hat_k"]["1"].is_number() && v["pass_hat_k"]["3"].is_number());
    assert!(v["pass_at_k"]["2"].is_number());
    assert!(v["session_pass_hat_k"]["1"].is_number());
    assert_eq!(v["consistency"]["overall"]["some"], 2);
}

#[test]
fn trials_need_the_same_dataset() {
    let sh = shapes(1, 2);
    let mut r = run("m", vec![trial(&sh, &[Some(true), Some(true)])]);
    r.fingerprint = 7;
    let e = trials_report(
        &r,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect_err("other dataset");
    assert!(matches!(e, CompareError::FingerprintMismatch { .. }));
    assert!(e.to_string().contains("different dataset"), "{e}");
    let none = run("m", vec![]);
    assert!(matches!(
        trials_report(
            &none,
            DatasetRef {
                fingerprint: FP,
                shapes: &sh
            },
            &quick()
        ),
        Err(CompareError::BadTrialCount { .. })
    ));
}

#[test]
fn exact_mcnemar_matches_independent_values() {
    // Computed with Python: 2 * sum(comb(n, i) for i <= min(b, c)) / 2**n as an exact
    // Fraction, capped at 1, then float().
    let known = [
        ((5, 15), 0.04138946533203125),
        ((0, 10), 0.001953125),
        ((12, 30), 0.007915897334896727),
        ((7, 8), 1.0),
        ((20, 40), 0.01348929373119186),
        ((100, 140), 0.011664092317677663),
        ((250, 300), 0.036578745549102704),
        ((60, 67), 0.5946154859354933),
        ((400, 512), 0.00023341572231213111),
        ((1, 0), 1.0),
    ];
    for ((b, c), p) in known {
        let got = mcnemar_exact(b, c);
        assert!((got - p).abs() <= 1e-12 * p, "({b}, {c}): {got} vs {p}");
    }
    assert!((mcnemar_exact(5, 15) - 0.0414).abs() < 5e-5);
}

/// Six tasks in three sessions; A and B differ on three of them.
fn small_pair() -> (Vec<TaskShape>, RunInput, RunInput) {
    let sh = shapes(3, 2);
    let (t, f) = (Some(true), Some(false));
    let a = run("A", vec![trial(&sh, &[t, t, t, f, f, f])]);
    let b = run("B", vec![trial(&sh, &[t, f, t, t, f, t])]);
    (sh, a, b)
}

#[test]
fn paired_counts_deltas_and_diff_table_by_hand() {
    let (sh, a, b) = small_pair();
    let ds = DatasetRef {
        fingerprint: FP,
        shapes: &sh,
    };
    let p = compare_pair(&a, &b, ds, &quick()).expect("pair");
    assert_eq!(
        (p.tasks, p.dropped, p.sessions),
        (6, 0, 3),
        "compared tasks/sessions"
    );
    assert_eq!(
        (p.both_correct, p.a_only, p.b_only, p.neither, p.ties),
        (2, 1, 2, 1, 0)
    );
    // n = 3, min = 1: 2 · (1 + 3) / 8 = 1.
    assert_eq!(p.mcnemar_p, 1.0);
    assert!(close(p.task_accuracy.a, 0.5) && close(p.task_accuracy.b, 4.0 / 6.0));
    assert!(close(p.task_accuracy_delta.estimate, -1.0 / 6.0));
    let s = p.session_accuracy_delta.expect("sessions");
    assert!(close(s.estimate, 0.0));
    let classes: Vec<DiffClass> = p.diff.iter().map(|d| d.class).collect();
    assert_eq!(
        classes,
        vec![
            DiffClass::Both,
            DiffClass::AOnly,
            DiffClass::Both,
            DiffClass::BOnly,
            DiffClass::Neither,
            DiffClass::BOnly
        ]
    );
    // Error class: every failed task here is a refusal, so A's refusal share is 3/6.
    let refusal = p
        .categories
        .iter()
        .find(|c| c.group == CategoryGroup::ErrorClass && c.key == "Refusal")
        .expect("refusal row");
    let r = refusal.rates.expect("rates");
    assert!(close(r.a, 0.5) && close(r.b, 2.0 / 6.0));
    assert_eq!((refusal.a_higher, refusal.b_higher), (2, 1));
}

#[test]
fn unscored_tasks_are_dropped_from_the_comparison() {
    let (sh, a, _) = small_pair();
    let (t, f) = (Some(true), Some(false));
    // B never finished session 2.
    let b = run("B", vec![trial(&sh, &[t, f, t, t, None, None])]);
    let p = compare_pair(
        &a,
        &b,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("pair");
    assert_eq!(
        (p.tasks, p.dropped, p.sessions, p.tasks_total),
        (4, 2, 2, 6)
    );
    assert_eq!(
        (p.both_correct, p.a_only, p.b_only, p.neither),
        (2, 1, 1, 0)
    );
    assert!(close(p.task_accuracy.a, 0.75) && close(p.task_accuracy.b, 0.75));
    // An incomplete outcome counts like an absent one.
    let mut listed = b.clone();
    for s in sh.iter().skip(4) {
        let mut o = outcome(s, false);
        o.incomplete = true;
        o.error = None;
        o.name_correct = false;
        o.nodes_done = 0;
        listed.trials[0].push(o);
    }
    let q = compare_pair(
        &a,
        &listed,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("pair");
    assert_eq!(q.tasks, 4);
    assert_eq!(q.task_accuracy_delta, p.task_accuracy_delta);
}

#[test]
fn refusals_are_typed_and_say_why() {
    let (sh, a, b) = small_pair();
    let ds = DatasetRef {
        fingerprint: FP,
        shapes: &sh,
    };
    let mut other = b.clone();
    other.fingerprint = 0x1234;
    let e = compare_runs(&[a.clone(), other], ds, &quick()).expect_err("fingerprint");
    assert!(matches!(
        e,
        CompareError::FingerprintMismatch { run: 0x1234, .. }
    ));
    assert!(e.to_string().contains("0000000000001234"), "{e}");
    assert!(matches!(
        compare_runs(std::slice::from_ref(&a), ds, &quick()),
        Err(CompareError::TooFewRuns { found: 1 })
    ));
    let empty = run("E", vec![vec![]]);
    assert!(matches!(
        compare_runs(&[a.clone(), empty], ds, &quick()),
        Err(CompareError::NothingScored { .. })
    ));
    let mut stray = b.clone();
    let mut o = outcome(&sh[0], true);
    o.session = 99;
    stray.trials[0].push(o);
    assert!(matches!(
        compare_runs(&[a.clone(), stray], ds, &quick()),
        Err(CompareError::UnknownTask { session: 99, .. })
    ));
    let mut wrong = b.clone();
    wrong.trials[0][0].task_type = if sh[0].task_type == TaskType::Chat {
        TaskType::Clarify
    } else {
        TaskType::Chat
    };
    assert!(matches!(
        compare_runs(&[a.clone(), wrong], ds, &quick()),
        Err(CompareError::ShapeMismatch { .. })
    ));
    // Disjoint scored tasks.
    let (t, f) = (Some(true), Some(false));
    let left = run("L", vec![trial(&sh, &[t, f, None, None, None, None])]);
    let right = run("R", vec![trial(&sh, &[None, None, t, f, None, None])]);
    assert!(matches!(
        compare_pair(&left, &right, ds, &quick()),
        Err(CompareError::NothingInCommon { .. })
    ));
}

#[test]
fn three_runs_give_three_pairs_with_unique_labels() {
    let (sh, a, b) = small_pair();
    let mut c = a.clone();
    c.label = "A".to_owned();
    let doc = compare_runs(
        &[a, b, c],
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("doc");
    let names: Vec<(String, String)> = doc
        .pairs
        .iter()
        .map(|p| (p.a.clone(), p.b.clone()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("A".into(), "B".into()),
            ("A".into(), "A (2)".into()),
            ("B".into(), "A (2)".into())
        ]
    );
    // Identical runs: no discordant task, p = 1, and the *paired* interval is exactly 0.
    let same = &doc.pairs[1];
    assert_eq!((same.a_only, same.b_only, same.mcnemar_p), (0, 0, 1.0));
    assert_eq!(
        (
            same.task_accuracy_delta.ci95.lo,
            same.task_accuracy_delta.ci95.hi
        ),
        (0.0, 0.0)
    );
    let text = doc.to_json();
    let back: CompareDoc = serde_json::from_str(&text).expect("round trip");
    assert_eq!(back.pairs.len(), doc.pairs.len());
    assert_eq!(back.runs, doc.runs);
    assert_eq!(back.pairs[0].diff, doc.pairs[0].diff);
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let p0 = &v["pairs"][0];
    for key in [
        "a",
        "b",
        "tasks",
        "both_correct",
        "a_only",
        "b_only",
        "neither",
        "mcnemar_p",
    ] {
        assert!(!p0[key].is_null(), "{key}");
    }
    assert!(p0["task_accuracy_delta"]["estimate"].is_number());
    assert!(p0["task_accuracy_delta"]["ci95"]["lo"].is_number());
    assert!(p0["session_accuracy_delta"]["ci95"]["hi"].is_number());
    assert_eq!(
        unique_labels(&["x".into(), "x".into(), "x (2)".into()]),
        vec!["x".to_owned(), "x (2)".to_owned(), "x (2) (2)".to_owned()]
    );
}

/// SplitMix64 as documented (`report::intervals`): the bootstrap is specified by it.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A larger pair: 40 sessions × 4 tasks with pseudo-random outcomes.
fn larger_pair() -> (Vec<TaskShape>, RunInput, RunInput) {
    let sh = shapes(40, 4);
    let mut rng = SplitMix(99);
    let a: Vec<Option<bool>> = sh.iter().map(|_| Some(rng.next() % 100 < 62)).collect();
    let b: Vec<Option<bool>> = a
        .iter()
        .map(|x| {
            let flip = rng.next() % 100 < 25;
            x.map(|v| v ^ flip)
        })
        .collect();
    (
        sh.clone(),
        run("A", vec![trial(&sh, &a)]),
        run("B", vec![trial(&sh, &b)]),
    )
}

#[test]
fn paired_bootstrap_is_the_documented_algorithm() {
    let (sh, a, b) = larger_pair();
    let opts = BootstrapOptions {
        resamples: 2000,
        seed: 0x5EED_2026,
        level: 0.95,
    };
    let p = compare_pair(
        &a,
        &b,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &opts,
    )
    .expect("pair");
    // Re-implement: per session Σ(a − b) and task count; resample sessions with
    // SplitMix64 (index = next() mod sessions); statistic Σ diff / Σ count; 95%
    // percentile by nearest rank on (len − 1).
    let per_session: Vec<(f64, f64)> = (0..40)
        .map(|s| {
            let mut d = 0.0;
            for (i, shape) in sh.iter().enumerate().filter(|(_, x)| x.session == s) {
                let _ = shape;
                let ca = a.trials[0][i].correct as u8 as f64;
                let cb = b.trials[0][i].correct as u8 as f64;
                d += ca - cb;
            }
            (d, 4.0)
        })
        .collect();
    let mut rng = SplitMix(opts.seed);
    let mut stats = Vec::new();
    for _ in 0..opts.resamples {
        let (mut d, mut n) = (0.0, 0.0);
        for _ in 0..40 {
            let (sd, sn) = per_session[(rng.next() % 40) as usize];
            d += sd;
            n += sn;
        }
        stats.push(d / n);
    }
    stats.sort_by(f64::total_cmp);
    let last = (stats.len() - 1) as f64;
    let lo = stats[(0.025 * last).round() as usize];
    let hi = stats[(0.975 * last).round() as usize];
    assert!(
        close(p.task_accuracy_delta.ci95.lo, lo),
        "{:?} vs {lo}",
        p.task_accuracy_delta
    );
    assert!(
        close(p.task_accuracy_delta.ci95.hi, hi),
        "{:?} vs {hi}",
        p.task_accuracy_delta
    );
    let point: f64 = per_session.iter().map(|x| x.0).sum::<f64>() / 160.0;
    assert!(close(p.task_accuracy_delta.estimate, point));
    assert!(lo < point && point < hi);
    // Another seed moves the interval; the same seed reproduces it.
    let other = compare_pair(
        &a,
        &b,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &BootstrapOptions { seed: 1, ..opts },
    )
    .expect("pair");
    assert_ne!(other.task_accuracy_delta.ci95, p.task_accuracy_delta.ci95);
    let same = compare_pair(
        &a,
        &b,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &opts,
    )
    .expect("pair");
    assert_eq!(same, p);
}

#[test]
fn categories_use_the_report_definitions() {
    let (sh, a, b) = larger_pair();
    let p = compare_pair(
        &a,
        &b,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("pair");
    let ra = RunReport::from_outcomes(&a.trials[0]);
    let rb = RunReport::from_outcomes(&b.trials[0]);
    for c in &p.categories {
        let (x, y) = match c.group {
            CategoryGroup::TaskType => (
                ra.by_type.get(c.key.as_str()),
                rb.by_type.get(c.key.as_str()),
            ),
            CategoryGroup::Position => (ra.by_position.get(&c.key), rb.by_position.get(&c.key)),
            CategoryGroup::Subtype => (
                ra.by_subtype.get(c.key.as_str()),
                rb.by_subtype.get(c.key.as_str()),
            ),
            CategoryGroup::Transitions => {
                (ra.by_transitions.get(&c.key), rb.by_transitions.get(&c.key))
            }
            CategoryGroup::ErrorClass => continue,
        };
        let (x, y) = (
            x.expect("report has the key"),
            y.expect("report has the key"),
        );
        assert_eq!(c.tasks, x.total, "{:?} {}", c.group, c.key);
        match c.rates {
            Some(r) => {
                assert!(close(r.a, x.rate) && close(r.b, y.rate), "{} {r:?}", c.key);
                let d = c.delta.expect("delta");
                assert!(close(d.estimate, x.rate - y.rate));
                assert!(d.ci95.lo <= d.estimate + 1e-12 && d.estimate <= d.ci95.hi + 1e-12);
            }
            None => assert_eq!(x.total, 0),
        }
    }
    // Error classes: share of compared tasks with that column.
    let failed_a = ra.errors.columns.iter().map(|c| c.1).sum::<u64>();
    let refusal = p
        .categories
        .iter()
        .find(|c| c.group == CategoryGroup::ErrorClass && c.key == "Refusal")
        .and_then(|c| c.rates)
        .expect("refusal");
    assert!(close(refusal.a, failed_a as f64 / 160.0));
    // The transitions chart's ticks are the bare counts with their n, under a title that
    // names the factor once.
    let charts = wildtool_core::compare::html::pair_charts(&p, 0);
    let tr = charts
        .iter()
        .find(|c| c.title.ends_with("Instruction transitions"))
        .expect("transitions chart");
    for (k, tick) in tr.categories.iter().enumerate() {
        assert!(tick.starts_with(&format!("{k} (n = ")), "{tick}");
    }
}

#[test]
fn trials_feed_the_comparison_as_pass_rates() {
    let sh = shapes(2, 2);
    let (t, f) = (Some(true), Some(false));
    // A: two trials; B: one.
    let a = run(
        "A",
        vec![trial(&sh, &[t, t, f, t]), trial(&sh, &[t, f, f, f])],
    );
    let b = run("B", vec![trial(&sh, &[t, f, f, t])]);
    let p = compare_pair(
        &a,
        &b,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("pair");
    // Rates A: 1, 0.5, 0, 0.5; B: 1, 0, 0, 1.
    let rates: Vec<(f64, f64)> = p.diff.iter().map(|d| (d.a, d.b)).collect();
    assert_eq!(rates, vec![(1.0, 1.0), (0.5, 0.0), (0.0, 0.0), (0.5, 1.0)]);
    assert_eq!(
        (p.both_correct, p.a_only, p.b_only, p.neither, p.ties),
        (1, 1, 1, 1, 0)
    );
    assert!(close(p.task_accuracy.a, 0.5) && close(p.task_accuracy.b, 0.5));
    // Sessions: A's S0 passed 1 of 2 trials, S1 0 of 2; B's S0 0 of 1, S1 0 of 1.
    let s = p.session_accuracy.expect("sessions");
    assert!(close(s.a, 0.25) && close(s.b, 0.0));
    assert_eq!(p.diff[1].a_trials, 2);
    assert_eq!(p.diff[1].b_trials, 1);
    // Equal partial rates are ties.
    let c = run(
        "C",
        vec![trial(&sh, &[t, t, f, t]), trial(&sh, &[t, f, f, f])],
    );
    let q = compare_pair(
        &a,
        &c,
        DatasetRef {
            fingerprint: FP,
            shapes: &sh,
        },
        &quick(),
    )
    .expect("pair");
    assert_eq!((q.ties, q.a_only, q.b_only), (2, 0, 0));
}
