//! Lists and numbers both page modules use.

/// The columns the ranked leaderboard sorts by.
pub const BOARD_KEYS: [&str; 7] = [
    "task", "session", "single", "multi", "clarify", "chat", "label",
];

/// Rows of a per-task table shown at first, and added by "Show more".
pub const DIFF_ROWS: usize = 50;

/// The row filters of a comparison's per-task table.
pub const DIFF_FILTERS: [&str; 7] = [
    "discordant",
    "a_only",
    "b_only",
    "both",
    "neither",
    "tie",
    "all",
];
