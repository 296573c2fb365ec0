//! File adapters: reading datasets, streaming result files line by line with the core's
//! line rule (`input::lines`); output sets are committed by [`super::commit`].

use std::fs::File;
use std::io::Read;
#[cfg(not(unix))]
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use wildtool_core::formats::sniff::SNIFF_BYTES;
use wildtool_core::input::limits::{self, Limit};
use wildtool_core::input::lines::{self, LineError, LineSplitter};

pub use wildtool_core::input::lines::LineSpan;

/// An IO failure with the path it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub source: std::io::Error,
}

/// Wraps an IO error with its path.
pub fn at(path: &Path) -> impl FnOnce(std::io::Error) -> FileError + '_ {
    move |source| FileError {
        path: path.to_path_buf(),
        source,
    }
}

fn invalid(path: &Path, message: String) -> FileError {
    FileError {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, message),
    }
}

/// Reads a whole text file (datasets, documents). A line that breaks the core's line
/// rule (not UTF-8, longer than the line limit) fails the read with its number: a
/// dataset cannot lose a line, since its sessions are numbered by position. A leading
/// byte-order mark is dropped.
pub fn read_text(path: &Path) -> Result<String, FileError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(at(path))?;
    if let Some((_, Err(e))) = lines::split(&bytes).find(|(_, text)| text.is_err()) {
        return Err(invalid(path, e.to_string()));
    }
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| invalid(path, e.to_string()))
}

/// Reads a whole JSON document as bytes, refusing files over the document limit.
pub fn read_document(path: &Path) -> Result<Vec<u8>, FileError> {
    let file = File::open(path).map_err(at(path))?;
    let len = file.metadata().map_err(at(path))?.len();
    limits::check(Limit::Document, len, None).map_err(|e| invalid(path, e.to_string()))?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(Limit::Document.bytes() as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(at(path))?;
    Ok(bytes)
}

/// The first bytes of a file (enough for `formats::sniff`) and its size.
pub fn read_head(path: &Path) -> Result<(Vec<u8>, u64), FileError> {
    let file = File::open(path).map_err(at(path))?;
    let len = file.metadata().map_err(at(path))?.len();
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    file.take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(at(path))?;
    Ok((head, len))
}

/// Visits each non-blank line of a (possibly huge) file without holding it in memory:
/// its span (byte offset and byte length) and its text, or why the line cannot be read.
/// A damaged line costs exactly that line.
pub fn for_each_line(
    path: &Path,
    mut visit: impl FnMut(LineSpan, Result<&str, LineError>),
) -> Result<(), FileError> {
    let mut file = File::open(path).map_err(at(path))?;
    let mut splitter = LineSplitter::new();
    // 256 KiB: a few result lines a read; a larger buffer is only more fresh memory.
    let mut chunk = vec![0u8; 256 << 10];
    let mut on_line = |span: LineSpan, bytes: Result<&[u8], LineError>| match bytes
        .and_then(|b| lines::decode(&span, b))
    {
        Ok(Some(text)) => visit(span, Ok(text)),
        Ok(None) => {}
        Err(e) => visit(span, Err(e)),
    };
    loop {
        let n = file.read(&mut chunk).map_err(at(path))?;
        if n == 0 {
            break;
        }
        splitter.push(&chunk[..n], &mut on_line);
    }
    splitter.finish(&mut on_line);
    Ok(())
}

/// Random access to lines by span.
pub struct LineReader {
    file: File,
    path: PathBuf,
    buf: Vec<u8>,
}

impl LineReader {
    /// Opens `path`.
    pub fn open(path: &Path) -> Result<Self, FileError> {
        Ok(Self {
            file: File::open(path).map_err(at(path))?,
            path: path.to_path_buf(),
            buf: Vec::new(),
        })
    }

    /// Reads the line at `span` (found by [`for_each_line`]); the file changing in
    /// between is an error, not a different line.
    /// The text is borrowed from the reader's buffer (reused from line to line).
    pub fn read(&mut self, span: LineSpan) -> Result<Result<&str, LineError>, FileError> {
        let len = usize::try_from(span.len)
            .map_err(|_| invalid(&self.path, format!("line {} is too long", span.number)))?;
        self.buf.resize(len, 0);
        // One positioned read per line (`pread`) where the platform has it.
        #[cfg(unix)]
        std::os::unix::fs::FileExt::read_exact_at(&self.file, &mut self.buf, span.offset)
            .map_err(at(&self.path))?;
        #[cfg(not(unix))]
        {
            self.file
                .seek(SeekFrom::Start(span.offset))
                .map_err(at(&self.path))?;
            self.file
                .read_exact(&mut self.buf)
                .map_err(at(&self.path))?;
        }
        Ok(lines::decode(&span, &self.buf).map(Option::unwrap_or_default))
    }
}

pub use super::commit::{write_file, OutputSet};
