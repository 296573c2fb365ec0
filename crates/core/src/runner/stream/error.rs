//! Why an event stream could not be read into a reply. Every variant is a transport
//! failure (the server's stream, not the model's answer): the engine retries it like a
//! network failure and never scores it as a model error.

use crate::input::limits::LimitError;

/// An unusable event stream, with the event it happened at (1-based) where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The body ended inside an event (a partial line, or fields without the blank line).
    #[error("the event stream was cut in the middle of event {event}: the connection closed before the event was complete")]
    ClosedMidEvent {
        /// The event that was being read.
        event: usize,
    },
    /// The body ended at an event boundary, but before the dialect's last event.
    #[error("the event stream ended after {events} event(s) without {missing}: the connection closed before the reply was complete")]
    EndedEarly {
        /// Events read.
        events: usize,
        /// What a complete stream ends with (`data: [DONE]` or a finish reason, …).
        missing: &'static str,
    },
    /// One event is longer than the reply-body limit.
    #[error("event {event} of the stream is too long: {limit}")]
    TooLarge {
        /// The event being read.
        event: usize,
        /// The limit and the size reached.
        limit: LimitError,
    },
    /// The reply the events add up to is longer than the reply-body limit.
    #[error("the streamed reply is too long once reassembled: {0}")]
    ReplyTooLarge(LimitError),
    /// An event type the dialect does not define (and whose meaning cannot be guessed).
    #[error("event {event} of the stream has an unknown type {kind:?}")]
    UnknownEvent {
        /// The event.
        event: usize,
        /// Its type.
        kind: String,
    },
    /// An event that breaks the dialect's rules (not JSON, a delta for a block that is not
    /// open, tool input that is not JSON …).
    #[error("malformed event stream at event {event}{}: {detail}", .name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default())]
    Malformed {
        /// The event.
        event: usize,
        /// Its type, when the dialect names events.
        name: Option<String>,
        /// What is wrong with it.
        detail: String,
    },
    /// The server reported an error inside the stream.
    #[error("the server reported an error in event {event} of the stream: {message}")]
    Api {
        /// The event.
        event: usize,
        /// The server's message (an echoed key masked).
        message: String,
    },
    /// A 2xx answer that is a whole JSON reply instead of an event stream.
    #[error("not an event stream: the server answered with a whole JSON reply (it ignored \"stream\": true)")]
    NotAStream,
}

impl StreamError {
    /// A [`StreamError::Malformed`] at `event`.
    pub(crate) fn malformed(event: usize, name: Option<&str>, detail: impl Into<String>) -> Self {
        StreamError::Malformed {
            event,
            name: name.map(str::to_owned),
            detail: detail.into(),
        }
    }
}
