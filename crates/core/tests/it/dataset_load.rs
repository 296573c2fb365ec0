//! Loader, validator and statistics against the mini fixture and minimally corrupted
//! copies of its lines (PROTOCOL §1, §1.4, §2.1).

use serde_json::{json, Value as Json};
use wildtool_core::dataset::{
    fingerprint_hex, load_dataset, mixed_step_problems, parse_session, semantic_problems,
    semantic_problems_with, Lang, NodeKind, Problem, Severity, Stats, Task,
};
use wildtool_core::json::Value;
use wildtool_core::outcome::{TaskType, TurnSubtype};

fn mini() -> String {
    crate::support::read_fixture("mini.jsonl")
}

fn mini_line(index: usize) -> String {
    mini().lines().nth(index).unwrap().to_owned()
}

/// Line `index` of mini.jsonl with `edit` applied, re-serialised.
fn corrupt(index: usize, edit: impl FnOnce(&mut Json)) -> String {
    let mut v: Json = serde_json::from_str(&mini_line(index)).unwrap();
    edit(&mut v);
    serde_json::to_string(&v).unwrap()
}

fn at<'a>(v: &'a mut Json, pointer: &str) -> &'a mut Json {
    v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"))
}

fn errors(problems: &[Problem]) -> Vec<&Problem> {
    problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect()
}

/// Parses corrupted line 4 and returns its single error, checking line and id.
fn single_error(line: &str) -> Problem {
    let parsed = parse_session(4, line, Lang::En);
    let errs = errors(&parsed.problems);
    assert_eq!(
        errs.len(),
        1,
        "expected exactly one error, got {:#?}",
        parsed.problems
    );
    let p = errs[0].clone();
    assert_eq!(p.line, 5, "1-based line");
    p
}

fn assert_problem(p: &Problem, path: &str, needle: &str) {
    assert_eq!(p.path, path, "{p}");
    assert!(
        p.message.contains(needle),
        "message `{}` lacks `{needle}`",
        p.message
    );
}

#[test]
fn mini_loads_without_errors_in_both_languages() {
    let text = mini();
    for lang in [Lang::En, Lang::Zh] {
        let ds = load_dataset(&text, lang);
        assert!(ds.problems.is_empty(), "{lang:?}: {:#?}", ds.problems);
        assert!(ds.is_valid());
        assert_eq!(ds.sessions.len(), 8);
        assert_eq!(ds.line_count, 8);
        let stats = Stats::from_sessions(&ds.sessions);
        assert_eq!(stats.sessions, 8);
        assert_eq!(stats.tasks, 32);
        assert_eq!(stats.type_count(TaskType::SingleTool), 8);
        assert_eq!(stats.type_count(TaskType::ParallelMultiTool), 4);
        assert_eq!(stats.type_count(TaskType::SequentialMultiTool), 6);
        assert_eq!(stats.type_count(TaskType::MixedMultiTool), 4);
        assert_eq!(stats.type_count(TaskType::Clarify), 4);
        assert_eq!(stats.type_count(TaskType::Chat), 6);
        assert_eq!(stats.multi_tool_count(), 14);
        for (i, s) in ds.sessions.iter().enumerate() {
            assert_eq!(s.index, i);
            assert_eq!(s.line_no, i + 1);
            assert_eq!(s.id, format!("wild_tool_bench_{i}"));
            assert!(s.is_valid());
            assert_eq!(s.lang, lang);
        }
    }
}

#[test]
fn mini_session_4_is_modelled_as_in_protocol_example() {
    let ds = load_dataset(&mini(), Lang::En);
    let s = ds.session_at(4).unwrap();
    assert_eq!(s.env_info, "2024-06-13 08:45:00 Thursday");
    assert_eq!(
        s.tool_names(),
        vec!["find_free_slots", "create_event", "cancel_event"]
    );
    let types: Vec<TaskType> = s.task_types();
    assert_eq!(
        types,
        vec![
            TaskType::SequentialMultiTool,
            TaskType::Chat,
            TaskType::Clarify,
            TaskType::SingleTool
        ]
    );
    assert_eq!(s.transitions(), 3);
    let subtypes: Vec<Option<TurnSubtype>> = s.tasks.iter().map(|t| t.subtype).collect();
    assert_eq!(
        subtypes,
        vec![
            None,
            Some(TurnSubtype::PartialInformation),
            Some(TurnSubtype::PartialInformation),
            Some(TurnSubtype::LongRangeDependency)
        ]
    );
    let clarify = &s.tasks[2];
    assert_eq!(clarify.position, 2);
    assert_eq!(
        clarify.user_message,
        "Cancel that meeting I had with Carol."
    );
    assert_eq!(clarify.progress_nodes, 3);
    let kinds: Vec<NodeKind> = clarify.nodes.iter().map(|n| n.kind).collect();
    assert_eq!(
        kinds,
        vec![NodeKind::Ask, NodeKind::Tool, NodeKind::Prepare]
    );
    assert_eq!(
        clarify.nodes[0].user_input.as_deref(),
        Some("EVT-556, and yes notify her.")
    );
    assert_eq!(clarify.nodes[1].dependencies, vec![0]);
    assert_eq!(clarify.nodes[2].answer_type(), Some("tool"));
    assert_eq!(
        clarify.nodes[1].arguments.get("notify"),
        Some(&Value::Bool(true))
    );
    assert_eq!(s.tasks[1].nodes[0].answer_type(), Some("chat"));
    // The raw line is kept.
    assert_eq!(
        s.raw.get("id").and_then(Value::as_str),
        Some("wild_tool_bench_4")
    );
}

#[test]
fn float_type_becomes_number_in_converted_tools_only() {
    let ds = load_dataset(&mini(), Lang::En);
    let s = ds.session_at(5).unwrap();
    let amount_type = |tools: &Value| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| {
                t.get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    == Some("convert_currency")
            })
            .and_then(|t| {
                t.get("function")?
                    .get("parameters")?
                    .get("properties")?
                    .get("amount")?
                    .get("type")
            })
            .cloned()
    };
    assert_eq!(amount_type(s.tools_raw()), Some(Value::str("float")));
    assert_eq!(amount_type(&s.tools), Some(Value::str("number")));
    fn contains_float(v: &Value) -> bool {
        match v {
            Value::Str(s) => s == "float",
            Value::Array(a) => a.iter().any(contains_float),
            Value::Object(m) => m.iter().any(|(_, v)| contains_float(v)),
            _ => false,
        }
    }
    assert!(!contains_float(&s.tools));
    // Sessions without float are unchanged.
    let s0 = ds.session_at(0).unwrap();
    assert_eq!(&s0.tools, s0.tools_raw());
}

#[test]
fn malformed_json_is_reported_with_its_line() {
    let line = mini_line(4);
    let truncated = &line[..line.len() / 2];
    let parsed = parse_session(4, truncated, Lang::En);
    assert!(parsed.session.is_none());
    let p = single_error(truncated);
    assert_problem(&p, "", "malformed JSON");
    assert_eq!(p.session_id, None);
}

#[test]
fn non_object_line_is_an_error() {
    let p = single_error("[1, 2]");
    assert_problem(&p, "", "expected a JSON object, found list");
}

#[test]
fn wrong_type_is_reported() {
    let line = corrupt(4, |v| *at(v, "/english_env_info") = json!(20240613));
    let p = single_error(&line);
    assert_problem(&p, "english_env_info", "expected a string, found int");
    assert_eq!(p.session_id.as_deref(), Some("wild_tool_bench_4"));
}

#[test]
fn missing_field_is_reported() {
    let line = corrupt(4, |v| {
        v.as_object_mut().unwrap().remove("english_tasks");
    });
    let p = single_error(&line);
    assert_problem(&p, "english_tasks", "missing field");
}

#[test]
fn missing_node_field_is_reported() {
    let line = corrupt(4, |v| {
        at(v, "/english_answer_list/0/1")
            .as_object_mut()
            .unwrap()
            .remove("observation");
    });
    let p = single_error(&line);
    assert_problem(&p, "english_answer_list[0][1].observation", "missing field");
}

#[test]
fn dependency_out_of_range_is_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/0/1/dependency_list/0") = json!(7)
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_answer_list[0][1].dependency_list[0]",
        "out of range",
    );
    assert!(
        p.message.contains("7") && p.message.contains("3 nodes"),
        "{p}"
    );
}

#[test]
fn non_integer_dependency_is_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/0/1/dependency_list/0") = json!("0")
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_answer_list[0][1].dependency_list[0]",
        "expected an integer",
    );
}

#[test]
fn self_dependency_is_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/0/1/dependency_list") = json!([0, 1])
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_answer_list[0][1].dependency_list[1]",
        "depends on itself",
    );
}

#[test]
fn cycle_is_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/0/0/dependency_list") = json!([1])
    });
    let p = single_error(&line);
    assert_problem(&p, "english_answer_list[0]", "cycle");
    assert!(p.message.contains("[0, 1, 2]"), "{p}");
}

#[test]
fn empty_node_list_is_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/1") = json!([]);
        *at(v, "/answer_list/1") = json!([]);
    });
    let p = single_error(&line);
    assert_problem(&p, "english_answer_list[1]", "empty node list");
}

#[test]
fn list_not_ending_in_prepare_is_reported() {
    let line = corrupt(4, |v| {
        at(v, "/english_answer_list/3")
            .as_array_mut()
            .unwrap()
            .pop();
        at(v, "/answer_list/3").as_array_mut().unwrap().pop();
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_answer_list[3][0].action.name",
        "must end with prepare_to_answer",
    );
    assert!(p.message.contains("create_event"));
}

#[test]
fn more_than_four_tasks_is_reported() {
    let line = corrupt(4, |v| {
        for field in ["english_tasks", "english_answer_list", "answer_list"] {
            let list = at(v, &format!("/{field}")).as_array_mut().unwrap();
            let first = list[1].clone();
            list.push(first);
        }
        at(v, "/english_task_types")
            .as_array_mut()
            .unwrap()
            .push(json!("Chat"));
        at(v, "/english_turn_subtypes")
            .as_array_mut()
            .unwrap()
            .push(json!("Partial Information"));
    });
    let p = single_error(&line);
    assert_problem(&p, "english_answer_list", "5 tasks; at most 4");
}

#[test]
fn unknown_task_type_is_reported_and_session_not_built() {
    let line = corrupt(4, |v| *at(v, "/english_task_types/1") = json!("Small Talk"));
    let parsed = parse_session(4, &line, Lang::En);
    assert!(parsed.session.is_none());
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_task_types[1]",
        "unknown task type `Small Talk`",
    );
}

#[test]
fn unknown_subtype_is_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_turn_subtypes/2") = json!("Ellipsis")
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_turn_subtypes[2]",
        "unknown turn subtype `Ellipsis`",
    );
    let s = parse_session(4, &line, Lang::En).session.unwrap();
    assert!(!s.is_valid());
    assert_eq!(s.tasks[3].subtype, None);
}

#[test]
fn wrong_subtype_count_is_reported() {
    let line = corrupt(4, |v| {
        at(v, "/english_turn_subtypes")
            .as_array_mut()
            .unwrap()
            .pop();
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_turn_subtypes",
        "has 2 entries but 3 are needed",
    );
    // One too many is only a warning: the official code never reads it.
    let line = corrupt(4, |v| {
        at(v, "/english_turn_subtypes")
            .as_array_mut()
            .unwrap()
            .push(json!("Partial Information"));
    });
    let parsed = parse_session(4, &line, Lang::En);
    assert!(errors(&parsed.problems).is_empty());
    assert_eq!(parsed.problems.len(), 1);
    assert_problem(
        &parsed.problems[0],
        "english_turn_subtypes",
        "only 3 are used",
    );
}

#[test]
fn id_suffix_must_match_line_index() {
    let parsed = parse_session(3, &mini_line(4), Lang::En);
    let errs = errors(&parsed.problems);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].line, 4);
    assert_problem(
        errs[0],
        "id",
        "id suffix 4 does not match the session's line index 3",
    );
    let line = corrupt(4, |v| *at(v, "/id") = json!("wild_tool_bench_four"));
    let p = single_error(&line);
    assert_problem(&p, "id", "`four`");
}

#[test]
fn chinese_answer_list_missing_or_different_is_reported() {
    let line = corrupt(4, |v| {
        v.as_object_mut().unwrap().remove("answer_list");
    });
    let p = single_error(&line);
    assert_problem(&p, "answer_list", "missing field");
    let line = corrupt(4, |v| {
        at(v, "/answer_list/0").as_array_mut().unwrap().pop();
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "answer_list[0]",
        "has 2 nodes but english_answer_list[0] has 3",
    );
    // The official denominator is the Chinese count (P16), even when it differs.
    let s = parse_session(4, &line, Lang::En).session.unwrap();
    assert_eq!(s.tasks[0].progress_nodes, 2);
    assert_eq!(s.tasks[0].nodes.len(), 3);
}

#[test]
fn ask_without_user_input_is_reported() {
    let line = corrupt(4, |v| {
        at(v, "/english_answer_list/2/0")
            .as_object_mut()
            .unwrap()
            .remove("user_input");
    });
    let p = single_error(&line);
    assert_problem(&p, "english_answer_list[2][0].user_input", "no user_input");
}

#[test]
fn undefined_gold_tool_is_reported_c4() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/3/0/action/name") = json!("create_evnt")
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_answer_list[3][0].action.name",
        "`create_evnt` is not defined",
    );
    assert!(p.message.contains("C4"));
    // The session still loads, so scoring can apply the C4 behaviour.
    let s = parse_session(4, &line, Lang::En).session.unwrap();
    assert!(!s.is_valid());
    assert_eq!(s.tasks[3].nodes[0].name, "create_evnt");
}

#[test]
fn list_valued_schema_type_is_a_warning_c3() {
    let line = corrupt(4, |v| {
        *at(
            v,
            "/english_tools/0/function/parameters/properties/date/type",
        ) = json!(["string", "null"])
    });
    let parsed = parse_session(4, &line, Lang::En);
    assert_eq!(parsed.problems.len(), 1);
    let p = &parsed.problems[0];
    assert_eq!(p.severity, Severity::Warning);
    assert_problem(
        p,
        "english_tools[0].function.parameters.properties.date.type",
        "C3",
    );
    assert!(parsed.session.unwrap().is_valid());
}

#[test]
fn non_object_gold_arguments_are_reported() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/3/0/action/arguments") = json!("{\"title\": \"Gym\"}")
    });
    let p = single_error(&line);
    assert_problem(
        &p,
        "english_answer_list[3][0].action.arguments",
        "must be an object, found str",
    );
}

#[test]
fn all_problems_are_collected_not_just_the_first() {
    let line = corrupt(4, |v| {
        *at(v, "/english_env_info") = json!(null);
        *at(v, "/english_answer_list/0/1/dependency_list/0") = json!(9);
        *at(v, "/english_answer_list/3/0/action/name") = json!("nope");
    });
    let parsed = parse_session(4, &line, Lang::En);
    let paths: Vec<&str> = errors(&parsed.problems)
        .iter()
        .map(|p| p.path.as_str())
        .collect();
    assert_eq!(
        paths,
        vec![
            "english_env_info",
            "english_answer_list[0][1].dependency_list[0]",
            "english_answer_list[3][0].action.name"
        ]
    );
}

#[test]
fn chinese_fields_are_used_with_zh() {
    let line = corrupt(4, |v| *at(v, "/task_types/0") = json!("单工具"));
    assert!(
        parse_session(4, &line, Lang::En).problems.is_empty(),
        "English load ignores Chinese types"
    );
    let p = parse_session(4, &line, Lang::Zh).problems;
    assert_eq!(p.len(), 1);
    assert_problem(&p[0], "task_types[0]", "unknown task type");
}

#[test]
fn blank_lines_are_skipped_with_a_warning() {
    let text = mini();
    let lines: Vec<&str> = text.lines().collect();
    let with_blank = format!(
        "{}\n{}\n   \n{}\n\n",
        lines[0],
        lines[1],
        lines[2..].join("\n")
    );
    let ds = load_dataset(&with_blank, Lang::En);
    assert_eq!(ds.sessions.len(), 8);
    assert_eq!(ds.errors().count(), 0);
    let warnings: Vec<&Problem> = ds.warnings().collect();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert_eq!(warnings[0].line, 3);
    assert_eq!(warnings[1].line, 10);
    assert!(warnings[0].message.contains("blank line"));
    let s2 = ds.session_at(2).unwrap();
    assert_eq!((s2.index, s2.line_no), (2, 4));
    // CRLF line ends are accepted.
    let crlf = text.replace('\n', "\r\n");
    assert!(load_dataset(&crlf, Lang::En).problems.is_empty());
}

#[test]
fn problem_display_names_line_id_path_and_severity() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/0/1/dependency_list/0") = json!(7)
    });
    let p = single_error(&line);
    assert_eq!(
        p.to_string(),
        "line 5 (wild_tool_bench_4) english_answer_list[0][1].dependency_list[0]: error: \
         dependency index 7 is out of range (the list has 3 nodes)"
    );
}

#[test]
fn stats_of_mini() {
    let ds = load_dataset(&mini(), Lang::En);
    let st = Stats::from_sessions(&ds.sessions);
    assert_eq!(st.nodes, 84);
    assert_eq!(st.tool_calls, 48);
    assert_eq!(st.ask_nodes, 4);
    assert_eq!(st.distinct_tools, 28);
    assert_eq!(st.distinct_called_tools, 27);
    assert_eq!(st.transitions, [0, 0, 5, 3]);
    assert_eq!(st.subtype_count(TurnSubtype::PartialInformation), 9);
    assert_eq!(st.subtype_count(TurnSubtype::CoreferentialReference), 8);
    assert_eq!(st.subtype_count(TurnSubtype::LongRangeDependency), 7);
    let cpt: Vec<(usize, usize)> = st.calls_per_task.iter().map(|(&k, &v)| (k, v)).collect();
    assert_eq!(cpt, vec![(0, 6), (1, 11), (2, 10), (3, 3), (4, 2)]);
    assert_eq!(st.sessions_without_domain, 8);
    let summary = st.render_summary();
    assert!(
        summary.contains(&format!("{:<28}{:>8}\n", "sessions", 8)),
        "{summary}"
    );
    assert!(
        summary.contains(&format!(
            "{:<28}{:>8}{:>8}\n",
            "Parallel Multi-Tool", 4, "12.5%"
        )),
        "{summary}"
    );
    let table = st.render_table();
    assert!(table.contains("instruction transitions"));
    assert!(table.contains("tool calls per task"));
    assert!(
        !table.contains("domain"),
        "no domain section without domains"
    );
}

#[test]
fn domains_are_counted() {
    let text: String = (0..8)
        .map(|i| {
            corrupt(i, |v| {
                if i < 3 {
                    v.as_object_mut()
                        .unwrap()
                        .insert("domain".into(), json!("finance-ledger"));
                }
            }) + "\n"
        })
        .collect();
    let ds = load_dataset(&text, Lang::En);
    assert!(ds.problems.is_empty());
    let st = Stats::from_sessions(&ds.sessions);
    assert_eq!(st.domains.get("finance-ledger"), Some(&3));
    assert_eq!(st.sessions_without_domain, 5);
    let table = st.render_table();
    assert!(
        table.contains(&format!("{:<28}{:>8}{:>8}\n", "finance-ledger", 3, "37.5%")),
        "{table}"
    );
    assert!(
        table.contains(&format!("{:<28}{:>8}{:>8}\n", "(none)", 5, "62.5%")),
        "{table}"
    );
}

#[test]
fn fingerprint_of_mini_is_stable() {
    // FNV-1a 64 of the fixture bytes, computed independently in Python.
    assert_eq!(fingerprint_hex(&mini()), "9fdc3131d30749a7");
}

// ---- semantic validation -------------------------------------------------------------

fn semantic_of(index: usize, line: &str) -> Vec<Problem> {
    let parsed = parse_session(index, line, Lang::En);
    assert!(
        errors(&parsed.problems).is_empty(),
        "{:#?}",
        parsed.problems
    );
    semantic_problems(&parsed.session.unwrap())
}

#[test]
fn mini_semantic_report() {
    let ds = load_dataset(&mini(), Lang::En);
    let all: Vec<Problem> = ds.sessions.iter().flat_map(semantic_problems).collect();
    for p in &all {
        eprintln!("{p}");
    }
    assert!(all.is_empty());
}

#[test]
fn semantic_parallel_with_dependency_is_reported() {
    // Session 0 task 1 is Parallel Multi-Tool: make its second call depend on the first.
    let line = corrupt(0, |v| {
        *at(v, "/english_answer_list/1/1/dependency_list") = json!([0])
    });
    let p = semantic_of(0, &line);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_problem(
        &p[0],
        "english_answer_list[1]",
        "Parallel Multi-Tool task: some tool call depends on another",
    );
    assert_eq!(p[0].line, 1);
}

#[test]
fn semantic_single_with_two_calls_is_reported() {
    // Session 4 task 0 is Sequential (2 calls); declare it Single-Tool.
    let line = corrupt(4, |v| {
        *at(v, "/english_task_types/0") = json!("Single-Tool")
    });
    let p = semantic_of(4, &line);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_problem(
        &p[0],
        "english_answer_list[0]",
        "has 2 tool calls; expected exactly one",
    );
}

#[test]
fn semantic_chat_answer_type_is_checked() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/1/0/action/arguments/answer_type") = json!("tool")
    });
    let p = semantic_of(4, &line);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_problem(
        &p[0],
        "english_answer_list[1][0].action.arguments.answer_type",
        "expected `chat`",
    );
}

#[test]
fn semantic_clarify_ask_must_unblock_a_call() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/2/1/dependency_list") = json!([])
    });
    let p = semantic_of(4, &line);
    assert_eq!(p.len(), 2, "{p:#?}");
    assert_problem(
        &p[0],
        "english_answer_list[2]",
        "ask node 0 does not come before any tool call",
    );
    // The prepare (depending on node 1 only) no longer waits for the ask either.
    assert_problem(
        &p[1],
        "english_answer_list[2][2].dependency_list",
        "does not depend on nodes [0]",
    );
}

#[test]
fn semantic_prepare_must_depend_on_everything() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/3/1/dependency_list") = json!([])
    });
    let p = semantic_of(4, &line);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_problem(
        &p[0],
        "english_answer_list[3][1].dependency_list",
        "does not depend on nodes [0]",
    );
}

#[test]
fn semantic_ask_must_name_an_existing_tool() {
    let line = corrupt(4, |v| {
        *at(v, "/english_answer_list/2/0/action/arguments/tool_name") = json!("delete_event")
    });
    let p = semantic_of(4, &line);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_problem(
        &p[0],
        "english_answer_list[2][0].action.arguments.tool_name",
        "`delete_event`",
    );
}

#[test]
fn semantic_argument_checker_hook_is_applied() {
    let ds = load_dataset(&mini(), Lang::En);
    let s = ds.session_at(4).unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    let check = |tools: &Value, name: &str, args: &Value| {
        assert!(tools.as_array().is_some());
        seen.borrow_mut().push(name.to_owned());
        (name == "cancel_event" && args.get("notify").is_some())
            .then(|| "error: test verdict".to_owned())
    };
    let p = semantic_problems_with(s, Some(&check));
    assert_eq!(
        seen.into_inner(),
        vec![
            "find_free_slots",
            "create_event",
            "cancel_event",
            "create_event"
        ]
    );
    assert_eq!(p.len(), 1);
    assert_problem(
        &p[0],
        "english_answer_list[2][1].action.arguments",
        "error: test verdict",
    );
}

#[test]
fn c8_hook_reports_mixed_pseudo_steps() {
    let ds = load_dataset(&mini(), Lang::En);
    let s = ds.session_at(4).unwrap();
    // A fake engine: the clarify task's first optimal path puts the ask with the call.
    let path = |t: &Task| -> Option<Vec<Vec<usize>>> {
        Some(match t.position {
            2 => vec![vec![0, 1], vec![2]],
            _ => (0..t.nodes.len()).map(|i| vec![i]).collect(),
        })
    };
    let p = mixed_step_problems(s, &path);
    assert_eq!(p.len(), 1);
    assert_problem(&p[0], "english_answer_list[2]", "C8");
    let none = |_: &Task| None;
    assert!(mixed_step_problems(s, &none).is_empty());
}

#[test]
fn lines_are_parsed_as_python_json_loads_does() {
    // `NaN` is accepted by `json.loads`, so an observation holding it loads.
    let line = mini_line(4).replace(
        "\"observation\": {\"event_id\": \"EVT-902\"}",
        "\"observation\": NaN",
    );
    assert!(line.contains("NaN"));
    let parsed = parse_session(4, &line, Lang::En);
    assert!(parsed.problems.is_empty(), "{:#?}", parsed.problems);
    let obs = &parsed.session.unwrap().tasks[3].nodes[0].observation;
    assert!(matches!(obs, Value::Float(f) if f.is_nan()));
    // Malformed lines carry Python's JSONDecodeError message.
    let p = single_error("{\"id\": 1,}");
    assert_problem(
        &p,
        "",
        "malformed JSON: Expecting property name enclosed in double quotes",
    );
}
