//! Domain vocabulary shared by the dataset, the scorer, the report, the charts and the
//! share-link codec: task types, hidden-intent subtypes, error classes and the compact
//! per-task outcome everything downstream of scoring is computed from.

use serde::{Deserialize, Serialize};

/// Name of the clarification pseudo-action.
pub const ASK_NAME: &str = "ask_user_for_required_parameters";
/// Name of the final-answer pseudo-action.
pub const PREPARE_NAME: &str = "prepare_to_answer";

/// The role of a gold node, derived from its action name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// An ordinary tool call.
    Tool,
    /// `ask_user_for_required_parameters`: a clarifying question.
    Ask,
    /// `prepare_to_answer`: the final answer.
    Prepare,
}

impl NodeKind {
    /// The kind of a node with this action name.
    pub fn from_name(name: &str) -> NodeKind {
        match name {
            ASK_NAME => NodeKind::Ask,
            PREPARE_NAME => NodeKind::Prepare,
            _ => NodeKind::Tool,
        }
    }

    /// Whether the node is a pseudo-action (ask or prepare), answered with text.
    pub fn is_pseudo(self) -> bool {
        !matches!(self, NodeKind::Tool)
    }
}

/// The six official task types (PROTOCOL §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TaskType {
    /// `Single-Tool`
    #[serde(rename = "Single-Tool")]
    SingleTool,
    /// `Parallel Multi-Tool`
    #[serde(rename = "Parallel Multi-Tool")]
    ParallelMultiTool,
    /// `Sequential Multi-Tool`
    #[serde(rename = "Sequential Multi-Tool")]
    SequentialMultiTool,
    /// `Mixed Multi-Tool`
    #[serde(rename = "Mixed Multi-Tool")]
    MixedMultiTool,
    /// `Clarify`
    Clarify,
    /// `Chat`
    Chat,
}

impl TaskType {
    /// All types in `metric.json` order (without the synthetic `Multi-Tool` bucket).
    pub const ALL: [TaskType; 6] = [
        TaskType::SingleTool,
        TaskType::ParallelMultiTool,
        TaskType::SequentialMultiTool,
        TaskType::MixedMultiTool,
        TaskType::Clarify,
        TaskType::Chat,
    ];

    /// The official spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskType::SingleTool => "Single-Tool",
            TaskType::ParallelMultiTool => "Parallel Multi-Tool",
            TaskType::SequentialMultiTool => "Sequential Multi-Tool",
            TaskType::MixedMultiTool => "Mixed Multi-Tool",
            TaskType::Clarify => "Clarify",
            TaskType::Chat => "Chat",
        }
    }

    /// Parses the official spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// True for the three Multi-Tool types.
    pub fn is_multi(self) -> bool {
        matches!(
            self,
            TaskType::ParallelMultiTool | TaskType::SequentialMultiTool | TaskType::MixedMultiTool
        )
    }

    /// The coarse type used to count instruction transitions (PROTOCOL §7.3).
    pub fn coarse(self) -> CoarseType {
        match self {
            TaskType::SingleTool => CoarseType::Single,
            TaskType::ParallelMultiTool
            | TaskType::SequentialMultiTool
            | TaskType::MixedMultiTool => CoarseType::Multi,
            TaskType::Clarify => CoarseType::Clarify,
            TaskType::Chat => CoarseType::Chat,
        }
    }

    /// Stable small code (0..=5) for compact encodings.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Inverse of [`TaskType::code`].
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
}

/// Coarse task type: Single, Multi, Clarify, Chat (PROTOCOL §7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CoarseType {
    /// Single-Tool
    Single,
    /// Any Multi-Tool type
    Multi,
    /// Clarify
    Clarify,
    /// Chat
    Chat,
}

/// Number of instruction transitions in a session: changes of coarse type between
/// consecutive tasks (0..=3 for four tasks).
pub fn transition_count(types: &[TaskType]) -> u8 {
    types
        .windows(2)
        .filter(|w| w[0].coarse() != w[1].coarse())
        .count() as u8
}

/// Hidden-intent subtypes of tasks 2–4 (PROTOCOL §1.2, §7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TurnSubtype {
    /// `Coreferential Reference`
    #[serde(rename = "Coreferential Reference")]
    CoreferentialReference,
    /// `Partial Information`
    #[serde(rename = "Partial Information")]
    PartialInformation,
    /// `Long-Range Dependency`
    #[serde(rename = "Long-Range Dependency")]
    LongRangeDependency,
}

impl TurnSubtype {
    /// All subtypes in `metric.json` order.
    pub const ALL: [TurnSubtype; 3] = [
        TurnSubtype::CoreferentialReference,
        TurnSubtype::PartialInformation,
        TurnSubtype::LongRangeDependency,
    ];

    /// The official spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnSubtype::CoreferentialReference => "Coreferential Reference",
            TurnSubtype::PartialInformation => "Partial Information",
            TurnSubtype::LongRangeDependency => "Long-Range Dependency",
        }
    }

    /// Parses the official spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Stable small code (0..=2).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Inverse of [`TurnSubtype::code`].
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
}

/// Raw error label of a failed task (PROTOCOL §8.2, §8.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RawErrorLabel {
    /// Rule 1: only step 0, no tool calls.
    Refusal,
    /// Rule 2: a Chat task answered with something else.
    WrongRefusal,
    /// Rule 3: tool calls could not be parsed.
    ParseError,
    /// Rule 4: a called name is not among the session's tools.
    NameHallucination,
    /// Rules 5/7: the task needed a clarification that never came.
    MissingInfo,
    /// Rules 6/7: more calls than the gold needs.
    Redundant,
    /// Rule 7: a predicted name that is not a gold name.
    WrongFunction,
    /// Rule 7: stopped before completing the gold calls.
    EarlyStop,
    /// §8.3: wrong argument type.
    ParamType,
    /// §8.3: an argument that is not defined or not expected.
    ParamHallucination,
    /// §8.3: a required argument is missing.
    MissingRequired,
    /// §8.3: a wrong argument value.
    ParamValue,
}

impl RawErrorLabel {
    /// All labels in a stable order.
    pub const ALL: [RawErrorLabel; 12] = [
        RawErrorLabel::Refusal,
        RawErrorLabel::WrongRefusal,
        RawErrorLabel::ParseError,
        RawErrorLabel::NameHallucination,
        RawErrorLabel::MissingInfo,
        RawErrorLabel::Redundant,
        RawErrorLabel::WrongFunction,
        RawErrorLabel::EarlyStop,
        RawErrorLabel::ParamType,
        RawErrorLabel::ParamHallucination,
        RawErrorLabel::MissingRequired,
        RawErrorLabel::ParamValue,
    ];

    /// snake_case name used in report files.
    pub fn as_str(self) -> &'static str {
        match self {
            RawErrorLabel::Refusal => "refusal",
            RawErrorLabel::WrongRefusal => "wrong_refusal",
            RawErrorLabel::ParseError => "parse_error",
            RawErrorLabel::NameHallucination => "name_hallucination",
            RawErrorLabel::MissingInfo => "missing_info",
            RawErrorLabel::Redundant => "redundant",
            RawErrorLabel::WrongFunction => "wrong_function",
            RawErrorLabel::EarlyStop => "early_stop",
            RawErrorLabel::ParamType => "param_type",
            RawErrorLabel::ParamHallucination => "param_hallucination",
            RawErrorLabel::MissingRequired => "missing_required",
            RawErrorLabel::ParamValue => "param_value",
        }
    }

    /// Stable small code (0..=11).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Inverse of [`RawErrorLabel::code`].
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }

    /// The published column under the default mapping (PROTOCOL §8.2/§8.3, mapping v1).
    pub fn default_column(self) -> ErrorColumn {
        match self {
            RawErrorLabel::Refusal => ErrorColumn::Refusal,
            RawErrorLabel::WrongRefusal => ErrorColumn::WrongRefusal,
            RawErrorLabel::ParseError | RawErrorLabel::WrongFunction => ErrorColumn::CallError,
            RawErrorLabel::NameHallucination | RawErrorLabel::MissingInfo => {
                ErrorColumn::WrongNameMissingInfo
            }
            RawErrorLabel::Redundant => ErrorColumn::RedundantCall,
            RawErrorLabel::EarlyStop => ErrorColumn::EarlyTermination,
            RawErrorLabel::ParamType => ErrorColumn::ParamTypeError,
            RawErrorLabel::ParamHallucination => ErrorColumn::ParamHallucination,
            RawErrorLabel::MissingRequired | RawErrorLabel::ParamValue => {
                ErrorColumn::ParamValueError
            }
        }
    }
}

/// The nine published error columns (PROTOCOL §8.1), in the paper's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ErrorColumn {
    /// Refusal
    Refusal,
    /// Wrong Name / Missing Info
    WrongNameMissingInfo,
    /// Wrong Refusal
    WrongRefusal,
    /// Redundant Call
    RedundantCall,
    /// Call Error
    CallError,
    /// Early Termination
    EarlyTermination,
    /// Param Type Error
    ParamTypeError,
    /// Param Hallucination
    ParamHallucination,
    /// Param Value Error
    ParamValueError,
}

impl ErrorColumn {
    /// All columns in the paper's order.
    pub const ALL: [ErrorColumn; 9] = [
        ErrorColumn::Refusal,
        ErrorColumn::WrongNameMissingInfo,
        ErrorColumn::WrongRefusal,
        ErrorColumn::RedundantCall,
        ErrorColumn::CallError,
        ErrorColumn::EarlyTermination,
        ErrorColumn::ParamTypeError,
        ErrorColumn::ParamHallucination,
        ErrorColumn::ParamValueError,
    ];

    /// The published column title.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorColumn::Refusal => "Refusal",
            ErrorColumn::WrongNameMissingInfo => "Wrong Name / Missing Info",
            ErrorColumn::WrongRefusal => "Wrong Refusal",
            ErrorColumn::RedundantCall => "Redundant Call",
            ErrorColumn::CallError => "Call Error",
            ErrorColumn::EarlyTermination => "Early Termination",
            ErrorColumn::ParamTypeError => "Param Type Error",
            ErrorColumn::ParamHallucination => "Param Hallucination",
            ErrorColumn::ParamValueError => "Param Value Error",
        }
    }

    /// The column with this published title.
    pub fn parse(title: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == title)
    }
}

/// Everything the dashboard, the report and the share link need about one scored task.
///
/// It is deliberately small (no traces, no text) so that a whole run fits in a URL
/// fragment (see `share`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskOutcome {
    /// 0-based session index in the dataset.
    pub session: u32,
    /// Task position in the session (0..=3).
    pub position: u8,
    /// The task's type.
    pub task_type: TaskType,
    /// Hidden-intent subtype (`None` for the first task).
    pub subtype: Option<TurnSubtype>,
    /// Instruction transitions of the whole session (0..=3).
    pub transitions: u8,
    /// Final `label == "correct"`.
    pub correct: bool,
    /// Final `action_name_label == "correct"` (after the P7 forcing).
    pub name_correct: bool,
    /// Final `is_optimal` (after §4.2).
    pub optimal: bool,
    /// Logged steps counted by the official step-based progress (§4.3).
    pub steps_logged: u16,
    /// Gold node count (`len(answer_list[i])`), the progress denominator.
    pub nodes_total: u16,
    /// Gold nodes completed before the first failure (node-based AP, §7.2).
    pub nodes_done: u16,
    /// Raw error label of a failed task.
    pub error: Option<RawErrorLabel>,
    /// The task never finished for transport reasons (not a model error).
    pub incomplete: bool,
}

/// Outcomes stored as a JSON list (the page's run store), or `None` when the text is not
/// such a list. Read through `serde_json::Value`, the deserializer the run export's reader
/// uses too, so the page's module carries one copy of this reading code.
pub fn outcomes_from_json(text: &str) -> Option<Vec<TaskOutcome>> {
    outcomes_from_value(&serde_json::from_str::<serde_json::Value>(text).ok()?)
}

/// Per-trial outcome lists stored as a JSON list of lists (see [`outcomes_from_json`]).
pub fn trial_outcomes_from_json(text: &str) -> Option<Vec<Vec<TaskOutcome>>> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .as_array()?
        .iter()
        .map(outcomes_from_value)
        .collect()
}

/// Outcomes from a parsed JSON list (see [`outcomes_from_json`]).
pub fn outcomes_from_value(v: &serde_json::Value) -> Option<Vec<TaskOutcome>> {
    v.as_array()?
        .iter()
        .map(|o| TaskOutcome::deserialize(o).ok())
        .collect()
}

/// A Single-Tool task outcome for tests: session `session`, position 0, one gold node.
#[cfg(test)]
pub(crate) fn sample_outcome(session: u32, correct: bool) -> TaskOutcome {
    TaskOutcome {
        session,
        position: 0,
        task_type: TaskType::SingleTool,
        subtype: None,
        transitions: 0,
        correct,
        name_correct: correct,
        optimal: correct,
        steps_logged: 1,
        nodes_total: 1,
        nodes_done: u16::from(correct),
        error: None,
        incomplete: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(session: u32, correct: bool) -> TaskOutcome {
        TaskOutcome {
            session,
            position: 1,
            task_type: TaskType::SequentialMultiTool,
            subtype: Some(TurnSubtype::ALL[0]),
            transitions: 2,
            correct,
            name_correct: correct,
            optimal: false,
            steps_logged: 3,
            nodes_total: 4,
            nodes_done: 2,
            error: (!correct).then_some(RawErrorLabel::ALL[0]),
            incomplete: false,
        }
    }

    #[test]
    fn stored_outcomes_read_back_and_anything_else_is_refused() {
        let run = vec![outcome(0, true), outcome(3, false)];
        let text = serde_json::to_string(&run).unwrap_or_default();
        assert_eq!(outcomes_from_json(&text), Some(run.clone()));
        let trials = serde_json::to_string(&vec![run.clone(), run.clone()]).unwrap_or_default();
        assert_eq!(
            trial_outcomes_from_json(&trials),
            Some(vec![run.clone(), run])
        );
        for bad in ["", "{}", "[1]", "[{\"session\": 0}]", "[[{}]]"] {
            assert_eq!(outcomes_from_json(bad), None, "{bad}");
        }
        assert_eq!(trial_outcomes_from_json("[[{}]]"), None);
    }
}
