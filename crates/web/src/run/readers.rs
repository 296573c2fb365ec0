//! The page's readers of streamed responses: the core's readers, run in the lazily loaded
//! lab module (its `stream_read` call), so that the reassembly of event streams is loaded
//! only when a run streams. The lab module is reached through a synchronous call the glue
//! installs once the module is loaded ([`StreamCall`]); the page's tests install the lab
//! crate's function itself.

use wildtool_core::json::{dumps, Escape, Map, Value as CoreValue};
use wildtool_core::runner::provider::ProviderKind;
use wildtool_core::runner::stream::{Progress, StreamReaders};

/// Calls the lab module's `stream_read` with its input; the output or the call's failure.
pub type StreamCall = std::rc::Rc<dyn Fn(&str) -> Result<String, String>>;

/// Stream readers backed by the lab module.
pub struct LabReaders {
    call: StreamCall,
}

impl std::fmt::Debug for LabReaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LabReaders")
    }
}

impl LabReaders {
    /// Readers that call `call`.
    pub fn new(call: StreamCall) -> Self {
        Self { call }
    }

    /// Runs operation `op` on reader `id` with `extra` fields; the answer's text after
    /// its first word (`error <message>` is the failure).
    fn op(&self, op: &str, id: u64, extra: Vec<(&str, CoreValue)>) -> Result<String, String> {
        let mut m = Map::new();
        m.insert("op", CoreValue::str(op));
        m.insert("id", CoreValue::int(id as i64));
        for (k, v) in extra {
            m.insert(k, v);
        }
        let out = (self.call)(&dumps(&CoreValue::Object(m), Escape::Utf8))?;
        let (word, rest) = out.split_once(' ').unwrap_or((out.as_str(), ""));
        match word {
            "error" => Err(rest.to_owned()),
            _ => Ok(rest.to_owned()),
        }
    }
}

impl StreamReaders for LabReaders {
    fn open(&mut self, id: u64, provider: ProviderKind, status: u16) {
        let _ = self.op(
            "open",
            id,
            vec![
                ("provider", CoreValue::str(provider.name())),
                ("status", CoreValue::int(i64::from(status))),
            ],
        );
    }

    fn feed(&mut self, id: u64, chunk: &[u8]) -> Result<Progress, String> {
        let chunk = CoreValue::Str(base64_url(chunk));
        let v = self.op("feed", id, vec![("chunk", chunk)])?;
        let mut flags = v.split(' ').map(|f| f == "1");
        Ok(Progress {
            first_output: flags.next().unwrap_or(false),
            finished: flags.next().unwrap_or(false),
        })
    }

    fn finish(&mut self, id: u64) -> Result<String, String> {
        self.op("finish", id, Vec::new())
    }

    fn events(&self, id: u64) -> usize {
        self.op("events", id, Vec::new())
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    fn close(&mut self, id: u64) {
        let _ = self.op("close", id, Vec::new());
    }
}

/// `bytes` as URL-safe base64 without padding (RFC 4648 §5), as the lab module's readers
/// decode it (the `base64` crate's engine is not linked into the app shell for this).
pub(crate) fn base64_url(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=group.len() {
            out.push(char::from(ABC[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_url_is_the_url_safe_alphabet_without_padding() {
        use base64::Engine as _;
        for len in 0..40usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 250) as u8).collect();
            assert_eq!(
                super::base64_url(&bytes),
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes)
            );
        }
    }
}
