//! Where a run's streamed responses are read: the engine hands every chunk to a
//! [`StreamReaders`] (one reader per request) and takes back what the chunk did and, at the
//! end, the reassembled body. [`CoreReaders`] reads them here with [`StreamReader`]; the
//! page reads them with the same reader in its lazily loaded lab module, so that the
//! reassembly is loaded only when a run streams.

use super::super::provider::ProviderKind;
use super::reader::{Progress, StreamReader};

/// Readers of streamed responses, by request id.
pub trait StreamReaders: std::fmt::Debug {
    /// Starts reading response `id` of `provider` with HTTP `status` (a reader with the
    /// same id is replaced).
    fn open(&mut self, id: u64, provider: ProviderKind, status: u16);
    /// The next chunk of response `id`; an error is the stream failure's message.
    fn feed(&mut self, id: u64, chunk: &[u8]) -> Result<Progress, String>;
    /// Response `id` ended: the body a non-streaming request would have returned (or the
    /// failure's message); the reader is dropped.
    fn finish(&mut self, id: u64) -> Result<String, String>;
    /// Events read so far of response `id`.
    fn events(&self, id: u64) -> usize;
    /// Drops the reader of response `id` (an aborted request).
    fn close(&mut self, id: u64);
}

/// The core's readers: a [`StreamReader`] per response.
#[derive(Debug, Default)]
pub struct CoreReaders(Vec<(u64, StreamReader)>);

impl CoreReaders {
    fn get(&mut self, id: u64) -> Option<&mut StreamReader> {
        self.0.iter_mut().find(|(k, _)| *k == id).map(|(_, r)| r)
    }
}

impl StreamReaders for CoreReaders {
    fn open(&mut self, id: u64, provider: ProviderKind, status: u16) {
        self.close(id);
        self.0.push((id, StreamReader::new(provider, status)));
    }

    fn feed(&mut self, id: u64, chunk: &[u8]) -> Result<Progress, String> {
        match self.get(id) {
            Some(r) => r.feed(chunk).map_err(|e| e.to_string()),
            None => Err(format!("no stream reader for request {id}")),
        }
    }

    fn finish(&mut self, id: u64) -> Result<String, String> {
        let i = self
            .0
            .iter()
            .position(|(k, _)| *k == id)
            .ok_or_else(|| format!("no stream reader for request {id}"))?;
        self.0.swap_remove(i).1.finish().map_err(|e| e.to_string())
    }

    fn events(&self, id: u64) -> usize {
        self.0
            .iter()
            .find(|(k, _)| *k == id)
            .map_or(0, |(_, r)| r.events())
    }

    fn close(&mut self, id: u64) {
        self.0.retain(|(k, _)| *k != id);
    }
}
