//! Comparison links: two scored runs of the same dataset in one URL fragment.
//!
//! A link is `v2.` followed by base64url (no padding) of:
//!
//! | bytes | content |
//! |---|---|
//! | 1 + n | scorer version (length byte, UTF-8, at most [`MAX_SCORER_VERSION_BYTES`]) |
//! | 1 + n | label of run A (length byte, UTF-8, cut to at most [`MAX_LABEL_BYTES`]) |
//! | 1 + n | label of run B (likewise) |
//! | 8 | dataset fingerprint, little-endian `u64` (one: both runs are on this dataset) |
//! | 1–5 | task count, LEB128 |
//! | L | every task's outcome in A, then in B, as one mixed-radix number (the `v1` per-task digits); L depends only on the task shapes |
//! | 4 | FNV-1a 32-bit checksum of everything before |
//!
//! Like `v1`, the link holds outcomes only — no key, endpoint, prompt or trace — and
//! decoding never panics. A run with repeated trials is shared one trial at a time.

use super::{
    checksum, cut, digits, payload_of_version, push_varint, radices, radix, state, Cursor,
    ShareError, ShareHeader, SharedRun, TaskShape, MAX_LABEL_BYTES, MAX_SCORER_VERSION_BYTES,
    MAX_TASKS,
};
use crate::outcome::TaskOutcome;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Text prefix of a comparison link.
pub const PAIR_PREFIX: &str = "v2.";

/// Which kind of link a fragment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// A single run (`v1.`).
    Run,
    /// A comparison of two runs (`v2.`).
    Comparison,
}

/// The kind of `link` from its prefix alone (the rest is checked when it is decoded).
pub fn link_kind(link: &str) -> Result<LinkKind, ShareError> {
    let text = link.rsplit('#').next().unwrap_or(link).trim();
    if text.is_empty() {
        return Err(ShareError::Empty);
    }
    match text.split_once('.').map(|(v, _)| v) {
        Some("v1") => Ok(LinkKind::Run),
        Some("v2") => Ok(LinkKind::Comparison),
        Some(v)
            if v.len() > 1
                && v.len() <= 6
                && v.starts_with('v')
                && v.chars().skip(1).all(|c| c.is_ascii_digit()) =>
        {
            Err(ShareError::UnsupportedVersion {
                found: v.to_owned(),
            })
        }
        _ => Err(ShareError::MissingVersion),
    }
}

/// What a comparison link says before the dataset is loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairHeader {
    /// Scorer version of both runs' outcomes.
    pub scorer_version: String,
    /// Label of run A.
    pub label_a: String,
    /// Label of run B.
    pub label_b: String,
    /// Fingerprint of the dataset both runs were scored on.
    pub dataset_fingerprint: u64,
    /// Number of tasks of that dataset.
    pub task_count: u32,
}

/// Two runs of one dataset as carried by a comparison link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedPair {
    /// Header fields.
    pub header: PairHeader,
    /// Run A: one outcome per dataset task, in dataset order.
    pub a: Vec<TaskOutcome>,
    /// Run B: likewise.
    pub b: Vec<TaskOutcome>,
}

impl SharedPair {
    /// The two runs as single-run shares (A, B).
    pub fn runs(&self) -> (SharedRun, SharedRun) {
        let h = &self.header;
        let run = |label: &str, outcomes: &[TaskOutcome]| SharedRun {
            header: ShareHeader {
                scorer_version: h.scorer_version.clone(),
                model_label: label.to_owned(),
                dataset_fingerprint: h.dataset_fingerprint,
                task_count: h.task_count,
            },
            outcomes: outcomes.to_vec(),
        };
        (run(&h.label_a, &self.a), run(&h.label_b, &self.b))
    }
}

/// Number of link characters [`encode_pair`] produces for this dataset and label sizes.
pub fn pair_link_len(
    shapes: &[TaskShape],
    scorer_version_bytes: usize,
    label_a_bytes: usize,
    label_b_bytes: usize,
) -> usize {
    let mut count = Vec::new();
    push_varint(&mut count, u32::try_from(shapes.len()).unwrap_or(u32::MAX));
    let r = radices(shapes);
    let both: Vec<u64> = r.iter().chain(r.iter()).copied().collect();
    let bytes = 1
        + scorer_version_bytes.min(MAX_SCORER_VERSION_BYTES)
        + 1
        + label_a_bytes.min(MAX_LABEL_BYTES)
        + 1
        + label_b_bytes.min(MAX_LABEL_BYTES)
        + 8
        + count.len()
        + radix::packed_len(&both)
        + 4;
    PAIR_PREFIX.len() + (bytes * 4).div_ceil(3)
}

/// Encodes two runs of one dataset into link text (`v2.…`, without the `#`).
///
/// Labels are cut to [`MAX_LABEL_BYTES`]; every outcome must agree with its shape.
pub fn encode_pair(pair: &SharedPair, shapes: &[TaskShape]) -> Result<String, ShareError> {
    let h = &pair.header;
    if h.scorer_version.len() > MAX_SCORER_VERSION_BYTES {
        return Err(ShareError::FieldTooLong {
            field: "scorer version",
            len: h.scorer_version.len(),
            max: MAX_SCORER_VERSION_BYTES,
        });
    }
    let count = u32::try_from(shapes.len())
        .ok()
        .filter(|c| *c <= MAX_TASKS)
        .ok_or(ShareError::BadTaskCount)?;
    for n in [
        u64::from(h.task_count),
        pair.a.len() as u64,
        pair.b.len() as u64,
    ] {
        if n != shapes.len() as u64 {
            return Err(ShareError::TaskCountMismatch {
                link: n,
                dataset: shapes.len() as u64,
            });
        }
    }
    let mut all = digits(&pair.a, shapes)?;
    all.extend(digits(&pair.b, shapes)?);
    let r = radices(shapes);
    let both: Vec<u64> = r.iter().chain(r.iter()).copied().collect();
    let body = radix::pack(&all, &both).ok_or(ShareError::OutOfRange)?;
    let mut bytes = Vec::with_capacity(body.len() + 192);
    bytes.push(h.scorer_version.len() as u8);
    bytes.extend_from_slice(h.scorer_version.as_bytes());
    for label in [&h.label_a, &h.label_b] {
        let label = cut(label, MAX_LABEL_BYTES);
        bytes.push(label.len() as u8);
        bytes.extend_from_slice(label.as_bytes());
    }
    bytes.extend_from_slice(&h.dataset_fingerprint.to_le_bytes());
    push_varint(&mut bytes, count);
    bytes.extend_from_slice(&body);
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    Ok(format!("{PAIR_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

fn pair_header(cursor: &mut Cursor<'_>) -> Result<PairHeader, ShareError> {
    let scorer_version = cursor.text("scorer version", MAX_SCORER_VERSION_BYTES)?;
    let label_a = cursor.text("label of run A", MAX_LABEL_BYTES)?;
    let label_b = cursor.text("label of run B", MAX_LABEL_BYTES)?;
    let fp = cursor.take(8, "dataset fingerprint")?;
    let mut fp_bytes = [0u8; 8];
    fp_bytes.copy_from_slice(fp);
    let task_count = cursor.varint()?;
    Ok(PairHeader {
        scorer_version,
        label_a,
        label_b,
        dataset_fingerprint: u64::from_le_bytes(fp_bytes),
        task_count,
    })
}

/// Reads the header of a comparison link (no dataset needed).
pub fn read_pair_header(link: &str) -> Result<PairHeader, ShareError> {
    let bytes = payload_of_version(link, "v2")?;
    pair_header(&mut Cursor {
        bytes: &bytes,
        pos: 0,
    })
}

/// Decodes a comparison link against the loaded dataset (its fingerprint and shapes).
pub fn decode_pair(
    link: &str,
    dataset_fingerprint: u64,
    shapes: &[TaskShape],
) -> Result<SharedPair, ShareError> {
    let bytes = payload_of_version(link, "v2")?;
    let mut cursor = Cursor {
        bytes: &bytes,
        pos: 0,
    };
    let h = pair_header(&mut cursor)?;
    if h.dataset_fingerprint != dataset_fingerprint {
        return Err(ShareError::FingerprintMismatch {
            link: h.dataset_fingerprint,
            dataset: dataset_fingerprint,
        });
    }
    if u64::from(h.task_count) != shapes.len() as u64 {
        return Err(ShareError::TaskCountMismatch {
            link: u64::from(h.task_count),
            dataset: shapes.len() as u64,
        });
    }
    let r = radices(shapes);
    let both: Vec<u64> = r.iter().chain(r.iter()).copied().collect();
    let body = bytes.get(cursor.pos..).unwrap_or(&[]);
    let expected = radix::packed_len(&both);
    if body.len() != expected {
        return Err(ShareError::BodyLength {
            expected,
            found: body.len(),
        });
    }
    let all = radix::unpack(body, &both).ok_or(ShareError::OutOfRange)?;
    let rebuild = |digits: &[u64]| -> Result<Vec<TaskOutcome>, ShareError> {
        digits
            .iter()
            .zip(shapes)
            .map(|(d, s)| state::from_digit(*d, s))
            .collect::<Option<Vec<_>>>()
            .ok_or(ShareError::OutOfRange)
    };
    let (da, db) = all.split_at(shapes.len().min(all.len()));
    Ok(SharedPair {
        header: h,
        a: rebuild(da)?,
        b: rebuild(db)?,
    })
}
