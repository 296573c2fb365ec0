//! The HTTP vocabulary shared by the run engine and its drivers: the key-free request the
//! engine asks a driver to send ([`HttpRequest`], built by the provider mapping) and what
//! the driver reports back ([`HttpReply`]). Drivers translate their transport's results
//! into these types and nothing else; every decision about a reply is the engine's.

pub use super::provider::HttpRequest;

/// Why a request got no HTTP response at all, as the driver can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkKind {
    /// Connection refused, DNS failure, no route: nothing answered.
    Unreachable,
    /// The browser refused to hand over the response (missing CORS headers). Browsers do
    /// not say why a `fetch` failed, so the page reports this for failures it attributes
    /// to CORS.
    Cors,
    /// The browser refused to connect at all (a port it blocks as unsafe): nothing was
    /// sent, and sending again cannot help.
    Blocked,
    /// No answer within the transport's own timeout.
    Timeout,
    /// Anything else (TLS errors, resets, malformed HTTP, an unreadable body).
    Other,
}

/// A failure below HTTP, as the driver saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkFailure {
    /// What kind of failure.
    pub kind: NetworkKind,
    /// The transport's message (shown to the user; never holds the key).
    pub message: String,
}

/// An HTTP response, as the engine needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    /// Status code. A browser's opaque redirect (fetch with `redirect: "manual"`) is
    /// reported as status 0.
    pub status: u16,
    /// The body as text.
    pub body: String,
    /// The `Retry-After` header, if any (seconds or an HTTP date).
    pub retry_after: Option<String>,
    /// The `Location` header of a redirect, if any (only shown in messages).
    pub location: Option<String>,
    /// Wall-clock time (Unix seconds) when the response arrived; a `Retry-After` given as
    /// an HTTP date is read relative to it.
    pub now_unix: f64,
    /// The request's latency in seconds when the driver knows it better than the engine's
    /// clock: a recorded reply replayed from a cassette carries the latency measured when it
    /// was recorded, so a replay writes the same result file. `None`: the engine measures.
    pub latency: Option<f64>,
}

impl HttpResponse {
    /// A response with `status` and `body` and no headers of interest.
    pub fn new(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            body: body.into(),
            retry_after: None,
            location: None,
            now_unix: 0.0,
            latency: None,
        }
    }
}

/// The start of a streamed response, as the driver reports it before the body's chunks
/// ([`Engine::handle_head`](super::engine::Engine::handle_head)).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpHead {
    /// Status code (0 for a browser's opaque redirect).
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The `Location` header of a redirect, if any.
    pub location: Option<String>,
    /// Wall-clock time (Unix seconds) when the head arrived.
    pub now_unix: f64,
}

impl HttpHead {
    /// A head with `status` and no headers of interest.
    pub fn new(status: u16) -> Self {
        Self {
            status,
            retry_after: None,
            location: None,
            now_unix: 0.0,
        }
    }
}

/// What became of a request the engine asked a driver to send.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpReply {
    /// The server answered (any status).
    Response(HttpResponse),
    /// No response.
    Network(NetworkFailure),
    /// The driver aborted the request without being asked to (the engine treats it like a
    /// network failure; replies to requests the engine aborted itself are ignored).
    Aborted,
    /// The response body is larger than
    /// [`MAX_REPLY_BODY_BYTES`](crate::input::limits::MAX_REPLY_BODY_BYTES): the driver
    /// stopped reading it (or did not start, when `Content-Length` said so). The engine
    /// fails the request without retry and names the limit.
    TooLarge {
        /// The status of the response.
        status: u16,
        /// Bytes announced or read before the driver stopped (at least this many).
        size: u64,
    },
    /// The driver would not send the request (an offline replay has no recorded reply for
    /// it; nothing reached the network). The engine fails the request without retry with
    /// this reason: its task ends incomplete.
    Refused(String),
}
