//! Dataset model, loader and validation (PROTOCOL §1).
