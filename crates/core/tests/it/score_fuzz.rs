//! Fuzzing the result-file side of scoring: arbitrary mutations of official result lines
//! never panic the scorer; every line either scores or yields a `LineError`.

use proptest::prelude::*;

use wildtool_core::checker;
use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::score::{ScoreOptions, Scorer};

use crate::support::read_fixture;

fn result_lines() -> Vec<String> {
    let mut out = Vec::new();
    for run in ["mock-seed-0", "mock-seed-5"] {
        out.extend(
            read_fixture(&format!("official-runs/{run}/mini_result.jsonl"))
                .lines()
                .map(str::to_owned),
        );
    }
    out
}

fn dataset() -> LoadedDataset {
    load_dataset(&read_fixture("mini.jsonl"), Lang::En)
}

/// Number of nodes (values) in a tree.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(m) => m.iter().map(|(_, x)| count(x)).sum(),
        _ => 0,
    }
}

/// Replaces the `n`-th value (pre-order) with `with`.
fn replace_nth(v: &mut Value, n: &mut usize, with: &Value) -> bool {
    if *n == 0 {
        *v = with.clone();
        return true;
    }
    *n -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| replace_nth(x, n, with)),
        Value::Object(m) => m.iter_mut().any(|(_, x)| replace_nth(x, n, with)),
        _ => false,
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::int),
        any::<f64>().prop_map(Value::Float),
        "[a-z_ ]{0,12}".prop_map(Value::Str),
        Just(Value::str("correct")),
        Just(Value::str("prepare_to_answer")),
        Just(Value::str("{\"city\": 1}")),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn value_mutations_never_panic(line in 0usize..16, at in any::<usize>(), with in any_value()) {
        let lines = result_lines();
        let loaded = dataset();
        let seg = checker::NoSegmenter;
        let check = |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, &seg);
        let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
        let text = &lines[line % lines.len()];
        let mut v = loads(text).expect("fixture parses");
        let mut n = at % count(&v);
        replace_nth(&mut v, &mut n, &with);
        let _ = scorer.score_line(1, &dumps(&v, Escape::Utf8));
        let _ = scorer.metric_json("m");
    }

    #[test]
    fn text_mutations_never_panic(line in 0usize..16, cut in any::<usize>(), flips in prop::collection::vec((any::<usize>(), any::<char>()), 0..4)) {
        let lines = result_lines();
        let loaded = dataset();
        let seg = checker::NoSegmenter;
        let check = |t: &Value, n: &str, p: &Value, g: &str| checker::check(t, n, p, g, &seg);
        let mut scorer = Scorer::new(&loaded, &check, ScoreOptions::default());
        let mut chars: Vec<char> = lines[line % lines.len()].chars().collect();
        for (pos, c) in flips {
            let i = pos % chars.len();
            chars[i] = c;
        }
        let keep = cut % (chars.len() + 1);
        let text: String = chars[..keep.max(chars.len() / 2)].iter().collect();
        let _ = scorer.score_line(1, &text);
    }
}
