//! Metrics the paper reports but the released code does not compute (PROTOCOL §7, §8).
