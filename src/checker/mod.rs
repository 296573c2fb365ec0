//! The official argument checker (PROTOCOL §5).
