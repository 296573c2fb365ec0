//! The honest leaderboard: the published numbers are shown next to a run only when the
//! run's dataset is the official one, and a ranked, sortable table of published models
//! and runs.
//!
//! The official datasets are listed in `data/official-datasets.json` (parsed by
//! [`parse_official`]), each identified by the wildtool fingerprint (FNV-1a 64 of the
//! file's exact bytes, see `dataset::fingerprint`) and/or the git blob id of the file in
//! its source repository (SHA-1 of `"blob <len>\0"` + bytes, which anyone can check with
//! `git hash-object`). A dataset matches when either identifier matches.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::runs::{check_fingerprint, CompareError, DatasetRef, Layout, RunInput, Tally};
use crate::chart::dashboard::LeaderboardModel;
use crate::dataset::fingerprint_bytes;
use crate::outcome::TaskType;
use crate::report::intervals::{wilson, Interval};

/// Where an official dataset file comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetSource {
    /// Repository URL.
    pub repository: String,
    /// Path of the file in the repository.
    pub path: String,
    /// Commit the identifiers were taken from.
    pub commit: String,
}

/// One official dataset file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficialDataset {
    /// Display name.
    pub name: String,
    /// File name.
    pub file: String,
    /// Source of the identifiers.
    pub source: DatasetSource,
    /// wildtool fingerprint (16 hex digits), when known.
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// Git blob id (40 hex digits), when known.
    #[serde(default)]
    pub git_blob: Option<String>,
    /// Sessions in the file.
    pub sessions: u64,
    /// Tasks in the file.
    pub tasks: u64,
}

#[derive(Deserialize)]
struct OfficialFile {
    datasets: Vec<OfficialDataset>,
}

/// Why the official-dataset list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the official-dataset list is invalid: {0}")]
pub struct OfficialListError(String);

/// Parses the official-dataset list (`{"datasets": [...]}`). Entries without any
/// identifier, or with identifiers that are not hex of the right length, are refused.
pub fn parse_official(json: &str) -> Result<Vec<OfficialDataset>, OfficialListError> {
    // Through `Value`, like every other JSON the page reads (one deserializer in the module).
    let file = serde_json::from_str::<serde_json::Value>(json)
        .and_then(|v| OfficialFile::deserialize(&v))
        .map_err(|e| OfficialListError(e.to_string()))?;
    for d in &file.datasets {
        let hex = |s: &str, len: usize| s.len() == len && s.chars().all(|c| c.is_ascii_hexdigit());
        if d.fingerprint.is_none() && d.git_blob.is_none() {
            return Err(OfficialListError(format!("{} has no identifier", d.name)));
        }
        if d.fingerprint.as_deref().is_some_and(|f| !hex(f, 16)) {
            return Err(OfficialListError(format!(
                "{}: fingerprint must be 16 hex digits",
                d.name
            )));
        }
        if d.git_blob.as_deref().is_some_and(|b| !hex(b, 40)) {
            return Err(OfficialListError(format!(
                "{}: git_blob must be 40 hex digits",
                d.name
            )));
        }
    }
    Ok(file.datasets)
}

/// The identifiers of a dataset file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetIdentity {
    /// wildtool fingerprint.
    pub fingerprint: u64,
    /// Git blob id (40 lower-case hex digits).
    pub git_blob: String,
}

/// Both identifiers of a file's exact bytes.
pub fn identify(bytes: &[u8]) -> DatasetIdentity {
    DatasetIdentity {
        fingerprint: fingerprint_bytes(bytes),
        git_blob: git_blob_id(bytes),
    }
}

/// The git blob id of `bytes`: SHA-1 of `"blob <len>\0"` followed by the bytes, in hex.
pub fn git_blob_id(bytes: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.hex()
}

/// Whether the published leaderboard may be shown beside runs on a dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverlayDecision {
    /// True when the dataset is an official one.
    pub shown: bool,
    /// The matching official dataset's name.
    pub official: Option<String>,
    /// A sentence for the user: why the leaderboard is shown or hidden.
    pub reason: String,
}

/// Decides whether the published leaderboard is overlaid for a dataset, by its
/// fingerprint and (when the text is at hand) its git blob id.
pub fn leaderboard_overlay(
    fingerprint: u64,
    git_blob: Option<&str>,
    official: &[OfficialDataset],
) -> OverlayDecision {
    let fp_hex = format!("{fingerprint:016x}");
    let hit = official.iter().find(|d| {
        d.fingerprint
            .as_deref()
            .is_some_and(|f| f.eq_ignore_ascii_case(&fp_hex))
            || matches!((d.git_blob.as_deref(), git_blob), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
    });
    match hit {
        Some(d) => OverlayDecision {
            shown: true,
            official: Some(d.name.clone()),
            reason: format!(
                "This dataset is {} ({} at commit {}), the data the published leaderboard was measured on, so the published scores are shown beside your runs.",
                d.name,
                d.file,
                short_commit(&d.source.commit)
            ),
        },
        None => {
            let names: Vec<String> = official
                .iter()
                .map(|d| format!("{} at commit {}", d.file, short_commit(&d.source.commit)))
                .collect();
            OverlayDecision {
                shown: false,
                official: None,
                reason: if names.is_empty() {
                    "The published leaderboard is hidden: no official dataset is known to compare this dataset with.".to_owned()
                } else {
                    format!(
                        "The published leaderboard is hidden: it was measured on the official dataset ({}), and this dataset (fingerprint {fp_hex}) is a different file, so scores on it are not comparable with the published ones.",
                        names.join(", ")
                    )
                },
            }
        }
    }
}

fn short_commit(c: &str) -> &str {
    c.get(..7).unwrap_or(c)
}

/// Columns of the ranked table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    /// Task accuracy.
    Task,
    /// Session accuracy.
    Session,
    /// Single-Tool accuracy.
    Single,
    /// Multi-Tool accuracy.
    Multi,
    /// Clarify accuracy.
    Clarify,
    /// Chat accuracy.
    Chat,
    /// The label, alphabetically (no rank).
    Label,
}

/// Where a row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowSource {
    /// The published leaderboard.
    Published,
    /// A run of this dataset.
    Run,
}

/// One row of the ranked table (rates are proportions in `0..=1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Rank under the table's sort key (1 = best; ties share a rank; `None` for a missing
    /// value or when sorted by label).
    pub rank: Option<u32>,
    /// Model or run label.
    pub label: String,
    /// Published or run.
    pub source: RowSource,
    /// Task accuracy.
    pub task: Option<f64>,
    /// 95% Wilson interval of task accuracy (runs with one trial only).
    pub task_ci95: Option<Interval>,
    /// Session accuracy.
    pub session: Option<f64>,
    /// Single-Tool accuracy.
    pub single: Option<f64>,
    /// Multi-Tool accuracy.
    pub multi: Option<f64>,
    /// Clarify accuracy.
    pub clarify: Option<f64>,
    /// Chat accuracy.
    pub chat: Option<f64>,
    /// Tasks scored (runs only).
    pub tasks_scored: Option<u64>,
    /// Tasks in the dataset (runs only).
    pub tasks_total: Option<u64>,
}

impl TableRow {
    fn value(&self, key: SortKey) -> Option<f64> {
        match key {
            SortKey::Task => self.task,
            SortKey::Session => self.session,
            SortKey::Single => self.single,
            SortKey::Multi => self.multi,
            SortKey::Clarify => self.clarify,
            SortKey::Chat => self.chat,
            SortKey::Label => None,
        }
        .filter(|v| v.is_finite())
    }
}

/// A published model as a row (percent → proportion).
pub fn published_row(m: &LeaderboardModel) -> TableRow {
    let p = |v: Option<f64>| v.map(|x| x / 100.0);
    TableRow {
        rank: None,
        label: m.model.clone(),
        source: RowSource::Published,
        task: p(m.task),
        task_ci95: None,
        session: p(m.session),
        single: p(m.single),
        multi: p(m.multi),
        clarify: p(m.clarify),
        chat: p(m.chat),
        tasks_scored: None,
        tasks_total: None,
    }
}

/// A run as a row, over its scored tasks (with trials: mean per-task pass rates, and
/// session pass rates). Fails when the run is on another dataset.
pub fn run_row(run: &RunInput, dataset: DatasetRef<'_>) -> Result<TableRow, CompareError> {
    check_fingerprint(run, &dataset)?;
    let layout = Layout::new(dataset.shapes);
    let t = Tally::new(run, &layout)?;
    let mean = |f: &dyn Fn(TaskType) -> bool| -> Option<f64> {
        let rates: Vec<f64> = dataset
            .shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| f(s.task_type))
            .filter_map(|(i, _)| t.rate(i))
            .collect();
        (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64)
    };
    let sessions: Vec<f64> = (0..layout.sessions.len())
        .filter_map(|s| t.session_rate(s))
        .collect();
    let scored: u64 = t.n.iter().map(|n| u64::from(*n)).sum();
    let passed: u64 = t.c.iter().map(|c| u64::from(*c)).sum();
    Ok(TableRow {
        rank: None,
        label: run.label.clone(),
        source: RowSource::Run,
        task: mean(&|_| true),
        // The report's Wilson interval for a single trial; with repeated trials the
        // task-trials are not independent, so no interval is claimed here.
        task_ci95: (scored > 0 && t.trials == 1).then(|| wilson(passed, scored)),
        session: (!sessions.is_empty())
            .then(|| sessions.iter().sum::<f64>() / sessions.len() as f64),
        single: mean(&|ty| ty == TaskType::SingleTool),
        multi: mean(&|ty| ty.is_multi()),
        clarify: mean(&|ty| ty == TaskType::Clarify),
        chat: mean(&|ty| ty == TaskType::Chat),
        tasks_scored: Some(t.tasks_scored() as u64),
        tasks_total: Some(layout.tasks() as u64),
    })
}

/// Sorts rows by `key` (best first unless `ascending`; missing values last, ties by
/// label) and ranks them (competition ranking: 1, 2, 2, 4).
pub fn ranked_table(mut rows: Vec<TableRow>, key: SortKey, ascending: bool) -> Vec<TableRow> {
    let by_label = |a: &TableRow, b: &TableRow| {
        a.label
            .to_lowercase()
            .cmp(&b.label.to_lowercase())
            .then_with(|| a.label.cmp(&b.label))
    };
    rows.sort_by(|a, b| {
        if key == SortKey::Label {
            let o = by_label(a, b);
            return if ascending { o } else { o.reverse() };
        }
        match (a.value(key), b.value(key)) {
            (Some(x), Some(y)) => {
                let o = y.total_cmp(&x);
                let o = if ascending { o.reverse() } else { o };
                o.then_with(|| by_label(a, b))
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => by_label(a, b),
        }
    });
    // Ranks always count from the best value, whatever the display order.
    let mut values: Vec<f64> = rows.iter().filter_map(|r| r.value(key)).collect();
    values.sort_by(|a, b| b.total_cmp(a));
    for r in &mut rows {
        r.rank = r.value(key).map(|v| {
            let better = values.iter().take_while(|x| **x > v).count();
            better as u32 + 1
        });
    }
    rows
}

/// SHA-1 (FIPS 180-4), for git blob ids only (identification, not security).
struct Sha1 {
    state: [u32; 5],
    buffer: Vec<u8>,
    length: u64,
}

impl Sha1 {
    fn new() -> Self {
        Sha1 {
            state: [
                0x6745_2301,
                0xEFCD_AB89,
                0x98BA_DCFE,
                0x1032_5476,
                0xC3D2_E1F0,
            ],
            buffer: Vec::with_capacity(64),
            length: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.length = self.length.wrapping_add(data.len() as u64);
        if !self.buffer.is_empty() {
            let need = 64 - self.buffer.len();
            let (head, rest) = data.split_at(need.min(data.len()));
            self.buffer.extend_from_slice(head);
            data = rest;
            if self.buffer.len() == 64 {
                let block = std::mem::take(&mut self.buffer);
                self.block(&block);
                self.buffer = block;
                self.buffer.clear();
            }
        }
        let mut chunks = data.chunks_exact(64);
        for block in &mut chunks {
            self.block(block);
        }
        self.buffer.extend_from_slice(chunks.remainder());
    }

    fn block(&mut self, block: &[u8]) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).take(16).enumerate() {
            if let (Some(slot), [a, b, c, d]) = (w.get_mut(i), word) {
                *slot = u32::from_be_bytes([*a, *b, *c, *d]);
            }
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = self.state;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e]) {
            *s = s.wrapping_add(v);
        }
    }

    fn hex(mut self) -> String {
        let bits = self.length.wrapping_mul(8);
        let mut tail = vec![0x80u8];
        while (self.buffer.len() + tail.len()) % 64 != 56 {
            tail.push(0);
        }
        tail.extend_from_slice(&bits.to_be_bytes());
        let length = self.length;
        self.update(&tail);
        self.length = length;
        self.state.iter().map(|s| format!("{s:08x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_and_git_blob_vectors() {
        let sha = |b: &[u8]| {
            let mut h = Sha1::new();
            h.update(b);
            h.hex()
        };
        assert_eq!(sha(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            sha(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        let million = vec![b'a'; 1_000_000];
        assert_eq!(sha(&million), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
        // Split updates give the same digest.
        let mut h = Sha1::new();
        for chunk in million.chunks(997) {
            h.update(chunk);
        }
        assert_eq!(h.hex(), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
        // `printf 'hello\n' | git hash-object --stdin`, `git hash-object /dev/null`.
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(git_blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }
}
