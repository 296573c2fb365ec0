//! Does a result file belong to the dataset it is scored against? Ids alone cannot tell
//! (every dataset numbers its sessions from 0), so the check also compares the user turns
//! the results recorded (the messages the model saw) with the dataset's tasks, and the
//! recorded name verdicts with the replay. Both front doors refuse a mismatch with the
//! message of [`DatasetMismatch`]; the command line scores anyway with `--force` and says
//! so in `report.json`.
//!
//! A result file is refused when, among what it recorded:
//! - most lines (more than half of those with a usable id) point at sessions the dataset
//!   does not have, or
//! - most recorded user turns (more than half) differ from the dataset's, or
//! - most recorded name verdicts (more than half) differ from the replay.
//!
//! The counts come from [`ScoreStats`], so the check can run after every line (to stop
//! early) or once at the end.

use serde::{Deserialize, Serialize};

use crate::score::ScoreStats;

/// Which evidence says the results belong elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchReason {
    /// Ids point at sessions the dataset does not have.
    UnknownIds,
    /// Recorded user turns differ from the dataset's tasks.
    UserTurns,
    /// Recorded verdicts disagree with the replay.
    Labels,
}

/// A result file that belongs to another dataset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct DatasetMismatch {
    /// The evidence.
    pub reason: MismatchReason,
    /// What to tell the user.
    pub message: String,
}

const ADVICE: &str =
    "Load the dataset the results were produced on (in the language they were produced in).";

fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        out.push('…');
    }
    out
}

fn most(part: u64, whole: u64) -> bool {
    whole > 0 && part * 2 > whole
}

/// `Err` when the scored lines so far show that the results belong to another dataset.
pub fn check_belongs(stats: &ScoreStats) -> Result<(), DatasetMismatch> {
    let with_ids = stats.lines + stats.unknown_ids;
    if most(stats.unknown_ids, with_ids) {
        return Err(DatasetMismatch {
            reason: MismatchReason::UnknownIds,
            message: format!(
                "These results belong to another dataset: {} of {} result lines point at sessions this dataset does not have. {ADVICE}",
                stats.unknown_ids, with_ids
            ),
        });
    }
    if most(stats.user_turns_differing, stats.user_turns_checked) {
        let example = stats
            .first_turn_difference
            .as_ref()
            .map(|d| {
                format!(
                    " (session {}, task {}: the results say {:?}, the dataset says {:?})",
                    d.session,
                    d.task + 1,
                    shorten(&d.recorded),
                    shorten(&d.dataset)
                )
            })
            .unwrap_or_default();
        return Err(DatasetMismatch {
            reason: MismatchReason::UserTurns,
            message: format!(
                "These results belong to another dataset: {} of {} recorded user turns differ from this dataset's tasks{example}. {ADVICE}",
                stats.user_turns_differing, stats.user_turns_checked
            ),
        });
    }
    if most(stats.name_labels_differing, stats.name_labels_recorded) {
        return Err(DatasetMismatch {
            reason: MismatchReason::Labels,
            message: format!(
                "These results do not fit this dataset: for {} of {} tasks the recorded verdict differs from replaying the recorded replies against this dataset's gold answers. {ADVICE}",
                stats.name_labels_differing, stats.name_labels_recorded
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majorities_decide() {
        let mut s = ScoreStats {
            lines: 4,
            user_turns_checked: 10,
            user_turns_differing: 5,
            name_labels_recorded: 10,
            name_labels_differing: 5,
            ..ScoreStats::default()
        };
        assert!(check_belongs(&s).is_ok());
        s.unknown_ids = 5;
        assert_eq!(
            check_belongs(&s).map_err(|e| e.reason),
            Err(MismatchReason::UnknownIds)
        );
        s.unknown_ids = 0;
        s.user_turns_differing = 6;
        assert_eq!(
            check_belongs(&s).map_err(|e| e.reason),
            Err(MismatchReason::UserTurns)
        );
        s.user_turns_differing = 0;
        s.name_labels_differing = 6;
        assert_eq!(
            check_belongs(&s).map_err(|e| e.reason),
            Err(MismatchReason::Labels)
        );
        assert!(check_belongs(&ScoreStats::default()).is_ok());
    }
}
