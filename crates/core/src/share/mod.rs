//! Share-link codec: a whole scored run in a URL fragment.
//!
//! A link is `v1.` followed by base64url (no padding) of:
//!
//! | bytes | content |
//! |---|---|
//! | 1 + n | scorer version (length byte, UTF-8, at most [`MAX_SCORER_VERSION_BYTES`]) |
//! | 1 + n | model label (length byte, UTF-8, cut to at most [`MAX_LABEL_BYTES`]) |
//! | 8 | dataset fingerprint, little-endian `u64` |
//! | 1–5 | task count, LEB128 |
//! | L | every task's outcome, mixed-radix packed (see `state`); L depends only on the task shapes |
//! | 4 | FNV-1a 32-bit checksum of everything before (integrity, not security) |
//!
//! Static per-task facts (type, subtype, transitions, node count, session, position)
//! are not in the link: they come from the dataset as [`TaskShape`]s, which both bound
//! each task's state space and rebuild the full [`TaskOutcome`] on decode. The link
//! carries no key, URL, prompt or trace: the types it is built from hold none.
//!
//! Decoding never panics: every malformed, truncated or hostile input yields a
//! [`ShareError`] whose message can be shown to the user as is.
//!
//! Comparison links (`v2.`: two runs of one dataset) are in [`pair`]; [`pair::link_kind`]
//! tells the two formats apart.

pub mod pair;
mod radix;
mod shapes;
mod state;

pub use shapes::task_shapes;

use crate::outcome::{TaskOutcome, TaskType, TurnSubtype};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Wire format version written by [`encode`].
pub const FORMAT_VERSION: u8 = 1;
/// Text prefix of a version-1 link.
pub const PREFIX: &str = "v1.";
/// Longest model label kept in a link, in UTF-8 bytes (longer labels are cut on a
/// character boundary).
pub const MAX_LABEL_BYTES: usize = 64;
/// Longest scorer version string accepted.
pub const MAX_SCORER_VERSION_BYTES: usize = 32;
/// Longest link text [`decode`] and [`read_header`] look at.
pub const MAX_LINK_CHARS: usize = 65_536;
/// Largest task count a link may declare.
pub const MAX_TASKS: u32 = 1_000_000;

/// Static facts of one dataset task, as needed to encode and decode its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskShape {
    /// 0-based session index in the dataset.
    pub session: u32,
    /// Task position in its session (0..=3).
    pub position: u8,
    /// Task type.
    pub task_type: TaskType,
    /// Hidden-intent subtype (`None` for the first task).
    pub subtype: Option<TurnSubtype>,
    /// Instruction transitions of the session (0..=3).
    pub transitions: u8,
    /// Gold node count (`len(answer_list[i])`).
    pub nodes_total: u16,
    /// Minimal number of steps of a complete path.
    pub min_length: u16,
}

impl TaskShape {
    /// This task's outcome when it was not scored: its static facts, every verdict false,
    /// no steps, nodes or error, and marked incomplete (it never finished). The outcome
    /// decoders start from it too.
    pub fn unscored(&self) -> TaskOutcome {
        TaskOutcome {
            session: self.session,
            position: self.position,
            task_type: self.task_type,
            subtype: self.subtype,
            transitions: self.transitions,
            correct: false,
            name_correct: false,
            optimal: false,
            steps_logged: 0,
            nodes_total: self.nodes_total,
            nodes_done: 0,
            error: None,
            incomplete: true,
        }
    }

    /// True when `outcome`'s static facts agree with this shape.
    pub fn matches(&self, outcome: &TaskOutcome) -> bool {
        outcome.session == self.session
            && outcome.position == self.position
            && outcome.task_type == self.task_type
            && outcome.subtype == self.subtype
            && outcome.transitions == self.transitions
            && outcome.nodes_total == self.nodes_total
    }
}

/// What a link says about the run, readable before the dataset is loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareHeader {
    /// Version string of the scorer that produced the outcomes.
    pub scorer_version: String,
    /// Model label shown on the dashboard.
    pub model_label: String,
    /// Fingerprint of the dataset the run was scored on.
    pub dataset_fingerprint: u64,
    /// Number of tasks of that dataset.
    pub task_count: u32,
}

/// A scored run as carried by a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedRun {
    /// Header fields.
    pub header: ShareHeader,
    /// One outcome per dataset task, in dataset order.
    pub outcomes: Vec<TaskOutcome>,
}

/// Why a link could not be made or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    /// Nothing after the `#`.
    #[error("the share link is empty")]
    Empty,
    /// Longer than [`MAX_LINK_CHARS`].
    #[error("the share link is too long ({len} characters; at most {max} are accepted)")]
    TooLong {
        /// Characters received.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// No `vN.` prefix.
    #[error("this is not a wildtool share link (it should start with \"v1.\")")]
    MissingVersion,
    /// A version this build does not read.
    #[error(
        "share link format {found:?} is not supported here (run links start with \"v1.\", comparison links with \"v2.\")"
    )]
    UnsupportedVersion {
        /// The version text found.
        found: String,
    },
    /// Not base64url.
    #[error("the share link is damaged (not valid base64url: {0})")]
    Base64(String),
    /// Ends too early.
    #[error("the share link is truncated ({what} is missing); copy the whole link again")]
    Truncated {
        /// The part that is missing.
        what: &'static str,
    },
    /// Checksum mismatch.
    #[error("the share link is damaged (checksum mismatch); copy the whole link again")]
    Checksum,
    /// A text field is not UTF-8.
    #[error("the share link is damaged ({field} is not valid UTF-8)")]
    Utf8 {
        /// Field name.
        field: &'static str,
    },
    /// A length field exceeds its limit.
    #[error("the share link is invalid ({field} is {len} bytes; the limit is {max})")]
    FieldTooLong {
        /// Field name.
        field: &'static str,
        /// Length found.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Declared task count over [`MAX_TASKS`] or not a valid number.
    #[error("the share link is invalid (bad task count)")]
    BadTaskCount,
    /// The dataset has another number of tasks.
    #[error(
        "the share link is for a dataset of {link} tasks, but the loaded dataset has {dataset}"
    )]
    TaskCountMismatch {
        /// Count in the link.
        link: u64,
        /// Count in the dataset (or the run).
        dataset: u64,
    },
    /// The dataset differs.
    #[error("the share link was made on a different dataset (fingerprint {link:016x}, loaded dataset {dataset:016x}); load the dataset the run used")]
    FingerprintMismatch {
        /// Fingerprint in the link.
        link: u64,
        /// Fingerprint of the loaded dataset.
        dataset: u64,
    },
    /// Body length does not fit the dataset.
    #[error("the share link is damaged (outcome data is {found} bytes, {expected} expected for this dataset)")]
    BodyLength {
        /// Expected bytes.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// Body value outside the state space.
    #[error("the share link is damaged (outcome data out of range)")]
    OutOfRange,
    /// Encode: a task's outcome does not fit the model.
    #[error("task {index} cannot be shared: {reason}")]
    Unrepresentable {
        /// Task index in dataset order.
        index: usize,
        /// Why.
        reason: String,
    },
}

/// FNV-1a, 32 bits.
fn checksum(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

/// Cuts `s` to at most `max` bytes on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

fn push_varint(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Digit radices of the dataset's tasks.
fn radices(shapes: &[TaskShape]) -> Vec<u64> {
    shapes.iter().map(state::radix).collect()
}

/// The digit of every outcome (one per shape, in order).
fn digits(outcomes: &[TaskOutcome], shapes: &[TaskShape]) -> Result<Vec<u64>, ShareError> {
    let mut digits = Vec::with_capacity(shapes.len());
    for (index, (o, shape)) in outcomes.iter().zip(shapes).enumerate() {
        if !shape.matches(o) {
            return Err(ShareError::Unrepresentable {
                index,
                reason: "its session, position, type, subtype, transitions or node count differ from the dataset".into(),
            });
        }
        digits.push(
            state::to_digit(o, shape)
                .map_err(|reason| ShareError::Unrepresentable { index, reason })?,
        );
    }
    Ok(digits)
}

/// Number of link characters [`encode`] produces for this dataset and label sizes.
pub fn link_len(shapes: &[TaskShape], scorer_version_bytes: usize, label_bytes: usize) -> usize {
    let count_bytes = {
        let mut v = Vec::new();
        push_varint(&mut v, u32::try_from(shapes.len()).unwrap_or(u32::MAX));
        v.len()
    };
    let bytes = 1
        + scorer_version_bytes.min(MAX_SCORER_VERSION_BYTES)
        + 1
        + label_bytes.min(MAX_LABEL_BYTES)
        + 8
        + count_bytes
        + radix::packed_len(&radices(shapes))
        + 4;
    PREFIX.len() + (bytes * 4).div_ceil(3)
}

/// Encodes a run into link text (`v1.…`, without the `#`).
///
/// The model label is cut to [`MAX_LABEL_BYTES`]. Every outcome must agree with its
/// shape ([`TaskShape::matches`]) and with the state model documented in `state`.
pub fn encode(run: &SharedRun, shapes: &[TaskShape]) -> Result<String, ShareError> {
    let h = &run.header;
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
    if u64::from(h.task_count) != shapes.len() as u64 {
        return Err(ShareError::TaskCountMismatch {
            link: u64::from(h.task_count),
            dataset: shapes.len() as u64,
        });
    }
    if run.outcomes.len() != shapes.len() {
        return Err(ShareError::TaskCountMismatch {
            link: run.outcomes.len() as u64,
            dataset: shapes.len() as u64,
        });
    }
    let digits = digits(&run.outcomes, shapes)?;
    let body = radix::pack(&digits, &radices(shapes)).ok_or(ShareError::OutOfRange)?;
    let label = cut(&h.model_label, MAX_LABEL_BYTES);
    let mut bytes = Vec::with_capacity(body.len() + 128);
    bytes.push(h.scorer_version.len() as u8);
    bytes.extend_from_slice(h.scorer_version.as_bytes());
    bytes.push(label.len() as u8);
    bytes.extend_from_slice(label.as_bytes());
    bytes.extend_from_slice(&h.dataset_fingerprint.to_le_bytes());
    push_varint(&mut bytes, count);
    bytes.extend_from_slice(&body);
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    Ok(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// Sequential reader over the decoded bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ShareError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(ShareError::Truncated { what })?;
        let out = self
            .bytes
            .get(self.pos..end)
            .ok_or(ShareError::Truncated { what })?;
        self.pos = end;
        Ok(out)
    }

    fn byte(&mut self, what: &'static str) -> Result<u8, ShareError> {
        self.take(1, what)?
            .first()
            .copied()
            .ok_or(ShareError::Truncated { what })
    }

    fn text(&mut self, field: &'static str, max: usize) -> Result<String, ShareError> {
        let len = usize::from(self.byte(field)?);
        if len > max {
            return Err(ShareError::FieldTooLong { field, len, max });
        }
        let raw = self.take(len, field)?;
        String::from_utf8(raw.to_vec()).map_err(|_| ShareError::Utf8 { field })
    }

    fn varint(&mut self) -> Result<u32, ShareError> {
        let mut v: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = self.byte("task count")?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(v)
                    .ok()
                    .filter(|c| *c <= MAX_TASKS)
                    .ok_or(ShareError::BadTaskCount);
            }
        }
        Err(ShareError::BadTaskCount)
    }
}

/// Checks the `v1` prefix, decodes base64 and verifies the checksum; returns the payload
/// without the checksum.
fn payload(link: &str) -> Result<Vec<u8>, ShareError> {
    payload_of_version(link, "v1")
}

/// Like [`payload`] for links of format `want` (`"v1"`, `"v2"`).
fn payload_of_version(link: &str, want: &str) -> Result<Vec<u8>, ShareError> {
    let len = link.chars().count();
    if len > MAX_LINK_CHARS {
        return Err(ShareError::TooLong {
            len,
            max: MAX_LINK_CHARS,
        });
    }
    let text = link.rsplit('#').next().unwrap_or(link).trim();
    if text.is_empty() {
        return Err(ShareError::Empty);
    }
    let Some((version, data)) = text.split_once('.') else {
        return Err(ShareError::MissingVersion);
    };
    let looks_versioned = version.len() > 1
        && version.len() <= 6
        && version.starts_with('v')
        && version.chars().skip(1).all(|c| c.is_ascii_digit());
    if !looks_versioned {
        return Err(ShareError::MissingVersion);
    }
    if version != want {
        return Err(ShareError::UnsupportedVersion {
            found: version.to_owned(),
        });
    }
    let mut bytes = URL_SAFE_NO_PAD.decode(data).map_err(|e| {
        ShareError::Base64(match e {
            base64::DecodeError::InvalidByte(at, byte) => {
                let what = if byte.is_ascii_graphic() {
                    format!("{:?}", char::from(byte))
                } else {
                    "a non-ASCII or control character".to_owned()
                };
                format!("unexpected {what} at position {}", at + version.len() + 1)
            }
            base64::DecodeError::InvalidLength(_)
            | base64::DecodeError::InvalidLastSymbol { .. } => {
                "it ends in the middle of a character group; it was probably cut off".to_owned()
            }
            other => other.to_string(),
        })
    })?;
    if bytes.len() < 4 {
        return Err(ShareError::Truncated { what: "checksum" });
    }
    let split = bytes.len() - 4;
    let mut sum = [0u8; 4];
    sum.copy_from_slice(
        bytes
            .get(split..)
            .ok_or(ShareError::Truncated { what: "checksum" })?,
    );
    bytes.truncate(split);
    if checksum(&bytes) != u32::from_le_bytes(sum) {
        return Err(ShareError::Checksum);
    }
    Ok(bytes)
}

fn header(cursor: &mut Cursor<'_>) -> Result<ShareHeader, ShareError> {
    let scorer_version = cursor.text("scorer version", MAX_SCORER_VERSION_BYTES)?;
    let model_label = cursor.text("model label", MAX_LABEL_BYTES)?;
    let fp = cursor.take(8, "dataset fingerprint")?;
    let mut fp_bytes = [0u8; 8];
    fp_bytes.copy_from_slice(fp);
    let task_count = cursor.varint()?;
    Ok(ShareHeader {
        scorer_version,
        model_label,
        dataset_fingerprint: u64::from_le_bytes(fp_bytes),
        task_count,
    })
}

/// Reads the header of a link (no dataset needed): shows which dataset to load.
pub fn read_header(link: &str) -> Result<ShareHeader, ShareError> {
    let bytes = payload(link)?;
    header(&mut Cursor {
        bytes: &bytes,
        pos: 0,
    })
}

/// Decodes a link against the loaded dataset (its fingerprint and task shapes).
pub fn decode(
    link: &str,
    dataset_fingerprint: u64,
    shapes: &[TaskShape],
) -> Result<SharedRun, ShareError> {
    let bytes = payload(link)?;
    let mut cursor = Cursor {
        bytes: &bytes,
        pos: 0,
    };
    let h = header(&mut cursor)?;
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
    let radices = radices(shapes);
    let body = bytes.get(cursor.pos..).unwrap_or(&[]);
    let expected = radix::packed_len(&radices);
    if body.len() != expected {
        return Err(ShareError::BodyLength {
            expected,
            found: body.len(),
        });
    }
    let digits = radix::unpack(body, &radices).ok_or(ShareError::OutOfRange)?;
    let outcomes = digits
        .iter()
        .zip(shapes)
        .map(|(d, s)| state::from_digit(*d, s))
        .collect::<Option<Vec<_>>>()
        .ok_or(ShareError::OutOfRange)?;
    Ok(SharedRun {
        header: h,
        outcomes,
    })
}
