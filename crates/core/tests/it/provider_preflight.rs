//! Preflight: the request is one user turn and one tool in each dialect's shape, and the
//! servers' answers (bodies written from their documented and reported error messages)
//! land in the right class with the right fix.

use wildtool_core::json::{loads, Value};
use wildtool_core::runner::http::NetworkKind;
use wildtool_core::runner::preflight::{
    classify_network, classify_response, request, request_at, should_retry, PreflightClass,
    PreflightFailure,
};
use wildtool_core::runner::provider::{Endpoint, ProviderKind};

use PreflightClass::*;
use ProviderKind::{Anthropic, Gemini, OpenAi};

fn endpoint(base: &str) -> Endpoint {
    Endpoint {
        base_url: base.to_owned(),
        browser: false,
    }
}

#[test]
fn the_request_is_one_user_turn_and_one_tool_in_the_official_shape() {
    let http = request(OpenAi, &endpoint("http://127.0.0.1:8000/v1"), "qwen3");
    assert_eq!(http.url, "http://127.0.0.1:8000/v1/chat/completions");
    assert_eq!(http.method, "POST");
    let body = loads(&http.body).unwrap_or(Value::Null);
    let keys: Vec<&String> = body
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["messages", "model", "temperature", "tools"]);
    assert_eq!(
        http.body,
        concat!(
            r#"{"messages": [{"role": "user", "content": "What is the weather in Paris right now?"}], "model": "qwen3", "temperature": 0.0, "#,
            r#""tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}}, "required": ["city"]}}}]}"#
        )
    );
    assert!(http
        .headers
        .iter()
        .all(|(k, _)| !k.contains("authorization") && !k.contains("key")));

    let warm = request_at(OpenAi, &endpoint("http://h/v1"), "o3", 1.0);
    assert!(warm.body.contains(r#""temperature": 1.0"#), "{}", warm.body);

    let g = request(
        Gemini,
        &endpoint("https://generativelanguage.googleapis.com/v1beta"),
        "gemini-2.5-flash",
    );
    assert_eq!(
        g.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert!(g.body.starts_with(r#"{"contents": [{"role": "user", "parts": [{"text": "What is the weather in Paris right now?"}]}], "tools": [{"functionDeclarations": [{"name": "get_weather""#), "{}", g.body);

    let a = request(
        Anthropic,
        &endpoint("https://api.anthropic.com"),
        "claude-x",
    );
    assert_eq!(a.url, "https://api.anthropic.com/v1/messages");
    assert!(
        a.body.contains(r#""tools": [{"name": "get_weather""#),
        "{}",
        a.body
    );
}

fn expect(
    provider: ProviderKind,
    status: u16,
    body: &str,
    class: PreflightClass,
) -> PreflightFailure {
    match classify_response(provider, status, body) {
        Ok(()) => panic!("{status} {body}: usable, expected {class:?}"),
        Err(f) => {
            assert_eq!(f.class, class, "{status} {body}: {f}");
            f
        }
    }
}

fn fix(f: &PreflightFailure) -> &str {
    f.fix.as_deref().unwrap_or("")
}

#[test]
fn usable_endpoints_answer_with_a_reply_the_mapping_reads() {
    for (provider, body) in [
        (
            OpenAi,
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 60, "completion_tokens": 15}}"#,
        ),
        // A text answer still means the server took the tools.
        (
            OpenAi,
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "I cannot check live weather."}, "finish_reason": "stop"}]}"#,
        ),
        (
            Anthropic,
            r#"{"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}], "usage": {"input_tokens": 300, "output_tokens": 40}}"#,
        ),
        (
            Gemini,
            r#"{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 8}}"#,
        ),
    ] {
        assert_eq!(classify_response(provider, 200, body), Ok(()), "{body}");
        assert!(!should_retry(provider, 200, body));
    }
}

#[test]
fn authentication_failures() {
    for (provider, status, body) in [
        (
            OpenAi,
            401,
            r#"{"error": {"message": "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}"#,
        ),
        (
            Anthropic,
            401,
            r#"{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}, "request_id": "req_1"}"#,
        ),
        (
            Gemini,
            400,
            r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}"#,
        ),
        (
            Gemini,
            403,
            r#"{"error": {"code": 403, "message": "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", "status": "PERMISSION_DENIED"}}"#,
        ),
        (
            OpenAi,
            401,
            r#"{"error": {"message": "No auth credentials found", "code": 401}}"#,
        ),
        (
            OpenAi,
            401,
            r#"{"error": {"message": "Invalid API Key", "type": "invalid_request_error", "code": "invalid_api_key"}}"#,
        ),
        (
            OpenAi,
            401,
            r#"{"error": {"message": "Authentication Fails, Your api key: ****abcd is invalid", "type": "authentication_error", "param": null, "code": "invalid_request_error"}}"#,
        ),
        (
            OpenAi,
            401,
            r#"{"message": "Unauthorized", "request_id": "3f0c"}"#,
        ),
        (
            OpenAi,
            401,
            r#"{"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}}"#,
        ),
        (OpenAi, 401, r#"{"error": "Unauthorized"}"#),
        (OpenAi, 403, "<html><body>Forbidden</body></html>"),
    ] {
        let f = expect(provider, status, body, Auth);
        assert!(fix(&f).contains("API key"), "{}", fix(&f));
        assert!(
            !f.reason.contains("sk-bad"),
            "an echoed key is masked: {}",
            f.reason
        );
        assert!(!should_retry(provider, status, body));
    }
    let f = expect(
        Gemini,
        400,
        r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}"#,
        Auth,
    );
    assert!(fix(&f).contains("GEMINI_API_KEY"), "{}", fix(&f));
}

#[test]
fn model_not_found() {
    for (provider, status, body) in [
        (
            OpenAi,
            404,
            r#"{"error": {"message": "The model `gpt-9` does not exist or you do not have access to it.", "type": "invalid_request_error", "param": null, "code": "model_not_found"}}"#,
        ),
        (
            OpenAi,
            404,
            r#"{"object": "error", "message": "The model `qwen3` does not exist.", "type": "NotFoundError", "param": null, "code": 404}"#,
        ),
        (
            OpenAi,
            404,
            r#"{"error": {"message": "The model `qwen3` does not exist.", "type": "NotFoundError", "param": "model", "code": 404}}"#,
        ),
        (
            Anthropic,
            404,
            r#"{"type": "error", "error": {"type": "not_found_error", "message": "model: claude-9"}}"#,
        ),
        (
            Gemini,
            404,
            r#"{"error": {"code": 404, "message": "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", "status": "NOT_FOUND"}}"#,
        ),
        (
            OpenAi,
            400,
            r#"{"error": {"message": "foo/bar is not a valid model ID", "code": 400}}"#,
        ),
        (
            OpenAi,
            400,
            r#"{"error": {"message": "Model Not Exist", "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}}"#,
        ),
        (
            OpenAi,
            400,
            r#"{"object": "error", "message": "Invalid model: mistral-huge", "type": "invalid_model", "param": null, "code": "1500"}"#,
        ),
        (
            OpenAi,
            404,
            r#"{"error": {"message": "Unable to access model meta/x. Please visit https://api.together.ai/models to view the list of supported models.", "type": "invalid_request_error", "param": null, "code": "model_not_available"}}"#,
        ),
        // Some servers answer 200 with an error body.
        (
            OpenAi,
            200,
            r#"{"error": {"message": "model 'llama9' not found"}}"#,
        ),
    ] {
        let f = expect(provider, status, body, ModelNotFound);
        assert!(fix(&f).contains("model"), "{}", fix(&f));
        assert!(!should_retry(provider, status, body));
    }
    let f = expect(
        OpenAi,
        404,
        r#"{"error": {"message": "model \"llama3.9\" not found, try pulling it first", "type": "api_error", "param": null, "code": null}}"#,
        ModelNotFound,
    );
    assert!(fix(&f).contains("ollama pull"), "{}", fix(&f));
}

#[test]
fn servers_that_cannot_do_tool_calls_say_how_to_fix_it() {
    let vllm_old = r#"{"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400}"#;
    let vllm_new = r#"{"error": {"message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400}}"#;
    for body in [vllm_old, vllm_new] {
        let f = expect(OpenAi, 400, body, NoToolSupport);
        assert!(
            fix(&f).contains("--enable-auto-tool-choice --tool-call-parser"),
            "{}",
            fix(&f)
        );
    }
    for body in [
        r#"{"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}"#,
        r#"{"error": {"code": 500, "message": "Unsupported param: tools", "type": "server_error"}}"#,
    ] {
        let f = expect(OpenAi, 500, body, NoToolSupport);
        assert!(fix(&f).contains("--jinja"), "{}", fix(&f));
        assert!(
            !should_retry(OpenAi, 500, body),
            "a 500 that cannot heal is not retried"
        );
    }
    for body in [
        r#"{"error": {"message": "registry.ollama.ai/library/gemma3:4b does not support tools", "type": "api_error", "param": null, "code": null}}"#,
        r#"{"error": "registry.ollama.ai/library/gemma3:4b does not support tools"}"#,
    ] {
        let f = expect(OpenAi, 400, body, NoToolSupport);
        assert!(f.reason.contains("gemma3:4b"), "{}", f.reason);
        assert!(fix(&f).contains("tools"), "{}", fix(&f));
    }
    // A 404 that is about tools, not the model.
    let f = expect(
        OpenAi,
        404,
        r#"{"error": {"message": "No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing", "code": 404}}"#,
        NoToolSupport,
    );
    assert!(
        fix(&f).contains("supported_parameters=tools"),
        "{}",
        fix(&f)
    );
    expect(
        OpenAi,
        400,
        r#"{"error": {"message": "deepseek-reasoner does not support Function Calling", "type": "invalid_request_error"}}"#,
        NoToolSupport,
    );
}

#[test]
fn unusable_2xx_answers_are_bad_replies() {
    for (provider, body) in [
        (OpenAi, "<!doctype html><html><body>Welcome</body></html>"),
        // Ollama's native /api/chat answer: the base URL lacks /v1.
        (
            OpenAi,
            r#"{"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": "hi"}, "done": true}"#,
        ),
        // An OpenAI-compatible answer read as Anthropic (wrong provider).
        (
            Anthropic,
            r#"{"choices": [{"message": {"role": "assistant", "content": "hi"}}]}"#,
        ),
        (
            Gemini,
            r#"{"choices": [{"message": {"role": "assistant", "content": "hi"}}]}"#,
        ),
        (OpenAi, ""),
    ] {
        let f = expect(provider, 200, body, BadReply);
        assert!(fix(&f).contains("base URL"), "{}", fix(&f));
        assert!(!should_retry(provider, 200, body));
    }
}

#[test]
fn other_failures_and_which_of_them_may_heal() {
    // A path the server does not have: the base URL is wrong, not the model.
    for body in [r#"{"detail": "Not Found"}"#, "404 page not found", ""] {
        let f = expect(OpenAi, 404, body, Other);
        assert!(fix(&f).contains("/v1"), "{}", fix(&f));
        assert!(!should_retry(OpenAi, 404, body));
    }
    let rate = r#"{"error": {"message": "Rate limit reached for gpt-4o in organization org-1 on requests per min (RPM): Limit 3, Used 3, Requested 1.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}"#;
    expect(OpenAi, 429, rate, Other);
    assert!(should_retry(OpenAi, 429, rate));
    let overloaded = r#"{"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}"#;
    expect(Gemini, 503, overloaded, Other);
    assert!(
        should_retry(Gemini, 503, overloaded),
        "overloaded is not 'model not found'"
    );
    let anthropic_busy =
        r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
    assert!(should_retry(Anthropic, 529, anthropic_busy));
    assert!(should_retry(OpenAi, 502, "<html>Bad Gateway</html>"));

    let quota = r#"{"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#;
    let f = expect(OpenAi, 429, quota, Other);
    assert!(fix(&f).contains("credit"), "{}", fix(&f));
    assert!(
        !should_retry(OpenAi, 429, quota),
        "an empty quota does not heal"
    );
    expect(
        OpenAi,
        402,
        r#"{"error": {"message": "Insufficient credits", "code": 402}}"#,
        Other,
    );

    let temp = r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#;
    let f = expect(OpenAi, 400, temp, Other);
    assert!(fix(&f).contains("temperature"), "{}", fix(&f));

    let f = expect(
        OpenAi,
        400,
        r#"{"error": {"message": "This model's maximum context length is 4096 tokens."}}"#,
        Other,
    );
    assert!(f.reason.contains("maximum context length"), "{}", f.reason);
    assert_eq!(f.fix, None);
}

#[test]
fn network_failures() {
    let cors = classify_network(OpenAi, NetworkKind::Cors, "TypeError: Failed to fetch");
    assert_eq!(cors.class, Cors);
    let text = cors.fix.unwrap_or_default();
    assert!(
        text.contains("OLLAMA_ORIGINS")
            && text.contains("--cors")
            && text.contains("--allowed-origins"),
        "{text}"
    );
    let anthropic = classify_network(Anthropic, NetworkKind::Cors, "");
    assert_eq!(anthropic.class, Cors);
    assert!(anthropic
        .fix
        .unwrap_or_default()
        .contains("browser-access header"));

    let down = classify_network(
        OpenAi,
        NetworkKind::Unreachable,
        "Connection refused (os error 111)",
    );
    assert_eq!(down.class, Unreachable);
    assert!(
        down.reason.contains("Connection refused"),
        "{}",
        down.reason
    );
    assert!(down.fix.unwrap_or_default().contains("11434"));

    let slow = classify_network(Gemini, NetworkKind::Timeout, "");
    assert_eq!(slow.class, Other);
    assert!(slow.fix.unwrap_or_default().contains("timeout"));
    assert_eq!(
        classify_network(OpenAi, NetworkKind::Other, "tls").class,
        Other
    );
    assert_eq!(
        classify_network(OpenAi, NetworkKind::Unreachable, "x").to_string(),
        "endpoint unreachable: nothing answered at the base URL (x)"
    );
}
