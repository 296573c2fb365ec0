//! Cassettes: a run's request/reply pairs, recorded so the run can be answered again
//! without the network.
//!
//! A cassette is JSON Lines. The first line is the header `{"wildtool_cassette": 1}`;
//! every other line is one exchange ([`Entry`]): the key of the request, the request body
//! as sent, the reply's status, body and latency, and the SHA-256 of both bodies (the
//! hashes the run manifest lists). No URL origin, header or key is recorded.
//!
//! The key ([`request_key`]) is the SHA-256 of the request's method and URL path (no
//! origin, no query) and its canonical body: the body parsed with Python's `json.loads`
//! semantics and written back with `json.dumps(ensure_ascii=False)`, the form the
//! request-parity tests compare. History ids are kept in the key (they are seeded per run
//! and trial, so a replay of the same run sends the same ids; masking them would make
//! the requests of different trials of one task share a key).
//!
//! Replaying ([`Cassette::answer`]): a request is answered with the recorded reply of its
//! key (several recordings of one key are answered in recorded order, the last one
//! again once they are used up); a request whose key is not recorded is refused, never
//! sent.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::sha256_hex;
use crate::input::lines;
use crate::input::FormatError;
use crate::json::{dumps, loads, Escape};

/// The header line of a cassette.
pub const HEADER: &str = r#"{"wildtool_cassette": 1}"#;

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// [`request_key`] of the request.
    pub key: String,
    /// `POST` or `GET`.
    pub method: String,
    /// The request body as sent.
    pub request: String,
    /// SHA-256 of the request body as sent.
    pub request_sha256: String,
    /// The reply's HTTP status.
    pub status: u16,
    /// The reply body as received.
    pub reply: String,
    /// SHA-256 of the reply body.
    pub reply_sha256: String,
    /// Seconds from sending the request to its reply, as the recording measured it (a
    /// replay reports this latency, so it writes the same result file).
    pub latency: f64,
}

impl Entry {
    /// The entry for a request and its reply.
    pub fn new(
        method: &str,
        url: &str,
        request: &str,
        status: u16,
        reply: &str,
        latency: f64,
    ) -> Self {
        Self {
            key: request_key(method, url, request),
            method: method.to_owned(),
            request: request.to_owned(),
            request_sha256: sha256_hex(request.as_bytes()),
            status,
            reply: reply.to_owned(),
            reply_sha256: sha256_hex(reply.as_bytes()),
            latency,
        }
    }

    /// The entry as one cassette line (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The canonical form of a request body: parsed and written back with
/// `json.dumps(ensure_ascii=False)` semantics; a body that is not JSON stays as it is.
pub fn canonical_body(body: &str) -> String {
    match loads(body) {
        Ok(v) => dumps(&v, Escape::Utf8),
        Err(_) => body.to_owned(),
    }
}

/// The path of a URL without its origin, query or fragment (`/v1/chat/completions`).
pub fn url_path(url: &str) -> &str {
    let rest = match url.find("://") {
        Some(i) => &url[i + 3..],
        None => url,
    };
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => "/",
    };
    let end = path.find(['?', '#']).unwrap_or(path.len());
    &path[..end]
}

/// The key a request is recorded and looked up under: SHA-256 of
/// `METHOD path\ncanonical body`.
pub fn request_key(method: &str, url: &str, body: &str) -> String {
    let text = format!("{method} {}\n{}", url_path(url), canonical_body(body));
    sha256_hex(text.as_bytes())
}

/// A cassette read for replaying.
#[derive(Debug, Clone, Default)]
pub struct Cassette {
    entries: Vec<Entry>,
    by_key: HashMap<String, Vec<usize>>,
    used: HashMap<String, usize>,
}

/// What a cassette answers to a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<'a> {
    /// The recorded reply.
    Recorded(&'a Entry),
    /// Nothing recorded for this request: it must not be sent.
    Missing {
        /// The request's key.
        key: String,
    },
}

impl Cassette {
    /// Reads a cassette: the header, then one entry per line. A line that is not an entry
    /// is an error naming the line and the field.
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        let mut cassette = Cassette::default();
        let mut header = false;
        for (span, line) in lines::split(bytes) {
            let text = match line {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(e) => return Err(FormatError::Line(e)),
            };
            let at = |m: String| FormatError::Kind(format!("cassette line {}: {m}", span.number));
            if !header {
                let v: serde_json::Value =
                    serde_json::from_str(text).map_err(|e| at(format!("not JSON: {e}")))?;
                if v.get("wildtool_cassette")
                    .and_then(serde_json::Value::as_u64)
                    != Some(1)
                {
                    return Err(at(
                        "not a cassette (the first line must be {\"wildtool_cassette\": 1})"
                            .to_owned(),
                    ));
                }
                header = true;
                continue;
            }
            let entry: Entry = serde_json::from_str(text).map_err(|e| at(e.to_string()))?;
            cassette.push(entry);
        }
        if !header {
            return Err(FormatError::Kind(
                "an empty file is not a cassette".to_owned(),
            ));
        }
        Ok(cassette)
    }

    /// Adds an entry.
    pub fn push(&mut self, entry: Entry) {
        self.by_key
            .entry(entry.key.clone())
            .or_default()
            .push(self.entries.len());
        self.entries.push(entry);
    }

    /// The entries in recorded order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The answer to a request (see the module docs for the order of several recordings).
    pub fn answer(&mut self, method: &str, url: &str, body: &str) -> Answer<'_> {
        let key = request_key(method, url, body);
        let Some(list) = self.by_key.get(&key) else {
            return Answer::Missing { key };
        };
        let n = self.used.entry(key.clone()).or_insert(0);
        let i = list[(*n).min(list.len() - 1)];
        *n += 1;
        Answer::Recorded(&self.entries[i])
    }
}

/// The reason a refused request's task gives.
pub fn missing_reason(key: &str) -> String {
    format!(
        "offline: this request is not in the cassette (key {}…); nothing was sent",
        &key[..key.len().min(12)]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_origin_query_and_json_spacing() {
        let a = request_key(
            "POST",
            "http://127.0.0.1:1/v1/chat?x=1",
            r#"{"a":1, "b": "é"}"#,
        );
        let b = request_key(
            "POST",
            "https://example.org/v1/chat",
            r#"{"a": 1, "b": "\u00e9"}"#,
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            request_key("POST", "http://h/v2/chat", r#"{"a": 1, "b": "é"}"#)
        );
        assert_ne!(
            a,
            request_key("POST", "http://h/v1/chat", r#"{"b": "é", "a": 1}"#)
        );
        assert_eq!(url_path("http://h"), "/");
    }

    #[test]
    fn round_trip_and_replay_order() {
        let e1 = Entry::new("POST", "http://h/p", "{}", 200, "one", 0.5);
        let e2 = Entry::new("POST", "http://h/p", "{}", 200, "two", 0.25);
        let text = format!("{HEADER}\n{}\n{}\n", e1.to_line(), e2.to_line());
        let mut c = Cassette::parse(text.as_bytes()).unwrap_or_default();
        assert_eq!(c.entries().len(), 2);
        let got: Vec<String> = (0..3)
            .map(|_| match c.answer("POST", "http://other/p", "{}") {
                Answer::Recorded(e) => e.reply.clone(),
                Answer::Missing { .. } => String::new(),
            })
            .collect();
        assert_eq!(got, ["one", "two", "two"]);
        assert!(matches!(
            c.answer("POST", "http://h/p", "[]"),
            Answer::Missing { .. }
        ));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = Cassette::parse(b"{\"x\": 1}\n")
            .err()
            .map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("line 1"));
        let e = Cassette::parse(format!("{HEADER}\n{{\"key\": 1}}\n").as_bytes())
            .err()
            .map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("line 2"));
        assert!(Cassette::parse(b"").is_err());
    }
}
