//! The loader: JSON Lines text → sessions plus every problem found (PROTOCOL §1, §1.4).

use crate::json::{Map, PyInt, Value};
use crate::outcome::{TaskType, TurnSubtype};

use super::deps::check_dependencies;
use super::model::{Field, Lang, Node, NodeKind, Session, Task};
use super::parse::parse_json_deferring;
use super::problem::{JsonPath, Problem, Severity, Sink};
use super::tools::{check_tools, float_to_number, float_to_number_owned, tool_names};

/// Most tasks a session may have: `layer_info` has the keys "0".."3" (C13).
pub const MAX_TASKS: usize = 4;

/// A whole dataset as loaded: every session that could be built, and every problem.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadedDataset {
    /// Sessions in file order. A session with errors is still here when it could be
    /// built (see [`Session::is_valid`]); lines that are not a JSON object, or whose
    /// processed tasks lack a known type, produce no session.
    pub sessions: Vec<Session>,
    /// All problems, in line order.
    pub problems: Vec<Problem>,
    /// Number of non-blank lines (the official session count).
    pub line_count: usize,
}

impl LoadedDataset {
    /// True when there is no error anywhere (warnings allowed) and every line gave a
    /// session.
    pub fn is_valid(&self) -> bool {
        !self.problems.iter().any(Problem::is_error) && self.sessions.len() == self.line_count
    }

    /// The problems that are errors.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }

    /// The problems that are warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
    }

    /// The session at 0-based session index `index` (what the scorer looks up from an
    /// id suffix), if that line produced one.
    pub fn session_at(&self, index: usize) -> Option<&Session> {
        match self.sessions.get(index) {
            Some(s) if s.index == index => Some(s),
            _ => self.sessions.iter().find(|s| s.index == index),
        }
    }
}

/// What one line produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedLine {
    /// The session, when it could be built (it may still have errors).
    pub session: Option<Session>,
    /// The line's problems (the same ones the session carries, plus any found before
    /// the session could be built).
    pub problems: Vec<Problem>,
}

/// Loads a whole JSON Lines text (`\n` or `\r\n` line ends).
///
/// Blank (whitespace-only) lines are skipped with a warning and do not count as session
/// positions: the released file has none, a file whose only blank line is a trailing
/// one is common and harmless, and skipping is the only reading under which a file with
/// blank lines can be scored at all (a loader that does not skip them fails on the first
/// one). Session indexes, and therefore the expected id suffixes, count non-blank lines;
/// problem line numbers count physical lines.
pub fn load_dataset(text: &str, lang: Lang) -> LoadedDataset {
    load_lines(text.lines(), lang)
}

/// [`load_dataset`] over any line iterator (lines without their terminators), so that a
/// caller can stream a large file.
pub fn load_lines<I>(lines: I, lang: Lang) -> LoadedDataset
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let mut out = LoadedDataset::default();
    for (physical, line) in lines.into_iter().enumerate() {
        let line = line.as_ref();
        let line_no = physical + 1;
        if line.trim().is_empty() {
            out.problems.push(Problem {
                line: line_no,
                session_id: None,
                path: String::new(),
                message: "blank line skipped (it does not count as a session position)".into(),
                severity: Severity::Warning,
            });
            continue;
        }
        let parsed = parse_session_at(out.line_count, line_no, line, lang);
        out.line_count += 1;
        out.problems.extend(parsed.problems);
        if let Some(session) = parsed.session {
            out.sessions.push(session);
        }
    }
    out
}

/// Parses the session at 0-based index `index`, assuming it is on physical line
/// `index + 1` (no blank lines before it).
pub fn parse_session(index: usize, line: &str, lang: Lang) -> ParsedLine {
    parse_session_at(index, index + 1, line, lang)
}

/// Parses the session at 0-based session index `index`, found on 1-based physical line
/// `line_no`.
pub fn parse_session_at(index: usize, line_no: usize, line: &str, lang: Lang) -> ParsedLine {
    match parse_json_deferring(line, unread_fields(lang)) {
        Ok(value) => session_from_value(index, line_no, value, lang),
        Err(message) => ParsedLine {
            session: None,
            problems: vec![Problem {
                line: line_no,
                session_id: None,
                path: String::new(),
                message: format!("malformed JSON: {message}"),
                severity: Severity::Error,
            }],
        },
    }
}

/// The fields a load in `lang` keeps as text in [`Session::raw`]: the other language's,
/// which it never reads as a tree, and its own tool list and node lists, which it parses
/// once into the session's processed forms. The Chinese `answer_list` is read in both,
/// but an English load needs only its node counts (the progress denominators, P16),
/// which are counted from the text ([`progress_counts`]).
fn unread_fields(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "tools",
            "tasks",
            "answer_list",
            "english_tools",
            "english_answer_list",
        ],
        Lang::Zh => &[
            "english_tools",
            "english_tasks",
            "english_answer_list",
            "tools",
            "answer_list",
        ],
    }
}

/// Builds and validates a session from an already parsed line.
pub fn session_from_value(index: usize, line_no: usize, value: Value, lang: Lang) -> ParsedLine {
    let Some(obj) = value.as_object() else {
        let mut sink = Sink::new(line_no, None);
        sink.error(
            "",
            format!("expected a JSON object, found {}", value.py_type_name()),
        );
        return ParsedLine {
            session: None,
            problems: sink.problems,
        };
    };
    let id = obj.get("id").and_then(Value::as_str).map(str::to_owned);
    let mut sink = Sink::new(line_no, id.clone());
    check_id(obj, index, &mut sink);

    let env_field = lang.field(Field::EnvInfo);
    let env_info = required(obj, env_field, &mut sink)
        .and_then(|v| expect_str(v, env_field, &mut sink))
        .unwrap_or_default()
        .to_owned();

    // The language's tool list and node lists are kept as text in `raw` (see
    // `unread_fields`) and parsed here once: the session holds their processed forms
    // (the converted tools, the nodes), not a second tree of each.
    let tools_field = lang.field(Field::Tools);
    let no_tools = Value::Array(Vec::new());
    let (tools, tools_original) = match required(obj, tools_field, &mut sink) {
        Some(Value::Raw(raw)) => {
            let tree = raw.value();
            check_tools(&tree, tools_field, &mut sink);
            float_to_number_owned(tree)
        }
        other => {
            let tree = other.unwrap_or(&no_tools);
            check_tools(tree, tools_field, &mut sink);
            (float_to_number(tree), None)
        }
    };

    let tasks_field = lang.field(Field::Tasks);
    let messages = required(obj, tasks_field, &mut sink)
        .and_then(|v| expect_array(v, tasks_field, &mut sink))
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let answers_field = lang.field(Field::AnswerList);
    let answers_parsed;
    let answers = match required(obj, answers_field, &mut sink) {
        Some(Value::Raw(raw)) => {
            answers_parsed = raw.value();
            Some(&answers_parsed)
        }
        other => other,
    };
    let answers = answers
        .and_then(|v| expect_array(v, answers_field, &mut sink))
        .map(Vec::as_slice)
        .unwrap_or(&[]);

    let count = messages.len().min(answers.len());
    if messages.len() != answers.len()
        && obj.contains_key(tasks_field)
        && obj.contains_key(answers_field)
    {
        sink.warning(
            answers_field,
            format!(
                "{tasks_field} has {} entries and {answers_field} has {}; only the first {count} tasks are processed",
                messages.len(),
                answers.len()
            ),
        );
    }
    if count > MAX_TASKS {
        sink.error(
            answers_field,
            format!("session has {count} tasks; at most {MAX_TASKS} are supported (C13)"),
        );
    } else if count == 0 {
        sink.warning(answers_field, "session has no tasks");
    }

    let types = read_labels(
        obj,
        lang.field(Field::TaskTypes),
        (count, "one per processed task"),
        (TaskType::parse, "task type"),
        &mut sink,
    );
    let subtypes = read_labels(
        obj,
        lang.field(Field::TurnSubtypes),
        (
            count.saturating_sub(1),
            "one per processed task after the first",
        ),
        (TurnSubtype::parse, "turn subtype"),
        &mut sink,
    );
    let progress = progress_counts(obj, lang, answers, count, &mut sink);

    let names = tool_names(&tools);
    let mut tasks = Vec::with_capacity(count);
    let mut all_typed = true;
    for position in 0..count {
        let user_message = match messages.get(position) {
            Some(Value::Str(s)) => s.clone(),
            Some(other) => {
                sink.error(
                    format!("{tasks_field}[{position}]"),
                    format!("expected a string, found {}", other.py_type_name()),
                );
                String::new()
            }
            None => String::new(),
        };
        let field_path = JsonPath::Root(answers_field);
        let list_path = JsonPath::Index(&field_path, position);
        let nodes = answers
            .get(position)
            .map(|list| read_nodes(list, &list_path, &names, &mut sink))
            .unwrap_or_default();
        let subtype = if position == 0 {
            None
        } else {
            subtypes.get(position - 1).copied().flatten()
        };
        match types.get(position).copied().flatten() {
            Some(task_type) => tasks.push(Task {
                position,
                user_message,
                progress_nodes: progress
                    .get(position)
                    .copied()
                    .flatten()
                    .unwrap_or(nodes.len()),
                nodes,
                task_type,
                subtype,
            }),
            None => all_typed = false,
        }
    }

    let domain = match obj.get("domain") {
        None => None,
        Some(Value::Str(s)) => Some(s.clone()),
        Some(other) => {
            sink.warning(
                "domain",
                format!("expected a string, found {}; ignored", other.py_type_name()),
            );
            None
        }
    };

    let problems = sink.problems;
    let session = if !all_typed {
        None
    } else {
        Some(Session {
            index,
            line_no,
            lang,
            id: id.unwrap_or_default(),
            env_info,
            tools,
            tools_original,
            tasks,
            domain,
            problems: problems.clone(),
            raw: value,
        })
    };
    ParsedLine { session, problems }
}

/// `id` must be a string whose suffix after the last `_` is the 0-based index (P16).
fn check_id(obj: &Map, index: usize, sink: &mut Sink) {
    let Some(value) = required(obj, "id", sink) else {
        return;
    };
    let Some(id) = expect_str(value, "id", sink) else {
        return;
    };
    let suffix = id.rsplit('_').next().unwrap_or(id);
    match parse_py_int(suffix) {
        Some(n) if n == index as i128 => {}
        Some(n) => sink.error(
            "id",
            format!(
                "id suffix {n} does not match the session's line index {index} (0-based); \
                 the scorer would look up the wrong session"
            ),
        ),
        None => sink.error(
            "id",
            format!("id suffix `{suffix}` (after the last `_`) is not an integer"),
        ),
    }
}

/// Python `int(s)` for the forms that matter: surrounding whitespace, optional sign,
/// ASCII digits with single underscores between them.
fn parse_py_int(s: &str) -> Option<i128> {
    let s = s.trim();
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut n: i128 = 0;
    for c in digits.chars().filter(|&c| c != '_') {
        let d = c.to_digit(10)?;
        n = n.checked_mul(10)?.checked_add(i128::from(d))?;
    }
    Some(if negative { -n } else { n })
}

/// Reads a list of official labels (`task_types` or `turn_subtypes`) that needs
/// `expected` entries (`why` explains the count), parsing each with `parse` (`what`
/// names the label kind in messages). Fewer entries than needed is an error (the
/// official code raises); more is a warning (never read).
fn read_labels<T: Copy>(
    obj: &Map,
    field: &str,
    (expected, why): (usize, &str),
    (parse, what): (fn(&str) -> Option<T>, &str),
    sink: &mut Sink,
) -> Vec<Option<T>> {
    let Some(list) = required(obj, field, sink).and_then(|v| expect_array(v, field, sink)) else {
        return Vec::new();
    };
    if list.len() < expected {
        sink.error(
            field,
            format!(
                "has {} entries but {expected} are needed ({why})",
                list.len()
            ),
        );
    } else if list.len() > expected {
        sink.warning(
            field,
            format!("has {} entries but only {expected} are used", list.len()),
        );
    }
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let root = JsonPath::Root(field);
            let path = JsonPath::Index(&root, i);
            let s = expect_str(v, path, sink)?;
            let parsed = parse(s);
            if parsed.is_none() {
                sink.error(path.to_string(), format!("unknown {what} `{s}`"));
            }
            parsed
        })
        .collect()
}

/// `len(answer_list[i])` of the Chinese list for each processed task (P16), checked
/// against the node counts of the language's list.
fn progress_counts(
    obj: &Map,
    lang: Lang,
    answers: &[Value],
    count: usize,
    sink: &mut Sink,
) -> Vec<Option<usize>> {
    let lens = |list: &[Value]| -> Vec<Option<usize>> {
        list.iter()
            .take(count)
            .map(|v| v.as_array().map(Vec::len))
            .collect()
    };
    if lang == Lang::Zh {
        return lens(answers);
    }
    let field = "answer_list";
    let Some(zh) = obj.get(field) else {
        sink.error(
            field,
            "missing field (the scorer reads its node counts as progress denominators, P16)",
        );
        return Vec::new();
    };
    // Kept as text by an English load (see `unread_fields`): its node lists are counted
    // from the text; its tree is built only to report what is wrong with it.
    if let Value::Raw(raw) = zh {
        if let Some(lens) = raw.item_lens() {
            return checked_counts(lang, answers, count, &lens, sink);
        }
    }
    let parsed;
    let zh = match zh {
        Value::Raw(raw) => {
            parsed = raw.value();
            &parsed
        }
        tree => tree,
    };
    let Some(zh) = expect_array(zh, field, sink) else {
        return Vec::new();
    };
    let counts = lens(zh);
    for i in 0..count {
        let own = answers.get(i).and_then(Value::as_array).map(Vec::len);
        match (zh.get(i), counts.get(i).copied().flatten()) {
            (None, _) => sink.error(
                field,
                format!(
                    "has {} entries; task {i} has no Chinese node list",
                    zh.len()
                ),
            ),
            (Some(v), None) => sink.error(
                format!("{field}[{i}]"),
                format!("expected a list of nodes, found {}", v.py_type_name()),
            ),
            (Some(_), Some(n)) => {
                if let Some(own) = own {
                    if own != n {
                        sink.error(
                            format!("{field}[{i}]"),
                            format!(
                                "has {n} nodes but {}[{i}] has {own}; progress denominators would be wrong",
                                lang.field(Field::AnswerList)
                            ),
                        );
                    }
                }
            }
        }
    }
    counts
}

/// The progress denominators of an English load from the Chinese lists' node counts
/// (`zh`: one per list, every entry a list), checked against the English lists.
fn checked_counts(
    lang: Lang,
    answers: &[Value],
    count: usize,
    zh: &[usize],
    sink: &mut Sink,
) -> Vec<Option<usize>> {
    let field = "answer_list";
    for i in 0..count {
        let own = answers.get(i).and_then(Value::as_array).map(Vec::len);
        match zh.get(i) {
            None => sink.error(
                field,
                format!(
                    "has {} entries; task {i} has no Chinese node list",
                    zh.len()
                ),
            ),
            Some(&n) => {
                if let Some(own) = own {
                    if own != n {
                        sink.error(
                            format!("{field}[{i}]"),
                            format!(
                                "has {n} nodes but {}[{i}] has {own}; progress denominators would be wrong",
                                lang.field(Field::AnswerList)
                            ),
                        );
                    }
                }
            }
        }
    }
    zh.iter().take(count).map(|&n| Some(n)).collect()
}

/// Reads and checks one task's node list at `list_path`.
fn read_nodes(
    list: &Value,
    list_path: &JsonPath<'_>,
    tool_names: &[&str],
    sink: &mut Sink,
) -> Vec<Node> {
    let Some(items) = expect_array(list, list_path, sink) else {
        return Vec::new();
    };
    if items.is_empty() {
        sink.error(
            list_path.to_string(),
            "empty node list: no complete path exists (C9)",
        );
        return Vec::new();
    }
    let nodes: Vec<Node> = items
        .iter()
        .enumerate()
        .map(|(j, item)| read_node(item, &JsonPath::Index(list_path, j), tool_names, sink))
        .collect();
    if let Some(last) = nodes.last() {
        if last.kind != NodeKind::Prepare {
            sink.error(
                format!("{list_path}[{}].action.name", nodes.len() - 1),
                format!(
                    "the node list must end with prepare_to_answer, found `{}`",
                    last.name
                ),
            );
        }
    }
    check_dependencies(&nodes, &list_path.to_string(), sink);
    nodes
}

fn read_node(item: &Value, path: &JsonPath<'_>, tool_names: &[&str], sink: &mut Sink) -> Node {
    let mut node = Node {
        name: String::new(),
        kind: NodeKind::Tool,
        arguments: Value::Null,
        observation: Value::Null,
        dependencies: Vec::new(),
        user_input: None,
    };
    let Some(obj) = item.as_object() else {
        sink.error(
            path.to_string(),
            format!("expected a node object, found {}", item.py_type_name()),
        );
        return node;
    };
    let action_path = JsonPath::Member(path, "action");
    if let Some(action) =
        required_at(obj, "action", path, sink).and_then(|v| expect_object(v, action_path, sink))
    {
        let name_path = JsonPath::Member(&action_path, "name");
        if let Some(name) = required_at(action, "name", &action_path, sink)
            .and_then(|v| expect_str(v, name_path, sink))
        {
            node.name = name.to_owned();
            node.kind = NodeKind::from_name(name);
            if node.kind == NodeKind::Tool && !tool_names.contains(&name) {
                sink.error(
                    name_path.to_string(),
                    format!("gold tool `{name}` is not defined in the session's tools (C4)"),
                );
            }
        }
        if let Some(args) = required_at(action, "arguments", &action_path, sink) {
            node.arguments = args.clone();
            if !matches!(args, Value::Object(_)) {
                let message = format!(
                    "gold arguments must be an object, found {}",
                    args.py_type_name()
                );
                let args_path = format!("{action_path}.arguments");
                if node.kind == NodeKind::Tool {
                    sink.error(
                        args_path,
                        format!("{message}; every call would fail with `value type inconsistent`"),
                    );
                } else {
                    sink.warning(args_path, message);
                }
            }
        }
    }
    if let Some(obs) = required_at(obj, "observation", path, sink) {
        node.observation = obs.clone();
    }
    let deps_path = JsonPath::Member(path, "dependency_list");
    if let Some(deps) = required_at(obj, "dependency_list", path, sink)
        .and_then(|v| expect_array(v, deps_path, sink))
    {
        for (k, dep) in deps.iter().enumerate() {
            let dep_path = || JsonPath::Index(&deps_path, k).to_string();
            match dep {
                Value::Int(PyInt::Small(i)) if *i >= 0 => match usize::try_from(*i) {
                    Ok(i) => node.dependencies.push(i),
                    Err(_) => {
                        sink.error(dep_path(), format!("dependency index {i} is out of range"))
                    }
                },
                Value::Int(i) => sink.error(
                    dep_path(),
                    format!("dependency index {} is out of range", py_int_text(i)),
                ),
                other => sink.error(
                    dep_path(),
                    format!(
                        "expected an integer node index, found {}",
                        other.py_type_name()
                    ),
                ),
            }
        }
    }
    match (node.kind, obj.get("user_input")) {
        (NodeKind::Ask, None) => sink.error(
            format!("{path}.user_input"),
            "ask node has no user_input; the harness would send null as the user's reply",
        ),
        (NodeKind::Ask, Some(Value::Str(s))) => node.user_input = Some(s.clone()),
        (NodeKind::Ask, Some(other)) => sink.error(
            format!("{path}.user_input"),
            format!("expected a string, found {}", other.py_type_name()),
        ),
        (_, Some(Value::Str(s))) => node.user_input = Some(s.clone()),
        _ => {}
    }
    node
}

fn py_int_text(i: &PyInt) -> String {
    match i {
        PyInt::Small(n) => n.to_string(),
        PyInt::Big(s) => s.clone(),
    }
}

fn required<'a>(obj: &'a Map, key: &str, sink: &mut Sink) -> Option<&'a Value> {
    let v = obj.get(key);
    if v.is_none() {
        sink.error(key, "missing field");
    }
    v
}

fn required_at<'a>(
    obj: &'a Map,
    key: &str,
    parent: &JsonPath<'_>,
    sink: &mut Sink,
) -> Option<&'a Value> {
    let v = obj.get(key);
    if v.is_none() {
        sink.error(format!("{parent}.{key}"), "missing field");
    }
    v
}

fn expect_str<'a>(v: &'a Value, path: impl std::fmt::Display, sink: &mut Sink) -> Option<&'a str> {
    let s = v.as_str();
    if s.is_none() {
        sink.error(
            path.to_string(),
            format!("expected a string, found {}", v.py_type_name()),
        );
    }
    s
}

fn expect_array<'a>(
    v: &'a Value,
    path: impl std::fmt::Display,
    sink: &mut Sink,
) -> Option<&'a Vec<Value>> {
    let a = v.as_array();
    if a.is_none() {
        sink.error(
            path.to_string(),
            format!("expected a list, found {}", v.py_type_name()),
        );
    }
    a
}

fn expect_object<'a>(
    v: &'a Value,
    path: impl std::fmt::Display,
    sink: &mut Sink,
) -> Option<&'a Map> {
    let o = v.as_object();
    if o.is_none() {
        sink.error(
            path.to_string(),
            format!("expected an object, found {}", v.py_type_name()),
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::parse_py_int;

    #[test]
    fn python_int_forms() {
        assert_eq!(parse_py_int("7"), Some(7));
        assert_eq!(parse_py_int("007"), Some(7));
        assert_eq!(parse_py_int(" 1_0 "), Some(10));
        assert_eq!(parse_py_int("-3"), Some(-3));
        assert_eq!(parse_py_int("x"), None);
        assert_eq!(parse_py_int("1__0"), None);
        assert_eq!(parse_py_int(""), None);
        assert_eq!(parse_py_int("-"), None);
    }
}
