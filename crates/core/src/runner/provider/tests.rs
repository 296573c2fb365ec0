//! Recorded response shapes of real providers, and request construction.

use super::*;
use crate::json::{dumps, loads, Escape, Value};
use crate::protocol::SeededIds;

fn ids() -> SeededIds {
    SeededIds::new(1)
}

fn v(text: &str) -> Value {
    loads(text).unwrap_or(Value::Null)
}

fn openai(body: &str) -> Result<Reply, ProviderError> {
    ProviderKind::OpenAi.parse_response(200, body, 0.25, &mut ids())
}

fn calls(reply: &Reply) -> String {
    dumps(&reply.tool_calls, Escape::Utf8)
}

#[test]
fn openai_request_is_exactly_the_official_body() {
    let messages = vec![
        v(r#"{"role": "system", "content": "Current Date: 2024"}"#),
        v(r#"{"role": "user", "content": "héllo"}"#),
    ];
    let tools =
        v(r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]"#);
    let req = ChatRequest {
        model: "m/x",
        temperature: 0.0,
        messages: &messages,
        tools: &tools,
    };
    let http = ProviderKind::OpenAi.build(
        &req,
        &Endpoint {
            base_url: "http://h:1/v1/".to_owned(),
            browser: false,
        },
    );
    assert_eq!(http.url, "http://h:1/v1/chat/completions");
    assert_eq!(http.method, "POST");
    assert_eq!(
        http.body,
        r#"{"messages": [{"role": "system", "content": "Current Date: 2024"}, {"role": "user", "content": "héllo"}], "model": "m/x", "temperature": 0.0, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]}"#
    );
    assert!(
        http.headers.iter().all(|(k, _)| k != "authorization"),
        "the key is never in the request"
    );
}

#[test]
fn openai_official_shape_round_trips() {
    let body = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}],"refusal":null},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":17,"total_tokens":137},"system_fingerprint":"fp"}"#;
    let r = openai(body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.content, Value::Null);
    assert_eq!(
        calls(&r),
        r#"[{"id": "call_abc", "function": {"arguments": "{\"city\": \"Paris\"}", "name": "get_weather"}, "type": "function"}]"#
    );
    assert_eq!(r.input_tokens, Value::int(120));
    assert_eq!(r.output_tokens, Value::int(17));
    assert_eq!(r.reasoning_content, Value::Null);
    assert_eq!(r.latency, 0.25);
}

#[test]
fn vllm_empty_tool_calls_and_text() {
    let body = r#"{"id":"cmpl-x","object":"chat.completion","model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,"content":"Which city?","tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":50,"total_tokens":53,"completion_tokens":3,"prompt_tokens_details":null},"prompt_logprobs":null}"#;
    let r = openai(body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.content, Value::str("Which city?"));
    assert_eq!(
        r.tool_calls,
        Value::Array(vec![]),
        "an empty list stays an empty list, as the client returns it"
    );
}

#[test]
fn ollama_object_arguments_and_missing_ids() {
    let body = r#"{"id":"chatcmpl-5","object":"chat.completion","created":1,"model":"llama3.1","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Berlin","n":1.5}}},{"id":"","type":"function","function":{"name":"get_forecast","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#;
    let r = openai(body).unwrap_or_else(|e| panic!("{e}"));
    let c = r.tool_calls.as_array().cloned().unwrap_or_default();
    assert_eq!(c.len(), 2);
    let args = c[0]
        .get("function")
        .and_then(|f| f.get("arguments"))
        .cloned();
    assert_eq!(
        args,
        Some(Value::str(r#"{"city": "Berlin", "n": 1.5}"#)),
        "object arguments become dumps text"
    );
    for call in &c {
        let id = call.get("id").and_then(Value::as_str).unwrap_or("");
        assert!(id.starts_with("toolu_bdrk_"), "generated id: {id}");
        assert_eq!(call.get("type"), Some(&Value::str("function")));
    }
    assert_ne!(c[0].get("id"), c[1].get("id"));
    assert_eq!(r.content, Value::str(""));
}

#[test]
fn llamacpp_without_usage_and_length_finish() {
    let body = r#"{"choices":[{"finish_reason":"length","index":0,"message":{"content":"I think the answer is","role":"assistant"}}],"created":1,"model":"gpt-3.5-turbo","object":"chat.completion","timings":{"predicted_n":16}}"#;
    let r = openai(body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.content, Value::str("I think the answer is"));
    assert_eq!(r.tool_calls, Value::Null);
    assert_eq!(
        r.input_tokens,
        Value::Null,
        "C11: no usage gives null counts"
    );
    assert_eq!(r.output_tokens, Value::Null);
}

#[test]
fn deepseek_reasoning_content() {
    let body = r#"{"id":"x","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"The user wants weather.","tool_calls":[{"index":0,"id":"call_0_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":30,"total_tokens":39,"completion_tokens_details":{"reasoning_tokens":20}}}"#;
    let r = openai(body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.reasoning_content, Value::str("The user wants weather."));
    assert_eq!(
        calls(&r),
        r#"[{"id": "call_0_x", "function": {"arguments": "{\"city\":\"Paris\"}", "name": "get_weather"}, "type": "function"}]"#
    );
}

#[test]
fn openai_errors_are_typed() {
    assert!(
        matches!(openai(r#"{"error": {"message": "overloaded", "type": "server_error"}}"#), Err(ProviderError::Api(m)) if m == "overloaded")
    );
    assert!(matches!(
        openai(r#"{"object": "error", "message": "x", "error": "bad model"}"#),
        Err(ProviderError::Api(_))
    ));
    assert!(matches!(
        openai("<html>502 Bad Gateway</html>"),
        Err(ProviderError::NotJson { .. })
    ));
    assert!(matches!(
        openai(r#"{"choices": []}"#),
        Err(ProviderError::Shape(_))
    ));
    assert!(matches!(
        openai(r#"{"choices": [{"message": "hi"}]}"#),
        Err(ProviderError::Shape(_))
    ));
    let e = ProviderKind::OpenAi.parse_response(503, "busy", 0.0, &mut ids());
    assert!(matches!(e, Err(ProviderError::Status { status: 503, .. })));
}

#[test]
fn anthropic_request_converts_the_conversation() {
    let messages = vec![
        v(r#"{"role": "system", "content": "Current Date: D"}"#),
        v(r#"{"role": "user", "content": "weather in A and B"}"#),
        v(
            r#"{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "w", "arguments": "{\"city\": \"A\"}"}, "id": "toolu_bdrk_1"}, {"type": "function", "function": {"name": "w", "arguments": "not json"}, "id": "toolu_bdrk_2"}]}"#,
        ),
        v(r#"{"role": "tool", "content": "\"sunny\"", "tool_call_id": "toolu_bdrk_1"}"#),
        v(r#"{"role": "tool", "content": "rain", "tool_call_id": "toolu_bdrk_2"}"#),
        v(r#"{"role": "assistant", "content": "A is sunny, B rainy."}"#),
        v(r#"{"role": "user", "content": "thanks"}"#),
    ];
    let tools = v(
        r#"[{"type": "function", "function": {"name": "w", "description": "d", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]"#,
    );
    let req = ChatRequest {
        model: "claude-x",
        temperature: 0.0,
        messages: &messages,
        tools: &tools,
    };
    let http = ProviderKind::Anthropic.build(
        &req,
        &Endpoint {
            base_url: "https://api.anthropic.com".to_owned(),
            browser: true,
        },
    );
    assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
    assert!(http.headers.contains(&(
        "anthropic-dangerous-direct-browser-access".to_owned(),
        "true".to_owned()
    )));
    assert!(http
        .headers
        .contains(&("anthropic-version".to_owned(), "2023-06-01".to_owned())));
    assert_eq!(
        http.body,
        concat!(
            r#"{"model": "claude-x", "max_tokens": 4096, "system": "Current Date: D", "messages": ["#,
            r#"{"role": "user", "content": [{"type": "text", "text": "weather in A and B"}]}, "#,
            r#"{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_bdrk_1", "name": "w", "input": {"city": "A"}}, {"type": "tool_use", "id": "toolu_bdrk_2", "name": "w", "input": {}}]}, "#,
            r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_bdrk_1", "content": "\"sunny\""}, {"type": "tool_result", "tool_use_id": "toolu_bdrk_2", "content": "rain"}]}, "#,
            r#"{"role": "assistant", "content": [{"type": "text", "text": "A is sunny, B rainy."}]}, "#,
            r#"{"role": "user", "content": [{"type": "text", "text": "thanks"}]}], "#,
            r#""tools": [{"name": "w", "description": "d", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}], "temperature": 0.0}"#
        )
    );
    let native = ProviderKind::Anthropic.build(
        &req,
        &Endpoint {
            base_url: "http://h/v1".to_owned(),
            browser: false,
        },
    );
    assert_eq!(native.url, "http://h/v1/messages");
    assert!(native.headers.iter().all(|(k, _)| !k.contains("browser")));
    assert_eq!(ProviderKind::Anthropic.auth(), AuthStyle::XApiKey);
}

#[test]
fn anthropic_response_blocks() {
    let body = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"thinking","thinking":"Need weather.","signature":"sig"},{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"北京"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":400,"output_tokens":60,"cache_read_input_tokens":0}}"#;
    let r = ProviderKind::Anthropic
        .parse_response(200, body, 1.0, &mut ids())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.content, Value::str("Checking."));
    assert_eq!(r.reasoning_content, Value::str("Need weather."));
    assert_eq!(
        calls(&r),
        r#"[{"id": "toolu_01", "function": {"arguments": "{\"city\": \"北京\"}", "name": "get_weather"}, "type": "function"}]"#
    );
    assert_eq!(r.input_tokens, Value::int(400));
    let err = ProviderKind::Anthropic.parse_response(
        200,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        0.0,
        &mut ids(),
    );
    assert!(matches!(err, Err(ProviderError::Api(m)) if m == "Overloaded"));
    let text = ProviderKind::Anthropic.parse_response(
        200,
        r#"{"type":"message","content":[{"type":"text","text":"Hi"}],"usage":{}}"#,
        0.0,
        &mut ids(),
    );
    assert!(matches!(text, Ok(r) if r.tool_calls.is_null() && r.input_tokens.is_null()));
}

fn gemini(body: &str) -> Result<Reply, ProviderError> {
    ProviderKind::Gemini.parse_response(200, body, 0.5, &mut ids())
}

fn gemini_endpoint() -> Endpoint {
    Endpoint {
        base_url: "https://generativelanguage.googleapis.com/v1beta/".to_owned(),
        browser: true,
    }
}

#[test]
fn gemini_request_converts_the_conversation() {
    let messages = vec![
        v(r#"{"role": "system", "content": "Current Date: D"}"#),
        v(r#"{"role": "user", "content": "weather in A, forecast for B"}"#),
        v(
            r#"{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "w", "arguments": "{\"city\": \"A\"}"}, "id": "toolu_bdrk_1"}, {"id": "call_2", "function": {"arguments": "not json", "name": "f"}, "type": "function", "extra_content": {"google": {"thought_signature": "c2ln"}}}]}"#,
        ),
        // Answered in the other order: each response is named after the call its id names.
        v(r#"{"role": "tool", "content": "\"cloudy\"", "tool_call_id": "call_2"}"#),
        v(r#"{"role": "tool", "content": "rain", "tool_call_id": "toolu_bdrk_1"}"#),
        v(r#"{"role": "assistant", "content": "A: rain. B: cloudy."}"#),
        v(r#"{"role": "user", "content": "thanks"}"#),
    ];
    let tools = v(
        r#"[{"type": "function", "function": {"name": "w", "description": "d", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}, {"type": "function", "function": {"name": "f"}}]"#,
    );
    let req = ChatRequest {
        model: "gemini-2.5-flash",
        temperature: 0.0,
        messages: &messages,
        tools: &tools,
    };
    let http = ProviderKind::Gemini.build(&req, &gemini_endpoint());
    assert_eq!(
        http.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert_eq!(http.method, "POST");
    assert_eq!(
        http.headers,
        vec![("content-type".to_owned(), "application/json".to_owned())],
        "no key, no browser header"
    );
    assert_eq!(
        http.body,
        concat!(
            r#"{"systemInstruction": {"parts": [{"text": "Current Date: D"}]}, "contents": ["#,
            r#"{"role": "user", "parts": [{"text": "weather in A, forecast for B"}]}, "#,
            r#"{"role": "model", "parts": [{"functionCall": {"name": "w", "args": {"city": "A"}}}, {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "c2ln"}]}, "#,
            r#"{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "\"cloudy\""}}}, {"functionResponse": {"name": "w", "response": {"output": "rain"}}}]}, "#,
            r#"{"role": "model", "parts": [{"text": "A: rain. B: cloudy."}]}, "#,
            r#"{"role": "user", "parts": [{"text": "thanks"}]}], "#,
            r#""tools": [{"functionDeclarations": [{"name": "w", "description": "d", "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}, {"name": "f"}]}], "#,
            r#""generationConfig": {"temperature": 0.0}}"#
        )
    );
}

#[test]
fn gemini_function_responses_and_user_text_are_separate_turns() {
    // A gold history ends with tool results and the next task's user message follows: the
    // user message must open its own content (a new turn), and an unknown id falls back to
    // the call at the same position.
    let messages = vec![
        v(r#"{"role": "user", "content": "q1"}"#),
        v(
            r#"{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "a", "arguments": "{}"}, "id": "x1"}, {"type": "function", "function": {"name": "b", "arguments": "[1]"}, "id": "x2"}]}"#,
        ),
        v(r#"{"role": "tool", "content": "r1", "tool_call_id": "x1"}"#),
        v(r#"{"role": "tool", "content": "r2", "tool_call_id": "unknown"}"#),
        v(r#"{"role": "assistant", "content": "done"}"#),
        v(r#"{"role": "user", "content": "q2"}"#),
        v(r#"{"role": "user", "content": "more"}"#),
    ];
    let (system, contents) = gemini::convert_messages(&messages);
    assert_eq!(system, "");
    let roles: Vec<String> = contents
        .iter()
        .map(|c| {
            let role = c.get("role").and_then(Value::as_str).unwrap_or("");
            let n = c.get("parts").and_then(Value::as_array).map_or(0, Vec::len);
            format!("{role}:{n}")
        })
        .collect();
    assert_eq!(roles, ["user:1", "model:2", "user:2", "model:1", "user:2"]);
    let names = dumps(&contents[2], Escape::Utf8);
    assert!(
        names.contains(r#""name": "a""#) && names.contains(r#""name": "b""#),
        "{names}"
    );
    assert!(
        dumps(&contents[1], Escape::Utf8).contains(r#"{"name": "b", "args": {}}"#),
        "non-object arguments become {{}}"
    );

    let mut only_text = messages.clone();
    only_text.truncate(1);
    only_text.push(v(
        r#"{"role": "tool", "content": "x", "tool_call_id": "x1"}"#,
    ));
    only_text.push(v(r#"{"role": "user", "content": "q2"}"#));
    let (_, contents) = gemini::convert_messages(&only_text);
    assert_eq!(contents.len(), 3, "tool results never merge with user text");
}

#[test]
fn gemini_model_names_become_safe_paths() {
    for (model, path) in [
        ("gemini-2.5-flash", "models/gemini-2.5-flash"),
        ("models/gemini-2.5-pro", "models/gemini-2.5-pro"),
        ("tunedModels/my-model-7", "tunedModels/my-model-7"),
        (" gemini-x ", "models/gemini-x"),
        ("a b?key=k#f", "models/a%20b%3Fkey%3Dk%23f"),
        (
            "x:streamGenerateContent",
            "models/x%3AstreamGenerateContent",
        ),
    ] {
        assert_eq!(gemini::model_path(model), path, "{model}");
    }
    let messages = vec![v(r#"{"role": "user", "content": "hi"}"#)];
    let http = ProviderKind::Gemini.build(
        &ChatRequest {
            model: "m?key=secret",
            temperature: 0.2,
            messages: &messages,
            tools: &Value::Array(vec![]),
        },
        &gemini_endpoint(),
    );
    assert!(!http.url.contains("key="), "{}", http.url);
    assert!(
        !http.body.contains("\"tools\""),
        "no tool list when there are no tools"
    );
    assert!(http
        .body
        .ends_with(r#""generationConfig": {"temperature": 0.2}}"#));
    assert_eq!(ProviderKind::Gemini.auth(), AuthStyle::XGoogApiKey);
    assert_eq!(
        AuthStyle::XGoogApiKey.header("k-1"),
        ("x-goog-api-key", "k-1".to_owned())
    );
}

#[test]
fn gemini_response_parts() {
    let body = r#"{"candidates": [{"content": {"parts": [{"text": "Plan: look it up.", "thought": true}, {"text": "Checking "}, {"text": "both."}, {"functionCall": {"name": "get_weather", "args": {"city": "北京", "n": 2}}, "thoughtSignature": "AbCd=="}, {"functionCall": {"id": "fc-7", "name": "get_forecast"}}], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 30, "thoughtsTokenCount": 12, "totalTokenCount": 162}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}"#;
    let r = gemini(body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.content, Value::str("Checking both."));
    assert_eq!(r.reasoning_content, Value::str("Plan: look it up."));
    assert!(!r.echo_reasoning);
    let c = r.tool_calls.as_array().cloned().unwrap_or_default();
    assert_eq!(c.len(), 2);
    let first_id = c[0].get("id").and_then(Value::as_str).unwrap_or("");
    assert!(first_id.starts_with("toolu_bdrk_"), "{first_id}");
    assert_eq!(
        dumps(&c[0], Escape::Utf8),
        format!(
            r#"{{"id": "{first_id}", "function": {{"arguments": "{{\"city\": \"北京\", \"n\": 2}}", "name": "get_weather"}}, "type": "function", "extra_content": {{"google": {{"thought_signature": "AbCd=="}}}}}}"#
        )
    );
    assert_eq!(
        dumps(&c[1], Escape::Utf8),
        r#"{"id": "fc-7", "function": {"arguments": "{}", "name": "get_forecast"}, "type": "function"}"#
    );
    assert_eq!(r.input_tokens, Value::int(120));
    assert_eq!(r.output_tokens, Value::int(42), "candidates + thoughts");
    assert_eq!(r.latency, 0.5);
}

#[test]
fn gemini_text_blocked_and_error_replies() {
    let text = gemini(
        r#"{"candidates": [{"content": {"parts": [{"text": "Which city?"}], "role": "model"}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3}}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text.content, Value::str("Which city?"));
    assert!(text.tool_calls.is_null() && text.reasoning_content.is_null());
    assert_eq!(text.output_tokens, Value::int(3));

    // A blocked prompt and a safety stop are empty replies (the model produced nothing).
    for body in [
        r#"{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 9}}"#,
        r#"{"candidates": [{"finishReason": "SAFETY", "index": 0}]}"#,
    ] {
        let r = gemini(body).unwrap_or_else(|e| panic!("{e}"));
        assert!(r.content.is_null() && r.tool_calls.is_null(), "{body}");
        assert_eq!(r.output_tokens, Value::Null, "C11-style null count: {body}");
    }
    assert!(matches!(
        gemini(r#"{"modelVersion": "x"}"#),
        Err(ProviderError::Shape(_))
    ));
    assert!(matches!(
        gemini(r#"{"candidates": ["x"]}"#),
        Err(ProviderError::Shape(_))
    ));
    let e = ProviderKind::Gemini.parse_response(
        400,
        r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}"#,
        0.0,
        &mut ids(),
    );
    assert!(matches!(e, Err(ProviderError::Status { status: 400, .. })));
    assert!(matches!(
        gemini(r#"{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}"#),
        Err(ProviderError::Api(m)) if m == "The model is overloaded."
    ));
}

#[test]
fn echoed_keys_are_masked_in_error_texts() {
    assert_eq!(
        mask_echoed_key("Incorrect API key provided: sk-short. You can find your API key at x."),
        "Incorrect API key provided: <key>. You can find your API key at x."
    );
    assert_eq!(
        mask_echoed_key("incorrect api key provided:abc"),
        "incorrect api key provided:<key>"
    );
    assert_eq!(mask_echoed_key("api key provided: "), "api key provided: ");
    assert_eq!(mask_echoed_key("no key here"), "no key here");
    let e = openai(
        r#"{"error": {"message": "Incorrect API key provided: sk-test1. See docs.", "type": "invalid_request_error", "code": "invalid_api_key"}}"#,
    );
    assert!(matches!(e, Err(ProviderError::Api(m)) if !m.contains("sk-test1")));
    let s = ProviderKind::OpenAi.parse_response(
        401,
        r#"{"error": {"message": "Incorrect API key provided: sk-test1."}}"#,
        0.0,
        &mut ids(),
    );
    assert!(matches!(s, Err(ProviderError::Status { body, .. }) if !body.contains("sk-test1")));
}
