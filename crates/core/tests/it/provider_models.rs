//! Model lists: the request per dialect and the list shapes servers answer with.

use wildtool_core::runner::provider::models::{parse, request};
use wildtool_core::runner::provider::{Endpoint, ProviderError, ProviderKind};
use wildtool_core::runner::registry;

fn names(body: &str) -> Vec<String> {
    parse(200, body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

#[test]
fn list_shapes_of_every_kind_of_server() {
    // OpenAI-compatible (OpenAI, vLLM, LM Studio, Ollama /v1, OpenRouter, Groq …).
    assert_eq!(
        names(
            r#"{"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"}, {"id": "gpt-4o-mini", "object": "model", "created": 1, "owned_by": "system"}]}"#
        ),
        ["gpt-4o", "gpt-4o-mini"]
    );
    // Ollama's native tag list.
    assert_eq!(
        names(
            r#"{"models": [{"name": "qwen3:8b", "model": "qwen3:8b", "modified_at": "2025-05-01T10:00:00Z", "size": 5225388164, "digest": "500a1f", "details": {"family": "qwen3", "parameter_size": "8.2B"}}, {"name": "llama3.1:latest", "model": "llama3.1:latest"}]}"#
        ),
        ["qwen3:8b", "llama3.1:latest"]
    );
    // llama.cpp answers with both lists.
    assert_eq!(
        names(
            r#"{"models": [{"name": "Qwen3-8B-Q4_K_M.gguf", "model": "Qwen3-8B-Q4_K_M.gguf"}], "object": "list", "data": [{"id": "Qwen3-8B-Q4_K_M.gguf", "object": "model", "created": 1, "owned_by": "llamacpp", "meta": {"n_ctx_train": 40960}}]}"#
        ),
        ["Qwen3-8B-Q4_K_M.gguf"]
    );
    // Anthropic.
    assert_eq!(
        names(
            r#"{"data": [{"type": "model", "id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"}], "has_more": false, "first_id": "claude-sonnet-4-5-20250929", "last_id": "claude-sonnet-4-5-20250929"}"#
        ),
        ["claude-sonnet-4-5-20250929"]
    );
    // Gemini: only models that offer generateContent, without the collection prefix.
    assert_eq!(
        names(
            r#"{"models": [{"name": "models/gemini-2.5-flash", "version": "001", "displayName": "Gemini 2.5 Flash", "supportedGenerationMethods": ["generateContent", "countTokens"]}, {"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]}, {"name": "models/gemini-2.5-pro", "supportedGenerationMethods": ["generateContent"]}], "nextPageToken": "Ch9"}"#
        ),
        ["gemini-2.5-flash", "gemini-2.5-pro"]
    );
    // Together's bare list; duplicates and nameless entries dropped.
    assert_eq!(
        names(
            r#"[{"id": "meta-llama/Llama-3.3-70B-Instruct-Turbo", "object": "model", "type": "chat"}, {"id": "meta-llama/Llama-3.3-70B-Instruct-Turbo"}, {"object": "model"}]"#
        ),
        ["meta-llama/Llama-3.3-70B-Instruct-Turbo"]
    );
    assert!(names(r#"{"object": "list", "data": []}"#).is_empty());
}

#[test]
fn list_failures_are_typed() {
    assert!(matches!(
        parse(401, r#"{"error": {"message": "Incorrect API key provided: sk-x."}}"#),
        Err(ProviderError::Status { status: 401, body }) if !body.contains("sk-x")
    ));
    assert!(matches!(
        parse(200, r#"{"error": {"message": "nope"}}"#),
        Err(ProviderError::Api(m)) if m == "nope"
    ));
    assert!(matches!(
        parse(200, r#"{"object": "list"}"#),
        Err(ProviderError::Shape(_))
    ));
    assert!(matches!(
        parse(200, "<html>"),
        Err(ProviderError::NotJson { .. })
    ));
}

#[test]
fn list_requests_per_dialect() {
    let ep = |base: &str, browser| Endpoint {
        base_url: base.to_owned(),
        browser,
    };
    let o = request(
        ProviderKind::OpenAi,
        &ep("http://127.0.0.1:11434/v1/", false),
    );
    assert_eq!(
        (o.method, o.url.as_str()),
        ("GET", "http://127.0.0.1:11434/v1/models")
    );
    assert!(o.headers.is_empty() && o.body.is_empty());

    let a = request(
        ProviderKind::Anthropic,
        &ep(registry::ANTHROPIC_BASE_URL, true),
    );
    assert_eq!(a.url, "https://api.anthropic.com/v1/models");
    assert!(a
        .headers
        .contains(&("anthropic-version".to_owned(), "2023-06-01".to_owned())));
    assert!(a
        .headers
        .iter()
        .any(|(k, _)| k == "anthropic-dangerous-direct-browser-access"));
    let a1 = request(ProviderKind::Anthropic, &ep("http://proxy/v1", false));
    assert_eq!(a1.url, "http://proxy/v1/models");
    assert_eq!(a1.headers.len(), 1);

    let g = request(ProviderKind::Gemini, &ep(registry::GEMINI_BASE_URL, true));
    assert_eq!(
        g.url,
        "https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000"
    );
    assert!(!g.url.contains("key="));
}
