//! The price table a command costs with: `--prices FILE` (replacing the bundled table) or
//! the bundled one, and the entry to use (`--price-model`, default the run's model).

use std::path::{Path, PathBuf};

use wildtool_core::cost::{PriceTable, Pricing};

use super::files::{read_text, FileError};

/// Price options shared by `run`, `score` and `sweep`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PriceOpts {
    /// A price table (JSON, see docs/ci.md) to use instead of the bundled one.
    #[arg(long)]
    pub prices: Option<PathBuf>,
    /// The price table entry to cost with (default: the model name).
    #[arg(long)]
    pub price_model: Option<String>,
}

/// A table and the entry name to look up.
#[derive(Debug, Clone)]
pub struct PriceChoice {
    table: PriceTable,
    source: String,
    model: Option<String>,
}

/// Why the prices cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PriceOptsError {
    /// Reading the file.
    #[error(transparent)]
    File(#[from] FileError),
    /// The table is not valid.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl PriceOpts {
    /// Whether the user asked for prices.
    pub fn given(&self) -> bool {
        self.prices.is_some() || self.price_model.is_some()
    }

    /// The table and entry to use.
    pub fn choice(&self) -> Result<PriceChoice, PriceOptsError> {
        let (table, source) = match &self.prices {
            Some(path) => (read_table(path)?, format!("price table {}", path.display())),
            None => (PriceTable::bundled(), Pricing::bundled_source()),
        };
        Ok(PriceChoice {
            table,
            source,
            model: self.price_model.clone(),
        })
    }
}

fn read_table(path: &Path) -> Result<PriceTable, PriceOptsError> {
    PriceTable::parse(&read_text(path)?).map_err(|e| PriceOptsError::Invalid {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

impl PriceChoice {
    /// The pricing of `model` (or of the chosen entry).
    pub fn pricing(&self, model: &str) -> Option<Pricing> {
        let name = self.model.as_deref().unwrap_or(model);
        Pricing::find(&self.table, name, &self.source)
    }

    /// The name looked up for `model`.
    pub fn entry_name<'a>(&'a self, model: &'a str) -> &'a str {
        self.model.as_deref().unwrap_or(model)
    }
}
