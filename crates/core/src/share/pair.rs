//! Comparison links: two scored runs of the same dataset in one URL fragment.
//!
//! A link is `v2.` followed by base64url (no padding) of:
//!
//! | bytes | content |
//! |---|---|
//! | 1 + n | scorer version (length byte, UTF-8, at most [`MAX_SCORER_VERSION_BYTES`]) |
//! | 1 | detail: 0 = full outcomes, 1 = outcomes without progress (see [`Detail`]) |
//! | 1 + n | label of run A (length byte, UTF-8, cut to at most [`MAX_LABEL_BYTES`]) |
//! | 1 + n | label of run B (likewise) |
//! | 8 | dataset fingerprint, little-endian `u64` (one: both runs are on this dataset) |
//! | 1–5 | task count, LEB128 |
//! | L | every task's outcome in A, then in B, as one mixed-radix number; L depends only on the task shapes and the detail |
//! | 4 | FNV-1a 32-bit checksum of everything before |
//!
//! With full detail each task's digit is the `v1` digit (every `TaskOutcome` field). When
//! that would make the link longer than [`MAX_PAIR_LINK_CHARS`], [`encode_pair`] drops
//! the two progress counters (`steps_logged`, `nodes_done`) and keeps the 29 outcome
//! states (correct and optimal; failed with error label and name verdict; incomplete),
//! which is everything a comparison shows; [`SharedPair::detail`] says which form a link
//! carries, so a progress rate is never shown from a link that lacks it.
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
/// Longest comparison link [`encode_pair`] makes with full detail; longer ones drop the
/// progress counters.
pub const MAX_PAIR_LINK_CHARS: usize = 3_500;

/// How much of each outcome a comparison link carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// Every `TaskOutcome` field (as `v1`).
    Full,
    /// Everything but `steps_logged` and `nodes_done` (decoded as 0): no progress rates.
    NoProgress,
}

impl Detail {
    fn code(self) -> u8 {
        match self {
            Detail::Full => 0,
            Detail::NoProgress => 1,
        }
    }
}

/// States of an outcome without progress counters: correct (× optimal), failed (× 13
/// error labels or none × name verdict), incomplete.
const OUTCOME_STATES: u64 = 2 + 2 * 13 + 1;

fn outcome_digit(o: &TaskOutcome) -> u64 {
    if o.incomplete {
        OUTCOME_STATES - 1
    } else if o.correct {
        u64::from(o.optimal)
    } else {
        let label = o.error.map(|e| u64::from(e.code()) + 1).unwrap_or(0);
        2 + label * 2 + u64::from(o.name_correct)
    }
}

fn outcome_from_digit(d: u64, shape: &TaskShape) -> Option<TaskOutcome> {
    let mut o = TaskOutcome {
        incomplete: false,
        ..shape.unscored()
    };
    match d {
        0 | 1 => {
            o.correct = true;
            o.name_correct = true;
            o.optimal = d == 1;
        }
        d if d < OUTCOME_STATES - 1 => {
            let rel = d - 2;
            o.name_correct = rel % 2 == 1;
            let label = rel / 2;
            if label > 0 {
                o.error = Some(crate::outcome::RawErrorLabel::from_code(
                    u8::try_from(label - 1).ok()?,
                )?);
            }
        }
        d if d == OUTCOME_STATES - 1 => o.incomplete = true,
        _ => return None,
    }
    Some(o)
}

/// The radices of both runs' digits (A's tasks, then B's).
fn body_radices(shapes: &[TaskShape], detail: Detail) -> Vec<u64> {
    let one: Vec<u64> = match detail {
        Detail::Full => radices(shapes),
        Detail::NoProgress => vec![OUTCOME_STATES; shapes.len()],
    };
    one.iter().chain(one.iter()).copied().collect()
}

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
    /// What the outcomes hold ([`Detail::Full`] when encoding: [`encode_pair`] decides).
    pub detail: Detail,
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

/// Number of link characters of a comparison link with `detail`.
pub fn pair_link_len_with(
    shapes: &[TaskShape],
    detail: Detail,
    scorer_version_bytes: usize,
    label_a_bytes: usize,
    label_b_bytes: usize,
) -> usize {
    let mut count = Vec::new();
    push_varint(&mut count, u32::try_from(shapes.len()).unwrap_or(u32::MAX));
    let bytes = 1
        + scorer_version_bytes.min(MAX_SCORER_VERSION_BYTES)
        + 1
        + 1
        + label_a_bytes.min(MAX_LABEL_BYTES)
        + 1
        + label_b_bytes.min(MAX_LABEL_BYTES)
        + 8
        + count.len()
        + radix::packed_len(&body_radices(shapes, detail))
        + 4;
    PAIR_PREFIX.len() + (bytes * 4).div_ceil(3)
}

/// The detail [`encode_pair`] uses: full unless that exceeds [`MAX_PAIR_LINK_CHARS`].
pub fn pair_detail(
    shapes: &[TaskShape],
    scorer_version_bytes: usize,
    label_a_bytes: usize,
    label_b_bytes: usize,
) -> Detail {
    let full = pair_link_len_with(
        shapes,
        Detail::Full,
        scorer_version_bytes,
        label_a_bytes,
        label_b_bytes,
    );
    if full <= MAX_PAIR_LINK_CHARS {
        Detail::Full
    } else {
        Detail::NoProgress
    }
}

/// Number of link characters [`encode_pair`] produces for this dataset and label sizes
/// (labels are counted after cutting to [`MAX_LABEL_BYTES`]).
pub fn pair_link_len(
    shapes: &[TaskShape],
    scorer_version_bytes: usize,
    label_a_bytes: usize,
    label_b_bytes: usize,
) -> usize {
    let detail = pair_detail(shapes, scorer_version_bytes, label_a_bytes, label_b_bytes);
    pair_link_len_with(
        shapes,
        detail,
        scorer_version_bytes,
        label_a_bytes,
        label_b_bytes,
    )
}

/// Encodes two runs of one dataset into link text (`v2.…`, without the `#`).
///
/// Labels are cut to [`MAX_LABEL_BYTES`]; every outcome must agree with its shape. The
/// detail is chosen by [`pair_detail`] (`pair.detail` is ignored).
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
    let label_a = cut(&h.label_a, MAX_LABEL_BYTES);
    let label_b = cut(&h.label_b, MAX_LABEL_BYTES);
    let detail = pair_detail(shapes, h.scorer_version.len(), label_a.len(), label_b.len());
    // Validate against the full model either way (shapes and field ranges).
    let mut all = digits(&pair.a, shapes)?;
    all.extend(digits(&pair.b, shapes)?);
    if detail == Detail::NoProgress {
        all = pair.a.iter().chain(&pair.b).map(outcome_digit).collect();
    }
    let both = body_radices(shapes, detail);
    let body = radix::pack(&all, &both).ok_or(ShareError::OutOfRange)?;
    let mut bytes = Vec::with_capacity(body.len() + 192);
    bytes.push(h.scorer_version.len() as u8);
    bytes.extend_from_slice(h.scorer_version.as_bytes());
    bytes.push(detail.code());
    for label in [label_a, label_b] {
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

fn pair_header(cursor: &mut Cursor<'_>) -> Result<(PairHeader, Detail), ShareError> {
    let scorer_version = cursor.text("scorer version", MAX_SCORER_VERSION_BYTES)?;
    let detail = match cursor.byte("detail")? {
        0 => Detail::Full,
        1 => Detail::NoProgress,
        _ => return Err(ShareError::OutOfRange),
    };
    let label_a = cursor.text("label of run A", MAX_LABEL_BYTES)?;
    let label_b = cursor.text("label of run B", MAX_LABEL_BYTES)?;
    let fp = cursor.take(8, "dataset fingerprint")?;
    let mut fp_bytes = [0u8; 8];
    fp_bytes.copy_from_slice(fp);
    let task_count = cursor.varint()?;
    Ok((
        PairHeader {
            scorer_version,
            label_a,
            label_b,
            dataset_fingerprint: u64::from_le_bytes(fp_bytes),
            task_count,
        },
        detail,
    ))
}

/// Reads the header of a comparison link (no dataset needed).
pub fn read_pair_header(link: &str) -> Result<PairHeader, ShareError> {
    let bytes = payload_of_version(link, "v2")?;
    pair_header(&mut Cursor {
        bytes: &bytes,
        pos: 0,
    })
    .map(|(h, _)| h)
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
    let (h, detail) = pair_header(&mut cursor)?;
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
    let both = body_radices(shapes, detail);
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
            .map(|(d, s)| match detail {
                Detail::Full => state::from_digit(*d, s),
                Detail::NoProgress => outcome_from_digit(*d, s),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or(ShareError::OutOfRange)
    };
    let (da, db) = all.split_at(shapes.len().min(all.len()));
    Ok(SharedPair {
        header: h,
        detail,
        a: rebuild(da)?,
        b: rebuild(db)?,
    })
}
