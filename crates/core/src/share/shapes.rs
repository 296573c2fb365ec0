//! The static shape of every dataset task, in dataset order.

use super::TaskShape;
use crate::dataset::LoadedDataset;
use crate::protocol::Paths;

/// One [`TaskShape`] per processed task of every loaded session, in dataset order
/// (numbers too large for their field saturate; a task whose gold graph cannot be built
/// gets `min_length` 0).
pub fn task_shapes(dataset: &LoadedDataset) -> Vec<TaskShape> {
    let mut out = Vec::new();
    for s in &dataset.sessions {
        let transitions = s.transitions();
        for t in &s.tasks {
            let min_length = Paths::new(t).map(|p| p.min_length()).unwrap_or(0);
            out.push(TaskShape {
                session: u32::try_from(s.index).unwrap_or(u32::MAX),
                position: u8::try_from(t.position).unwrap_or(u8::MAX),
                task_type: t.task_type,
                subtype: t.subtype,
                transitions,
                nodes_total: u16::try_from(t.progress_nodes).unwrap_or(u16::MAX),
                min_length: u16::try_from(min_length).unwrap_or(u16::MAX),
            });
        }
    }
    out
}
