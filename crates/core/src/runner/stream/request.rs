//! The streamed form of a request: the official request with the dialect's stream switch
//! and nothing else changed.
//!
//! | dialect | what changes |
//! |---|---|
//! | OpenAI-compatible | `"stream": true, "stream_options": {"include_usage": true}` appended to the body (the second asks for the token counts, which a stream otherwise leaves out) |
//! | Anthropic | `"stream": true` appended to the body |
//! | Gemini | `:generateContent` becomes `:streamGenerateContent?alt=sse` (the body is unchanged) |
//!
//! The members are appended as the body's last members, so the official body's bytes are
//! a prefix of the streamed body's (up to its closing brace).

use super::super::provider::{HttpRequest, ProviderKind};

/// What is appended to the body of an OpenAI-compatible request.
pub const OPENAI_STREAM_MEMBERS: &str =
    r#""stream": true, "stream_options": {"include_usage": true}"#;
/// What is appended to the body of an Anthropic request.
pub const ANTHROPIC_STREAM_MEMBERS: &str = r#""stream": true"#;

/// Appends `members` to a JSON object's text (written by `dumps`, so it ends with `}`).
fn append_members(body: &str, members: &str) -> String {
    let trimmed = body.trim_end();
    match trimmed.strip_suffix('}') {
        Some(head) if head.trim_end().ends_with('{') => format!("{head}{members}}}"),
        Some(head) => format!("{head}, {members}}}"),
        None => body.to_owned(),
    }
}

/// The request `request` (built by [`ProviderKind::build`]) as a streamed request.
pub fn streamed_request(provider: ProviderKind, mut request: HttpRequest) -> HttpRequest {
    match provider {
        ProviderKind::OpenAi => request.body = append_members(&request.body, OPENAI_STREAM_MEMBERS),
        ProviderKind::Anthropic => {
            request.body = append_members(&request.body, ANTHROPIC_STREAM_MEMBERS)
        }
        ProviderKind::Gemini => {
            let (path, query) = match request.url.split_once('?') {
                Some((p, q)) => (p.to_owned(), Some(q.to_owned())),
                None => (request.url.clone(), None),
            };
            let path = match path.strip_suffix(":generateContent") {
                Some(head) => format!("{head}:streamGenerateContent"),
                None => path,
            };
            request.url = match query {
                Some(q) => format!("{path}?{q}&alt=sse"),
                None => format!("{path}?alt=sse"),
            };
        }
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{loads, Value};

    fn req(url: &str, body: &str) -> HttpRequest {
        HttpRequest {
            method: "POST",
            url: url.to_owned(),
            headers: Vec::new(),
            body: body.to_owned(),
        }
    }

    #[test]
    fn only_the_stream_switch_changes() {
        let official = r#"{"messages": [], "model": "m", "temperature": 0.0, "tools": []}"#;
        let s = streamed_request(
            ProviderKind::OpenAi,
            req("http://h/v1/chat/completions", official),
        );
        assert_eq!(s.url, "http://h/v1/chat/completions");
        assert!(s.body.starts_with(&official[..official.len() - 1]));
        let v = loads(&s.body).expect("json");
        assert_eq!(v.get("stream"), Some(&Value::Bool(true)));
        assert_eq!(
            v.get("stream_options").and_then(|o| o.get("include_usage")),
            Some(&Value::Bool(true))
        );
        assert_eq!(
            streamed_request(ProviderKind::Anthropic, req("u", "{}")).body,
            r#"{"stream": true}"#
        );
        let g = streamed_request(
            ProviderKind::Gemini,
            req("https://g/v1beta/models/x:generateContent", official),
        );
        assert_eq!(
            g.url,
            "https://g/v1beta/models/x:streamGenerateContent?alt=sse"
        );
        assert_eq!(g.body, official);
    }
}
