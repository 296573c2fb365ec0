//! The checkpoint as a file: `DIR/checkpoint.jsonl`, appended and flushed per task.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use wildtool_core::runner::checkpoint::CheckpointStore;

/// A checkpoint file failure.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct StoreError {
    /// The file.
    pub path: PathBuf,
    /// The IO error.
    pub source: std::io::Error,
}

/// Append-only JSON Lines file.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    file: Option<File>,
}

impl FileStore {
    /// A store at `path` (created on first append).
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            file: None,
        }
    }

    fn err(&self) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        move |source| StoreError {
            path: self.path.clone(),
            source,
        }
    }
}

impl CheckpointStore for FileStore {
    type Error = StoreError;

    /// Reads the complete lines; a line cut short by a kill is cut off the file so the
    /// next append starts on a fresh line.
    fn load(&mut self) -> Result<Vec<String>, StoreError> {
        let mut bytes = Vec::new();
        match File::open(&self.path) {
            Ok(mut f) => {
                f.read_to_end(&mut bytes).map_err(self.err())?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.err()(e)),
        }
        let keep = bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|i| i + 1)
            .unwrap_or(0);
        if keep < bytes.len() {
            let f = OpenOptions::new()
                .write(true)
                .open(&self.path)
                .map_err(self.err())?;
            f.set_len(keep as u64).map_err(self.err())?;
            bytes.truncate(keep);
        }
        Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect())
    }

    fn append(&mut self, line: &str) -> Result<(), StoreError> {
        if self.file.is_none() {
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(self.err())?;
            self.file = Some(f);
        }
        let path = self.path.clone();
        let err = |source| StoreError {
            path: path.clone(),
            source,
        };
        if let Some(f) = self.file.as_mut() {
            let mut buf = Vec::with_capacity(line.len() + 1);
            buf.extend_from_slice(line.as_bytes());
            buf.push(b'\n');
            f.write_all(&buf).map_err(err)?;
            f.flush().map_err(err)?;
        }
        Ok(())
    }
}
