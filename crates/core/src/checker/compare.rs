//! The comparison stage of the official checker (PROTOCOL §5.3, §6 P14, P15, N1).

use crate::json::{repr_str_list, Value};

use super::difflib;
use super::pystr::{contains_han, format_2f, normalize, py_len};
use super::rouge::{max_cells_at_depth, rouge_l_f};
use super::segment::{join_words, SegmentError, Segmenter};

/// Compares the parsed predicted arguments with the parsed gold arguments.
///
/// Returns `Ok(None)` for "correct" and `Ok(Some(verdict))` for the first mismatch. The
/// only error is a segmenter that is needed (a string with U+4E00–U+9FA5) but unavailable.
///
/// The official comparison is a recursive pre-order walk (object members in gold order,
/// array items in order, first error wins); this walks the same order with an explicit
/// stack, so nesting as deep as the JSON parser allows cannot overflow the native stack.
pub fn compare(
    predicted: &Value,
    gold: &Value,
    seg: &dyn Segmenter,
) -> Result<Option<String>, SegmentError> {
    // (predicted, gold, path, depth below the top-level argument object)
    let mut stack: Vec<(&Value, &Value, String, usize)> = vec![(predicted, gold, String::new(), 0)];
    while let Some((p, g, path, depth)) = stack.pop() {
        if let Some(err) = visit(p, g, &path, depth, seg, &mut stack)? {
            return Ok(Some(err));
        }
    }
    Ok(None)
}

/// One node of the walk: returns its verdict, or pushes its children (in reverse, so they
/// pop in order) and returns `None`.
fn visit<'v>(
    p: &'v Value,
    g: &'v Value,
    path: &str,
    depth: usize,
    seg: &dyn Segmenter,
    stack: &mut Vec<(&'v Value, &'v Value, String, usize)>,
) -> Result<Option<String>, SegmentError> {
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" at '{path}'")
    };
    if std::mem::discriminant(p) != std::mem::discriminant(g) {
        return Ok(Some(format!("error_match: value type inconsistent{at}")));
    }
    match (p, g) {
        (Value::Object(pm), Value::Object(gm)) => {
            let missing: Vec<&str> = gm
                .keys()
                .filter(|k| !pm.contains_key(k))
                .map(String::as_str)
                .collect();
            let extra: Vec<&str> = pm
                .keys()
                .filter(|k| !gm.contains_key(k))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() || !extra.is_empty() {
                let mut parts = Vec::with_capacity(2);
                if !missing.is_empty() {
                    parts.push(format!("missing: {}", repr_str_list(&missing)));
                }
                if !extra.is_empty() {
                    parts.push(format!("extra: {}", repr_str_list(&extra)));
                }
                return Ok(Some(format!(
                    "error_match: args keys mismatch{at} ({})",
                    parts.join(", ")
                )));
            }
            let children: Vec<_> = gm
                .iter()
                .filter_map(|(key, gv)| {
                    let pv = pm.get(key)?;
                    let child = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    Some((pv, gv, child, depth + 1))
                })
                .collect();
            stack.extend(children.into_iter().rev());
            Ok(None)
        }
        (Value::Array(pa), Value::Array(ga)) => {
            if pa.len() != ga.len() {
                return Ok(Some(format!("error_match: array length mismatch{at}")));
            }
            let children: Vec<_> = pa
                .iter()
                .zip(ga)
                .enumerate()
                .map(|(i, (pv, gv))| (pv, gv, format!("{path}[{i}]"), depth + 1))
                .collect();
            stack.extend(children.into_iter().rev());
            Ok(None)
        }
        (Value::Str(ps), Value::Str(gs)) => string_rule(ps, gs, &at, depth.saturating_sub(1), seg),
        (Value::Int(a), Value::Int(b)) if a == b => Ok(None),
        (Value::Float(a), Value::Float(b)) if a == b => Ok(None),
        (Value::Bool(a), Value::Bool(b)) if a == b => Ok(None),
        (Value::Null, Value::Null) => Ok(None),
        _ => Ok(Some(format!("error_match: value mismatch{at}"))),
    }
}

/// Minimum edit ratio for gold strings shorter than 10 code points.
const EDIT_THRESHOLD: f64 = 0.8;
/// Minimum ROUGE-L F.
const ROUGE_THRESHOLD: f64 = 0.7;

/// The §5.3 string rule. `extra_depth` is `e` of the recursion-limit emulation (§5.4).
fn string_rule(
    p: &str,
    g: &str,
    at: &str,
    extra_depth: usize,
    seg: &dyn Segmenter,
) -> Result<Option<String>, SegmentError> {
    if p == g || normalize(p) == normalize(g) {
        return Ok(None);
    }
    if py_len(g) < 10 {
        let r = difflib::ratio(p, g);
        if r < EDIT_THRESHOLD {
            return Ok(Some(format!(
                "error_match: string similarity too low{at} (edit score: {})",
                format_2f(r)
            )));
        }
    }
    let (hyp, reference) = if contains_han(p) || contains_han(g) {
        (join_words(seg, p)?, join_words(seg, g)?)
    } else {
        (p.to_owned(), g.to_owned())
    };
    match rouge_l_f(&hyp, &reference, max_cells_at_depth(extra_depth)) {
        Err(_) => Ok(Some(format!("error_match: rouge calculation failed{at}"))),
        Ok(f) if f < ROUGE_THRESHOLD => Ok(Some(format!(
            "error_match: string similarity too low{at} (rouge score: {})",
            format_2f(f)
        ))),
        Ok(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checker::segment::NoSegmenter;
    use crate::json::loads;

    fn cmp(p: &str, g: &str) -> String {
        let (Ok(p), Ok(g)) = (loads(p), loads(g)) else {
            return "unparsable test input".to_owned();
        };
        match compare(&p, &g, &NoSegmenter) {
            Ok(None) => "correct".to_owned(),
            Ok(Some(v)) => v,
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn key_lists_use_gold_then_predicted_order_and_python_repr() {
        assert_eq!(
            cmp(
                r#"{"z": 1, "y": 2, "a": 3}"#,
                r#"{"a": 3, "b": 1, "c'": 2}"#
            ),
            r#"error_match: args keys mismatch (missing: ['b', "c'"], extra: ['z', 'y'])"#
        );
        assert_eq!(
            cmp(r#"{"m": {"x": 1}}"#, r#"{"m": {}}"#),
            "error_match: args keys mismatch at 'm' (extra: ['x'])"
        );
    }

    #[test]
    fn paths_and_gold_key_order() {
        // Gold order decides which mismatch is reported first.
        assert_eq!(
            cmp(r#"{"a": 1, "b": 2}"#, r#"{"b": 3, "a": 4}"#),
            "error_match: value mismatch at 'b'"
        );
        assert_eq!(
            cmp(r#"{"i": [{"q": [1, [2]]}]}"#, r#"{"i": [{"q": [1, [3]]}]}"#),
            "error_match: value mismatch at 'i[0].q[1][0]'"
        );
        assert_eq!(
            cmp(r#"{"i": [1]}"#, r#"{"i": [1, 2]}"#),
            "error_match: array length mismatch at 'i'"
        );
        assert_eq!(cmp("[]", "{}"), "error_match: value type inconsistent");
    }

    #[test]
    fn scalars_follow_python() {
        assert_eq!(
            cmp(r#"{"n": 5}"#, r#"{"n": 5.0}"#),
            "error_match: value type inconsistent at 'n'"
        );
        assert_eq!(
            cmp(r#"{"n": true}"#, r#"{"n": 1}"#),
            "error_match: value type inconsistent at 'n'"
        );
        assert_eq!(cmp(r#"{"n": -0.0}"#, r#"{"n": 0.0}"#), "correct");
        assert_eq!(cmp(r#"{"n": -0}"#, r#"{"n": 0}"#), "correct");
        assert_eq!(
            cmp(
                r#"{"n": 123456789012345678901}"#,
                r#"{"n": 123456789012345678902}"#
            ),
            "error_match: value mismatch at 'n'"
        );
        assert_eq!(
            cmp(r#"{"n": NaN}"#, r#"{"n": NaN}"#),
            "error_match: value mismatch at 'n'"
        );
        assert_eq!(cmp(r#"{"n": null}"#, r#"{"n": null}"#), "correct");
    }

    #[test]
    fn string_rule_order() {
        assert_eq!(cmp(r#"{"s": "Ab C"}"#, r#"{"s": "abc"}"#), "correct");
        assert_eq!(
            cmp(r#"{"s": "abcdf"}"#, r#"{"s": "abcde"}"#),
            "error_match: string similarity too low at 's' (rouge score: 0.00)"
        );
        assert_eq!(
            cmp(r#"{"s": "x"}"#, r#"{"s": ""}"#),
            "error_match: string similarity too low at 's' (edit score: 0.00)"
        );
        // Han text needs the segmenter; without one the caller is told, not guessed for.
        assert_eq!(
            cmp(r#"{"s": "北京市"}"#, r#"{"s": "北京"}"#),
            "ERR segmenter unavailable"
        );
    }
}
