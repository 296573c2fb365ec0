//! Deterministic synthetic dataset shapes and outcomes for the page's demo mode.

use crate::outcome::{transition_count, RawErrorLabel, TaskOutcome, TaskType, TurnSubtype};
use crate::share::{ShareHeader, SharedRun, TaskShape};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<T: Copy>(&mut self, items: &[T], fallback: T) -> T {
        let i = self.below(items.len() as u64) as usize;
        items.get(i).copied().unwrap_or(fallback)
    }
}

/// 256 sessions × 4 tasks with a WildToolBench-like type mix and a plausible run.
pub(crate) fn demo() -> (Vec<TaskShape>, SharedRun) {
    let mut rng = XorShift(0x5eed_1234_abcd_ef01);
    let mut shapes = Vec::with_capacity(1024);
    let mut outcomes = Vec::with_capacity(1024);
    for session in 0..256u32 {
        let types: Vec<TaskType> = (0..4)
            .map(|_| match rng.below(8) {
                0 | 1 => TaskType::SingleTool,
                2 => TaskType::ParallelMultiTool,
                3 => rng.pick(
                    &[TaskType::MixedMultiTool, TaskType::SequentialMultiTool],
                    TaskType::MixedMultiTool,
                ),
                4 | 5 => TaskType::Clarify,
                _ => TaskType::Chat,
            })
            .collect();
        let transitions = transition_count(&types);
        for (position, t) in types.iter().enumerate() {
            let nodes_total: u16 = match t {
                TaskType::Chat => 1,
                TaskType::SingleTool => 2,
                TaskType::Clarify => 3,
                _ => 3 + rng.below(3) as u16,
            };
            let shape = TaskShape {
                session,
                position: position as u8,
                task_type: *t,
                subtype: (position > 0)
                    .then(|| rng.pick(&TurnSubtype::ALL, TurnSubtype::PartialInformation)),
                transitions,
                nodes_total,
                min_length: nodes_total.saturating_sub(1).max(1),
            };
            // Accuracy falls with position and transitions, rises for Chat.
            let base: u64 = match t {
                TaskType::Chat => 97,
                TaskType::SingleTool => 85,
                TaskType::Clarify => 72,
                _ => 62,
            };
            let p = base.saturating_sub(position as u64 * 4 + u64::from(transitions) * 3);
            let correct = rng.below(100) < p;
            let error = (!correct).then(|| {
                let code = match t {
                    TaskType::Chat => 1,
                    TaskType::Clarify => rng.pick(&[4u8, 0, 5], 4),
                    _ => rng.pick(&[0u8, 5, 6, 7, 8, 9, 10, 11, 11], 0),
                };
                RawErrorLabel::from_code(code).unwrap_or(RawErrorLabel::Refusal)
            });
            let name_correct = correct || error.is_some_and(|e| e.code() >= 8);
            let nodes_done = if correct {
                nodes_total
            } else {
                rng.below(u64::from(nodes_total)) as u16
            };
            outcomes.push(TaskOutcome {
                session,
                position: position as u8,
                task_type: *t,
                subtype: shape.subtype,
                transitions,
                correct,
                name_correct,
                optimal: correct && rng.below(4) > 0,
                steps_logged: if correct {
                    shape.min_length
                } else {
                    1 + nodes_done.min(nodes_total)
                },
                nodes_total,
                nodes_done,
                error,
                incomplete: false,
            });
            shapes.push(shape);
        }
    }
    let run = SharedRun {
        header: ShareHeader {
            scorer_version: env!("CARGO_PKG_VERSION").to_owned(),
            model_label: "demo model (synthetic outcomes)".to_owned(),
            dataset_fingerprint: 0xd3_0000_0000_0001,
            task_count: shapes.len() as u32,
        },
        outcomes,
    };
    (shapes, run)
}
