//! An incremental decoder of `text/event-stream` bodies (the WHATWG server-sent events
//! format): bytes go in as they arrive, cut anywhere (inside a line, a UTF-8 sequence or a
//! CRLF pair), and complete events come out in order.
//!
//! What it follows from the format:
//! - lines end with CRLF, LF or CR; a byte-order mark at the very start is dropped;
//! - a line starting with `:` is a comment (servers send them as keep-alives);
//! - `field: value` (one space after the colon dropped) or `field` alone (empty value);
//!   `data` lines are joined with `\n`, `event` names the event, `id` and `retry` are read
//!   and ignored, other fields are ignored;
//! - a blank line ends the event; an event without data is not dispatched.
//!
//! Limits: the event being read (its data and the line in progress) may not grow past
//! [`MAX_REPLY_BODY_BYTES`](crate::input::limits::MAX_REPLY_BODY_BYTES); a longer one is
//! [`StreamError::TooLarge`] and nothing more is buffered.

use crate::input::limits::{Limit, LimitError, MAX_REPLY_BODY_BYTES};

use super::error::StreamError;

/// One dispatched event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// 1-based position of the event in the stream.
    pub number: usize,
    /// The `event:` field, when there was one (`None` is the default type, `message`).
    pub kind: Option<&'a str>,
    /// The `data:` lines joined by `\n`.
    pub data: &'a str,
}

/// How a stream ended, as the decoder saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// At an event boundary.
    Clean,
    /// In the middle of event `n` (a partial line, or fields without the blank line).
    MidEvent(usize),
}

/// The decoder's state between chunks.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The line in progress (bytes since the last terminator).
    line: Vec<u8>,
    /// The previous chunk ended with CR: a leading LF in the next one belongs to it.
    pending_cr: bool,
    /// The first line has not been read yet (a byte-order mark may start it).
    started: bool,
    data: Vec<u8>,
    has_data: bool,
    kind: Option<String>,
    /// A field line of the current event has been read.
    in_event: bool,
    dispatched: usize,
    max_event: usize,
}

/// Where the next line terminator is in `bytes`.
fn find_eol(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n' || b == b'\r')
}

impl SseDecoder {
    /// A decoder with the reply-body limit on one event.
    pub fn new() -> Self {
        Self::with_limit(MAX_REPLY_BODY_BYTES)
    }

    /// A decoder that refuses events longer than `max_event` bytes (tests use small ones).
    pub fn with_limit(max_event: usize) -> Self {
        Self {
            max_event,
            ..Self::default()
        }
    }

    /// Events dispatched so far.
    pub fn events(&self) -> usize {
        self.dispatched
    }

    /// Decodes `chunk`, handing every event it completes to `sink` in order. An error from
    /// `sink` stops decoding and is returned.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        sink: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        let mut rest = chunk;
        if self.pending_cr {
            self.pending_cr = false;
            if let Some((b'\n', tail)) = rest.split_first() {
                rest = tail;
            }
        }
        while let Some(i) = find_eol(rest) {
            let terminator = rest[i];
            if self.line.is_empty() {
                self.line_done(&rest[..i], sink)?;
            } else {
                self.grow(i)?;
                self.line.extend_from_slice(&rest[..i]);
                let line = std::mem::take(&mut self.line);
                let result = self.line_done(&line, sink);
                self.line = line;
                self.line.clear();
                result?;
            }
            rest = &rest[i + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.pending_cr = true,
                }
            }
        }
        if !rest.is_empty() {
            self.grow(rest.len())?;
            self.line.extend_from_slice(rest);
        }
        Ok(())
    }

    /// The stream is over: whether it ended at an event boundary. A last line without its
    /// terminator, or fields without the blank line that ends their event, leave the
    /// stream mid-event (the format discards such an event).
    pub fn finish(&mut self) -> Tail {
        if !self.line.is_empty() || self.in_event {
            Tail::MidEvent(self.dispatched + 1)
        } else {
            Tail::Clean
        }
    }

    /// Refuses to buffer `more` bytes when the event would pass the limit.
    fn grow(&self, more: usize) -> Result<(), StreamError> {
        let size = self.data.len() + self.line.len() + more;
        if size > self.max_event {
            Err(StreamError::TooLarge {
                event: self.dispatched + 1,
                limit: LimitError {
                    limit: Limit::ReplyBody,
                    size: size as u64,
                    line: None,
                },
            })
        } else {
            Ok(())
        }
    }

    fn line_done(
        &mut self,
        raw: &[u8],
        sink: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        let mut line = raw;
        if !self.started {
            self.started = true;
            if let Some(tail) = line.strip_prefix(b"\xEF\xBB\xBF") {
                line = tail;
            }
        }
        if line.is_empty() {
            return self.dispatch(sink);
        }
        if line[0] == b':' {
            return Ok(());
        }
        self.in_event = true;
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                let extra = value.len() + usize::from(self.has_data);
                if self.data.len() + extra > self.max_event {
                    return Err(StreamError::TooLarge {
                        event: self.dispatched + 1,
                        limit: LimitError {
                            limit: Limit::ReplyBody,
                            size: (self.data.len() + extra) as u64,
                            line: None,
                        },
                    });
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => self.kind = Some(String::from_utf8_lossy(value).into_owned()),
            _ => {}
        }
        Ok(())
    }

    fn dispatch(
        &mut self,
        sink: &mut dyn FnMut(SseEvent<'_>) -> Result<(), StreamError>,
    ) -> Result<(), StreamError> {
        self.in_event = false;
        let kind = self.kind.take();
        if !self.has_data || self.data.is_empty() {
            self.has_data = false;
            self.data.clear();
            return Ok(());
        }
        self.has_data = false;
        self.dispatched += 1;
        let data = std::mem::take(&mut self.data);
        let text = String::from_utf8_lossy(&data);
        let result = sink(SseEvent {
            number: self.dispatched,
            kind: kind.as_deref(),
            data: &text,
        });
        drop(text);
        // Keep the buffer's capacity for the next event.
        self.data = data;
        self.data.clear();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in(chunks: &[&[u8]]) -> (Vec<(Option<String>, String)>, Tail) {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for c in chunks {
            d.feed(c, &mut |e| {
                out.push((e.kind.map(str::to_owned), e.data.to_owned()));
                Ok(())
            })
            .expect("decodes");
        }
        let tail = d.finish();
        (out, tail)
    }

    #[test]
    fn the_format_rules_hold_at_every_cut() {
        let text = "\u{feff}: keep-alive\r\nevent: a\r\ndata: one\r\ndata:two\r\n\r\nid: 7\nretry: 10\ndata\n\ndata: é€😀\r\rdata: [DONE]\n\n";
        let bytes = text.as_bytes();
        let whole = decode_in(&[bytes]);
        assert_eq!(
            whole.0,
            vec![
                (Some("a".to_owned()), "one\ntwo".to_owned()),
                (None, "é€😀".to_owned()),
                (None, "[DONE]".to_owned()),
            ]
        );
        assert_eq!(whole.1, Tail::Clean);
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(decode_in(&[a, b]), whole, "cut at {cut}");
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_in(&singles), whole);
    }

    #[test]
    fn a_stream_cut_inside_an_event_says_so() {
        assert_eq!(
            decode_in(&[b"data: {\"a\": 1}\n\ndata: {\"b\""]).1,
            Tail::MidEvent(2)
        );
        assert_eq!(decode_in(&[b"data: x\n"]).1, Tail::MidEvent(1));
        assert_eq!(decode_in(&[b": ping\n\n"]).1, Tail::Clean);
    }

    #[test]
    fn an_event_over_the_limit_is_refused_without_buffering_it() {
        let mut d = SseDecoder::with_limit(16);
        let e = d
            .feed(b"data: 0123456789abcdef", &mut |_| Ok(()))
            .expect_err("over the limit");
        assert!(matches!(e, StreamError::TooLarge { event: 1, .. }), "{e:?}");
        let mut d = SseDecoder::with_limit(16);
        d.feed(b"data: 0123456789\n", &mut |_| Ok(()))
            .expect("fits");
        let e = d.feed(b"data: 0123456789\n", &mut |_| Ok(()));
        assert!(matches!(e, Err(StreamError::TooLarge { event: 1, .. })));
    }
}
