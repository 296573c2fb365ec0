//! Comparing two 1,024-task runs (paired statistics with 2,000 bootstrap resamples),
//! the trials document, compare.html, and the comparison link (native).

use criterion::{criterion_group, criterion_main, Criterion};

use wildtool_core::compare::html::compare_html;
use wildtool_core::compare::{
    compare_pair, compare_runs, trials_report, BootstrapOptions, DatasetRef, RunInput,
};
use wildtool_core::dataset::{fingerprint, load_dataset, Lang};
use wildtool_core::json::{dumps, loads, Escape, Value};
use wildtool_core::outcome::{RawErrorLabel, TaskOutcome};
use wildtool_core::share::pair::{decode_pair, encode_pair, Detail, PairHeader, SharedPair};
use wildtool_core::share::{task_shapes, TaskShape};

/// The bundled suite repeated to 256 sessions (ids renumbered): 1,024 tasks.
fn dataset_1024() -> String {
    let suite = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/suite.jsonl"))
        .expect("suite");
    let base: Vec<&str> = suite.lines().collect();
    let mut out = String::new();
    for i in 0..256 {
        let mut v = loads(base[i % base.len()]).expect("suite line");
        if let Some(m) = v.as_object_mut() {
            m.insert("id", Value::Str(format!("wild_tool_bench_{i}")));
        }
        out.push_str(&dumps(&v, Escape::Utf8));
        out.push('\n');
    }
    out
}

/// Pseudo-random outcomes with accuracy about `acc` percent.
fn outcomes(shapes: &[TaskShape], seed: u64, acc: u64) -> Vec<TaskOutcome> {
    let mut x = seed | 1;
    shapes
        .iter()
        .map(|s| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let correct = x % 100 < acc;
            TaskOutcome {
                session: s.session,
                position: s.position,
                task_type: s.task_type,
                subtype: s.subtype,
                transitions: s.transitions,
                correct,
                name_correct: correct,
                optimal: correct && x % 3 == 0,
                steps_logged: 1,
                nodes_total: s.nodes_total,
                nodes_done: if correct { s.nodes_total } else { 0 },
                error: (!correct).then(|| RawErrorLabel::ALL[(x % 12) as usize]),
                incomplete: false,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let text = dataset_1024();
    let fp = fingerprint(&text);
    let shapes = task_shapes(&load_dataset(&text, Lang::En));
    assert_eq!(shapes.len(), 1024);
    let ds = DatasetRef {
        fingerprint: fp,
        shapes: &shapes,
    };
    let run = |label: &str, seeds: &[u64], acc: u64| RunInput {
        label: label.to_owned(),
        fingerprint: fp,
        trials: seeds.iter().map(|s| outcomes(&shapes, *s, acc)).collect(),
    };
    let a = run("model-a", &[11], 62);
    let b = run("model-b", &[29], 55);
    let a3 = run("model-a", &[11, 12, 13], 62);
    let b3 = run("model-b", &[29, 30, 31], 55);
    let opts = BootstrapOptions::default();
    let doc = compare_runs(&[a.clone(), b.clone()], ds, &opts).expect("compares");
    let pair = SharedPair {
        header: PairHeader {
            scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
            label_a: "model-a".to_owned(),
            label_b: "model-b".to_owned(),
            dataset_fingerprint: fp,
            task_count: 1024,
        },
        detail: Detail::Full,
        a: a.trials[0].clone(),
        b: b.trials[0].clone(),
    };
    let link = encode_pair(&pair, &shapes).expect("encodes");
    println!(
        "comparison link for two 1,024-task runs: {} characters",
        link.len()
    );

    let mut group = c.benchmark_group("compare");
    group.sample_size(20);
    group.bench_function("two 1,024-task runs (2,000 resamples)", |bch| {
        bch.iter(|| compare_pair(&a, &b, ds, &opts).expect("compares"))
    });
    group.bench_function("two 1,024-task runs x 3 trials", |bch| {
        bch.iter(|| compare_pair(&a3, &b3, ds, &opts).expect("compares"))
    });
    group.bench_function("trials.json, 1,024 tasks x 3 trials", |bch| {
        bch.iter(|| trials_report(&a3, ds, &opts).expect("report"))
    });
    group.bench_function("compare.html", |bch| {
        bch.iter(|| compare_html(&doc, "suite-x4.jsonl"))
    });
    group.bench_function("comparison link encode", |bch| {
        bch.iter(|| encode_pair(&pair, &shapes).expect("encodes"))
    });
    group.bench_function("comparison link decode", |bch| {
        bch.iter(|| decode_pair(&link, fp, &shapes).expect("decodes"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
