//! Cost in money: the price table ([`prices`]), token usage as recorded ([`usage`]), a
//! run's cost figures ([`figures`]) and the estimate before a run ([`estimate`]).

pub mod estimate;
pub mod figures;
pub mod prices;
pub mod usage;

pub use figures::{CostFigures, CostTally};
pub use prices::{ModelPrice, PriceTable, Pricing};
