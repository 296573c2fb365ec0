//! The headline of a run as every view shows it: task and session accuracy formatted once,
//! here, with the "n of N tasks scored" count and the run's status.

use serde::{Deserialize, Serialize};

use super::format_percent;
use crate::report::{RunReport, RunStatus};

/// Display-ready headline numbers of a run, read from its [`RunReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Headline {
    /// `done`, `partial` or `failed`.
    pub status: RunStatus,
    /// Tasks scored (the denominator of the task accuracy).
    pub tasks_scored: u64,
    /// Tasks of the run.
    pub tasks_total: u64,
    /// Task accuracy as displayed (`"56.3%"`); `None` when nothing was scored.
    pub task_accuracy: Option<String>,
    /// Session accuracy as displayed; `None` when nothing was scored.
    pub session_accuracy: Option<String>,
    /// `"28 of 256 tasks scored"`.
    pub scored: String,
    /// What a partial or failed run's banner says; `None` for a finished run.
    pub note: Option<String>,
}

impl Headline {
    /// The headline of `report`.
    pub fn of(report: &RunReport) -> Self {
        let shown = |rate: &crate::report::Rate| {
            (report.status != RunStatus::Failed && rate.total > 0)
                .then(|| format_percent(rate.rate))
        };
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let note = match report.status {
            RunStatus::Done => None,
            RunStatus::Partial => Some(format!(
                "Partial run: {} of {} task{} scored; {} task{} without a result are not model errors and are in no rate.",
                report.tasks_scored,
                report.tasks_total,
                plural(report.tasks_total),
                report.tasks_unscored,
                plural(report.tasks_unscored)
            )),
            RunStatus::Failed => Some(format!(
                "Failed run: none of the {} task{} could be scored, so there is no accuracy to show.",
                report.tasks_total,
                plural(report.tasks_total)
            )),
        };
        Headline {
            status: report.status,
            tasks_scored: report.tasks_scored,
            tasks_total: report.tasks_total,
            task_accuracy: shown(&report.task_accuracy),
            session_accuracy: shown(&report.session_accuracy),
            scored: format!(
                "{} of {} task{} scored",
                report.tasks_scored,
                report.tasks_total,
                plural(report.tasks_total)
            ),
            note,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::TaskOutcome;

    fn outcome(session: u32, correct: bool, incomplete: bool) -> TaskOutcome {
        TaskOutcome {
            incomplete,
            ..crate::outcome::sample_outcome(session, correct)
        }
    }

    #[test]
    fn partial_done_and_failed_headlines() {
        let partial = RunReport::from_outcomes(&[
            outcome(0, true, false),
            outcome(1, false, false),
            outcome(2, false, true),
        ]);
        let h = Headline::of(&partial);
        assert_eq!(h.status, RunStatus::Partial);
        assert_eq!((h.tasks_scored, h.tasks_total), (2, 3));
        assert_eq!(h.task_accuracy.as_deref(), Some("50.0%"));
        assert_eq!(h.session_accuracy.as_deref(), Some("50.0%"));
        assert_eq!(h.scored, "2 of 3 tasks scored");
        assert!(h.note.is_some_and(|n| n.starts_with("Partial run: 2 of 3")));

        let done = Headline::of(&RunReport::from_outcomes(&[outcome(0, true, false)]));
        assert_eq!(done.status, RunStatus::Done);
        assert_eq!(done.note, None);
        assert_eq!(done.task_accuracy.as_deref(), Some("100.0%"));

        let failed = Headline::of(&RunReport::from_outcomes(&[outcome(0, false, true)]));
        assert_eq!(failed.status, RunStatus::Failed);
        assert_eq!(failed.task_accuracy, None);
        assert_eq!(failed.session_accuracy, None);
        assert_eq!(failed.scored, "0 of 1 task scored");
    }
}
