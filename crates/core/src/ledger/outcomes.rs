//! Env verdicts as the per-task outcomes the comparison and repeated-trials statistics
//! read (`compare`): a task is `correct` when it has `env_success`, its name label is the
//! env trace's path label, and every task not scored in the env run (a session without
//! `ledger_env`, or not complete) is unscored. So `wildtool compare` pairs env runs on
//! `env_success` and pass^k is taken over `env_success`, with the same code as official
//! runs — and the result is labelled an extension wherever it is shown.

use std::collections::BTreeMap;

use crate::dataset::LoadedDataset;
use crate::outcome::TaskOutcome;
use crate::report::fill_outcomes;
use crate::share::task_shapes;

use super::score::TaskScore;

/// One outcome per dataset task from an env run's scored sessions (by dataset index).
pub fn env_outcomes(
    dataset: &LoadedDataset,
    scored: &BTreeMap<usize, Vec<TaskScore>>,
) -> Vec<TaskOutcome> {
    env_outcomes_on(&task_shapes(dataset), scored)
}

/// [`env_outcomes`] over the dataset's task shapes (`share::task_shapes`): what a caller
/// holding only the shapes and the scored sessions (the page's lab module) computes.
pub fn env_outcomes_on(
    shapes: &[crate::share::TaskShape],
    scored: &BTreeMap<usize, Vec<TaskScore>>,
) -> Vec<TaskOutcome> {
    let mut out = Vec::new();
    for shape in shapes {
        let Some(t) = scored
            .get(&(shape.session as usize))
            .and_then(|tasks| tasks.get(usize::from(shape.position)))
        else {
            continue;
        };
        out.push(TaskOutcome {
            session: shape.session,
            position: shape.position,
            task_type: shape.task_type,
            subtype: shape.subtype,
            transitions: shape.transitions,
            correct: t.env_success,
            name_correct: t.path_label_correct,
            optimal: t.env_success && t.excess_writes == 0,
            steps_logged: 0,
            nodes_total: shape.nodes_total,
            nodes_done: 0,
            error: None,
            incomplete: false,
        });
    }
    fill_outcomes(shapes, &out)
}
