//! Streaming: requests sent with the dialect's stream switch, and their event streams read
//! back into the same reply a non-streaming request gives. Pure and incremental: the
//! transports hand over the bytes as they arrive, cut anywhere.
//!
//! - [`request`]: the streamed form of a request (the only difference from the official
//!   request is the stream switch; see the table there).
//! - [`sse`]: the `text/event-stream` decoder.
//! - [`openai`], [`anthropic`], [`gemini`]: each dialect's events reassembled into the
//!   body its non-streaming API returns, so the provider mapping reads a streamed reply
//!   exactly as it reads a whole one.
//! - [`reader`]: one response, status and chunks in, that body (or a [`StreamError`]) out,
//!   with the reply-body limit on every event and on the reassembled reply.
//! - [`readers`]: the engine's readers of streamed responses ([`StreamReaders`]; the
//!   core's own, [`CoreReaders`]).
//! - [`latency`]: first-token latency over a run.
//! - [`replay`]: the stream a correct server sends for a whole reply (for mock servers,
//!   benchmarks and tests).
//!
//! Every [`StreamError`] is a transport failure, never a model error.

pub mod anthropic;
pub mod error;
pub mod gemini;
pub mod latency;
pub mod openai;
pub mod reader;
pub mod readers;
pub mod replay;
pub mod request;
pub mod sse;

pub use error::StreamError;
pub use latency::{Latencies, LatencySummary};
pub use reader::{Progress, StreamReader};
pub use readers::{CoreReaders, StreamReaders};
pub use request::streamed_request;

use crate::input::limits::{Limit, LimitError, MAX_REPLY_BODY_BYTES};

/// What one event contributed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effect {
    /// It carried model output (text, reasoning or a tool call).
    pub output: bool,
}

/// The size of the reply being reassembled, held to the reply-body limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    used: u64,
}

impl Budget {
    /// Counts `n` more bytes of text; past the limit the reply is refused.
    pub fn add(&mut self, n: usize) -> Result<(), StreamError> {
        self.used = self.used.saturating_add(n as u64);
        if self.used > MAX_REPLY_BODY_BYTES as u64 {
            Err(StreamError::ReplyTooLarge(LimitError {
                limit: Limit::ReplyBody,
                size: self.used,
                line: None,
            }))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;
