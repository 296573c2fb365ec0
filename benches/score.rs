//! Full scoring throughput on a generated 1,024-task result file (native), beside the
//! floor: reading the same lines alone (`parse only`: `json::loads` of every result line and
//! the dataset load scoring needs), so scoring can be stated as a multiple of parsing.
//! `WILDTOOL_BENCH_RESULTS=FILE WILDTOOL_BENCH_DATASET=FILE` measure another pair of files
//! (e.g. the ones `scripts/bench-file.sh` makes).
//!
//! The dataset is the bundled suite repeated to 256 sessions (ids renumbered); the result
//! file mixes the gold agent (correct tasks, every argument checked) and the baseline agent
//! (realistic failures), so replay, candidate logging and the argument checker all run.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use wildtool_core::checker;
use wildtool_core::dataset::{load_dataset, Lang};
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::runner::agents::{BaselineAgent, GoldAgent};
use wildtool_core::runner::driver::{run_task, Responder};
use wildtool_core::score::{ScoreOptions, Scorer};

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

fn results(dataset: &wildtool_core::dataset::LoadedDataset) -> Vec<String> {
    let gold = GoldAgent;
    let baseline = BaselineAgent;
    dataset
        .sessions
        .iter()
        .map(|s| {
            let tasks: Vec<Value> = (0..s.tasks.len())
                .map(|t| {
                    let agent: &dyn Responder = if (s.index + t) % 3 == 0 {
                        &baseline
                    } else {
                        &gold
                    };
                    run_task(s, t, agent)
                        .record
                        .map(|r| r.result)
                        .unwrap_or(Value::Null)
                })
                .collect();
            let mut m = Map::new();
            m.insert("id", Value::Str(s.id.clone()));
            m.insert("model_name", Value::str("bench"));
            m.insert("result", Value::Array(tasks));
            dumps(&Value::Object(m), Escape::Utf8)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = std::env::var("WILDTOOL_BENCH_DATASET")
        .ok()
        .zip(std::env::var("WILDTOOL_BENCH_RESULTS").ok());
    let text = match &files {
        Some((dataset, _)) => std::fs::read_to_string(dataset).expect("dataset"),
        None => dataset_1024(),
    };
    let loaded = load_dataset(&text, Lang::En);
    let lines = match &files {
        Some((_, results)) => std::fs::read_to_string(results)
            .expect("results")
            .lines()
            .map(str::to_owned)
            .collect(),
        None => results(&loaded),
    };
    let bytes: usize = lines.iter().map(String::len).sum();
    let seg = checker::default_segmenter();
    let check = |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, seg.as_ref());
    let mut group = c.benchmark_group("score");
    group.sample_size(10);
    group.throughput(Throughput::Elements(1024));
    group.bench_function(
        format!("1024 tasks ({:.1} MB result file)", bytes as f64 / 1e6),
        |b| {
            b.iter(|| {
                let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
                for (i, line) in lines.iter().enumerate() {
                    let _ = scorer.score_line(i + 1, line);
                }
                scorer.metric_json("bench")
            })
        },
    );
    group.bench_function(
        "parse only (the floor): json::loads of every result line",
        |b| b.iter(|| lines.iter().filter(|line| loads(line).is_ok()).count()),
    );
    group.bench_function("parse only: dataset load", |b| {
        b.iter(|| load_dataset(&text, Lang::En).sessions.len())
    });
    group.bench_function("score with dataset load", |b| {
        b.iter(|| {
            let loaded = load_dataset(&text, Lang::En);
            let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
            for (i, line) in lines.iter().enumerate() {
                let _ = scorer.score_line(i + 1, line);
            }
            scorer.metric_json("bench")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
