//! The in-memory dataset model: sessions, tasks and gold nodes (PROTOCOL §1.2, §1.3).

use crate::json::Value;
use crate::outcome::{transition_count, TaskType, TurnSubtype};

use super::problem::{Problem, Severity};

pub use crate::outcome::{NodeKind, ASK_NAME, PREPARE_NAME};

/// Which language's fields a session is read from (PROTOCOL §1.2).
///
/// Scoring always reads the Chinese `answer_list` for the progress denominator, whatever
/// the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// The `english_*` fields (the official default).
    #[default]
    En,
    /// The Chinese fields `env_info`, `tools`, `tasks`, `answer_list`, `task_types`,
    /// `turn_subtypes`.
    Zh,
}

impl Lang {
    /// The dataset field holding `base` (one of `env_info`, `tools`, `tasks`,
    /// `answer_list`, `task_types`, `turn_subtypes`) in this language.
    pub fn field(self, base: Field) -> &'static str {
        match (self, base) {
            (Lang::En, Field::EnvInfo) => "english_env_info",
            (Lang::En, Field::Tools) => "english_tools",
            (Lang::En, Field::Tasks) => "english_tasks",
            (Lang::En, Field::AnswerList) => "english_answer_list",
            (Lang::En, Field::TaskTypes) => "english_task_types",
            (Lang::En, Field::TurnSubtypes) => "english_turn_subtypes",
            (Lang::Zh, Field::EnvInfo) => "env_info",
            (Lang::Zh, Field::Tools) => "tools",
            (Lang::Zh, Field::Tasks) => "tasks",
            (Lang::Zh, Field::AnswerList) => "answer_list",
            (Lang::Zh, Field::TaskTypes) => "task_types",
            (Lang::Zh, Field::TurnSubtypes) => "turn_subtypes",
        }
    }

    /// Parses `en` / `zh` (case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }
}

/// The language-dependent dataset fields (see [`Lang::field`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `english_env_info` / `env_info`
    EnvInfo,
    /// `english_tools` / `tools`
    Tools,
    /// `english_tasks` / `tasks`
    Tasks,
    /// `english_answer_list` / `answer_list`
    AnswerList,
    /// `english_task_types` / `task_types`
    TaskTypes,
    /// `english_turn_subtypes` / `turn_subtypes`
    TurnSubtypes,
}

/// One gold node (PROTOCOL §1.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// `action.name` (empty when missing; the session then has an error).
    pub name: String,
    /// Derived from `name`.
    pub kind: NodeKind,
    /// `action.arguments` as given (`Null` when missing).
    pub arguments: Value,
    /// `observation` as given (`Null` when missing): the tool result, the gold answer or
    /// the gold clarifying question.
    pub observation: Value,
    /// `dependency_list`: indexes, in the same list, of the nodes that must finish first.
    /// Non-integer and negative entries are dropped (and reported); out-of-range and
    /// self-references are kept (and reported), so a valid session has only in-range,
    /// acyclic dependencies.
    pub dependencies: Vec<usize>,
    /// `user_input` (the user's reply to an ask node), when it is a string.
    pub user_input: Option<String>,
}

impl Node {
    /// `arguments.answer_type` of a prepare node (`"tool"` or `"chat"` in valid data).
    pub fn answer_type(&self) -> Option<&str> {
        self.arguments.get("answer_type").and_then(Value::as_str)
    }
}

/// One task (one user turn) of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// 0-based position in the session (the `layer_info` key).
    pub position: usize,
    /// The user's message (`english_tasks[position]`; empty when not a string).
    pub user_message: String,
    /// The gold nodes (`english_answer_list[position]`), index = node id.
    pub nodes: Vec<Node>,
    /// The declared type.
    pub task_type: TaskType,
    /// The declared hidden-intent subtype; `None` for the first task (and for a later
    /// task whose subtype is missing or unknown, which is a load error).
    pub subtype: Option<TurnSubtype>,
    /// `len(answer_list[position])` of the Chinese list: the official progress
    /// denominator (PROTOCOL §4.3, P16). Falls back to `nodes.len()` when that list is
    /// missing (a load error).
    pub progress_nodes: usize,
}

impl Task {
    /// Number of real tool-call nodes.
    pub fn tool_call_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Tool)
            .count()
    }
}

/// One dataset line: a dialogue of up to 4 tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// 0-based session index: the position among the file's non-blank lines, which the
    /// official scorer uses to find the session and which the `id` suffix must equal.
    /// (Human-facing line numbers are in [`Problem::line`], 1-based.)
    pub index: usize,
    /// 1-based physical line number in the file (blank lines count), for messages.
    pub line_no: usize,
    /// The language the session was read in.
    pub lang: Lang,
    /// `id` (empty when missing; the session then has an error).
    pub id: String,
    /// The date string for the system message (`english_env_info`).
    pub env_info: String,
    /// The tools sent to the model and used by the checker: [`Session::tools_raw`] with every object
    /// member `"type": "float"` replaced by `"type": "number"` (PROTOCOL §2.1).
    pub tools: Value,
    /// The dataset's tool list when [`Session::raw`] keeps it as text and the conversion
    /// changed it (see [`Session::tools_raw`]).
    pub(crate) tools_original: Option<Value>,
    /// The processed tasks: the first `min(len(tasks), len(answer_list))` (PROTOCOL §1.2).
    pub tasks: Vec<Task>,
    /// The optional extra `domain` field (ignored by the official code).
    pub domain: Option<String>,
    /// The whole parsed line, for modules that need fields not modelled here.
    pub raw: Value,
    /// The problems found in this session (also listed in [`super::LoadedDataset::problems`]).
    pub problems: Vec<Problem>,
}

/// The tools of a session whose line has none (an error of the session).
static NO_TOOLS: Value = Value::Array(Vec::new());

impl Session {
    /// The tools exactly as in the dataset (`english_tools` / `tools`); an empty list when
    /// the field is missing. The loader keeps the field as text in [`Session::raw`] and
    /// its tree once: as [`Session::tools`] when the conversion changed nothing (a
    /// dataset's tool lists are a large part of its memory).
    pub fn tools_raw(&self) -> &Value {
        match self.raw.get(self.lang.field(Field::Tools)) {
            None => &NO_TOOLS,
            Some(Value::Raw(_)) => self.tools_original.as_ref().unwrap_or(&self.tools),
            Some(tree) => tree,
        }
    }

    /// True when no problem of this session is an error (warnings are allowed).
    pub fn is_valid(&self) -> bool {
        !self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    /// The declared task types in order.
    pub fn task_types(&self) -> Vec<TaskType> {
        self.tasks.iter().map(|t| t.task_type).collect()
    }

    /// Instruction transitions of the session (PROTOCOL §7.3), 0..=3 for four tasks.
    pub fn transitions(&self) -> u8 {
        transition_count(&self.task_types())
    }

    /// JSON path of task `position`'s node list, e.g. `english_answer_list[2]`.
    pub fn node_list_path(&self, position: usize) -> String {
        format!("{}[{position}]", self.lang.field(Field::AnswerList))
    }

    /// A problem sink for checks run after loading (semantic and graph checks).
    pub(crate) fn sink(&self) -> super::problem::Sink {
        let id = (!self.id.is_empty()).then(|| self.id.clone());
        super::problem::Sink::new(self.line_no, id)
    }

    /// Names of the tools defined in `tools` (nameless entries skipped), in order.
    pub fn tool_names(&self) -> Vec<&str> {
        super::tools::tool_names(&self.tools)
    }
}
