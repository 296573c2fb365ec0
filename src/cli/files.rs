//! File adapters: reading datasets, streaming result files by line offset, writing outputs.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

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

/// Reads a whole text file (datasets are small).
pub fn read_text(path: &Path) -> Result<String, FileError> {
    let mut text = String::new();
    File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .map_err(at(path))?;
    Ok(text)
}

/// Byte span of one line of a large file.
#[derive(Debug, Clone, Copy)]
pub struct LineSpan {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line start.
    pub offset: u64,
    /// Length without the terminator.
    pub len: usize,
}

/// Visits each non-blank line of a (possibly huge) file without holding it in memory.
pub fn for_each_line(path: &Path, mut visit: impl FnMut(LineSpan, &str)) -> Result<(), FileError> {
    let file = File::open(path).map_err(at(path))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut buf = Vec::new();
    let mut offset = 0u64;
    let mut line = 0usize;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(at(path))?;
        if n == 0 {
            break;
        }
        line += 1;
        let text = String::from_utf8_lossy(&buf);
        let trimmed = text.trim_end_matches(['\n', '\r']);
        if !trimmed.trim().is_empty() {
            visit(
                LineSpan {
                    line,
                    offset,
                    len: trimmed.len(),
                },
                trimmed,
            );
        }
        offset += n as u64;
    }
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

    /// Reads the line at `span`.
    pub fn read(&mut self, span: LineSpan) -> Result<String, FileError> {
        self.buf.resize(span.len, 0);
        self.file
            .seek(SeekFrom::Start(span.offset))
            .map_err(at(&self.path))?;
        self.file
            .read_exact(&mut self.buf)
            .map_err(at(&self.path))?;
        Ok(String::from_utf8_lossy(&self.buf).into_owned())
    }
}
