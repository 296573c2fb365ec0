//! `wildtool run --provider gemini` end to end against a mock that speaks the Gemini API's
//! own format and checks what Gemini checks: the key in `x-goog-api-key` (never in the
//! URL), thought signatures sent back on the current turn's function calls (Gemini 3
//! rejects requests without them), one function response per call, named after it. The
//! mock answers with the gold path, so every task must be correct, and the run's scores
//! must equal an offline `wildtool score` of its own result file.

use crate::mock_server;

use std::process::Command;

use crate::support::{mini, root};
use mock_server::{Action, MockServer, Request};
use wildtool_core::dataset::LoadedDataset;
use wildtool_core::json::{dumps, loads, Escape, Map, Value};
use wildtool_core::runner::agents::GoldAgent;
use wildtool_core::runner::driver::{Responder, StepContext, TaskStats};

const KEY: &str = "g-test-key-123";
const MODEL: &str = "gemini-test";

fn gemini_error(message: &str) -> Action {
    Action::status(
        400,
        format!(
            r#"{{"error": {{"code": 400, "message": {}, "status": "INVALID_ARGUMENT"}}}}"#,
            dumps(&Value::str(message), Escape::Utf8)
        ),
    )
}

fn text_of(part: &Value) -> Option<&str> {
    part.get("text").and_then(Value::as_str)
}

fn parts(content: &Value) -> Vec<Value> {
    content
        .get("parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// What Gemini validates, as far as this run can break it. `None` when the request is fine.
fn validate(contents: &[Value]) -> Option<String> {
    let is_user_text = |c: &Value| {
        c.get("role").and_then(Value::as_str) == Some("user")
            && parts(c).iter().any(|p| text_of(p).is_some())
    };
    let turn_start = contents.iter().rposition(is_user_text).unwrap_or(0);
    for (i, c) in contents.iter().enumerate() {
        if c.get("role").and_then(Value::as_str) != Some("model") {
            continue;
        }
        let calls: Vec<Value> = parts(c)
            .into_iter()
            .filter(|p| p.get("functionCall").is_some())
            .collect();
        if calls.is_empty() {
            continue;
        }
        if i > turn_start {
            let signed = calls[0]
                .get("thoughtSignature")
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with("sig-"));
            if !signed {
                return Some(format!(
                    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly. Position: {i}."
                ));
            }
        }
        let responses: Vec<Value> = contents
            .get(i + 1)
            .map(parts)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|p| p.get("functionResponse").cloned())
            .collect();
        if responses.len() != calls.len() {
            return Some("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.".to_owned());
        }
        let names: Vec<&Value> = calls
            .iter()
            .filter_map(|c| c.get("functionCall").and_then(|f| f.get("name")))
            .collect();
        if responses
            .iter()
            .any(|r| !r.get("name").is_some_and(|n| names.contains(&n)))
        {
            return Some("function response names a call that was not made".to_owned());
        }
    }
    None
}

/// The gold answer to a Gemini request, in the Gemini response format.
fn answer(ds: &LoadedDataset, req: &Request) -> Action {
    if req.path != format!("/v1/models/{MODEL}:generateContent") {
        return Action::status(
            404,
            r#"{"error": {"code": 404, "message": "no such path", "status": "NOT_FOUND"}}"#,
        );
    }
    if req.header("x-goog-api-key") != Some(KEY) || req.header("authorization").is_some() {
        return gemini_error("API key not valid. Please pass a valid API key.");
    }
    let Ok(body) = loads(&req.body) else {
        return gemini_error("Invalid JSON payload received.");
    };
    let contents = body
        .get("contents")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(problem) = validate(&contents) {
        return gemini_error(&problem);
    }
    // Place the request: the session by its date and first task, the task by the last
    // task message, the step by the model turns since.
    let system = body
        .get("systemInstruction")
        .and_then(|s| s.get("parts"))
        .and_then(|p| p.as_array())
        .and_then(|p| p.first())
        .and_then(text_of)
        .unwrap_or("");
    let mut turns: Vec<(&str, String)> = Vec::new();
    for c in &contents {
        let model = c.get("role").and_then(Value::as_str) == Some("model");
        if model {
            turns.push(("model", String::new()));
            continue;
        }
        for p in parts(c) {
            if let Some(t) = text_of(&p) {
                turns.push(("user", t.to_owned()));
            }
        }
    }
    let first_user = turns
        .iter()
        .find(|(r, _)| *r == "user")
        .map(|(_, t)| t.clone());
    if system.is_empty() {
        // The preflight (one user turn, one tool, no system instruction): a tool call.
        return Action::ok(
            r#"{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3}}"#,
        );
    }
    let Some(session) = ds.sessions.iter().find(|s| {
        system == format!("Current Date: {}", s.env_info)
            && s.tasks.first().map(|t| &t.user_message) == first_user.as_ref()
    }) else {
        return gemini_error("mock could not place the request");
    };
    let (mut task, mut start) = (0, 0);
    for (i, (role, text)) in turns.iter().enumerate() {
        if *role == "user"
            && session
                .tasks
                .get(task)
                .is_some_and(|t| &t.user_message == text)
        {
            task += 1;
            start = i;
        }
    }
    let step = turns[start..].iter().filter(|(r, _)| *r == "model").count();
    let messages: Vec<Value> = Vec::new();
    let ctx = StepContext {
        session,
        task: task.saturating_sub(1),
        step,
        messages: &messages,
        tools: &Value::Null,
    };
    let Ok(reply) = GoldAgent.respond(&ctx, &mut TaskStats::default()) else {
        return gemini_error("mock has no gold answer here");
    };
    let mut out = Vec::new();
    if let Some(text) = reply.content.as_str().filter(|t| !t.is_empty()) {
        let mut p = Map::new();
        p.insert("text", Value::str(text));
        out.push(Value::Object(p));
    }
    for (j, call) in reply
        .tool_calls
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let f = call.get("function").cloned().unwrap_or(Value::Null);
        let args = f
            .get("arguments")
            .and_then(Value::as_str)
            .and_then(|a| loads(a).ok())
            .unwrap_or(Value::Null);
        let mut fc = Map::new();
        fc.insert("name", f.get("name").cloned().unwrap_or(Value::Null));
        fc.insert("args", args);
        let mut p = Map::new();
        p.insert("functionCall", Value::Object(fc));
        if j == 0 {
            // Gemini signs the first call of a step.
            p.insert(
                "thoughtSignature",
                Value::str(format!("sig-{}-{step}", session.index)),
            );
        }
        out.push(Value::Object(p));
    }
    let mut content = Map::new();
    content.insert("role", Value::str("model"));
    content.insert("parts", Value::Array(out));
    Action::ok(format!(
        r#"{{"candidates": [{{"content": {}, "finishReason": "STOP", "index": 0}}], "usageMetadata": {{"promptTokenCount": {}, "candidatesTokenCount": 7, "totalTokenCount": 99}}, "modelVersion": "{MODEL}"}}"#,
        dumps(&Value::Object(content), Escape::Utf8),
        req.body.len() / 4
    ))
}

#[test]
fn a_gemini_run_is_scored_like_any_other() {
    let ds = mini();
    let server = MockServer::start(move |req| answer(&ds, req));
    let out = std::env::temp_dir().join(format!("wildtool-gemini-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["run", "--dataset"])
        .arg(root().join("tests/fixtures/mini.jsonl"))
        .args([
            "--provider",
            "gemini",
            "--model",
            MODEL,
            "--base-url",
            &server.base_url(),
        ])
        .args([
            "--timeout",
            "5",
            "--backoff",
            "0.01",
            "--retries",
            "1",
            "--out",
        ])
        .arg(&out)
        .env_remove("OPENAI_API_KEY")
        .env("GEMINI_API_KEY", KEY)
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");

    let requests = server.requests();
    assert!(requests.len() > 20, "{} requests", requests.len());
    assert!(
        requests.iter().all(|r| !r.path.contains("key=")),
        "the key is never in a URL"
    );
    let metric = std::fs::read_to_string(out.join("metric.json")).unwrap_or_default();
    let m = loads(&metric).unwrap_or(Value::Null);
    let acc = m
        .get("total_info")
        .and_then(|t| t.get("task"))
        .and_then(|t| t.get("accuracy"))
        .cloned();
    assert!(
        matches!(acc, Some(Value::Float(f)) if f == 1.0) || acc == Some(Value::int(1)),
        "every gold answer is correct through the Gemini mapping: {metric}\n{stderr}"
    );

    let result = std::fs::read_to_string(out.join("result.jsonl")).unwrap_or_default();
    assert!(
        result.contains(r#""thought_signature": "sig-"#),
        "signatures are recorded"
    );
    for f in [
        "result.jsonl",
        "checkpoint.jsonl",
        "score.jsonl",
        "report.json",
    ] {
        let text = std::fs::read_to_string(out.join(f)).unwrap_or_default();
        assert!(!text.contains(KEY), "{f} holds the key");
    }

    // The live labels equal an offline score of the run's own result file.
    let offline = out.join("offline");
    let s = Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(["score", "--dataset"])
        .arg(root().join("tests/fixtures/mini.jsonl"))
        .arg("--results")
        .arg(out.join("result.jsonl"))
        .arg("--out")
        .arg(&offline)
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    for f in ["score.jsonl", "metric.json"] {
        assert_eq!(
            std::fs::read(out.join(f)).ok(),
            std::fs::read(offline.join(f)).ok(),
            "{f}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_mock_rejects_what_gemini_rejects() {
    // The mock's checks are real: a current-turn call without its signature, or a missing
    // function response, is refused.
    let c = |s: &str| loads(s).unwrap_or(Value::Null);
    let user = c(r#"{"role": "user", "parts": [{"text": "q"}]}"#);
    let unsigned =
        c(r#"{"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}]}"#);
    let signed = c(
        r#"{"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}, "thoughtSignature": "sig-1"}]}"#,
    );
    let response = c(
        r#"{"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {"output": "x"}}}]}"#,
    );
    assert!(validate(&[user.clone(), unsigned.clone(), response.clone()]).is_some());
    assert!(validate(&[user.clone(), signed.clone(), response.clone()]).is_none());
    assert!(validate(&[user.clone(), signed.clone()]).is_some());
    // Earlier turns are not checked for signatures.
    assert!(validate(&[user.clone(), unsigned, response, user]).is_none());
}
