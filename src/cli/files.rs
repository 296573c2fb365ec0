//! File adapters: reading datasets, streaming result files line by line with the core's
//! line rule (`input::lines`), and replacing output files together.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
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
    let mut chunk = vec![0u8; 1 << 20];
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
    pub fn read(&mut self, span: LineSpan) -> Result<Result<String, LineError>, FileError> {
        let len = usize::try_from(span.len)
            .map_err(|_| invalid(&self.path, format!("line {} is too long", span.number)))?;
        self.buf.resize(len, 0);
        self.file
            .seek(SeekFrom::Start(span.offset))
            .map_err(at(&self.path))?;
        self.file
            .read_exact(&mut self.buf)
            .map_err(at(&self.path))?;
        Ok(lines::decode(&span, &self.buf).map(|t| t.unwrap_or_default().to_owned()))
    }
}

/// Output files written next to each other and put in place together: each is written
/// to a temporary file in the output directory, and only when all are written are they
/// renamed over the old ones, so a failed or refused run leaves the previous outputs
/// untouched and a finished one never leaves a mix of two runs.
pub struct Outputs {
    dir: PathBuf,
    pending: Vec<(PathBuf, PathBuf)>,
}

impl Outputs {
    /// Outputs in `dir`.
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            pending: Vec::new(),
        }
    }

    fn temp_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!(".{name}.tmp-{}", std::process::id()))
    }

    /// A temporary file that becomes `name` on [`Outputs::commit`].
    pub fn create(&mut self, name: &str) -> Result<(File, PathBuf), FileError> {
        let temp = self.temp_path(name);
        let file = File::create(&temp).map_err(at(&temp))?;
        self.pending.push((temp.clone(), self.dir.join(name)));
        Ok((file, temp))
    }

    /// Writes `text` as the future `name`.
    pub fn write(&mut self, name: &str, text: &str) -> Result<(), FileError> {
        let (mut file, temp) = self.create(name)?;
        file.write_all(text.as_bytes()).map_err(at(&temp))?;
        file.sync_all().map_err(at(&temp))
    }

    /// Renames every temporary file over its final name.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, FileError> {
        let mut done = Vec::new();
        while !self.pending.is_empty() {
            let (temp, target) = self.pending.remove(0);
            if let Err(e) = std::fs::rename(&temp, &target) {
                let _ = std::fs::remove_file(&temp);
                return Err(at(&target)(e));
            }
            done.push(target);
        }
        Ok(done)
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        for (temp, _) in &self.pending {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Writes one output file all or nothing: a temporary file in its directory (created if
/// missing), renamed over it once written.
pub fn write_file(path: &Path, text: &str) -> Result<(), FileError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| invalid(path, "is not a file name".to_owned()))?;
    std::fs::create_dir_all(dir).map_err(at(dir))?;
    let mut outputs = Outputs::new(dir);
    outputs.write(&name, text)?;
    outputs.commit().map(|_| ())
}
