//! One streamed response, read as its bytes arrive: [`StreamReader`] takes the status, then
//! the body in chunks cut anywhere, and gives the body a non-streaming request would have
//! returned (the same text the provider mapping reads), or the [`StreamError`] that makes
//! it unusable.

use crate::input::limits::{Limit, LimitError, MAX_REPLY_BODY_BYTES};
use crate::json::{dumps, loads, Escape};

use super::super::provider::ProviderKind;
use super::anthropic::MessageStream;
use super::error::StreamError;
use super::gemini::ContentStream;
use super::openai::ChatStream;
use super::sse::{SseDecoder, SseEvent, Tail};
use super::{Budget, Effect};

/// The dialect's reassembler.
#[derive(Debug)]
enum Dialect {
    OpenAi(ChatStream),
    Anthropic(MessageStream),
    Gemini(ContentStream),
}

impl Dialect {
    fn event(&mut self, ev: &SseEvent<'_>, budget: &mut Budget) -> Result<Effect, StreamError> {
        match self {
            Dialect::OpenAi(s) => s.event(ev, budget),
            Dialect::Anthropic(s) => s.event(ev, budget),
            Dialect::Gemini(s) => s.event(ev, budget),
        }
    }

    fn finished(&self) -> bool {
        match self {
            Dialect::OpenAi(s) => s.finished(),
            Dialect::Anthropic(s) => s.finished(),
            Dialect::Gemini(s) => s.finished(),
        }
    }

    fn complete(&self) -> bool {
        match self {
            Dialect::OpenAi(s) => s.complete(),
            Dialect::Anthropic(s) => s.complete(),
            Dialect::Gemini(s) => s.complete(),
        }
    }

    fn missing(&self) -> &'static str {
        match self {
            Dialect::OpenAi(s) => s.missing(),
            Dialect::Anthropic(s) => s.missing(),
            Dialect::Gemini(s) => s.missing(),
        }
    }

    fn notes(&self) -> &[String] {
        match self {
            Dialect::OpenAi(s) => s.notes(),
            Dialect::Anthropic(s) => s.notes(),
            Dialect::Gemini(_) => &[],
        }
    }
}

/// What the body turned out to be.
#[derive(Debug)]
enum Mode {
    /// Nothing but whitespace yet (a 2xx body).
    Undecided,
    /// An event stream.
    Events,
    /// A whole JSON document (a 2xx answer that is not a stream), or any non-2xx body:
    /// collected as text for the usual error handling.
    Whole(Vec<u8>),
}

/// What one chunk did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// This chunk carried the reply's first model output (text, reasoning or a tool
    /// call): the first-token time.
    pub first_output: bool,
    /// The stream said it is over (`[DONE]`, `message_stop`): nothing after it is needed,
    /// and the transport may stop reading.
    pub finished: bool,
}

/// One streamed response being read.
#[derive(Debug)]
pub struct StreamReader {
    status: u16,
    dialect: Dialect,
    decoder: SseDecoder,
    budget: Budget,
    mode: Mode,
    output_seen: bool,
}

impl StreamReader {
    /// A reader for a response of `provider` with HTTP `status`. A non-2xx body is not a
    /// stream: it is collected (up to the reply limit) and handed back whole.
    pub fn new(provider: ProviderKind, status: u16) -> Self {
        let dialect = match provider {
            ProviderKind::OpenAi => Dialect::OpenAi(ChatStream::new()),
            ProviderKind::Anthropic => Dialect::Anthropic(MessageStream::new()),
            ProviderKind::Gemini => Dialect::Gemini(ContentStream::new()),
        };
        let mode = if (200..300).contains(&status) {
            Mode::Undecided
        } else {
            Mode::Whole(Vec::new())
        };
        Self {
            status,
            dialect,
            decoder: SseDecoder::new(),
            budget: Budget::default(),
            mode,
            output_seen: false,
        }
    }

    /// The response's status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Events read so far.
    pub fn events(&self) -> usize {
        self.decoder.events()
    }

    /// Irregularities the reassembly recovered from (index reuse, ignored unknown events).
    pub fn notes(&self) -> &[String] {
        self.dialect.notes()
    }

    /// Reads the next chunk of the body.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Progress, StreamError> {
        let mut rest = chunk;
        if let Mode::Undecided = self.mode {
            let start = rest.iter().position(|b| !b.is_ascii_whitespace());
            match start.map(|i| rest[i]) {
                None => return Ok(Progress::default()),
                Some(b'{') | Some(b'[') => self.mode = Mode::Whole(Vec::new()),
                Some(_) => self.mode = Mode::Events,
            }
            if let (Mode::Events, Some(i)) = (&self.mode, start) {
                rest = &rest[i..];
            }
        }
        if let Mode::Whole(buf) = &mut self.mode {
            let size = buf.len() + rest.len();
            if size > MAX_REPLY_BODY_BYTES {
                return Err(StreamError::ReplyTooLarge(LimitError {
                    limit: Limit::ReplyBody,
                    size: size as u64,
                    line: None,
                }));
            }
            buf.extend_from_slice(rest);
            return Ok(Progress::default());
        }
        let dialect = &mut self.dialect;
        let budget = &mut self.budget;
        let mut output = false;
        self.decoder.feed(rest, &mut |ev| {
            output |= dialect.event(&ev, budget)?.output;
            Ok(())
        })?;
        let first_output = output && !self.output_seen;
        self.output_seen |= output;
        Ok(Progress {
            first_output,
            finished: self.dialect.finished(),
        })
    }

    /// The body has ended (or the stream said it is over): the text of the equivalent
    /// non-streaming body. For a non-2xx status, or a 2xx JSON error, the body as sent.
    pub fn finish(mut self) -> Result<String, StreamError> {
        match self.mode {
            Mode::Whole(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
                let is_error = loads(&text).is_ok_and(|v| {
                    v.get("error").is_some_and(|e| !e.is_null())
                        || v.get("type").and_then(|t| t.as_str()) == Some("error")
                        || v.get("object").and_then(|t| t.as_str()) == Some("error")
                });
                if (200..300).contains(&self.status) && !is_error {
                    return Err(StreamError::NotAStream);
                }
                Ok(text)
            }
            Mode::Undecided => Err(StreamError::EndedEarly {
                events: 0,
                missing: self.dialect.missing(),
            }),
            Mode::Events => {
                let events = self.decoder.events();
                let complete = self.dialect.complete();
                match self.decoder.finish() {
                    Tail::MidEvent(event) if !complete => {
                        return Err(StreamError::ClosedMidEvent { event })
                    }
                    _ if !complete => {
                        return Err(StreamError::EndedEarly {
                            events,
                            missing: self.dialect.missing(),
                        })
                    }
                    _ => {}
                }
                let body = match self.dialect {
                    Dialect::OpenAi(s) => s.body(),
                    Dialect::Anthropic(s) => s.body(events)?,
                    Dialect::Gemini(s) => s.body(),
                };
                let text = dumps(&body, Escape::Utf8);
                if text.len() > MAX_REPLY_BODY_BYTES {
                    return Err(StreamError::ReplyTooLarge(LimitError {
                        limit: Limit::ReplyBody,
                        size: text.len() as u64,
                        line: None,
                    }));
                }
                Ok(text)
            }
        }
    }

    /// Reads a whole body at once (a transport that could not stream, tests, fixtures).
    pub fn read_all(
        provider: ProviderKind,
        status: u16,
        body: &[u8],
    ) -> Result<String, StreamError> {
        let mut r = StreamReader::new(provider, status);
        r.feed(body)?;
        r.finish()
    }
}
