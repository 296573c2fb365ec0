//! wasm-bindgen tests of the web bindings, run in headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_ONLY_WEB=1 cargo test --target wasm32-unknown-unknown --no-default-features --test web_wasm`
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wildtool_web as web;

wasm_bindgen_test_configure!(run_in_browser);

fn message(err: wasm_bindgen::JsError) -> String {
    JsValue::from(err)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

#[wasm_bindgen_test]
fn chart_svg_escapes_hostile_labels_and_parses_in_the_browser() {
    let spec = r#"{"id":"x","title":"<img src=x onerror=alert(1)>","categories":["a<b","c"],
        "series":[{"name":"run","points":[{"value":0.5},{"value":0.25,"interval":[0.2,0.3]}]}]}"#;
    let svg = web::render_chart(spec).unwrap_or_default();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(!svg.contains("<img"));
    let parser = web_sys::DomParser::new().expect("DOMParser");
    let doc = parser
        .parse_from_string(&svg, web_sys::SupportedType::ImageSvgXml)
        .expect("parses");
    assert_eq!(doc.get_elements_by_tag_name("parsererror").length(), 0);
    assert_eq!(doc.get_elements_by_tag_name("img").length(), 0);
    let title = doc
        .get_elements_by_tag_name("title")
        .item(0)
        .and_then(|t| t.text_content());
    assert_eq!(title.as_deref(), Some("<img src=x onerror=alert(1)>"));
    let table = web::chart_table(spec).unwrap_or_default();
    assert!(table.contains("\"20.0–30.0%\""), "{table}");
}

#[wasm_bindgen_test]
fn invalid_chart_json_is_a_js_error() {
    let err = web::render_chart("{not json")
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.starts_with("invalid chart spec JSON"), "{err}");
}

const MINI: &str = include_str!("../../../tests/fixtures/mini.jsonl");
const SEED0_RESULT: &str =
    include_str!("../../../tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl");
const SEED0_METRIC: &str =
    include_str!("../../../tests/fixtures/official-runs/mock-seed-0/mini_metric.json");
const SEED0_SCORE: &str =
    include_str!("../../../tests/fixtures/official-runs/mock-seed-0/mini_score.jsonl");

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_default()
}

/// Runs every task of the mini dataset with a built-in agent; returns checkpoint lines.
fn run_all(ws: &web::Workspace, agent: &str) -> Vec<String> {
    let tasks = json(&ws.tasks().unwrap_or_default());
    let mut lines = vec![ws.checkpoint_header(agent)];
    for t in tasks.as_array().cloned().unwrap_or_default() {
        let (line, task) = (
            t[0].as_u64().unwrap_or(0) as usize,
            t[1].as_u64().unwrap_or(0) as usize,
        );
        let run = json(
            &ws.run_builtin(agent, line, task)
                .map_err(message)
                .unwrap_or_default(),
        );
        assert!(run["incomplete"].is_null(), "{run}");
        lines.push(run["record"].as_str().unwrap_or_default().to_owned());
    }
    lines
}

#[wasm_bindgen_test]
fn workspace_loads_the_dataset_and_reports_its_shape() {
    let ws = web::Workspace::new(MINI, "en")
        .map_err(message)
        .unwrap_or_else(|e| panic!("{e}"));
    let info = json(&ws.info().unwrap_or_default());
    assert_eq!(info["sessions"], 8);
    assert_eq!(info["tasks"], 32);
    assert_eq!(info["errors"], 0);
    assert_eq!(info["fingerprint"].as_str().map(str::len), Some(16));
    assert_eq!(
        json(&ws.shapes().unwrap_or_default())
            .as_array()
            .map(Vec::len),
        Some(32)
    );
    assert!(web::Workspace::new(MINI, "fr").is_err());
    let bad = web::Workspace::new("{\"id\": \"wild_tool_bench_0\"}\nnot json\n", "en")
        .unwrap_or_else(|_| panic!("loads"));
    let problems = json(&bad.problems(10).unwrap_or_default());
    let list = problems.as_array().cloned().unwrap_or_default();
    assert!(list.iter().any(|p| p["line"] == 2), "{problems}");
    assert!(list
        .iter()
        .all(|p| p["message"].as_str().is_some_and(|m| !m.is_empty())));
}

#[wasm_bindgen_test]
fn gold_agent_in_the_browser_scores_100_percent_and_shares_losslessly() {
    let ws = web::Workspace::new(MINI, "en").unwrap_or_else(|_| panic!("loads"));
    let lines = run_all(&ws, "gold");
    let lines_json = serde_json::to_string(&lines).unwrap_or_default();
    let done = json(
        &ws.done_tasks("gold", &lines_json)
            .map_err(message)
            .unwrap_or_default(),
    );
    assert_eq!(done.as_array().map(Vec::len), Some(32));
    assert!(
        ws.done_tasks("other-model", &lines_json).is_err(),
        "a checkpoint of another model is refused"
    );
    let result = ws
        .assemble_results("gold", &lines_json)
        .map_err(message)
        .unwrap_or_default();
    assert_eq!(result.lines().count(), 8);
    let mut scorer = ws.scorer();
    let mut outcomes = Vec::new();
    for (i, line) in result.lines().enumerate() {
        let scored = json(
            &scorer
                .score_line(i + 1, line)
                .map_err(message)
                .unwrap_or_default(),
        );
        assert_eq!(scored["ok"], true, "{scored}");
        outcomes.extend(scored["outcomes"].as_array().cloned().unwrap_or_default());
    }
    let metric = json(&scorer.metric_json(""));
    assert_eq!(metric["model_name"], "gold");
    assert_eq!(metric["total_info"]["task"]["accuracy"], 1.0);
    let outcomes_json = serde_json::Value::Array(outcomes).to_string();
    let report = json(
        &web::run_report(&outcomes_json)
            .map_err(message)
            .unwrap_or_default(),
    );
    assert_eq!(report["task_accuracy"]["rate"], 1.0);
    assert_eq!(report["session_accuracy"]["total"], 8);

    // Share link: encode against the dataset's shapes, decode to the same outcomes.
    let filled = ws
        .fill_outcomes(&outcomes_json)
        .map_err(message)
        .unwrap_or_default();
    let header = serde_json::json!({"scorer_version": web::scorer_version(), "model_label": "gold <b>", "dataset_fingerprint": ws.fingerprint(), "task_count": 32});
    let run = format!("{{\"header\": {header}, \"outcomes\": {filled}}}");
    let shapes = ws.shapes().unwrap_or_default();
    let link = web::share_encode(&run, &shapes)
        .map_err(message)
        .unwrap_or_default();
    assert!(link.starts_with("v1.") && link.len() < 200, "{link}");
    let back = json(
        &web::share_decode(&link, &ws.fingerprint(), &shapes)
            .map_err(message)
            .unwrap_or_default(),
    );
    assert_eq!(back["outcomes"], json(&filled));
    assert_eq!(back["header"]["model_label"], "gold <b>");
    let err = web::share_decode(&link, "0000000000000001", &shapes)
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.contains("different dataset"), "{err}");
}

#[wasm_bindgen_test]
fn partial_runs_fill_missing_tasks_as_incomplete() {
    let ws = web::Workspace::new(MINI, "en").unwrap_or_else(|_| panic!("loads"));
    let filled = json(&ws.fill_outcomes("[]").map_err(message).unwrap_or_default());
    let list = filled.as_array().cloned().unwrap_or_default();
    assert_eq!(list.len(), 32);
    assert!(list
        .iter()
        .all(|o| o["incomplete"] == true && o["correct"] == false));
    let lines = run_all(&ws, "baseline");
    let one_session: Vec<&String> = lines
        .iter()
        .skip(1)
        .filter(|l| l.contains("\"line\": 0,"))
        .collect();
    assert_eq!(one_session.len(), 4);
    let text = ws
        .session_result(
            "baseline",
            0,
            &serde_json::to_string(&one_session).unwrap_or_default(),
        )
        .map_err(message)
        .unwrap_or_default();
    assert!(
        text.starts_with("{\"id\": \"wild_tool_bench_0\", \"model_name\": \"baseline\""),
        "{text}"
    );
    let partial = ws
        .session_result("baseline", 1, "[]")
        .map_err(message)
        .unwrap_or_default();
    assert_eq!(partial, "", "an unfinished session has no result line");
    assert!(ws.run_builtin("nobody", 0, 0).is_err());
    assert!(ws.run_builtin("gold", 999, 0).is_err());
}

#[wasm_bindgen_test]
fn offline_scoring_in_the_browser_equals_the_official_metric() {
    let ws = web::Workspace::new(MINI, "en").unwrap_or_else(|_| panic!("loads"));
    let mut scorer = ws.scorer();
    for (i, line) in SEED0_RESULT.lines().enumerate() {
        let scored = json(
            &scorer
                .score_line(i + 1, line)
                .map_err(message)
                .unwrap_or_default(),
        );
        assert_eq!(scored["ok"], true);
    }
    assert_eq!(scorer.model_name(), "mock-seed-0");
    assert_eq!(scorer.metric_json(""), SEED0_METRIC.trim_end_matches('\n'));
    let bad = json(
        &scorer
            .score_line(99, "{\"id\": \"wild_tool_bench_77\", \"result\": []}")
            .unwrap_or_default(),
    );
    assert_eq!(bad["ok"], false);
    assert!(
        bad["error"].as_str().is_some_and(|e| e.contains("77")),
        "{bad}"
    );
}

#[wasm_bindgen_test]
fn live_client_rejects_bad_settings_without_echoing_the_key() {
    let err = web::LiveClient::new(
        "{\"provider\": \"carrier-pigeon\", \"base_url\": \"http://x\", \"model\": \"m\"}",
        "sk-secret",
    )
    .err()
    .map(message)
    .unwrap_or_default();
    assert!(
        err.contains("unknown provider") && !err.contains("sk-secret"),
        "{err}"
    );
    let err = web::LiveClient::new(
        "{\"provider\": \"openai\", \"base_url\": \" \", \"model\": \"m\"}",
        "sk-secret",
    )
    .err()
    .map(message)
    .unwrap_or_default();
    assert!(
        err.contains("base URL") && !err.contains("sk-secret"),
        "{err}"
    );
    assert!(web::LiveClient::new("{\"provider\": \"anthropic\", \"base_url\": \"https://api.anthropic.com\", \"model\": \"m\"}", "k").is_ok());
    assert!(web::has_cjk("天气") && !web::has_cjk("weather"));
}

#[wasm_bindgen_test]
fn hostile_share_links_give_messages() {
    let ws = web::Workspace::new(MINI, "en").unwrap_or_else(|_| panic!("loads"));
    let shapes = ws.shapes().unwrap_or_default();
    for (link, expect) in [
        ("v1.<img src=x>", "damaged"),
        ("v7.AAAA", "not supported"),
        ("", "empty"),
        ("v1.AAAAAAAAAAAAAAAAAAAA", "checksum"),
    ] {
        let err = web::share_decode(link, &ws.fingerprint(), &shapes)
            .err()
            .map(message)
            .unwrap_or_default();
        assert!(err.contains(expect), "{link}: {err}");
    }
    let err = web::share_decode("v1.AAAA", "not-hex", &shapes)
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.contains("hexadecimal"), "{err}");
}

#[wasm_bindgen_test]
fn uploads_are_sniffed_and_bad_fields_named_not_trapped() {
    let ws = web::Workspace::new(MINI, "en").unwrap_or_else(|_| panic!("loads"));
    for (bytes, name) in [
        (&b""[..], "empty"),
        (MINI.as_bytes(), "dataset"),
        (&b"a,b\n1,2\n"[..], "csv"),
        (&b"\x00\x01\x02"[..], "binary"),
        (SEED0_RESULT.as_bytes(), "results"),
    ] {
        let kind = json(&web::sniff_file(bytes, bytes.len() as f64).unwrap_or_default());
        assert_eq!(kind["name"], name, "{kind}");
        assert_eq!(kind["scorable"], name == "results");
        assert!(kind["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    // A checkpoint whose model_name is not a string: an error naming the field.
    let header = format!(
        "{{\"wildtool_checkpoint\": 1, \"model_name\": 5, \"dataset\": \"{}\"}}\n",
        ws.fingerprint()
    );
    let err = ws
        .upload_results(header.as_bytes())
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.contains("\"model_name\" must be a string"), "{err}");
    let export = br#"{"wildtool_run": 1, "model": {"x": 1}, "records": []}"#;
    let err = ws
        .upload_results(export)
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.contains("field \"model\""), "{err}");
    let err = ws
        .upload_results(MINI.as_bytes())
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.contains("dataset file"), "{err}");
}

#[wasm_bindgen_test]
fn the_line_feed_and_scorer_keep_the_cli_rules() {
    let ws = web::Workspace::new(MINI, "en").unwrap_or_else(|_| panic!("loads"));
    let mut bytes = SEED0_RESULT.as_bytes().to_vec();
    bytes.extend_from_slice(b"{\"id\": \"wild_tool_bench_1\", \"x\": \"\xe4\xb8");
    let mut feed = web::LineFeed::new();
    let mut lines = Vec::new();
    for chunk in bytes.chunks(7_001) {
        let part = json(&feed.push(chunk).unwrap_or_default());
        lines.extend(part.as_array().cloned().unwrap_or_default());
    }
    lines.extend(
        json(&feed.finish().unwrap_or_default())
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[8][0], 9);
    assert!(lines[8][2]
        .as_str()
        .is_some_and(|e| e.contains("middle of a UTF-8 character")));
    let mut scorer = ws.scorer();
    for l in lines.iter().rev() {
        match l[1].as_str() {
            Some(text) => {
                let n = l[0].as_u64().unwrap_or(0) as usize;
                let _ = scorer.score_line(n, text);
            }
            None => scorer.skip_line(9, l[2].as_str().unwrap_or("")),
        }
    }
    assert_eq!(scorer.score_jsonl(), SEED0_SCORE.trim_end_matches('\n'));
    assert_eq!(scorer.mismatch(), "");
    let headline = json(
        &web::run_headline(
            &ws.fill_outcomes(&scorer.outcomes().unwrap_or_default())
                .unwrap_or_default(),
        )
        .unwrap_or_default(),
    );
    assert_eq!(headline["status"], "done");
    assert_eq!(headline["scored"], "32 of 32 tasks scored");
}
