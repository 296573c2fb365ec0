//! Tool-list handling: the float→number conversion (PROTOCOL §2.1), tool names and the
//! tool-list checks of §1.4 (C3).

use crate::json::Value;

use super::problem::{JsonPath, Sink};

/// `tools` with every object member `"type": "float"` replaced by `"type": "number"`, at
/// any depth (PROTOCOL §2.1).
///
/// The official code replaces the text `"type": "float"` in the dumps-utf8 string; that
/// text can only come from an object member named `type` whose value is the string
/// `float` (inside a string value the quotes would be escaped), so the structural
/// replacement is equivalent.
pub fn float_to_number(tools: &Value) -> Value {
    let mut out = tools.clone();
    convert_in_place(&mut out);
    out
}

/// [`float_to_number`] of a tree the caller owns: the converted tree, and the tree as it
/// was when the conversion changed it (`None`: the same tree).
pub(crate) fn float_to_number_owned(mut tools: Value) -> (Value, Option<Value>) {
    if !has_float_type(&tools) {
        return (tools, None);
    }
    let original = tools.clone();
    convert_in_place(&mut tools);
    (tools, Some(original))
}

/// True when [`convert_in_place`] would change something.
fn has_float_type(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, member)| {
            (key == "type" && member.as_str() == Some("float")) || has_float_type(member)
        }),
        Value::Array(items) => items.iter().any(has_float_type),
        _ => false,
    }
}

fn convert_in_place(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                if key == "type" && member.as_str() == Some("float") {
                    *member = Value::str("number");
                } else {
                    convert_in_place(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(convert_in_place),
        _ => {}
    }
}

/// The `function.name` of each tool entry that has a string name, in order (the
/// checker's tool map skips nameless entries, PROTOCOL §5.1).
pub fn tool_names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .map(|list| list.iter().filter_map(tool_name).collect())
        .unwrap_or_default()
}

/// The `function.name` of one tool entry.
pub fn tool_name(tool: &Value) -> Option<&str> {
    tool.get("function")
        .and_then(|f| f.get("name"))
        .and_then(Value::as_str)
}

/// The `function.parameters` object of the tool called `name` (the last entry of that
/// name wins, as in the checker's map).
pub fn tool_parameters<'a>(tools: &'a Value, name: &str) -> Option<&'a Value> {
    tools
        .as_array()?
        .iter()
        .rev()
        .find(|t| tool_name(t) == Some(name))
        .and_then(|t| t.get("function"))
        .and_then(|f| f.get("parameters"))
}

/// Checks the shape of the tool list at `field`; records problems in `sink`.
pub(crate) fn check_tools(tools: &Value, field: &str, sink: &mut Sink) {
    let Some(list) = tools.as_array() else {
        sink.error(
            field,
            format!("expected a list of tools, found {}", tools.py_type_name()),
        );
        return;
    };
    let mut seen: Vec<&str> = Vec::new();
    let root = JsonPath::Root(field);
    for (i, tool) in list.iter().enumerate() {
        let path = JsonPath::Index(&root, i);
        let Some(function) = tool.get("function") else {
            sink.warning(
                path.to_string(),
                "tool entry has no `function` object; the checker skips it",
            );
            continue;
        };
        let Some(name) = function.get("name").and_then(Value::as_str) else {
            sink.warning(
                format!("{path}.function.name"),
                "tool has no string name; the checker skips it",
            );
            continue;
        };
        if seen.contains(&name) {
            sink.warning(
                format!("{path}.function.name"),
                format!("tool `{name}` is defined more than once; the last definition wins"),
            );
        }
        seen.push(name);
        match function.get("parameters") {
            None => {}
            Some(params @ Value::Object(_)) => {
                let function = JsonPath::Member(&path, "function");
                check_schema(params, &JsonPath::Member(&function, "parameters"), sink);
            }
            Some(other) => sink.error(
                format!("{path}.function.parameters"),
                format!("expected an object, found {}", other.py_type_name()),
            ),
        }
    }
}

/// Walks a JSON schema the way the checker does (`properties`, `items`, `anyOf`) and
/// reports list-valued `type` members (C3: the official checker raises TypeError;
/// wildtool allows the union of the listed types).
fn check_schema(schema: &Value, path: &JsonPath<'_>, sink: &mut Sink) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if let Some(Value::Array(_)) = map.get("type") {
        sink.warning(
            format!("{path}.type"),
            "list-valued schema `type`: the official checker raises TypeError (C3); \
             wildtool accepts the union of the listed types",
        );
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        let properties = JsonPath::Member(path, "properties");
        for (key, sub) in props.iter() {
            check_schema(sub, &JsonPath::Member(&properties, key), sink);
        }
    }
    if let Some(items) = map.get("items") {
        check_schema(items, &JsonPath::Member(path, "items"), sink);
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        let any_of = JsonPath::Member(path, "anyOf");
        for (i, branch) in branches.iter().enumerate() {
            check_schema(branch, &JsonPath::Index(&any_of, i), sink);
        }
    }
}
