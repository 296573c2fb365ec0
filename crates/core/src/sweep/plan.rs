//! What a sweep runs: one factor, its levels, and the suite every level shares (seed,
//! sessions per level, the factors held fixed). One parser for the command line and the
//! page.

use crate::generate::{self, Factor, GenerateError, GenerateSpec, PackText};

use super::SweepError;

/// Most levels one sweep may have.
pub const MAX_LEVELS: usize = 16;

/// A sweep's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepPlan {
    /// The swept factor.
    pub factor: Factor,
    /// Its levels as given (trimmed), in order.
    pub levels: Vec<String>,
    /// The suite of every level without the swept factor: seed, sessions per level and
    /// the factors held fixed.
    pub base: GenerateSpec,
}

impl SweepPlan {
    /// Parses `factor=v1,v2,…` (levels joined by `,`; a list-valued level joins its items
    /// with `+`, e.g. `types=single+chat+chat+chat,multi+multi+multi+multi`) over `base`.
    /// Checks that there are 2 to [`MAX_LEVELS`] distinct levels, that the factor is not
    /// also held fixed in `base`, and that every level's suite can be generated.
    pub fn parse(factor_levels: &str, base: GenerateSpec) -> Result<Self, SweepError> {
        let (name, values) = factor_levels.split_once('=').ok_or_else(|| {
            SweepError::Plan(format!(
                "--factor needs name=level,level,… (e.g. transitions=0,1,2,3), not {factor_levels:?}"
            ))
        })?;
        let factor = Factor::parse(name).ok_or_else(|| {
            SweepError::Plan(format!(
                "unknown factor {:?} (known: {})",
                name.trim(),
                generate::FACTORS
                    .iter()
                    .map(|f| f.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        if base.factor_value(factor).is_some() {
            return Err(SweepError::Plan(format!(
                "{} is swept, so it cannot also be held fixed",
                factor.name()
            )));
        }
        let levels: Vec<String> = values
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect();
        if levels.len() < 2 || levels.len() > MAX_LEVELS {
            return Err(SweepError::Plan(format!(
                "a sweep needs 2 to {MAX_LEVELS} levels of {}, got {}",
                factor.name(),
                levels.len()
            )));
        }
        let plan = Self {
            factor,
            levels,
            base,
        };
        let mut canonical = Vec::new();
        let mut dirs = Vec::new();
        for i in 0..plan.levels.len() {
            let spec = plan.level_spec(i)?;
            spec.check().map_err(SweepError::Generate)?;
            let value = spec.factor_value(factor).unwrap_or_default();
            let dir = plan.dir_name(i);
            if canonical.contains(&value) || dirs.contains(&dir) {
                return Err(SweepError::Plan(format!(
                    "level {:?} of {} is given twice",
                    plan.levels.get(i).map(String::as_str).unwrap_or(""),
                    factor.name()
                )));
            }
            canonical.push(value);
            dirs.push(dir);
        }
        let ledger = (0..plan.levels.len())
            .filter(|&i| plan.level_spec(i).is_ok_and(|s| s.is_ledger()))
            .count();
        if ledger != 0 && ledger != plan.levels.len() {
            return Err(SweepError::Plan(
                "some levels are ledger-environment suites and some are not; a sweep's levels all run the same way".into(),
            ));
        }
        Ok(plan)
    }

    /// Whether the levels are ledger-environment suites (`env=ledger`, or a `challenge`):
    /// they run in the ledger environment and are counted on `env_success`.
    pub fn is_ledger(&self) -> bool {
        self.level_spec(0).is_ok_and(|s| s.is_ledger())
    }

    /// The plan from the options both front doors take: `factor=level,…`, the seed, the
    /// sessions per level and the factors held fixed (`name=value,…`, may be empty), each
    /// as text (checked here, with the generator's messages).
    pub fn from_options(
        factor_levels: &str,
        seed: &str,
        per_level: &str,
        hold: &str,
    ) -> Result<Self, SweepError> {
        let mut text = format!("seed={},sessions={}", seed.trim(), per_level.trim());
        if !hold.trim().is_empty() {
            text.push(',');
            text.push_str(hold.trim());
        }
        let base = GenerateSpec::parse(&text).map_err(SweepError::Generate)?;
        Self::parse(factor_levels, base)
    }

    /// The suite of level `i`: the base with the factor set to the level.
    pub fn level_spec(&self, i: usize) -> Result<GenerateSpec, SweepError> {
        let value = self
            .levels
            .get(i)
            .ok_or_else(|| SweepError::Plan(format!("no level {i}")))?;
        let mut spec = self.base.clone();
        spec.set_factor(self.factor, value)
            .map_err(SweepError::Generate)?;
        Ok(spec)
    }

    /// Generates the dataset of level `i` (`generate::generate_level`, or the ledger
    /// environment's builder for `env=ledger` levels).
    pub fn generate_level(
        &self,
        packs: &[PackText<'_>],
        i: usize,
    ) -> Result<String, GenerateError> {
        let value = self
            .levels
            .get(i)
            .ok_or_else(|| GenerateError::Spec(format!("no level {i}")))?;
        let mut spec = self.base.clone();
        spec.set_factor(self.factor, value)?;
        crate::ledger::generated::generate(packs, &spec)
    }

    /// The directory (or label) of level `i`: `level-<value>`, characters other than
    /// letters, digits, `+`, `-`, `_` and `.` replaced by `_`.
    pub fn dir_name(&self, i: usize) -> String {
        let value = self.levels.get(i).map(String::as_str).unwrap_or("");
        let cleaned: String = value
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("level-{cleaned}")
    }

    /// The level scores of the trend test: the levels' numeric values when every level
    /// is a number, otherwise their positions (0, 1, 2, … in the order given).
    pub fn scores(&self) -> Vec<f64> {
        level_scores(&self.levels)
    }

    /// `factor=level,level,…`, as [`SweepPlan::parse`] reads it.
    pub fn factor_text(&self) -> String {
        format!("{}={}", self.factor.name(), self.levels.join(","))
    }
}

/// Numeric values when every level parses as a finite number, else positions.
pub fn level_scores(levels: &[String]) -> Vec<f64> {
    let numeric: Option<Vec<f64>> = levels
        .iter()
        .map(|l| l.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect();
    numeric.unwrap_or_else(|| (0..levels.len()).map(|i| i as f64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_checked() {
        let base = GenerateSpec::new(3, 8);
        let p = SweepPlan::parse("transitions=0, 1,2,3", base.clone());
        let p = p.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.levels, vec!["0", "1", "2", "3"]);
        assert_eq!(p.scores(), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(p.dir_name(2), "level-2");
        assert_eq!(p.factor_text(), "transitions=0,1,2,3");
        let shapes = SweepPlan::parse("shape=fan-in,chain-side", base.clone());
        assert_eq!(
            shapes.map(|p| p.scores()).unwrap_or_default(),
            vec![0.0, 1.0]
        );
        for bad in [
            "transitions=0",
            "transitions=0,0",
            "transitions=0,4",
            "colour=red,blue",
            "transitions",
            "subtypes=coref,coref+coref+coref",
        ] {
            assert!(SweepPlan::parse(bad, base.clone()).is_err(), "{bad}");
        }
        let mut held = base;
        held.set("transitions", "1").unwrap_or_default();
        assert!(SweepPlan::parse("transitions=0,1", held.clone()).is_err());
        held.set("types", "single+single+chat+chat")
            .unwrap_or_default();
        // types fixed with one transition: only transitions=1 holds.
        held.transitions = None;
        assert!(SweepPlan::parse("transitions=0,1", held).is_err());
    }
}
