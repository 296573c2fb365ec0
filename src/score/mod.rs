//! Official scoring: `params_checker`, `calc_accuracy`, parity files (PROTOCOL §4).
