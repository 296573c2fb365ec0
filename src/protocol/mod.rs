//! The official inference protocol as a sans-IO task state machine (PROTOCOL §2).
