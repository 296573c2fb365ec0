//! Transport-level vocabulary shared by the run engine and its adapters.

/// Why a request got no HTTP response at all, as the adapter can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkKind {
    /// Connection refused, DNS failure, no route: nothing answered.
    Unreachable,
    /// The browser refused to hand over the response (missing CORS headers). Browsers do
    /// not say why a `fetch` failed, so the page reports this for failures it attributes
    /// to CORS.
    Cors,
    /// No answer within the request's deadline.
    Timeout,
    /// Anything else (TLS errors, resets, malformed HTTP).
    Other,
}
