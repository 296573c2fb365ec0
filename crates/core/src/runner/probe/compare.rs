//! Comparing the calls of a non-streamed reply with the calls of the same request streamed:
//! names, argument JSON (compared as values, so spacing and key order do not count) and
//! the number of calls; each difference is named with the symptom it shows.

use crate::json::{loads, py_eq, Value};
use crate::protocol::Reply;

/// One call, as compared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Call {
    /// The function name (empty when the reply had none).
    pub name: String,
    /// The arguments as text.
    pub arguments: String,
}

/// The calls of a reply, in order.
pub fn calls_of(reply: &Reply) -> Vec<Call> {
    reply
        .tool_calls
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let f = c.get("function");
                    let text = |k: &str| {
                        f.and_then(|f| f.get(k))
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned()
                    };
                    Call {
                        name: text("name"),
                        arguments: text("arguments"),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The kind of fault a difference points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Symptom {
    /// A call's arguments arrived empty.
    EmptyArguments,
    /// Several calls arrived as one (their arguments run together).
    MergedCalls,
    /// Calls are missing (or extra) in the streamed reply.
    LostCalls,
    /// A call's name or arguments changed.
    ChangedCalls,
    /// The streamed request failed or its stream was unusable.
    BrokenStream,
}

/// One way the streamed reply differs from the non-streamed one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Difference {
    /// Not as many calls.
    Count {
        /// Calls without streaming.
        plain: usize,
        /// Calls when streamed.
        streamed: usize,
    },
    /// One streamed call carries the arguments of several calls in a row.
    Merged {
        /// Position of the streamed call (0-based).
        position: usize,
        /// Its name.
        name: String,
        /// How many argument objects it holds.
        objects: usize,
    },
    /// Another function name at the same position.
    Name {
        /// Position (0-based).
        position: usize,
        /// Without streaming.
        plain: String,
        /// When streamed.
        streamed: String,
    },
    /// The streamed call's arguments are empty where the other call's are not.
    Emptied {
        /// Position (0-based).
        position: usize,
        /// The function.
        name: String,
    },
    /// The streamed call's arguments are not JSON.
    Invalid {
        /// Position (0-based).
        position: usize,
        /// The function.
        name: String,
    },
    /// Both are JSON, with other values.
    Changed {
        /// Position (0-based).
        position: usize,
        /// The function.
        name: String,
    },
    /// The streamed request gave no usable reply.
    StreamFailed {
        /// Why.
        reason: String,
    },
}

impl Difference {
    /// The symptom this difference shows.
    pub fn symptom(&self) -> Symptom {
        match self {
            Difference::Count { .. } => Symptom::LostCalls,
            Difference::Merged { .. } => Symptom::MergedCalls,
            Difference::Emptied { .. } => Symptom::EmptyArguments,
            Difference::Name { .. } | Difference::Invalid { .. } | Difference::Changed { .. } => {
                Symptom::ChangedCalls
            }
            Difference::StreamFailed { .. } => Symptom::BrokenStream,
        }
    }

    /// One sentence for people.
    pub fn describe(&self) -> String {
        match self {
            Difference::Count { plain, streamed } if streamed < plain => format!(
                "{} call(s) lost when streaming: {plain} without streaming, {streamed} streamed",
                plain - streamed
            ),
            Difference::Count { plain, streamed } => format!(
                "{} call(s) more when streaming: {plain} without streaming, {streamed} streamed",
                streamed - plain
            ),
            Difference::Merged {
                position,
                name,
                objects,
            } => format!(
                "{objects} calls merged into one when streaming: streamed call {} ({name}) has {objects} argument objects run together",
                position + 1
            ),
            Difference::Name {
                position,
                plain,
                streamed,
            } => format!(
                "call {} is {plain:?} without streaming but {streamed:?} streamed",
                position + 1
            ),
            Difference::Emptied { position, name } => format!(
                "call {} ({name}) lost its arguments when streaming: they arrived empty",
                position + 1
            ),
            Difference::Invalid { position, name } => format!(
                "call {} ({name}) has arguments that are not JSON when streamed",
                position + 1
            ),
            Difference::Changed { position, name } => format!(
                "call {} ({name}) has other argument values when streamed",
                position + 1
            ),
            Difference::StreamFailed { reason } => {
                format!("the streamed request gave no usable reply: {reason}")
            }
        }
    }
}

/// A text holding two or more JSON objects one after the other (`{…}{…}`, with optional
/// whitespace or commas between): the objects.
pub fn split_objects(text: &str) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut start = None;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => {
                if depth == 0 {
                    start = Some(i);
                }
                depth += 1;
            }
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    let s = start.take()?;
                    out.push(loads(&text[s..=i]).ok()?);
                }
            }
            c if depth == 0 && !(c.is_whitespace() || c == ',') => return None,
            _ => {}
        }
    }
    (depth == 0 && out.len() >= 2).then_some(out)
}

fn parsed(text: &str) -> Option<Value> {
    loads(text).ok()
}

fn is_empty_args(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || parsed(t).is_some_and(|v| v.as_object().is_some_and(|o| o.is_empty()))
}

/// Whether two argument texts say the same thing.
fn same_arguments(a: &str, b: &str) -> bool {
    a == b || matches!((parsed(a), parsed(b)), (Some(x), Some(y)) if py_eq(&x, &y))
}

fn same_call(a: &Call, b: &Call) -> bool {
    a.name == b.name && same_arguments(&a.arguments, &b.arguments)
}

/// The differences of `streamed` from `plain`, and notes on what was accepted.
pub fn compare(plain: &[Call], streamed: &[Call]) -> (Vec<Difference>, Vec<String>) {
    let mut notes = Vec::new();
    if plain.len() == streamed.len() {
        if plain.iter().zip(streamed).all(|(a, b)| same_call(a, b)) {
            let spacing = plain
                .iter()
                .zip(streamed)
                .any(|(a, b)| a.arguments != b.arguments);
            if spacing {
                notes.push("the argument text differs in spacing or key order only".to_owned());
            }
            return (Vec::new(), notes);
        }
        // The same calls in another order.
        let mut left: Vec<&Call> = plain.iter().collect();
        let all_found = streamed
            .iter()
            .all(|s| match left.iter().position(|p| same_call(p, s)) {
                Some(i) => {
                    left.remove(i);
                    true
                }
                None => false,
            });
        if all_found {
            notes.push("the same calls, in another order".to_owned());
            return (Vec::new(), notes);
        }
        let mut diffs = Vec::new();
        for (i, (a, b)) in plain.iter().zip(streamed).enumerate() {
            if a.name != b.name {
                diffs.push(Difference::Name {
                    position: i,
                    plain: a.name.clone(),
                    streamed: b.name.clone(),
                });
            } else if same_arguments(&a.arguments, &b.arguments) {
            } else if is_empty_args(&b.arguments) && !is_empty_args(&a.arguments) {
                diffs.push(Difference::Emptied {
                    position: i,
                    name: b.name.clone(),
                });
            } else if parsed(&b.arguments).is_none() {
                diffs.push(Difference::Invalid {
                    position: i,
                    name: b.name.clone(),
                });
            } else {
                diffs.push(Difference::Changed {
                    position: i,
                    name: b.name.clone(),
                });
            }
        }
        return (diffs, notes);
    }
    let mut diffs = vec![Difference::Count {
        plain: plain.len(),
        streamed: streamed.len(),
    }];
    for (i, s) in streamed.iter().enumerate() {
        if let Some(objects) = split_objects(&s.arguments) {
            diffs.push(Difference::Merged {
                position: i,
                name: s.name.clone(),
                objects: objects.len(),
            });
        } else if is_empty_args(&s.arguments)
            && plain
                .get(i)
                .is_some_and(|p| p.name == s.name && !is_empty_args(&p.arguments))
        {
            diffs.push(Difference::Emptied {
                position: i,
                name: s.name.clone(),
            });
        }
    }
    (diffs, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> Call {
        Call {
            name: name.to_owned(),
            arguments: arguments.to_owned(),
        }
    }

    #[test]
    fn spacing_key_order_and_call_order_do_not_count() {
        let plain = [call("a", r#"{"x":1,"y":"é"}"#), call("b", "{}")];
        let streamed = [call("b", "{ }"), call("a", r#"{ "y": "é", "x": 1 }"#)];
        let (d, notes) = compare(&plain, &streamed);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(notes, ["the same calls, in another order"]);
    }

    #[test]
    fn each_known_fault_is_named() {
        let city = |c: &str| call("get_weather", &format!(r#"{{"city": "{c}"}}"#));
        let plain = [city("Paris"), city("Lima")];
        let merged = [call("get_weather", r#"{"city": "Paris"}{"city": "Lima"}"#)];
        let (d, _) = compare(&plain, &merged);
        assert_eq!(
            d[0],
            Difference::Count {
                plain: 2,
                streamed: 1
            }
        );
        assert!(
            matches!(d[1], Difference::Merged { objects: 2, .. }),
            "{d:?}"
        );
        assert_eq!(d[1].symptom(), Symptom::MergedCalls);
        let (d, _) = compare(&plain[..1], &[call("get_weather", "{}")]);
        assert_eq!(
            d,
            [Difference::Emptied {
                position: 0,
                name: "get_weather".to_owned()
            }]
        );
        let (d, _) = compare(&plain[..1], &[city("Pari")]);
        assert!(matches!(d[..], [Difference::Changed { position: 0, .. }]));
        let (d, _) = compare(&plain[..1], &[call("get_weather", r#"{"city": "Par"#)]);
        assert!(matches!(d[..], [Difference::Invalid { .. }]));
        let (d, _) = compare(&plain, &plain[..1]);
        assert!(d[0].describe().starts_with("1 call(s) lost when streaming"));
    }

    #[test]
    fn concatenated_objects_are_split_and_nothing_else_is() {
        assert_eq!(
            split_objects(r#"{"a": "}{"}{"b": [1, {"c": 2}]}"#).map(|v| v.len()),
            Some(2)
        );
        assert_eq!(split_objects(r#"{"a": 1}"#), None);
        assert_eq!(split_objects(r#"{"a": 1} x {"b": 2}"#), None);
        assert_eq!(
            split_objects(r#"{"a": 1}, {"b": 2}"#).map(|v| v.len()),
            Some(2)
        );
        assert_eq!(split_objects("{\"a\": 1}{"), None);
    }
}
