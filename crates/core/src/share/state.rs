//! One task's outcome as a single digit whose radix is derived from the task's shape.
//!
//! With `S = nodes_total + 2` possible `steps_logged` values (0..=nodes_total+1) and
//! `D = nodes_total + 1` possible `nodes_done` values (0..=nodes_total), the states are:
//! - correct: `optimal × steps × nodes` (name correct, no error label) — `2·S·D`;
//! - failed: `error label or none (13) × name_correct × steps × nodes` (not optimal) — `26·S·D`;
//! - incomplete: `steps × nodes` (not correct, no label, names not correct, not optimal) — `S·D`.
//!
//! So the radix is `29·S·D` (1,218 for a five-node task, about 10.3 bits).

use super::TaskShape;
use crate::outcome::{RawErrorLabel, TaskOutcome};

const LABELS: u64 = RawErrorLabel::ALL.len() as u64 + 1;

fn dims(shape: &TaskShape) -> (u64, u64) {
    let n = u64::from(shape.nodes_total);
    (n + 2, n + 1)
}

/// Number of states of a task of this shape.
pub(crate) fn radix(shape: &TaskShape) -> u64 {
    let (s, d) = dims(shape);
    (2 + 2 * LABELS + 1) * s * d
}

/// The digit of an outcome, or a reason why it cannot be represented.
pub(crate) fn to_digit(o: &TaskOutcome, shape: &TaskShape) -> Result<u64, String> {
    let (s, d) = dims(shape);
    let steps = u64::from(o.steps_logged);
    let nodes = u64::from(o.nodes_done);
    if steps >= s {
        return Err(format!(
            "steps_logged {steps} exceeds nodes_total + 1 = {}",
            s - 1
        ));
    }
    if nodes >= d {
        return Err(format!("nodes_done {nodes} exceeds nodes_total {}", d - 1));
    }
    let cell = steps * d + nodes;
    let block = s * d;
    if o.incomplete {
        if o.correct || o.optimal || o.name_correct || o.error.is_some() {
            return Err(
                "an incomplete task must be not correct, not optimal, without names or error label"
                    .into(),
            );
        }
        return Ok((2 + 2 * LABELS) * block + cell);
    }
    if o.correct {
        if !o.name_correct || o.error.is_some() {
            return Err("a correct task must have correct names and no error label".into());
        }
        return Ok(u64::from(o.optimal) * block + cell);
    }
    if o.optimal {
        return Err("a failed task cannot be optimal".into());
    }
    let label = o.error.map(|e| u64::from(e.code()) + 1).unwrap_or(0);
    Ok(2 * block + (label * 2 + u64::from(o.name_correct)) * block + cell)
}

/// Rebuilds the outcome of task `shape` from its digit (`digit < radix(shape)`).
pub(crate) fn from_digit(digit: u64, shape: &TaskShape) -> Option<TaskOutcome> {
    let (s, d) = dims(shape);
    let block = s * d;
    let (kind, cell) = (digit / block, digit % block);
    let steps = u16::try_from(cell / d).ok()?;
    let nodes = u16::try_from(cell % d).ok()?;
    let mut o = TaskOutcome {
        steps_logged: steps,
        nodes_done: nodes,
        incomplete: false,
        ..shape.unscored()
    };
    match kind {
        0 | 1 => {
            o.correct = true;
            o.name_correct = true;
            o.optimal = kind == 1;
        }
        k if k < 2 + 2 * LABELS => {
            let rel = k - 2;
            o.name_correct = rel % 2 == 1;
            let label = rel / 2;
            if label > 0 {
                o.error = Some(RawErrorLabel::from_code(u8::try_from(label - 1).ok()?)?);
            }
        }
        k if k == 2 + 2 * LABELS => o.incomplete = true,
        _ => return None,
    }
    Some(o)
}
