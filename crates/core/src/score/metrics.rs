//! `calc_accuracy` (PROTOCOL §4.3) and the `metric.json` layout (§4.4).

use crate::json::{Map, Value};
use crate::outcome::{TaskType, TurnSubtype};

/// An accuracy bucket: `{"accuracy", "correct_count", "total_count"}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    /// Tasks (or sessions) counted as correct.
    pub correct: u64,
    /// Tasks (or sessions) counted.
    pub total: u64,
}

impl Bucket {
    /// Counts one item.
    pub fn add(&mut self, correct: bool) {
        self.total += 1;
        if correct {
            self.correct += 1;
        }
    }

    /// `correct / total`, or 0.0 when empty (as the official code).
    pub fn accuracy(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.correct as f64 / self.total as f64
        }
    }

    fn to_value(self) -> Value {
        let mut m = Map::new();
        m.insert("accuracy", Value::Float(self.accuracy()));
        m.insert("correct_count", Value::int(self.correct as i64));
        m.insert("total_count", Value::int(self.total as i64));
        Value::Object(m)
    }
}

/// A progress bucket: `{"rate", "complete_step", "total_step"}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProgressBucket {
    /// Logged steps (after deletions).
    pub complete: u64,
    /// Gold nodes (`len(answer_list[i])`).
    pub total: u64,
}

impl ProgressBucket {
    /// `complete / total`, or 0.0 when empty.
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.complete as f64 / self.total as f64
        }
    }

    fn to_value(self) -> Value {
        let mut m = Map::new();
        m.insert("rate", Value::Float(self.rate()));
        m.insert("complete_step", Value::int(self.complete as i64));
        m.insert("total_step", Value::int(self.total as i64));
        Value::Object(m)
    }
}

/// One scored task as `calc_accuracy` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskTally {
    /// Position in the session's `results` (the `layer_info` key).
    pub position: usize,
    /// Dataset type of that position.
    pub task_type: TaskType,
    /// Dataset subtype (`None` for position 0).
    pub subtype: Option<TurnSubtype>,
    /// `label == "correct"`.
    pub correct: bool,
    /// `is_optimal` after §4.2.
    pub optimal: bool,
    /// Log keys starting with `step` (after deletions).
    pub steps_logged: u64,
    /// `len(answer_list[i])`.
    pub nodes_total: u64,
}

/// The official metrics of one run, accumulated session by session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// `total_info.task`
    pub task: Bucket,
    /// `total_info.session`
    pub session: Bucket,
    /// `task_type_info` per type.
    pub by_type: [Bucket; 6],
    /// `task_type_info["Multi-Tool"]`
    pub multi: Bucket,
    /// `layer_info["0".."3"]`
    pub layer: [Bucket; 4],
    /// `turn_subtype_info["First Turn"]`
    pub first_turn: Bucket,
    /// `turn_subtype_info["Subsequent Turn"]`
    pub subsequent_turn: Bucket,
    /// `turn_subtype_info` per subtype.
    pub by_subtype: [Bucket; 3],
    /// `optimal_info` Total, Parallel, Mixed.
    pub optimal: [Bucket; 3],
    /// `progress_info` Total, Sequential, Mixed.
    pub progress: [ProgressBucket; 3],
}

impl Metrics {
    /// Adds one session: its tasks in `results` order.
    pub fn add_session(&mut self, tasks: &[TaskTally]) {
        for t in tasks {
            self.add_task(t);
        }
        self.session.add(tasks.iter().all(|t| t.correct));
    }

    fn add_task(&mut self, t: &TaskTally) {
        self.task.add(t.correct);
        self.by_type[t.task_type.code() as usize].add(t.correct);
        if t.task_type.is_multi() {
            self.multi.add(t.correct);
        }
        if let Some(layer) = self.layer.get_mut(t.position) {
            layer.add(t.correct);
        }
        if t.position == 0 {
            self.first_turn.add(t.correct);
        } else {
            if let Some(sub) = t.subtype {
                self.by_subtype[sub.code() as usize].add(t.correct);
            }
            self.subsequent_turn.add(t.correct);
        }
        match t.task_type {
            TaskType::ParallelMultiTool => {
                self.optimal[0].add(t.optimal);
                self.optimal[1].add(t.optimal);
            }
            TaskType::MixedMultiTool => {
                self.optimal[0].add(t.optimal);
                self.optimal[2].add(t.optimal);
            }
            _ => {}
        }
        let progress_slot = match t.task_type {
            TaskType::SequentialMultiTool => Some(1),
            TaskType::MixedMultiTool => Some(2),
            _ => None,
        };
        if let Some(slot) = progress_slot {
            for i in [0, slot] {
                self.progress[i].complete += t.steps_logged;
                self.progress[i].total += t.nodes_total;
            }
        }
    }

    /// The `metric.json` object with the official names and order (§4.4).
    pub fn to_value(&self, model_name: &str) -> Value {
        let mut root = Map::new();
        root.insert("model_name", Value::str(model_name));

        let mut total = Map::new();
        total.insert("task", self.task.to_value());
        total.insert("session", self.session.to_value());
        root.insert("total_info", Value::Object(total));

        let mut types = Map::new();
        types.insert(TaskType::SingleTool.as_str(), self.by_type[0].to_value());
        types.insert("Multi-Tool", self.multi.to_value());
        for t in &TaskType::ALL[1..] {
            types.insert(t.as_str(), self.by_type[t.code() as usize].to_value());
        }
        root.insert("task_type_info", Value::Object(types));

        let layers: Map = self
            .layer
            .iter()
            .enumerate()
            .map(|(i, b)| (i.to_string(), b.to_value()))
            .collect();
        root.insert("layer_info", Value::Object(layers));

        let mut turns = Map::new();
        turns.insert("First Turn", self.first_turn.to_value());
        turns.insert("Subsequent Turn", self.subsequent_turn.to_value());
        for s in TurnSubtype::ALL {
            turns.insert(s.as_str(), self.by_subtype[s.code() as usize].to_value());
        }
        root.insert("turn_subtype_info", Value::Object(turns));

        let mut optimal = Map::new();
        for (name, b) in ["Total", "Parallel Multi-Tool", "Mixed Multi-Tool"]
            .iter()
            .zip(self.optimal)
        {
            optimal.insert(*name, b.to_value());
        }
        root.insert("optimal_info", Value::Object(optimal));

        let mut progress = Map::new();
        for (name, b) in ["Total", "Sequential Multi-Tool", "Mixed Multi-Tool"]
            .iter()
            .zip(self.progress)
        {
            progress.insert(*name, b.to_value());
        }
        root.insert("progress_info", Value::Object(progress));
        Value::Object(root)
    }
}
