//! A run's cost in money: every recorded request of its scored tasks priced with the
//! run's [`Pricing`], and the cost per task and per solved task (the `cost` section of
//! `report.json`).

use serde::{Deserialize, Serialize};

use super::prices::Pricing;
use super::usage::StepTokens;

/// Running sums while pricing requests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CostTally {
    /// Requests priced.
    pub requests: u64,
    /// Requests without reported prompt or completion tokens (priced at what was reported).
    pub unreported: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Prompt tokens read from cache.
    pub cached_input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Requests whose server reported a cached count.
    pub cached_reported: u64,
    /// The cost.
    pub total: f64,
}

impl CostTally {
    /// Prices one task's requests.
    pub fn add_task(&mut self, pricing: &Pricing, steps: &[StepTokens]) {
        for s in steps {
            self.requests += 1;
            if s.input.is_none() || s.output.is_none() {
                self.unreported += 1;
            }
            let (i, c, o) = (
                s.input.unwrap_or(0),
                s.cached_input.unwrap_or(0),
                s.output.unwrap_or(0),
            );
            self.cached_reported += u64::from(s.cached_input.is_some());
            self.input_tokens += i;
            self.cached_input_tokens += c.min(i);
            self.output_tokens += o;
            self.total += pricing.prices.request_cost(i, c, o);
        }
    }
}

/// The `cost` section of `report.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostFigures {
    /// The prices used.
    pub pricing: Pricing,
    /// Requests priced (every recorded step of the scored tasks).
    pub requests: u64,
    /// Of those, requests whose server reported no token counts (counted as 0).
    pub unreported_requests: u64,
    /// Prompt tokens (cached included).
    pub input_tokens: u64,
    /// Prompt tokens read from cache (0 when the server reported none).
    pub cached_input_tokens: u64,
    /// Whether any request reported a cached count (`false`: cached tokens are unknown
    /// and every prompt token was priced as uncached).
    pub cached_known: bool,
    /// Completion tokens.
    pub output_tokens: u64,
    /// The cost of the scored tasks' requests.
    pub total: f64,
    /// Tasks priced (the scored tasks).
    pub tasks: u64,
    /// Of those, tasks solved (`correct`).
    pub solved: u64,
    /// `total / tasks` (`null` without tasks).
    pub per_task: Option<f64>,
    /// `total / solved` (`null` when no task was solved).
    pub per_solved_task: Option<f64>,
}

impl CostFigures {
    /// The figures of `tally` over `tasks` scored tasks of which `solved` were solved.
    pub fn new(pricing: &Pricing, tally: &CostTally, tasks: u64, solved: u64) -> Self {
        CostFigures {
            pricing: pricing.clone(),
            requests: tally.requests,
            unreported_requests: tally.unreported,
            input_tokens: tally.input_tokens,
            cached_input_tokens: tally.cached_input_tokens,
            cached_known: tally.cached_reported > 0,
            output_tokens: tally.output_tokens,
            total: tally.total,
            tasks,
            solved,
            per_task: (tasks > 0).then(|| tally.total / tasks as f64),
            per_solved_task: (solved > 0).then(|| tally.total / solved as f64),
        }
    }

    /// The figures of several trials together (`None` without any, or when their prices
    /// differ): sums, with per-task figures over every trial's tasks.
    pub fn combine(parts: &[CostFigures]) -> Option<CostFigures> {
        let first = parts.first()?;
        if parts.iter().any(|p| p.pricing != first.pricing) {
            return None;
        }
        let mut tally = CostTally::default();
        let (mut tasks, mut solved, mut cached_known) = (0, 0, false);
        for p in parts {
            tally.requests += p.requests;
            tally.unreported += p.unreported_requests;
            tally.input_tokens += p.input_tokens;
            tally.cached_input_tokens += p.cached_input_tokens;
            tally.output_tokens += p.output_tokens;
            tally.total += p.total;
            tasks += p.tasks;
            solved += p.solved;
            cached_known |= p.cached_known;
        }
        tally.cached_reported = u64::from(cached_known);
        Some(CostFigures::new(&first.pricing, &tally, tasks, solved))
    }

    /// One line: `cost: 1.23 USD (0.0048 per task, 0.0061 per solved task; gpt-4o, bundled …)`.
    pub fn line(&self) -> String {
        let per = |v: Option<f64>, what: &str| match v {
            Some(x) => format!("{} per {what}", money(x)),
            None => format!("no {what}"),
        };
        format!(
            "cost: {} {} ({}, {}; {} requests, {} prompt tokens of which {} cached{}, {} completion tokens; prices of {} from the {})",
            money(self.total),
            self.pricing.currency,
            per(self.per_task, "task"),
            per(self.per_solved_task, "solved task"),
            self.requests,
            self.input_tokens,
            self.cached_input_tokens,
            if self.cached_known { "" } else { " (not reported)" },
            self.output_tokens,
            self.pricing.model,
            self.pricing.source
        )
    }
}

/// The figures of a scored run: every scored task of `outcomes` priced with its recorded
/// steps from `usage` (`(session, position, steps)`, as `usage::line_usage` reads them).
pub fn run_figures(
    pricing: &Pricing,
    outcomes: &[crate::outcome::TaskOutcome],
    usage: &[(usize, usize, Vec<StepTokens>)],
) -> CostFigures {
    let by_task: std::collections::BTreeMap<(usize, usize), &[StepTokens]> = crate::order::map_from(
        usage
            .iter()
            .map(|(s, p, steps)| ((*s, *p), steps.as_slice())),
    );
    let mut tally = CostTally::default();
    let (mut tasks, mut solved) = (0u64, 0u64);
    for o in outcomes.iter().filter(|o| !o.incomplete) {
        tasks += 1;
        solved += u64::from(o.correct);
        if let Some(steps) = by_task.get(&(o.session as usize, usize::from(o.position))) {
            tally.add_task(pricing, steps);
        }
    }
    CostFigures::new(pricing, &tally, tasks, solved)
}

/// An amount with four significant digits (`1.234`, `0.004821`).
pub fn money(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".to_owned();
    }
    if x == 0.0 {
        return "0.00".to_owned();
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(2, 10) as usize;
    format!("{x:.digits$}")
}
