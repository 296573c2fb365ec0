//! The sweep analysis in the core: the trend test against a hand-made case computed here
//! from first principles (the exact permutation distribution enumerated, its variance,
//! the per-session slopes), and the per-level counting (scored tasks only, incomplete
//! sessions out of the pairing, trials pooled per session).

use wildtool_core::chart::escape_xml;
use wildtool_core::generate::GenerateSpec;
use wildtool_core::outcome::{TaskOutcome, TaskType};
use wildtool_core::sweep::html::{chart, level_table, summary_text, sweep_html, trend_lines};
use wildtool_core::sweep::trend::two_sided_normal_p;
use wildtool_core::sweep::{
    analyse, trend_test, LevelInput, SweepDoc, SweepInput, SweepPlan, TrendOptions,
};

/// All permutations of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn the_trend_test_agrees_with_the_enumerated_permutation_distribution() {
    let scores = [0.0, 1.0, 2.0];
    let rows = vec![
        vec![1.0, 0.5, 0.25],
        vec![0.75, 0.75, 0.25],
        vec![1.0, 0.25, 0.5],
        vec![0.5, 0.75, 0.5],
    ];
    // T by hand: centred scores −1, 0, 1.
    let t_obs: f64 = rows.iter().map(|r| r[2] - r[0]).sum();
    assert!((t_obs - (-0.75 - 0.5 - 0.5 + 0.0)).abs() < 1e-12);

    // The exact null distribution: every combination of within-row permutations.
    let perms = permutations(3);
    let mut values = vec![0.0f64];
    for row in &rows {
        let mut next = Vec::new();
        for v in &values {
            for p in &perms {
                next.push(v + (row[p[2]] - row[p[0]]));
            }
        }
        values = next;
    }
    let n = values.len() as f64;
    assert_eq!(values.len(), 6usize.pow(4));
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let exact_p = values
        .iter()
        .filter(|v| v.abs() >= t_obs.abs() - 1e-12)
        .count() as f64
        / n;
    let slopes: Vec<f64> = rows
        .iter()
        .map(|r| {
            // Least-squares slope of r against 0, 1, 2.
            let my = r.iter().sum::<f64>() / 3.0;
            r.iter()
                .enumerate()
                .map(|(i, y)| (i as f64 - 1.0) * (y - my))
                .sum::<f64>()
                / 2.0
        })
        .collect();
    let mean_slope = slopes.iter().sum::<f64>() / slopes.len() as f64;

    let t = trend_test(&scores, &rows, TrendOptions::default()).expect("a test");
    assert!(mean.abs() < 1e-12);
    assert!((t.statistic - t_obs).abs() < 1e-12);
    assert!(
        (t.z - t_obs / var.sqrt()).abs() < 1e-9,
        "{} vs {}",
        t.z,
        t_obs / var.sqrt()
    );
    assert!((t.p_normal - two_sided_normal_p(t_obs / var.sqrt())).abs() < 1e-12);
    assert!(
        (t.p_permutation - exact_p).abs() < 0.015,
        "Monte Carlo {} vs exact {exact_p}",
        t.p_permutation
    );
    assert!((t.slope - mean_slope).abs() < 1e-12);
    assert!(t.slope_ci95.lo <= t.slope && t.slope <= t.slope_ci95.hi);
    assert_eq!(t.blocks, 4);
    // Fixed seed: the same numbers twice; another seed moves only the Monte Carlo parts.
    assert_eq!(
        trend_test(&scores, &rows, TrendOptions::default()).as_ref(),
        Some(&t)
    );
    let other = trend_test(
        &scores,
        &rows,
        TrendOptions {
            seed: 99,
            ..TrendOptions::default()
        },
    )
    .expect("a test");
    assert_eq!((other.z, other.slope), (t.z, t.slope));

    // Two levels: the paired sign-flip test of the differences.
    let pairs = vec![
        vec![0.0, 1.0],
        vec![0.25, 0.75],
        vec![0.5, 1.0],
        vec![1.0, 0.75],
    ];
    let diffs: Vec<f64> = pairs.iter().map(|r| r[1] - r[0]).collect();
    let d_obs: f64 = diffs.iter().sum();
    let mut hits = 0;
    for mask in 0..16u32 {
        let s: f64 = diffs
            .iter()
            .enumerate()
            .map(|(i, d)| if mask >> i & 1 == 1 { -d } else { *d })
            .sum();
        if s.abs() >= d_obs.abs() - 1e-12 {
            hits += 1;
        }
    }
    let t2 = trend_test(&[0.0, 1.0], &pairs, TrendOptions::default()).expect("a test");
    assert!((t2.p_permutation - f64::from(hits) / 16.0).abs() < 0.015);
    // Centred scores ±½: T = ½ Σ d; slope = mean difference.
    assert!((t2.statistic - d_obs / 2.0).abs() < 1e-12);
    assert!((t2.slope - d_obs / 4.0).abs() < 1e-12);
}

/// Outcomes of `sessions` four-task sessions; `correct(session, position)` decides, and
/// sessions in `incomplete` are unscored.
fn outcomes(
    sessions: u32,
    correct: impl Fn(u32, u8) -> bool,
    incomplete: &[u32],
) -> Vec<TaskOutcome> {
    let mut out = Vec::new();
    for s in 0..sessions {
        for p in 0..4u8 {
            let unscored = incomplete.contains(&s);
            out.push(TaskOutcome {
                session: s,
                position: p,
                task_type: TaskType::SingleTool,
                subtype: None,
                transitions: 0,
                correct: !unscored && correct(s, p),
                name_correct: false,
                optimal: false,
                steps_logged: 0,
                nodes_total: 1,
                nodes_done: 0,
                error: None,
                incomplete: unscored,
            });
        }
    }
    out
}

#[test]
fn levels_are_counted_over_scored_tasks_and_paired_by_session() {
    let plan = SweepPlan::parse("distractors=0,2,4", GenerateSpec::new(1, 6)).expect("plan");
    let level = |i: usize, trials: Vec<Vec<TaskOutcome>>| LevelInput {
        value: plan.levels[i].clone(),
        dir: plan.dir_name(i),
        fingerprint: format!("{i:016x}"),
        trials,
        env_metrics: Vec::new(),
    };
    // Level 0: all correct. Level 1: positions 0-1 correct, session 5 incomplete.
    // Level 2: two trials; session s correct at positions < s % 4 in trial 1, none in 2.
    let input = SweepInput {
        plan: &plan,
        model: "m".into(),
        levels: vec![
            level(0, vec![outcomes(6, |_, _| true, &[])]),
            level(1, vec![outcomes(6, |_, p| p < 2, &[5])]),
            level(
                2,
                vec![
                    outcomes(6, |s, p| u32::from(p) < s % 4, &[]),
                    outcomes(6, |_, _| false, &[]),
                ],
            ),
        ],
    };
    let doc = analyse(&input, TrendOptions::default());
    assert_eq!(doc.status, "partial");
    assert_eq!(doc.factor, "distractors");
    assert_eq!(doc.suite, "seed=1,sessions=6");
    let l0 = &doc.levels[0];
    assert_eq!((l0.tasks_scored, l0.tasks_total), (24, 24));
    assert_eq!(l0.task_accuracy, Some(1.0));
    assert_eq!(l0.status, "done");
    assert_eq!(l0.score, 0.0);
    let l1 = &doc.levels[1];
    assert_eq!((l1.tasks_scored, l1.tasks_total), (20, 24));
    assert_eq!(l1.status, "partial");
    assert_eq!(l1.task_accuracy, Some(0.5));
    assert_eq!(
        l1.session_accuracy.map(|r| (r.correct, r.total)),
        Some((0, 5))
    );
    let l2 = &doc.levels[2];
    assert_eq!((l2.tasks_scored, l2.tasks_total, l2.trials), (48, 48, 2));
    // Trial 1: 0+1+2+3+0+1 = 7 correct of 24; trial 2: none.
    assert_eq!(l2.task_accuracy, Some(7.0 / 48.0));
    assert_eq!(l2.score, 4.0);

    // The trend test sees sessions 0-4 (session 5 is unscored at level 1), each a row
    // of pooled session accuracies.
    let t = doc.trend.as_ref().expect("trend");
    assert_eq!((t.blocks, doc.blocks_total), (5, 6));
    let rows: Vec<Vec<f64>> = (0..5u32)
        .map(|s| vec![1.0, 0.5, f64::from(s % 4) / 8.0])
        .collect();
    let direct = trend_test(&[0.0, 2.0, 4.0], &rows, TrendOptions::default()).expect("test");
    assert_eq!(t, &direct);
    assert!(t.slope < 0.0 && t.p_permutation < 0.05);

    // The document reads back, and every view of it says the same.
    let back = SweepDoc::parse(&doc.to_json()).expect("parse");
    assert_eq!(summary_text(&back), summary_text(&doc));
    assert_eq!(back.levels.len(), 3);
    let text = summary_text(&doc);
    assert!(
        text.contains("distractors = 2  partial  20 of 24"),
        "{text}"
    );
    let html = sweep_html(&doc);
    assert!(html.contains("<svg") && !html.contains("<script"));
    for line in trend_lines(&doc) {
        assert!(html.contains(&escape_xml(&line)), "{line}");
    }
    assert_eq!(level_table(&doc).rows.len(), 3);
    assert_eq!(chart(&doc).series.len(), 2);

    // A level not run: no rates, the sweep is partial, no pairs for the test.
    let mut missing = input.clone();
    missing.levels[2].trials.clear();
    let doc = analyse(&missing, TrendOptions::default());
    assert_eq!(doc.levels[2].status, "not run");
    assert_eq!(doc.levels[2].task_accuracy, None);
    assert!(doc.trend.is_none());
    assert!(trend_lines(&doc)[0].starts_with("No test for trend"));
    assert!(SweepDoc::parse("{\"wildtool_sweep\": 9}").is_err());
}
