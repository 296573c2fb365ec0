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
