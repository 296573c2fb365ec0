//! The price table: a JSON document of per-model prices per million tokens, with optional
//! tiers by prompt size (`data/prices.json` is the bundled default).
//!
//! ```text
//! {"wildtool_prices": 1, "currency": "USD", "as_of": "2025-06", "note": "…",
//!  "models": {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10.0},
//!             "gemini-2.5-pro": {"input": 1.25, "cached_input": 0.31, "output": 10.0,
//!                "tiers": [{"above_prompt_tokens": 200000, "input": 2.5, "output": 15.0}]},
//!             "my-finetune-*": {"input": 1.0, "output": 2.0}}}
//! ```
//!
//! A model is found by its exact name, then by the part after its last `/`
//! (`openai/gpt-4o`), then by the longest key ending in `*` that is a prefix of it. No
//! other prefix matching: `gpt-4o-mini` never takes `gpt-4o`'s prices. `cached_input`
//! defaults to `input`; a tier's missing `input` and `output` default to the base prices,
//! its missing `cached_input` keeps the base ratio of cached to uncached input.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Format version this build reads.
pub const PRICES_VERSION: u64 = 1;

/// The bundled table's text.
pub const BUNDLED: &str = include_str!("../../../../data/prices.json");

/// Prices per million tokens from a prompt size on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tier {
    /// The tier applies to requests whose prompt has more tokens than this.
    pub above_prompt_tokens: u64,
    /// Prompt tokens not read from cache.
    pub input: f64,
    /// Prompt tokens read from cache.
    pub cached_input: f64,
    /// Completion tokens.
    pub output: f64,
}

/// One model's prices per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Prompt tokens not read from cache.
    pub input: f64,
    /// Prompt tokens read from cache.
    pub cached_input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Higher prices for large prompts, by increasing threshold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<Tier>,
}

impl ModelPrice {
    /// The cost of one request with `input` prompt tokens (of which `cached` were read
    /// from cache) and `output` completion tokens.
    pub fn request_cost(&self, input: u64, cached: u64, output: u64) -> f64 {
        let (pi, pc, po) = self
            .tiers
            .iter()
            .rev()
            .find(|t| input > t.above_prompt_tokens)
            .map(|t| (t.input, t.cached_input, t.output))
            .unwrap_or((self.input, self.cached_input, self.output));
        let cached = cached.min(input);
        ((input - cached) as f64 * pi + cached as f64 * pc + output as f64 * po) / 1e6
    }
}

/// A price table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    /// Currency code of every price.
    pub currency: String,
    /// When the prices were taken (free text).
    pub as_of: Option<String>,
    /// Prices by model name or `prefix*` pattern.
    pub models: BTreeMap<String, ModelPrice>,
}

/// A table that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("price table: {0}")]
pub struct PriceError(pub String);

fn number(v: &serde_json::Value, path: &str) -> Result<f64, PriceError> {
    v.as_f64()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| PriceError(format!("{path} must be a number of at least 0")))
}

fn opt_number(
    o: &serde_json::Map<String, serde_json::Value>,
    key: &str,
    path: &str,
) -> Result<Option<f64>, PriceError> {
    o.get(key)
        .map(|v| number(v, &format!("{path}.{key}")))
        .transpose()
}

impl PriceTable {
    /// The bundled default table.
    pub fn bundled() -> Self {
        Self::parse(BUNDLED).unwrap_or(PriceTable {
            currency: "USD".to_owned(),
            as_of: None,
            models: BTreeMap::new(),
        })
    }

    /// Reads a table, naming the field of any problem.
    pub fn parse(text: &str) -> Result<Self, PriceError> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| PriceError(format!("not JSON: {e}")))?;
        let root = v
            .as_object()
            .ok_or_else(|| PriceError("must be a JSON object".to_owned()))?;
        match root.get("wildtool_prices").and_then(|x| x.as_u64()) {
            Some(PRICES_VERSION) => {}
            Some(n) => {
                return Err(PriceError(format!(
                "wildtool_prices {n} is not supported (this build reads version {PRICES_VERSION})"
            )))
            }
            None => {
                return Err(PriceError(
                    "wildtool_prices (the format version, 1) is missing".to_owned(),
                ))
            }
        }
        let currency = root
            .get("currency")
            .and_then(|c| c.as_str())
            .filter(|c| !c.is_empty())
            .ok_or_else(|| PriceError("currency must be a non-empty string".to_owned()))?
            .to_owned();
        let as_of = root
            .get("as_of")
            .and_then(|c| c.as_str())
            .map(str::to_owned);
        let models_v = root
            .get("models")
            .and_then(|m| m.as_object())
            .ok_or_else(|| PriceError("models must be an object".to_owned()))?;
        let mut models = BTreeMap::new();
        for (name, m) in models_v {
            let path = format!("models.{name}");
            let o = m
                .as_object()
                .ok_or_else(|| PriceError(format!("{path} must be an object")))?;
            let input = opt_number(o, "input", &path)?
                .ok_or_else(|| PriceError(format!("{path}.input is missing")))?;
            let output = opt_number(o, "output", &path)?
                .ok_or_else(|| PriceError(format!("{path}.output is missing")))?;
            let cached_input = opt_number(o, "cached_input", &path)?.unwrap_or(input);
            let mut tiers = Vec::new();
            if let Some(list) = o.get("tiers") {
                let list = list
                    .as_array()
                    .ok_or_else(|| PriceError(format!("{path}.tiers must be a list")))?;
                for (i, t) in list.iter().enumerate() {
                    let tp = format!("{path}.tiers[{i}]");
                    let to = t
                        .as_object()
                        .ok_or_else(|| PriceError(format!("{tp} must be an object")))?;
                    let above = to
                        .get("above_prompt_tokens")
                        .and_then(|x| x.as_u64())
                        .ok_or_else(|| {
                            PriceError(format!("{tp}.above_prompt_tokens must be a whole number"))
                        })?;
                    let ti = opt_number(to, "input", &tp)?.unwrap_or(input);
                    tiers.push(Tier {
                        above_prompt_tokens: above,
                        input: ti,
                        cached_input: opt_number(to, "cached_input", &tp)?.unwrap_or(
                            if input > 0.0 {
                                ti * cached_input / input
                            } else {
                                ti
                            },
                        ),
                        output: opt_number(to, "output", &tp)?.unwrap_or(output),
                    });
                }
            }
            crate::order::sort_by_key(&mut tiers, |t| t.above_prompt_tokens);
            models.insert(
                name.clone(),
                ModelPrice {
                    input,
                    cached_input,
                    output,
                    tiers,
                },
            );
        }
        Ok(PriceTable {
            currency,
            as_of,
            models,
        })
    }

    /// The entry for `model` and the key it was found under (see the module docs).
    pub fn lookup(&self, model: &str) -> Option<(&str, &ModelPrice)> {
        if let Some((k, p)) = self.models.get_key_value(model) {
            return Some((k, p));
        }
        let tail = model.rsplit('/').next().unwrap_or(model);
        if let Some((k, p)) = self.models.get_key_value(tail) {
            return Some((k, p));
        }
        self.models
            .iter()
            .filter_map(|(k, p)| {
                let prefix = k.strip_suffix('*')?;
                (model.starts_with(prefix) || tail.starts_with(prefix)).then_some((
                    k.as_str(),
                    p,
                    prefix.len(),
                ))
            })
            .max_by_key(|(_, _, n)| *n)
            .map(|(k, p, _)| (k, p))
    }
}

/// The prices a run is costed with: the table's currency, the entry's key and the rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pricing {
    /// Currency code.
    pub currency: String,
    /// The table entry used.
    pub model: String,
    /// Where the table came from (`bundled table (as of …)` or a file name).
    pub source: String,
    /// The rates.
    pub prices: ModelPrice,
}

impl Pricing {
    /// The pricing of `model` in `table` from `source` (`None` when it has no entry).
    pub fn find(table: &PriceTable, model: &str, source: &str) -> Option<Self> {
        table.lookup(model).map(|(key, p)| Pricing {
            currency: table.currency.clone(),
            model: key.to_owned(),
            source: source.to_owned(),
            prices: p.clone(),
        })
    }

    /// The name of the bundled table as a source.
    pub fn bundled_source() -> String {
        match PriceTable::bundled().as_of {
            Some(d) => format!("bundled price table (as of {d})"),
            None => "bundled price table".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_table_reads_and_looks_up() {
        let t = PriceTable::bundled();
        assert_eq!(t.currency, "USD");
        assert!(t.models.len() >= 4);
        assert_eq!(t.lookup("gpt-4o").map(|(k, _)| k), Some("gpt-4o"));
        assert_eq!(t.lookup("openai/gpt-4o").map(|(k, _)| k), Some("gpt-4o"));
        assert_eq!(t.lookup("gpt-4o-2024-08-06"), None);
        assert_eq!(t.lookup("gpt-4o-mini").map(|(k, _)| k), Some("gpt-4o-mini"));
    }

    #[test]
    fn tiers_patterns_and_errors() {
        let t = PriceTable::parse(
            r#"{"wildtool_prices": 1, "currency": "EUR", "models": {
                "m": {"input": 1, "output": 4, "cached_input": 0.5,
                      "tiers": [{"above_prompt_tokens": 1000, "input": 2, "cached_input": 1}]},
                "ft-*": {"input": 3, "output": 3}, "ft-long-*": {"input": 5, "output": 5}}}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let m = &t.models["m"];
        // 1,000 prompt tokens (200 cached) and 100 out: base rates.
        assert!((m.request_cost(1000, 200, 100) - (800.0 + 100.0 + 400.0) / 1e6).abs() < 1e-15);
        // 1,001 prompt tokens: the tier (output keeps its base price).
        assert!((m.request_cost(1001, 1, 0) - (2000.0 + 1.0) / 1e6).abs() < 1e-15);
        assert_eq!(t.lookup("ft-long-7").map(|(k, _)| k), Some("ft-long-*"));
        assert_eq!(t.lookup("ft-x").map(|(k, _)| k), Some("ft-*"));
        assert_eq!(t.models["ft-*"].cached_input, 3.0);
        for (bad, needle) in [
            (r#"{"currency": "USD", "models": {}}"#, "wildtool_prices"),
            (
                r#"{"wildtool_prices": 2, "currency": "USD", "models": {}}"#,
                "version",
            ),
            (
                r#"{"wildtool_prices": 1, "currency": "USD", "models": {"x": {"input": -1, "output": 1}}}"#,
                "models.x.input",
            ),
            (
                r#"{"wildtool_prices": 1, "currency": "USD", "models": {"x": {"input": 1}}}"#,
                "models.x.output",
            ),
            (
                r#"{"wildtool_prices": 1, "currency": "USD", "models": {"x": {"input": 1, "output": 1, "tiers": [{"input": 2}]}}}"#,
                "tiers[0].above_prompt_tokens",
            ),
        ] {
            let e = PriceTable::parse(bad)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }
}
