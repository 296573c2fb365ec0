//! Property tests: the loader and every dataset check never panic on arbitrary
//! mutations of valid lines (byte flips, truncations, random JSON values at random
//! paths, removed members), and their results stay self-consistent.

use proptest::prelude::*;
use serde_json::Value as Json;
use wildtool_core::dataset::{
    load_dataset, mixed_step_problems, parse_session, semantic_problems, Field, Lang, ParsedLine,
    Stats, Task,
};

fn mini_lines() -> Vec<String> {
    crate::support::read_fixture("mini.jsonl")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every JSON pointer in `v` (the root included).
fn pointers(v: &Json, prefix: String, out: &mut Vec<String>) {
    out.push(prefix.clone());
    match v {
        Json::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{prefix}/{i}"), out);
            }
        }
        Json::Object(m) => {
            for (k, x) in m {
                let k = k.replace('~', "~0").replace('/', "~1");
                pointers(x, format!("{prefix}/{k}"), out);
            }
        }
        _ => {}
    }
}

fn arb_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(Json::from),
        (-3i64..12).prop_map(Json::from),
        any::<u64>().prop_map(Json::from),
        (-1e9f64..1e9).prop_map(Json::from),
        prop_oneof![
            Just("prepare_to_answer".to_owned()),
            Just("ask_user_for_required_parameters".to_owned()),
            Just("float".to_owned()),
            Just("Chat".to_owned()),
            Just("Partial Information".to_owned()),
            Just("wild_tool_bench_x".to_owned()),
            ".{0,12}",
        ]
        .prop_map(Json::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("type".to_owned()),
                        Just("action".to_owned()),
                        Just("name".to_owned()),
                        Just("dependency_list".to_owned()),
                        "[a-z_]{1,8}",
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|kv| Json::Object(kv.into_iter().collect())),
        ]
    })
}

/// Runs every check on what a line produced and checks consistency.
fn exercise(index: usize, parsed: &ParsedLine) {
    for p in &parsed.problems {
        assert_eq!(p.line, index + 1);
        assert!(!p.message.is_empty());
        let _ = p.to_string();
    }
    if let Some(s) = &parsed.session {
        assert_eq!(s.problems, parsed.problems);
        assert_eq!(s.is_valid(), !parsed.problems.iter().any(|p| p.is_error()));
        let answers = s.lang.field(Field::AnswerList);
        // The loader keeps the language's node lists as text in `raw` (their tree is
        // the tasks' nodes): the count is the parsed text's.
        let listed = match s.raw.get(answers) {
            Some(wildtool_core::json::Value::Raw(raw)) => {
                raw.value().as_array().map_or(0, Vec::len)
            }
            other => other.and_then(|v| v.as_array()).map_or(0, Vec::len),
        };
        assert!(s.tasks.len() <= listed);
        let _ = semantic_problems(s);
        let path = |t: &Task| Some(vec![(0..t.nodes.len() + 1).collect::<Vec<usize>>()]);
        let _ = mixed_step_problems(s, &path);
        let _ = Stats::from_sessions(std::slice::from_ref(s)).render_table();
        let _ = s.transitions();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn byte_flips_never_panic(line in 0usize..8, flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut bytes = mini_lines()[line].clone().into_bytes();
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        let text = String::from_utf8_lossy(&bytes);
        exercise(line, &parse_session(line, &text, Lang::En));
        exercise(line, &parse_session(line, &text, Lang::Zh));
    }

    #[test]
    fn truncations_never_panic(line in 0usize..8, cut in any::<prop::sample::Index>()) {
        let bytes = mini_lines()[line].clone().into_bytes();
        let n = cut.index(bytes.len() + 1);
        let text = String::from_utf8_lossy(&bytes[..n]);
        let parsed = parse_session(line, &text, Lang::En);
        if n < bytes.len() {
            prop_assert!(parsed.session.is_none());
            prop_assert!(parsed.problems.iter().any(|p| p.message.starts_with("malformed JSON")));
        }
        exercise(line, &parsed);
    }

    #[test]
    fn random_values_at_random_paths_never_panic(
        line in 0usize..8,
        edits in prop::collection::vec((any::<prop::sample::Index>(), arb_json(), any::<bool>()), 1..4),
    ) {
        let mut doc: Json = serde_json::from_str(&mini_lines()[line]).unwrap();
        for (at, value, delete) in edits {
            let mut ptrs = Vec::new();
            pointers(&doc, String::new(), &mut ptrs);
            let ptr = ptrs[at.index(ptrs.len())].clone();
            if delete && !ptr.is_empty() {
                let (parent, key) = ptr.rsplit_once('/').unwrap();
                match doc.pointer_mut(parent) {
                    Some(Json::Object(m)) => { m.remove(&key.replace("~1", "/").replace("~0", "~")); }
                    Some(Json::Array(a)) => { let i: usize = key.parse().unwrap(); if i < a.len() { a.remove(i); } }
                    _ => {}
                }
            } else if let Some(slot) = doc.pointer_mut(&ptr) {
                *slot = value;
            }
        }
        let text = serde_json::to_string(&doc).unwrap();
        exercise(line, &parse_session(line, &text, Lang::En));
        exercise(line, &parse_session(line, &text, Lang::Zh));
    }

    #[test]
    fn whole_file_mutations_never_panic(cut in any::<prop::sample::Index>(), insert in ".{0,3}") {
        let text = mini_lines().join("\n");
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) { at -= 1; }
        let mutated = format!("{}{insert}{}", &text[..at], &text[at..]);
        let ds = load_dataset(&mutated, Lang::En);
        prop_assert!(ds.sessions.len() <= ds.line_count);
        let _ = Stats::from_sessions(&ds.sessions).render_summary();
    }
}
