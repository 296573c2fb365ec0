//! Dataset checks that need the graph engine: history steps that mix ask/prepare with other
//! nodes (C8). The loader checks everything else (PROTOCOL §1.4).

use crate::checker::{self, Segmenter};
use crate::dataset::{
    load_dataset, mixed_step_problems, semantic_problems_with, Lang, LoadedDataset, Problem,
    Session,
};
use crate::json::{dumps, Escape, Value};

use super::paths::Paths;

/// C8 problems of one session (first optimal paths whose steps mix pseudo and other nodes).
pub fn history_problems(session: &Session) -> Vec<crate::dataset::Problem> {
    mixed_step_problems(session, &|task| {
        Paths::new(task).ok().map(|p| p.first_optimal_path())
    })
}

/// Loads a dataset and adds the graph-based checks: the one validation entry point used by
/// the CLI and the page.
pub fn load_checked(text: &str, lang: Lang) -> LoadedDataset {
    let mut loaded = load_dataset(text, lang);
    let extra: Vec<_> = loaded.sessions.iter().flat_map(history_problems).collect();
    if !extra.is_empty() {
        loaded.problems.extend(extra);
        crate::order::sort_by_key(&mut loaded.problems, |p| p.line);
    }
    loaded
}

/// The curated-suite checks (`wildtool validate --semantic`): topology against the declared
/// type and every gold call's arguments through the official argument checker (checked
/// against themselves, so only the schema stage can fail).
pub fn semantic_problems_checked(
    loaded: &LoadedDataset,
    segmenter: &dyn Segmenter,
) -> Vec<Problem> {
    let check = |tools: &Value, name: &str, args: &Value| {
        let gold = dumps(args, Escape::Utf8);
        let verdict = checker::check(tools, name, &Value::Str(gold.clone()), &gold, segmenter);
        (verdict != checker::CORRECT).then_some(verdict)
    };
    loaded
        .sessions
        .iter()
        .flat_map(|s| semantic_problems_with(s, Some(&check)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_first_optimal_step_is_reported_as_c8() {
        // Prepare depends on nothing, so the first optimal path runs the call and the
        // prepare in one step: [0, 1].
        let line = r#"{"id": "wild_tool_bench_0", "english_env_info": "2024-01-01 00:00:00 Monday", "english_tools": [{"type": "function", "function": {"name": "t", "parameters": {"type": "object", "properties": {}}}}], "english_tasks": ["hi"], "english_answer_list": [[{"action": {"name": "t", "arguments": {}}, "observation": "x", "dependency_list": []}, {"action": {"name": "prepare_to_answer", "arguments": {"answer_type": "tool"}}, "observation": "done", "dependency_list": []}]], "english_task_types": ["Single-Tool"], "english_turn_subtypes": [], "answer_list": [[{}, {}]]}"#;
        let loaded = load_checked(line, Lang::En);
        assert!(
            loaded
                .problems
                .iter()
                .any(|p| p.is_error() && p.message.contains("C8")),
            "{:?}",
            loaded.problems
        );
        let mini = include_str!("../../../../tests/fixtures/mini.jsonl");
        assert!(load_checked(mini, Lang::En).problems.is_empty());
    }
}
