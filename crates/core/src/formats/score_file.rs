//! The score file (`score.jsonl`): the official scorer writes one line per result line,
//! sorted by the line index in the id (`wild_tool_bench_N` → `N`), ties in file order,
//! joined by `\n` without a trailing newline. [`ScoreOrder`] is that ordering (the command
//! line orders line positions with it before scoring, so a huge file is never held in
//! memory); [`ScoreFile`] collects scored lines in any order and gives the file, the
//! outcomes and `metric.json` (the page).

use crate::outcome::TaskOutcome;
use crate::score::{ScoredLine, Scorer};

/// What goes between two score lines (there is none after the last).
pub const SEPARATOR: &str = "\n";

/// The model name used when neither the user nor the result file gives one.
pub const UNKNOWN_MODEL: &str = "unknown-model";

/// The sort key of a result line: the integer after the last `_` of its id. It is read
/// cheaply from the official line prefix (`{"id": "wild_tool_bench_N"`) and otherwise by
/// parsing the line; lines without a usable id sort last (scoring reports them).
pub fn sort_key(line: &str) -> usize {
    let suffix = |id: &str| id.rsplit('_').next().and_then(|n| n.parse::<usize>().ok());
    if let Some(rest) = line.strip_prefix("{\"id\": \"") {
        if let Some(index) = rest.split('"').next().and_then(suffix) {
            return index;
        }
    }
    crate::json::loads(line)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).and_then(suffix))
        .unwrap_or(usize::MAX)
}

/// Items in score-file order: by sort key, then by line number.
#[derive(Debug, Clone)]
pub struct ScoreOrder<T> {
    items: Vec<(usize, usize, T)>,
}

impl<T> Default for ScoreOrder<T> {
    fn default() -> Self {
        Self { items: Vec::new() }
    }
}

impl<T> ScoreOrder<T> {
    /// An empty order.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the item of line `line_no` (1-based) with sort key `key` (see [`sort_key`]).
    pub fn push(&mut self, key: usize, line_no: usize, item: T) {
        self.items.push((key, line_no, item));
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The items in score-file order, borrowed.
    pub fn sorted(&self) -> Vec<&T> {
        let mut refs: Vec<&(usize, usize, T)> = self.items.iter().collect();
        crate::order::sort_by_key(&mut refs, |(key, line, _)| (*key, *line));
        refs.into_iter().map(|(_, _, item)| item).collect()
    }

    /// The items in score-file order.
    pub fn into_sorted(mut self) -> Vec<T> {
        crate::order::sort_by_key(&mut self.items, |(key, line, _)| (*key, *line));
        self.items.into_iter().map(|(_, _, item)| item).collect()
    }
}

/// The model name for `metric.json` and reports: the user's (when not empty), else the
/// result file's (`/` as `_`), else [`UNKNOWN_MODEL`].
pub fn model_name(user: Option<&str>, scorer: &Scorer<'_>) -> String {
    user.filter(|m| !m.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| scorer.model_name().map(str::to_owned))
        .unwrap_or_else(|| UNKNOWN_MODEL.to_owned())
}

/// Scored lines collected in any order.
#[derive(Debug, Clone, Default)]
pub struct ScoreFile {
    order: ScoreOrder<ScoredLine>,
}

/// The finished score file.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreOutput {
    /// `score.jsonl` text (byte-identical to the official file).
    pub score_jsonl: String,
    /// The outcomes of every scored line, in score-file order.
    pub outcomes: Vec<TaskOutcome>,
}

impl ScoreFile {
    /// An empty score file.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the scored line read from line `line_no` (1-based).
    pub fn push(&mut self, line_no: usize, line: ScoredLine) {
        self.order.push(line.index, line_no, line);
    }

    /// Lines collected.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when nothing was scored.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The `score.jsonl` text so far.
    pub fn score_jsonl(&self) -> String {
        let lines = self.order.sorted();
        let mut out = String::with_capacity(lines.iter().map(|l| l.score_line.len() + 1).sum());
        for (i, line) in lines.into_iter().enumerate() {
            if i > 0 {
                out.push_str(SEPARATOR);
            }
            out.push_str(&line.score_line);
        }
        out
    }

    /// The outcomes so far, in score-file order.
    pub fn outcomes(&self) -> Vec<TaskOutcome> {
        self.order
            .sorted()
            .into_iter()
            .flat_map(|l| l.outcomes.iter().cloned())
            .collect()
    }

    /// The scored lines in score-file order: `score.jsonl` is their `score_line`s joined
    /// by [`SEPARATOR`] (for writing it in pieces without building the whole text).
    pub fn into_lines(self) -> Vec<ScoredLine> {
        self.order.into_sorted()
    }

    /// The score file and outcomes in order.
    pub fn finish(self) -> ScoreOutput {
        ScoreOutput {
            score_jsonl: self.score_jsonl(),
            outcomes: self.outcomes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_order() {
        assert_eq!(sort_key("{\"id\": \"wild_tool_bench_12\", \"x\": 1}"), 12);
        assert_eq!(sort_key("{\"model_name\": \"m\", \"id\": \"a_b_7\"}"), 7);
        assert_eq!(sort_key("{broken"), usize::MAX);
        let mut o = ScoreOrder::new();
        o.push(3, 1, "c1");
        o.push(1, 4, "a4");
        o.push(3, 0, "c0");
        o.push(usize::MAX, 2, "z");
        o.push(1, 2, "a2");
        assert_eq!(o.into_sorted(), vec!["a2", "a4", "c0", "c1", "z"]);
    }

    #[test]
    fn lines_join_without_a_trailing_newline() {
        let line = |index: usize, text: &str| ScoredLine {
            index,
            id: format!("s_{index}"),
            score_line: text.to_owned(),
            outcomes: Vec::new(),
        };
        let mut f = ScoreFile::new();
        f.push(1, line(2, "two"));
        f.push(2, line(0, "zero"));
        f.push(3, line(2, "two again"));
        assert_eq!(f.finish().score_jsonl, "zero\ntwo\ntwo again");
        assert_eq!(ScoreFile::new().finish().score_jsonl, "");
    }
}
