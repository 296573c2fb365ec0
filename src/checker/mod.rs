//! The official argument checker (PROTOCOL §5).

pub mod difflib;
pub mod pystr;
pub mod rouge;
pub mod segment;
