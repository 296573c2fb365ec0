//! The official argument checker (PROTOCOL §5).
//!
//! [`check`] returns the verdict string the official `checker_utils.py` returns for one
//! predicted call against its gold call, in parity mode. [`check_verdict`] returns the
//! same verdict plus the [`Quirk`]s met: where the official code crashes (C3, C4, C12) the
//! verdict is wildtool's stated one, and callers can flag it as not official-comparable.
//!
//! Building blocks: [`pystr`] (Python string semantics), [`difflib`] (edit ratio),
//! [`rouge`] (ROUGE-L F), [`segment`] (jieba), [`schema`] (§5.2) and [`compare`] (§5.3).

pub mod compare;
pub mod difflib;
pub mod pystr;
pub mod rouge;
pub mod schema;
pub mod segment;

use thiserror::Error;

use crate::json::{loads, JsonErrorKind, Map, Value};

#[cfg(feature = "jieba-dict")]
pub use segment::LazyJieba;
pub use segment::{JiebaSegmenter, NoSegmenter, SegmentError, Segmenter};

/// The verdict `"correct"`.
pub const CORRECT: &str = "correct";
/// Verdict for a predicted argument string that `json.loads` rejects, or a non-string one.
pub const INVALID_JSON: &str = "error: args invalid json format";
/// wildtool's verdict when the gold tool is not among the step's tools (C4).
pub const TOOL_NOT_DEFINED: &str = "error: tool not defined";
/// What [`check`] returns when a string needed jieba and no segmenter was available. Not
/// an official verdict: [`check_verdict`] reports this case as an error instead.
pub const SEGMENTER_UNAVAILABLE: &str = "error: segmenter unavailable";

/// The segmenter of this build: jieba with its embedded default dictionary when the
/// `jieba-dict` feature is on (native builds), otherwise [`NoSegmenter`]. The dictionary
/// is built on the first string that needs segmenting ([`LazyJieba`]), once per value:
/// create one and share it.
pub fn default_segmenter() -> Box<dyn Segmenter + Send + Sync> {
    #[cfg(feature = "jieba-dict")]
    {
        Box::new(LazyJieba::new())
    }
    #[cfg(not(feature = "jieba-dict"))]
    {
        Box::new(NoSegmenter)
    }
}

/// A place where the official checker would have crashed; wildtool's verdict stands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quirk {
    /// C3: a list-valued schema `type` (official TypeError); its union was used.
    ListValuedType,
    /// C4: the gold tool name is not in `tools` (official KeyError).
    ToolNotDefined,
    /// C12: `function.arguments` is not a string (official TypeError).
    NonStringArguments,
    /// The predicted string makes Python's `json.loads` raise something other than
    /// `JSONDecodeError` (an integer over 4300 digits, or nesting past the recursion
    /// limit), which the official checker does not catch. No PROTOCOL id; wildtool
    /// answers [`INVALID_JSON`].
    UncaughtParseError,
}

impl Quirk {
    /// The PROTOCOL §6 id of the quirk, if it has one.
    pub fn protocol_id(self) -> Option<&'static str> {
        match self {
            Quirk::ListValuedType => Some("C3"),
            Quirk::ToolNotDefined => Some("C4"),
            Quirk::NonStringArguments => Some("C12"),
            Quirk::UncaughtParseError => None,
        }
    }
}

/// The checker's result for one predicted/gold pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The verdict string (§5.5), e.g. `"correct"` or
    /// `"error_match: value mismatch at 'lat'"`.
    pub text: String,
    /// Official crashes met on the way; empty means the verdict is official-comparable.
    pub quirks: Vec<Quirk>,
}

impl Verdict {
    fn plain(text: impl Into<String>) -> Self {
        Verdict {
            text: text.into(),
            quirks: Vec::new(),
        }
    }

    /// True for `"correct"`.
    pub fn is_correct(&self) -> bool {
        self.text == CORRECT
    }

    /// True when no official crash was involved.
    pub fn is_official_comparable(&self) -> bool {
        self.quirks.is_empty()
    }
}

/// Why no verdict could be produced.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CheckError {
    /// A string with U+4E00–U+9FA5 needed jieba, and the segmenter failed (typically the
    /// WebAssembly dictionary is not loaded yet).
    #[error("cannot check {tool:?}: {source}")]
    Segmenter {
        /// The gold tool name.
        tool: String,
        /// The segmenter's error.
        source: SegmentError,
    },
}

/// A tool's argument schema from the step's `tools` (§5.1).
#[derive(Debug, Clone, Copy)]
struct ToolSchema<'t> {
    required: &'t [Value],
    properties: Option<&'t Map>,
}

/// Looks `name` up in `tools` (`[{"type": "function", "function": {"name", "parameters"}}…]`):
/// nameless entries are skipped, the last entry of a name wins, and missing `parameters`,
/// `required` and `properties` count as empty.
fn find_tool<'t>(tools: &'t Value, name: &str) -> Option<ToolSchema<'t>> {
    let entries = tools.as_array()?;
    let function = entries
        .iter()
        .rev()
        .filter_map(|entry| entry.get("function"))
        .find(|function| function.get("name").and_then(Value::as_str) == Some(name))?;
    let parameters = function.get("parameters");
    let required = match parameters.and_then(|p| p.get("required")) {
        Some(Value::Array(r)) => r.as_slice(),
        _ => &[],
    };
    let properties = parameters
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object);
    Some(ToolSchema {
        required,
        properties,
    })
}

/// The official `check(tools, name, predicted_args, gold_args)` (PROTOCOL §5), as a
/// verdict string; see [`check_verdict`] for the arguments.
///
/// If a string needed segmentation and `seg` failed, returns [`SEGMENTER_UNAVAILABLE`].
pub fn check(
    tools: &Value,
    name: &str,
    predicted: &Value,
    gold_args: &str,
    seg: &dyn Segmenter,
) -> String {
    match check_verdict(tools, name, predicted, gold_args, seg) {
        Ok(verdict) => verdict.text,
        Err(CheckError::Segmenter { .. }) => SEGMENTER_UNAVAILABLE.to_owned(),
    }
}

/// The official `check(tools, name, predicted_args, gold_args)` (PROTOCOL §5), with the
/// official crashes it stood in for.
///
/// - `tools`: the step's logged `tools` list.
/// - `name`: the gold tool name.
/// - `predicted`: the call's `function.arguments` exactly as logged, normally a JSON
///   string ([`Value::Str`]); any other value gives [`INVALID_JSON`] with
///   [`Quirk::NonStringArguments`] (C12).
/// - `gold_args`: the gold `arguments` string.
///
/// Order (§5.1): tool lookup ([`TOOL_NOT_DEFINED`], C4), parse the prediction
/// ([`INVALID_JSON`]), schema stage, then parse the gold (`error: comparison failed -
/// <Python message>` if it does not parse) and compare.
pub fn check_verdict(
    tools: &Value,
    name: &str,
    predicted: &Value,
    gold_args: &str,
    seg: &dyn Segmenter,
) -> Result<Verdict, CheckError> {
    let Some(tool) = find_tool(tools, name) else {
        return Ok(Verdict {
            text: TOOL_NOT_DEFINED.to_owned(),
            quirks: vec![Quirk::ToolNotDefined],
        });
    };
    let Value::Str(predicted_str) = predicted else {
        return Ok(Verdict {
            text: INVALID_JSON.to_owned(),
            quirks: vec![Quirk::NonStringArguments],
        });
    };
    let predicted_value = match loads(predicted_str) {
        Ok(v) => v,
        Err(e) if e.kind == JsonErrorKind::Decode => return Ok(Verdict::plain(INVALID_JSON)),
        Err(_) => {
            return Ok(Verdict {
                text: INVALID_JSON.to_owned(),
                quirks: vec![Quirk::UncaughtParseError],
            })
        }
    };

    let mut notes = schema::SchemaNotes::default();
    let schema_error =
        schema::check_top_level(&predicted_value, tool.required, tool.properties, &mut notes);
    let quirks = if notes.list_valued_type {
        vec![Quirk::ListValuedType]
    } else {
        Vec::new()
    };
    if let Some(err) = schema_error {
        return Ok(Verdict {
            text: err.to_owned(),
            quirks,
        });
    }

    let gold_value = match loads(gold_args) {
        Ok(v) => v,
        Err(e) => {
            return Ok(Verdict {
                text: format!("error: comparison failed - {e}"),
                quirks,
            })
        }
    };
    let outcome = compare::compare(&predicted_value, &gold_value, seg).map_err(|source| {
        CheckError::Segmenter {
            tool: name.to_owned(),
            source,
        }
    })?;
    Ok(Verdict {
        text: outcome.unwrap_or_else(|| CORRECT.to_owned()),
        quirks,
    })
}

/// [`check_verdict`] for a predicted argument string.
pub fn check_str(
    tools: &Value,
    name: &str,
    predicted: &str,
    gold_args: &str,
    seg: &dyn Segmenter,
) -> Result<Verdict, CheckError> {
    check_verdict(
        tools,
        name,
        &Value::Str(predicted.to_owned()),
        gold_args,
        seg,
    )
}
