//! The metrics of an env run (micro-averaged over scored tasks, with counts and 95%
//! Wilson intervals from `report::intervals`), the `env-report.json` document and the
//! summary table. Every rate with an empty denominator is `null`: no number for work
//! that did not happen.

use std::collections::BTreeMap;

use crate::json::{dump_indent4, Map, Value};
use crate::report::intervals::{wilson, Z95};

use super::scenario::Challenge;
use super::score::{Correction, TaskScore};

/// The `env-report.json` format marker.
pub const ENV_REPORT_FORMAT: &str = "wildtool-env-report/1";
/// The label every env number carries.
pub const EXTENSION_LABEL: &str =
    "wildtool extension: ledger environment (not a WildToolBench metric)";

/// One rate: numerator over denominator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rate {
    /// Numerator.
    pub k: u64,
    /// Denominator.
    pub n: u64,
}

impl Rate {
    fn count(&mut self, hit: bool) {
        self.n += 1;
        self.k += u64::from(hit);
    }

    /// `{"value", "numerator", "denominator", "ci95": [lo, hi]}` (`value` and `ci95` null
    /// when the denominator is 0).
    pub fn to_value(self) -> Value {
        let mut m = Map::new();
        if self.n == 0 {
            m.insert("value", Value::Null);
        } else {
            m.insert("value", Value::Float(self.k as f64 / self.n as f64));
        }
        m.insert("numerator", Value::int(self.k as i64));
        m.insert("denominator", Value::int(self.n as i64));
        if self.n == 0 {
            m.insert("ci95", Value::Null);
        } else {
            let i = wilson(self.k, self.n);
            m.insert(
                "ci95",
                Value::Array(vec![Value::Float(i.lo), Value::Float(i.hi)]),
            );
        }
        Value::Object(m)
    }

    /// `12/16 = 75.0% [50.5–90.3]` or `– (0 tasks)`.
    pub fn text(self) -> String {
        if self.n == 0 {
            return "–".to_owned();
        }
        let i = wilson(self.k, self.n);
        format!(
            "{:.1}%  ({}/{}; 95% {:.1}–{:.1})",
            100.0 * self.k as f64 / self.n as f64,
            self.k,
            self.n,
            100.0 * i.lo,
            100.0 * i.hi
        )
    }
}

/// The metrics of a set of scored sessions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EnvMetrics {
    /// Tasks with `env_success`.
    pub env_task_success: Rate,
    /// Sessions whose tasks all have `env_success`.
    pub env_session_success: Rate,
    /// `state_correct` tasks.
    pub state_accuracy: Rate,
    /// `state_correct` among tasks with expected writes.
    pub write_task_state_accuracy: Rate,
    /// Tasks with a double booking, among tasks with expected writes.
    pub double_booking_rate: Rate,
    /// Question tasks right after a write with an attempted write.
    pub write_after_question_rate: Rate,
    /// Tasks without expected writes with an attempted write.
    pub unexpected_write_rate: Rate,
    /// Clarify tasks with a write before the clarification.
    pub premature_write_rate: Rate,
    /// Tasks failing `no_collateral`.
    pub collateral_rate: Rate,
    /// Tasks with a dirty step, among tasks with an accepted write.
    pub dirty_trajectory_rate: Rate,
    /// Rejected write attempts among all write attempts.
    pub rejected_write_rate: Rate,
    /// Tasks with exactly the optimal number of writes, among `state_correct` tasks with
    /// expected writes.
    pub optimal_writes_rate: Rate,
    /// Σ max(0, excess writes) and the tasks with expected writes, with the per-task
    /// values for the interval.
    pub excess: Vec<i64>,
    /// Correction outcomes.
    pub corrections: BTreeMap<Correction, u64>,
    /// `must_mention` items found / required.
    pub answer_fact_recall: Rate,
    /// `(path_label_env correct, env_success)` counts.
    pub agreement: [[u64; 2]; 2],
    /// Per challenge: tasks and `env_success`.
    pub by_challenge: BTreeMap<Challenge, Rate>,
}

impl EnvMetrics {
    /// Counts the tasks of one session (all of them scored).
    pub fn add_session(&mut self, tasks: &[TaskScore]) {
        self.env_session_success
            .count(!tasks.is_empty() && tasks.iter().all(|t| t.env_success));
        for t in tasks {
            let c = &t.components;
            let attempts = t.accepted_writes + t.rejected_writes;
            self.env_task_success.count(t.env_success);
            self.state_accuracy.count(c.state_correct);
            if t.optimal_writes > 0 {
                self.write_task_state_accuracy.count(c.state_correct);
                self.double_booking_rate.count(!c.no_double_booking);
                self.excess.push(t.excess_writes.max(0));
                if c.state_correct {
                    self.optimal_writes_rate
                        .count(t.accepted_writes == t.optimal_writes);
                }
            } else {
                self.unexpected_write_rate.count(attempts > 0);
                if t.after_write {
                    self.write_after_question_rate.count(attempts > 0);
                }
            }
            if t.clarify_write {
                self.premature_write_rate.count(!c.no_premature_write);
            }
            self.collateral_rate.count(!c.no_collateral);
            if t.accepted_writes > 0 {
                self.dirty_trajectory_rate.count(!t.dirty_steps.is_empty());
            }
            self.rejected_write_rate.k += t.rejected_writes as u64;
            self.rejected_write_rate.n += attempts as u64;
            if let Some(k) = t.correction {
                *self.corrections.entry(k).or_insert(0) += 1;
            }
            self.answer_fact_recall.k += t.mentions.0 as u64;
            self.answer_fact_recall.n += t.mentions.1 as u64;
            self.agreement[usize::from(t.path_label_correct)][usize::from(t.env_success)] += 1;
            self.by_challenge
                .entry(t.challenge)
                .or_default()
                .count(t.env_success);
        }
    }

    /// `(mean, ci95)` of the clamped excess writes (normal approximation).
    pub fn mean_excess(&self) -> Option<(f64, f64, f64)> {
        let n = self.excess.len();
        if n == 0 {
            return None;
        }
        let mean = self.excess.iter().sum::<i64>() as f64 / n as f64;
        let var = if n > 1 {
            self.excess
                .iter()
                .map(|&x| (x as f64 - mean).powi(2))
                .sum::<f64>()
                / (n - 1) as f64
        } else {
            0.0
        };
        let half = Z95 * (var / n as f64).sqrt();
        Some((mean, (mean - half).max(0.0), mean + half))
    }

    /// The named rates in report order.
    pub fn rates(&self) -> Vec<(&'static str, Rate)> {
        vec![
            ("env_task_success", self.env_task_success),
            ("env_session_success", self.env_session_success),
            ("state_accuracy", self.state_accuracy),
            ("write_task_state_accuracy", self.write_task_state_accuracy),
            ("double_booking_rate", self.double_booking_rate),
            ("write_after_question_rate", self.write_after_question_rate),
            ("unexpected_write_rate", self.unexpected_write_rate),
            ("premature_write_rate", self.premature_write_rate),
            ("collateral_rate", self.collateral_rate),
            ("dirty_trajectory_rate", self.dirty_trajectory_rate),
            ("rejected_write_rate", self.rejected_write_rate),
            ("optimal_writes_rate", self.optimal_writes_rate),
        ]
    }

    /// The `ledger_env` object of `env-report.json`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        for (name, r) in self.rates() {
            m.insert(name, r.to_value());
        }
        let mut ex = Map::new();
        match self.mean_excess() {
            Some((mean, lo, hi)) => {
                ex.insert("value", Value::Float(mean));
                ex.insert("sum", Value::int(self.excess.iter().sum::<i64>()));
                ex.insert("denominator", Value::int(self.excess.len() as i64));
                ex.insert(
                    "ci95",
                    Value::Array(vec![Value::Float(lo), Value::Float(hi)]),
                );
            }
            None => {
                ex.insert("value", Value::Null);
                ex.insert("sum", Value::int(0));
                ex.insert("denominator", Value::int(0));
                ex.insert("ci95", Value::Null);
            }
        }
        m.insert("mean_excess_writes", Value::Object(ex));
        let mut co = Map::new();
        for k in Correction::ALL {
            co.insert(
                k.as_str(),
                Value::int(self.corrections.get(&k).copied().unwrap_or(0) as i64),
            );
        }
        m.insert("correction_outcomes", Value::Object(co));
        m.insert("answer_fact_recall", self.answer_fact_recall.to_value());
        let mut ag = Map::new();
        let names = [
            ["error_failure", "error_success"],
            ["correct_failure", "correct_success"],
        ];
        for (i, row) in names.iter().enumerate() {
            for (j, name) in row.iter().enumerate() {
                ag.insert(*name, Value::int(self.agreement[i][j] as i64));
            }
        }
        m.insert("agreement", Value::Object(ag));
        let mut bc = Map::new();
        for (ch, r) in &self.by_challenge {
            bc.insert(ch.as_str(), r.to_value());
        }
        m.insert("env_success_by_challenge", Value::Object(bc));
        Value::Object(m)
    }

    /// The summary table (plain text, one metric per line).
    pub fn table(&self) -> String {
        let mut out = format!("{EXTENSION_LABEL}\n");
        for (name, r) in self.rates() {
            out.push_str(&format!("{name:<28} {}\n", r.text()));
        }
        match self.mean_excess() {
            Some((mean, lo, hi)) => out.push_str(&format!(
                "{:<28} {mean:.3}  ({} tasks; 95% {lo:.3}–{hi:.3})\n",
                "mean_excess_writes",
                self.excess.len()
            )),
            None => out.push_str(&format!("{:<28} –\n", "mean_excess_writes")),
        }
        out.push_str(&format!(
            "{:<28} {}\n",
            "answer_fact_recall",
            self.answer_fact_recall.text()
        ));
        let co: Vec<String> = Correction::ALL
            .iter()
            .map(|k| {
                format!(
                    "{} {}",
                    k.as_str(),
                    self.corrections.get(k).copied().unwrap_or(0)
                )
            })
            .collect();
        out.push_str(&format!(
            "{:<28} {}\n",
            "correction_outcomes",
            co.join(", ")
        ));
        out
    }
}

/// The header facts an `env-report.json` repeats (from the `env-result.jsonl` header).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReportHead {
    /// Model name.
    pub model_name: String,
    /// Dataset fingerprint.
    pub dataset_fingerprint: String,
    /// `gold` (or `own`).
    pub history_mode: String,
    /// Environment version.
    pub env_version: String,
    /// Run status (`done`, `partial`, `cancelled`, `failed`).
    pub status: String,
    /// Tasks of the run's env sessions.
    pub tasks_total: u64,
    /// Trial (1-based).
    pub trial: u64,
    /// Selected sessions without `ledger_env` (skipped).
    pub sessions_without_env: u64,
}

/// The whole `env-report.json` text (indented, with a final newline).
pub fn report_text(
    head: &ReportHead,
    metrics: &EnvMetrics,
    sessions: u64,
    damaged: &[usize],
) -> String {
    let mut m = Map::new();
    m.insert("format", Value::str(ENV_REPORT_FORMAT));
    m.insert("mode", Value::str("ledger-env"));
    m.insert("extension", Value::str(EXTENSION_LABEL));
    m.insert("env_version", Value::str(head.env_version.clone()));
    m.insert(
        "dataset_fingerprint",
        Value::str(head.dataset_fingerprint.clone()),
    );
    m.insert("history_mode", Value::str(head.history_mode.clone()));
    m.insert("model_name", Value::str(head.model_name.clone()));
    m.insert("trial", Value::int(head.trial as i64));
    m.insert("status", Value::str(head.status.clone()));
    m.insert("tasks_total", Value::int(head.tasks_total as i64));
    m.insert(
        "tasks_scored",
        Value::int(metrics.env_task_success.n as i64),
    );
    m.insert("sessions_scored", Value::int(sessions as i64));
    m.insert(
        "sessions_without_env",
        Value::int(head.sessions_without_env as i64),
    );
    m.insert(
        "damaged_lines",
        Value::Array(damaged.iter().map(|&n| Value::int(n as i64)).collect()),
    );
    m.insert("ledger_env", metrics.to_value());
    let mut text = dump_indent4(&Value::Object(m));
    text.push('\n');
    text
}
