//! The self-conditioning figure and the error-propagation share.
//!
//! Given a gold-history run (the official protocol: every task sees the gold history)
//! and an own-history run (every task sees the model's own earlier turns) of the same
//! model on the same dataset, the figure is the paired difference own − gold of task
//! accuracy by task position (1–4) and by the session's number of instruction
//! transitions, with the paired session-bootstrap intervals and the exact two-sided
//! binomial (McNemar) test that `wildtool compare` uses for every category — it is that
//! comparison's `Position` and `Transitions` rows, read as own − gold.
//!
//! The error-propagation share of a run: of its failed tasks that have a predecessor
//! (position 2–4), the share that follow an earlier failed task of the same session.
//!
//! What it can show: how much accuracy the model loses (or gains) when it carries its own
//! history, where in the session, and how often a failure comes after another one. What
//! it cannot: why. A failure after a failure in own history may be caused by the earlier
//! one (error propagation) or merely share its cause (a hard session); the gold-history
//! run's share is the baseline for the second reading. A task whose gold expects the
//! gold history (for example an observation of an earlier task the model never obtained)
//! can fail in own history for that reason alone.

use serde::Serialize;

use crate::compare::paired::CategoryDelta;
use crate::compare::paired::CategoryGroup;
use crate::compare::{compare_pair, BootstrapOptions, CompareError, DatasetRef, RunInput};
use crate::outcome::TaskOutcome;

/// The error-propagation share of one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Propagation {
    /// Failed scored tasks at positions 2–4.
    pub failures_with_predecessor: u64,
    /// Of those, the ones that follow an earlier failed task of the same session.
    pub following_failure: u64,
    /// `following_failure / failures_with_predecessor` (`null` when there is none).
    pub share: Option<f64>,
}

/// The error-propagation share of a run's outcomes (unscored tasks count as neither).
pub fn propagation(outcomes: &[TaskOutcome]) -> Propagation {
    let failed = |o: &TaskOutcome| !o.incomplete && !o.correct;
    let mut with_pred = 0u64;
    let mut following = 0u64;
    for o in outcomes.iter().filter(|o| o.position > 0 && failed(o)) {
        with_pred += 1;
        let earlier_failed = outcomes
            .iter()
            .any(|e| e.session == o.session && e.position < o.position && failed(e));
        following += u64::from(earlier_failed);
    }
    Propagation {
        failures_with_predecessor: with_pred,
        following_failure: following,
        share: (with_pred > 0).then(|| following as f64 / with_pred as f64),
    }
}

/// The self-conditioning figure (own − gold).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelfConditioning {
    /// Always the own-history label.
    pub extension: &'static str,
    /// What "right" means when it is not the official-style label: the ledger
    /// environment's `env_success` (two env runs compared; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on: Option<&'static str>,
    /// The gold-history run's label.
    pub gold: String,
    /// The own-history run's label.
    pub own: String,
    /// Tasks scored in both runs.
    pub tasks: u64,
    /// Task accuracy own − gold with its paired interval.
    pub task_accuracy_delta: crate::compare::paired::Estimate,
    /// Tasks right in own history only / in gold history only, and the exact test.
    pub own_only: u64,
    /// Tasks right in gold history only.
    pub gold_only: u64,
    /// Exact two-sided McNemar p.
    pub mcnemar_p: f64,
    /// By task position (`"1"`–`"4"`): rates (a = own, b = gold), own − gold, the test.
    pub by_position: Vec<CategoryDelta>,
    /// By the session's instruction transitions (`"0"`–`"3"`).
    pub by_transitions: Vec<CategoryDelta>,
    /// The own-history run's error-propagation share.
    pub propagation_own: Propagation,
    /// The gold-history run's (the baseline).
    pub propagation_gold: Propagation,
}

/// The figure from a gold-history and an own-history run of one dataset.
pub fn self_conditioning(
    gold: &RunInput,
    own: &RunInput,
    dataset: DatasetRef<'_>,
    opts: &BootstrapOptions,
) -> Result<SelfConditioning, CompareError> {
    let pair = compare_pair(own, gold, dataset, opts)?;
    let pick = |g: CategoryGroup| -> Vec<CategoryDelta> {
        pair.categories
            .iter()
            .filter(|c| c.group == g)
            .cloned()
            .collect()
    };
    let first = |r: &RunInput| r.trials.first().cloned().unwrap_or_default();
    Ok(SelfConditioning {
        extension: super::OWN_LABEL,
        on: None,
        gold: pair.b.clone(),
        own: pair.a.clone(),
        tasks: pair.tasks,
        task_accuracy_delta: pair.task_accuracy_delta,
        own_only: pair.a_only,
        gold_only: pair.b_only,
        mcnemar_p: pair.mcnemar_p,
        by_position: pick(CategoryGroup::Position),
        by_transitions: pick(CategoryGroup::Transitions),
        propagation_own: propagation(&first(own)),
        propagation_gold: propagation(&first(gold)),
    })
}

/// [`SelfConditioning::on`] for env runs.
pub const ON_ENV_SUCCESS: &str =
    "env_success (Extension: ledger environment, not a WildToolBench metric)";

impl SelfConditioning {
    /// The figure read on the ledger environment's `env_success` (both runs env runs).
    pub fn on_env_success(mut self) -> Self {
        self.on = Some(ON_ENV_SUCCESS);
        self
    }

    /// `self-conditioning.json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// An HTML page with the figure appended to its main content as a labelled section
    /// (the table as text, escaped).
    pub fn append_html(&self, html: &str) -> String {
        let section = format!(
            "<section aria-labelledby=\"self-conditioning\"><h2 id=\"self-conditioning\">Extension: self-conditioning (own − gold history)</h2><p class=\"badge extension\">{}</p><pre>{}</pre></section>",
            crate::chart::escape_xml(self.extension),
            crate::chart::escape_xml(&self.text())
        );
        match html.rfind("</main>") {
            Some(at) => format!("{}{section}{}", &html[..at], &html[at..]),
            None => format!("{html}{section}"),
        }
    }

    /// A plain-text table for the terminal.
    pub fn text(&self) -> String {
        let pct = |x: f64| format!("{:+.1}", 100.0 * x);
        let mut out = format!(
            "Self-conditioning ({}): own history {} minus gold history {}, {} paired tasks\n",
            self.extension, self.own, self.gold, self.tasks
        );
        if let Some(on) = self.on {
            out.push_str(&format!("  on {on}\n"));
        }
        out.push_str(&format!(
            "  all tasks        {} pts  [{}, {}]  own-only {} gold-only {}  p={:.4}\n",
            pct(self.task_accuracy_delta.estimate),
            pct(self.task_accuracy_delta.ci95.lo),
            pct(self.task_accuracy_delta.ci95.hi),
            self.own_only,
            self.gold_only,
            self.mcnemar_p
        ));
        for c in self.by_position.iter().chain(&self.by_transitions) {
            let name = match c.group {
                CategoryGroup::Transitions => format!("transitions {}", c.key),
                _ => c.label.clone(),
            };
            match (&c.delta, &c.rates) {
                (Some(d), Some(r)) => out.push_str(&format!(
                    "  {:<16} {} pts  [{}, {}]  own {:.1}% gold {:.1}%  n={}  p={:.4}\n",
                    name,
                    pct(d.estimate),
                    pct(d.ci95.lo),
                    pct(d.ci95.hi),
                    100.0 * r.a,
                    100.0 * r.b,
                    c.tasks,
                    c.p
                )),
                _ => out.push_str(&format!("  {name:<16} no paired task\n")),
            }
        }
        let share = |p: &Propagation| match p.share {
            Some(s) => format!(
                "{:.1}% ({} of {})",
                100.0 * s,
                p.following_failure,
                p.failures_with_predecessor
            ),
            None => "none (no failed task at positions 2-4)".to_owned(),
        };
        out.push_str(&format!(
            "  error propagation: own history {}; gold history {}\n",
            share(&self.propagation_own),
            share(&self.propagation_gold)
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::TaskType;

    fn o(session: u32, position: u8, correct: bool) -> TaskOutcome {
        TaskOutcome {
            position,
            task_type: TaskType::Chat,
            nodes_done: 0,
            ..crate::outcome::sample_outcome(session, correct)
        }
    }

    #[test]
    fn propagation_counts_failures_after_an_earlier_failure_of_the_session() {
        let p = propagation(&[
            o(0, 0, false),
            o(0, 1, false),
            o(0, 2, true),
            o(0, 3, false),
            o(1, 0, true),
            o(1, 1, false),
        ]);
        assert_eq!(p.failures_with_predecessor, 3);
        assert_eq!(p.following_failure, 2);
        assert_eq!(p.share, Some(2.0 / 3.0));
        let none = propagation(&[o(0, 0, false), o(0, 1, true)]);
        assert_eq!(none.share, None);
    }
}
