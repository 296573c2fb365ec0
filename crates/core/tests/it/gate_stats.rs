//! The regression gate and the planner on seeded synthetic runs: the gate's numbers are
//! `compare`'s, it passes two runs of one deterministic model and (in at least 95 of 100
//! seeded repetitions) two runs of one noisy model, it fails a truly worse candidate at
//! a size the planner calls enough, and the planner's smallest detectable drop agrees
//! with a simulation of the gate from the same pilot within 20%.

use wildtool_core::compare::gate::{gate_runs, metric_named, GateOutcome, GateRule, GateUnit};
use wildtool_core::compare::{compare_pair, BootstrapOptions, DatasetRef, RunInput};
use wildtool_core::outcome::{RawErrorLabel, TaskOutcome, TaskType};
use wildtool_core::plan::{plan, simulate, PilotKind, PlanPilot, PlanSettings};
use wildtool_core::share::TaskShape;

const FP: u64 = 0x0123_4567_89ab_cdef;

/// SplitMix64, for the synthetic models.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn shapes(sessions: u32, per: u8) -> Vec<TaskShape> {
    (0..sessions)
        .flat_map(|s| {
            (0..per).map(move |p| TaskShape {
                session: s,
                position: p,
                task_type: TaskType::ALL[(s as usize + p as usize) % 6],
                subtype: None,
                transitions: 0,
                nodes_total: 1,
                min_length: 1,
            })
        })
        .collect()
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
        nodes_done: u16::from(correct),
        error: (!correct).then_some(RawErrorLabel::Refusal),
        incomplete: false,
    }
}

/// Per-task pass probabilities: sessions differ in difficulty, tasks within them too;
/// a fifth of the tasks always pass and a tenth never do.
fn difficulty(shapes: &[TaskShape], seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    let session_level: Vec<f64> = (0..=shapes.iter().map(|s| s.session).max().unwrap_or(0))
        .map(|_| 0.3 + 0.6 * rng.unit())
        .collect();
    shapes
        .iter()
        .map(|s| {
            let u = rng.unit();
            if u < 0.2 {
                1.0
            } else if u < 0.3 {
                0.0
            } else {
                (session_level[s.session as usize] + 0.3 * (rng.unit() - 0.5)).clamp(0.05, 0.95)
            }
        })
        .collect()
}

/// A run of `trials` trials of a model with these pass probabilities; tasks whose index
/// is in `broken` always fail.
fn run(
    label: &str,
    shapes: &[TaskShape],
    probs: &[f64],
    trials: usize,
    broken: &dyn Fn(usize) -> bool,
    seed: u64,
) -> RunInput {
    let mut rng = Rng(seed);
    RunInput {
        label: label.to_owned(),
        fingerprint: FP,
        trials: (0..trials)
            .map(|_| {
                shapes
                    .iter()
                    .zip(probs)
                    .enumerate()
                    .map(|(i, (s, p))| outcome(s, !broken(i) && rng.unit() < *p))
                    .collect()
            })
            .collect(),
    }
}

fn none(_: usize) -> bool {
    false
}

fn rule() -> GateRule {
    GateRule::default()
}

fn quick() -> BootstrapOptions {
    BootstrapOptions {
        resamples: 1000,
        ..BootstrapOptions::default()
    }
}

/// Fewer resamples for the simulated gates (each of hundreds of gates bootstraps).
fn sim_boot() -> BootstrapOptions {
    BootstrapOptions {
        resamples: 400,
        ..BootstrapOptions::default()
    }
}

#[test]
fn the_gates_numbers_are_compares() {
    let sh = shapes(40, 4);
    let probs = difficulty(&sh, 1);
    let a = run("base", &sh, &probs, 1, &none, 10);
    let b = run("cand", &sh, &probs, 1, &|i| i % 7 == 0, 11);
    let ds = DatasetRef {
        fingerprint: FP,
        shapes: &sh,
    };
    let task = metric_named("task").expect("task metric");
    let (pair, verdict) =
        gate_runs(&a, &b, ds, task, &rule(), &BootstrapOptions::default()).expect("gate");
    let compared = compare_pair(&a, &b, ds, &BootstrapOptions::default()).expect("compare");
    assert_eq!(pair, compared, "same core call, same numbers");
    assert_eq!(verdict.p, compared.mcnemar_p);
    assert_eq!(verdict.difference, -compared.task_accuracy_delta.estimate);
    assert_eq!(verdict.interval.lo, -compared.task_accuracy_delta.ci95.hi);
    assert_eq!(verdict.interval.hi, -compared.task_accuracy_delta.ci95.lo);
    assert_eq!(verdict.baseline_ahead, compared.a_only);
    assert_eq!(verdict.candidate_ahead, compared.b_only);
    // The session metric reads the session test.
    let session = metric_named("session").expect("session metric");
    assert_eq!(session.unit, GateUnit::Session);
    let (_, sv) =
        gate_runs(&a, &b, ds, session, &rule(), &BootstrapOptions::default()).expect("gate");
    assert_eq!(sv.p, compared.session_mcnemar_p);
    assert_eq!(sv.units, compared.sessions);
    // min_sessions refuses.
    let strict = GateRule {
        min_sessions: 41,
        ..rule()
    };
    assert!(gate_runs(&a, &b, ds, task, &strict, &quick()).is_err());
}

#[test]
fn identical_deterministic_runs_pass_and_noisy_runs_pass_95_of_100() {
    let sh = shapes(60, 4);
    let ds = DatasetRef {
        fingerprint: FP,
        shapes: &sh,
    };
    let task = metric_named("task").expect("task metric");
    let mut deterministic_failures = 0;
    let mut noisy_failures = 0;
    for rep in 0..100u64 {
        // A deterministic model: every task passes or fails by its own coin, the same in
        // both runs.
        let probs: Vec<f64> = difficulty(&sh, 100 + rep)
            .into_iter()
            .map(|p| if p >= 0.5 { 1.0 } else { 0.0 })
            .collect();
        let a = run("a", &sh, &probs, 1, &none, 1);
        let b = run("b", &sh, &probs, 1, &none, 2);
        let (_, v) = gate_runs(&a, &b, ds, task, &rule(), &quick()).expect("gate");
        deterministic_failures += usize::from(v.outcome.fails());
        assert_eq!(v.p, 1.0);
        // A noisy model: the same probabilities, answers drawn by seed.
        let probs = difficulty(&sh, 200 + rep);
        let a = run("a", &sh, &probs, 1, &none, 1000 + 2 * rep);
        let b = run("b", &sh, &probs, 1, &none, 1001 + 2 * rep);
        let (_, v) = gate_runs(&a, &b, ds, task, &rule(), &quick()).expect("gate");
        noisy_failures += usize::from(v.outcome.fails());
    }
    assert_eq!(deterministic_failures, 0);
    assert!(
        noisy_failures <= 5,
        "{noisy_failures} of 100 noisy pairs failed"
    );
}

/// The planner's smallest detectable drop `d` against the simulated gate: the power at
/// 0.8·d must be below the target and at 1.2·d above it, i.e. the simulated smallest
/// detectable drop lies within 20% of the plan's.
fn agrees(pilot: &PlanPilot, sessions: u64, trials: u32, seed: u64) -> f64 {
    let settings = PlanSettings {
        sessions,
        trials,
        rule: rule(),
        power: 0.8,
        difference_points: None,
    };
    let doc = plan(pilot, &settings).expect("plan");
    let mde = doc.min_detectable.expect("a detectable drop");
    let sim = |d: f64, s: u64| {
        simulate(pilot, sessions, trials, d, &rule(), 200, s, &sim_boot()).expect("simulation")
    };
    let below = sim(0.8 * mde, seed);
    let above = sim(1.2 * mde, seed + 1);
    assert!(
        below < 0.8 && above > 0.8,
        "{:?} pilot, {sessions} sessions × {trials}: plan {:.4}, simulated power {below:.3} at 0.8× and {above:.3} at 1.2×",
        pilot.facts().kind,
        mde
    );
    mde
}

#[test]
fn the_planner_agrees_with_a_simulation_from_the_same_pilot() {
    let sh = shapes(80, 4);
    let ds = DatasetRef {
        fingerprint: FP,
        shapes: &sh,
    };
    let probs = difficulty(&sh, 7);
    // One pilot with five trials: run-to-run noise, averaged by planned trials.
    let a5 = run("pilot", &sh, &probs, 5, &none, 70);
    let trials = PlanPilot::new(&a5, None, ds).expect("pilot");
    assert_eq!(trials.facts().kind, PilotKind::Trials);
    let one = agrees(&trials, 80, 1, 1);
    let three = agrees(&trials, 80, 3, 3);
    assert!(
        three < one,
        "trials shrink the detectable drop: {three} vs {one}"
    );
    // Two pilots of one trial each (a second system that differs per task).
    let other: Vec<f64> = probs
        .iter()
        .enumerate()
        .map(|(i, p)| if i % 5 == 0 { 1.0 - p } else { *p })
        .collect();
    let a = run("a", &sh, &probs, 1, &none, 80);
    let b = run("b", &sh, &other, 1, &none, 81);
    let pair = PlanPilot::new(&a, Some(&b), ds).expect("pilot");
    assert_eq!(pair.facts().kind, PilotKind::Pair);
    agrees(&pair, 100, 1, 5);
    // One pilot of one trial: the pessimistic model.
    let single = PlanPilot::new(&a, None, ds).expect("pilot");
    assert_eq!(single.facts().kind, PilotKind::Single);
    agrees(&single, 100, 1, 7);
}

#[test]
fn a_truly_worse_candidate_fails_the_gate_at_the_planned_size() {
    let sh = shapes(400, 4);
    let probs = difficulty(&sh, 9);
    // Pilot: the baseline model with three trials on the first 40 sessions.
    let pilot_shapes: Vec<TaskShape> = sh.iter().filter(|s| s.session < 40).cloned().collect();
    let pilot_run = run("pilot", &pilot_shapes, &probs, 3, &none, 90);
    let pilot = PlanPilot::new(
        &pilot_run,
        None,
        DatasetRef {
            fingerprint: FP,
            shapes: &pilot_shapes,
        },
    )
    .expect("pilot");
    // The candidate always fails every eighth task: a drop of about 0.56 / 8 = 7 points.
    let broken = |i: usize| i % 8 == 3;
    let drop: f64 = probs
        .iter()
        .enumerate()
        .filter(|(i, _)| broken(*i))
        .map(|(_, p)| p)
        .sum::<f64>()
        / probs.len() as f64;
    let settings = PlanSettings {
        sessions: 1,
        trials: 1,
        rule: rule(),
        power: 0.8,
        difference_points: Some(drop * 100.0 * 0.9),
    };
    let needed = plan(&pilot, &settings)
        .expect("plan")
        .sessions_needed
        .expect("a size");
    assert!(needed <= 400, "{needed}");
    let at: Vec<TaskShape> = sh
        .iter()
        .filter(|s| u64::from(s.session) < needed)
        .cloned()
        .collect();
    let ds_at = DatasetRef {
        fingerprint: FP,
        shapes: &at,
    };
    let base = run("base", &at, &probs, 1, &none, 91);
    let cand = run("cand", &at, &probs, 1, &broken, 92);
    let task = metric_named("task").expect("task metric");
    let (_, v) = gate_runs(
        &base,
        &cand,
        ds_at,
        task,
        &rule(),
        &BootstrapOptions::default(),
    )
    .expect("gate");
    assert_eq!(v.outcome, GateOutcome::Regression, "{}", v.reason);
    assert!(v.reason.starts_with("regression: \u{2212}"), "{}", v.reason);
}
