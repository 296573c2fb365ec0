//! Throughput of the argument checker on the golden rows, and jieba start-up cost.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use wildtool_core::checker::{check, JiebaSegmenter};
use wildtool_core::json::{loads, Value};

fn golden() -> Vec<(Value, String, Value, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/args_golden.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| loads(line).ok())
        .filter_map(|row| {
            Some((
                row.get("tools")?.clone(),
                row.get("name")?.as_str()?.to_owned(),
                row.get("predict_args_str")?.clone(),
                row.get("answer_args_str")?.as_str()?.to_owned(),
            ))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let seg = JiebaSegmenter::with_default_dict();
    let rows = golden();
    c.bench_function("check all 94 golden rows", |b| {
        b.iter(|| {
            for (tools, name, predicted, gold) in &rows {
                black_box(check(tools, name, predicted, gold, &seg));
            }
        })
    });
    c.bench_function("jieba default dictionary load", |b| {
        b.iter(|| black_box(JiebaSegmenter::with_default_dict()))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
