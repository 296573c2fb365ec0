//! What every number on the dashboard (and in the HTML report) means, in one place: the
//! page shows this list beside the headline, and `docs/scoring.md` carries it as a section
//! generated from it (`tests/it/docs.rs` keeps them equal).

/// `(term, definition)` in reading order: the headline metrics, their intervals, the
/// counting rule, then the chart categories.
pub const GLOSSARY: [(&str, &str); 11] = [
    (
        "Task accuracy",
        "The share of scored tasks whose final label is correct: at every step the model chose actions the gold graph accepts, and every argument check passed. Tasks that were not scored are in no denominator.",
    ),
    (
        "Session accuracy",
        "The share of scored sessions in which all four tasks are correct.",
    ),
    (
        "Optimal-path rate",
        "Over Parallel and Mixed Multi-Tool tasks: the share solved in as few steps as the gold graph allows, with independent calls bundled into one step. A correct task that made its independent calls one step at a time counts for accuracy but not here.",
    ),
    (
        "Progress rate (node-based)",
        "Over Sequential and Mixed Multi-Tool tasks: the gold nodes completed before the task's first failure, divided by all their gold nodes (a correct task completes all its nodes). This is the reading that fits the paper's published progress values.",
    ),
    (
        "Official step-based progress",
        "The released code's progress rate (progress_info in metric.json): logged steps divided by gold nodes. It counts steps, not nodes, so a step that makes several parallel calls completes several nodes but counts once, and even the gold agent stays below 100% on tasks with parallel steps; a task that fails at its first step still counts one step.",
    ),
    (
        "95% interval (Wilson)",
        "The interval under each rate: the Wilson score interval for a proportion, which stays within 0–100% and behaves well for small counts. It treats tasks as independent.",
    ),
    (
        "Session bootstrap",
        "A second interval for task accuracy that does not treat tasks as independent: whole sessions are resampled with their tasks (tasks of one session share context), 2,000 times with a fixed seed, and the middle 95% of the resampled accuracies is shown. It is usually wider than the Wilson interval.",
    ),
    (
        "Scored, unscored, partial",
        "A task is scored when its session finished and was scored; tasks of unfinished sessions (after a cancel or transport failures) are unscored and left out of every rate. A run is done when every task is scored, partial when only some are, and failed when none are; every view says how many of how many tasks were scored.",
    ),
    (
        "Instruction transitions",
        "Changes of coarse task type (Single-Tool, Multi-Tool, Clarify, Chat) between consecutive tasks of a session, 0 to 3. The chart shows the accuracy over all tasks of the sessions with that many transitions.",
    ),
    (
        "Hidden-intent subtypes",
        "Tasks 2–4 of a session carry one, from the dataset: Coreferential Reference (the information is complete but refers back with a pronoun, an ellipsis or an ordinal), Partial Information (part of what is needed was said in earlier turns) and Long-Range Dependency (what is needed was said more than one round back). Task 1 is the first turn.",
    ),
    (
        "Error classes",
        "Each failed scored task gets one class, the first rule that fits its log: Refusal (stopped at the first step without calling a tool), Wrong Name / Missing Info (called a tool the session does not have, or skipped a clarifying question the task needs), Wrong Refusal (a Chat task, which needs no tool, answered with tool calls), Redundant Call (more calls than the gold needs), Call Error (tool calls that cannot be parsed, or a function the gold does not call), Early Termination (stopped before the gold calls were done), Param Type Error (an argument of the wrong type, or arguments that are not JSON), Param Hallucination (an argument the tool does not define) and Param Value Error (a wrong value or a missing required argument). The chart shows each class's share of the failed tasks; the traces can be filtered by class.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::ErrorColumn;

    #[test]
    fn every_error_column_is_explained_by_its_published_title() {
        let (_, classes) = GLOSSARY[GLOSSARY.len() - 1];
        for c in ErrorColumn::ALL {
            assert!(
                classes.contains(&format!("{} (", c.as_str())),
                "{}",
                c.as_str()
            );
        }
    }
}
