//! The engine on the conformance fixtures: every gold graph of `mini.jsonl` against the
//! reference, the §2.3 history example, and a replay of the official result files (every
//! accept/reject decision, accepted gold actions, logged candidates, labels and optimality).

use crate::graph_support;

use crate::support::fixture;
use graph_support::{RefGraph, RefTracker};
use serde_json::Value;
use wildtool_core::graph::{Graph, PathTracker, TextMatch, ToolMatch};

fn sessions() -> Vec<Value> {
    let text = std::fs::read_to_string(fixture("mini.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn graph_nodes(answer: &Value) -> Vec<(String, Vec<usize>)> {
    answer
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            let name = node["action"]["name"].as_str().unwrap().to_string();
            let deps = node["dependency_list"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn every_mini_graph_matches_the_reference() {
    let mut tasks = 0;
    for session in sessions() {
        for answer in session["english_answer_list"].as_array().unwrap() {
            let list = graph_nodes(answer);
            let graph = Graph::new(&list).unwrap();
            let reference = RefTracker::new(RefGraph::new(&list));
            assert_eq!(graph.min_length(), reference.min_length(), "{list:?}");
            assert_eq!(
                graph.first_optimal_path(),
                reference.first_optimal(),
                "{list:?}"
            );
            let tracker = PathTracker::new(&graph);
            for s in 0..list.len() {
                assert_eq!(
                    tracker.candidates(s, usize::MAX - 1).entries,
                    reference.candidates(s)
                );
            }
            tasks += 1;
        }
    }
    assert_eq!(tasks, 32);
}

#[test]
fn history_example_of_section_2_3() {
    let sessions = sessions();
    let list = graph_nodes(&sessions[5]["english_answer_list"][1]);
    let graph = Graph::new(&list).unwrap();
    let names: Vec<Vec<&str>> = graph
        .first_optimal_path()
        .iter()
        .map(|step| step.iter().map(|&i| graph.name(i).unwrap()).collect())
        .collect();
    assert_eq!(names[0], vec!["get_exchange_rate"]);
    let mut second = names[1].clone();
    second.sort();
    assert_eq!(second, vec!["convert_currency", "get_company_news"]);
}

/// Name-sorted `(name, arguments)` of gold nodes, as the official log writes them.
fn gold_actions(graph: &Graph, answer: &Value, nodes: &[usize]) -> Vec<(String, Value)> {
    graph
        .name_sorted(nodes)
        .into_iter()
        .map(|i| {
            (
                graph.name(i).unwrap().to_string(),
                answer[i]["action"]["arguments"].clone(),
            )
        })
        .collect()
}

/// `(name, arguments)` of a logged candidate (`arguments` is dumps-utf8 text).
fn logged_actions(candidate: &Value) -> Vec<(String, Value)> {
    candidate["action"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let args = match &a["arguments"] {
                Value::String(s) => serde_json::from_str(s).unwrap(),
                other => other.clone(),
            };
            (a["name"].as_str().unwrap().to_string(), args)
        })
        .collect()
}

fn replay_run(run: &str) -> usize {
    let sessions = sessions();
    let text = std::fs::read_to_string(fixture(&format!("official-runs/{run}/mini_result.jsonl")))
        .unwrap();
    let mut steps_checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let result: Value = serde_json::from_str(line).unwrap();
        let id = result["id"].as_str().unwrap();
        let index: usize = id.rsplit('_').next().unwrap().parse().unwrap();
        for task in result["result"].as_array().unwrap() {
            let log = &task["inference_log"];
            let t = log["task_idx"].as_u64().unwrap() as usize;
            let answer = &sessions[index]["english_answer_list"][t];
            let list = graph_nodes(answer);
            let graph = Graph::new(&list).unwrap();
            let mut tracker = PathTracker::new(&graph);
            let mut correct = false;
            let mut optimal = false;
            let mut s = 0;
            while let Some(step) = log.get(format!("step_{s}")) {
                let out = &step["inference_output"];
                let official_error =
                    out.get("current_action_name_label").and_then(Value::as_str) == Some("error");
                let calls = out["tool_calls"].as_array().filter(|c| !c.is_empty());
                let context = format!("{id} task {t} step {s}");
                let accepted: Option<Vec<usize>> = if let Some(calls) = calls {
                    let names: Vec<&str> = calls
                        .iter()
                        .map(|c| c["function"]["name"].as_str().unwrap())
                        .collect();
                    match tracker.match_tool_call(s, &names) {
                        ToolMatch::Matched {
                            nodes,
                            dropped_short_paths,
                        } => {
                            assert!(!dropped_short_paths, "{context}");
                            Some(nodes)
                        }
                        _ => None,
                    }
                } else {
                    match tracker.match_text(s) {
                        TextMatch::Ask { step, .. } => Some(step),
                        TextMatch::Prepare { step, .. } => {
                            correct = true;
                            optimal = graph.is_optimal_answer_step(s);
                            Some(step)
                        }
                        TextMatch::NoMatch { .. } => None,
                    }
                };
                let answer_log = &step["inference_answer"];
                match accepted {
                    Some(nodes) => {
                        assert!(
                            !official_error,
                            "{context}: engine accepted, official rejected"
                        );
                        assert_eq!(
                            gold_actions(&graph, answer, &nodes),
                            logged_actions(&answer_log["candidate_0_answer_function_list"]),
                            "{context}: accepted gold actions"
                        );
                    }
                    None => {
                        assert!(
                            official_error,
                            "{context}: engine rejected, official accepted"
                        );
                        let candidates = tracker.candidates(s, 1000);
                        assert!(!candidates.truncated);
                        let logged: Vec<Vec<(String, Value)>> = (0..)
                            .map_while(|i| {
                                answer_log.get(format!("candidate_{i}_answer_function_list"))
                            })
                            .map(logged_actions)
                            .collect();
                        let mine: Vec<Vec<(String, Value)>> = candidates
                            .entries
                            .iter()
                            .map(|c| gold_actions(&graph, answer, c))
                            .collect();
                        assert_eq!(mine, logged, "{context}: logged candidates");
                    }
                }
                steps_checked += 1;
                s += 1;
            }
            let label = task["action_name_label"].as_str().unwrap();
            assert_eq!(correct, label == "correct", "{id} task {t}: label");
            assert_eq!(
                optimal,
                task["is_optimal"].as_bool().unwrap(),
                "{id} task {t}: is_optimal"
            );
        }
    }
    steps_checked
}

#[test]
fn official_run_seed_0_replays_exactly() {
    assert!(replay_run("mock-seed-0") > 50);
}

#[test]
fn official_run_seed_5_replays_exactly() {
    assert!(replay_run("mock-seed-5") > 50);
}
