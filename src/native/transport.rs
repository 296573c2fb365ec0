//! The blocking HTTP transport. The API key lives only in the transport (memory) and is
//! attached to each request as it is sent.

use std::time::Duration;

use wildtool_core::runner::provider::{AuthStyle, HttpRequest};

/// A response as the runner needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The body as text.
    pub body: String,
}

/// A failure below HTTP (connect, reset, timeout, unreadable body). Always transient.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TransportError(pub String);

/// Sends one request and waits for the whole response.
pub trait Transport: Send + Sync {
    /// Sends `req` with the given timeout.
    fn send(&self, req: &HttpRequest, timeout: Duration) -> Result<HttpResponse, TransportError>;
}

/// `ureq` 3 with a connection pool shared by all worker threads.
pub struct UreqTransport {
    agent: ureq::Agent,
    auth: Option<(AuthStyle, String)>,
}

impl std::fmt::Debug for UreqTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("UreqTransport")
            .field("auth", &self.auth.as_ref().map(|(s, _)| s))
            .finish()
    }
}

impl UreqTransport {
    /// A transport; `auth` is the key and how to send it (`None` for keyless endpoints).
    pub fn new(auth: Option<(AuthStyle, String)>, max_connections: usize) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_idle_connections(max_connections.max(1) * 2)
            .max_idle_connections_per_host(max_connections.max(1))
            .build();
        Self {
            agent: config.into(),
            auth,
        }
    }
}

impl Transport for UreqTransport {
    fn send(&self, req: &HttpRequest, timeout: Duration) -> Result<HttpResponse, TransportError> {
        let mut builder = self
            .agent
            .post(&req.url)
            .config()
            .timeout_global(Some(timeout))
            .build();
        for (k, v) in &req.headers {
            builder = builder.header(k.as_str(), v.as_str());
        }
        if let Some((style, key)) = &self.auth {
            let (name, value) = style.header(key);
            builder = builder.header(name, value);
        }
        let mut resp = builder
            .send(req.body.as_str())
            .map_err(|e| TransportError(e.to_string()))?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = resp
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| TransportError(format!("reading the body: {e}")))?;
        Ok(HttpResponse {
            status,
            retry_after,
            body,
        })
    }
}
