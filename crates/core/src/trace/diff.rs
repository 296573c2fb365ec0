//! The closest gold candidate of a step, and what differs between the model's arguments
//! and the gold's.
//!
//! **Closest.** Each candidate accepted at a step is a list of gold actions. The model's
//! calls are paired with a candidate's actions in call order, each call taking the unpaired
//! action that costs least: an action with the same name before any other, then the one
//! with the fewest differences. A pair with different names costs [`UNPAIRED`] plus its
//! differences, and every call or action left without a partner costs [`UNPAIRED`]. The
//! closest candidate has the lowest total; ties go to the earlier candidate. This pairing
//! explains a step to a reader; it is not the official checker's pairing, which sorts calls
//! and gold actions by name and argument text and pairs them by position (PROTOCOL §4.2).
//!
//! **Differences.** Both argument texts are parsed as JSON and walked together: a key or
//! array element only the model has is *extra*, one only the gold has is *missing*, and a
//! value that differs in kind or value is *changed* (an integer and a float are different
//! kinds, as for the checker's type check). An extra or missing key counts once whatever
//! it holds. The model's arguments come back pretty-printed (two spaces per level, gold-only
//! keys after the model's own) as [`Piece`]s, each marked, with the expected value after a
//! changed one.

use super::{Call, Candidate};
use crate::json::{dumps, loads, py_eq, Escape, Value};

/// The cost of a call or gold action without a partner (and of a pair with different
/// names, on top of its differences).
pub const UNPAIRED: usize = 1000;

/// How a piece of pretty-printed arguments compares with the gold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// The same in the model's call and the gold.
    Same,
    /// Only in the model's call: an extra key or array element.
    Extra,
    /// Only in the gold: a key or array element the model left out.
    Missing,
    /// The model's value where it differs from the gold's.
    Changed,
    /// The gold's value, after a changed one.
    Expected,
}

impl Mark {
    /// Lower-case name (`same`, `extra`, `missing`, `changed`, `expected`).
    pub fn name(self) -> &'static str {
        match self {
            Mark::Same => "same",
            Mark::Extra => "extra",
            Mark::Missing => "missing",
            Mark::Changed => "changed",
            Mark::Expected => "expected",
        }
    }
}

/// A run of text with one mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The text (may span lines).
    pub text: String,
    /// How it compares with the gold.
    pub mark: Mark,
}

/// One call of the model beside the gold action it was paired with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallDiff {
    /// The model's call.
    pub call: Call,
    /// The gold action it was paired with (`None`: the candidate had no action left).
    pub gold: Option<Call>,
    /// The model's arguments pretty-printed and marked against the gold's (all
    /// [`Mark::Same`] when unpaired).
    pub pieces: Vec<Piece>,
    /// Extra, missing and changed keys and values.
    pub differences: usize,
    /// The model's arguments are not JSON (shown as they are, marked changed).
    pub unreadable: bool,
}

/// A step's model calls against its closest gold candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepDiff {
    /// Index of the closest candidate among the step's candidates.
    pub candidate: usize,
    /// One entry per model call, in call order.
    pub calls: Vec<CallDiff>,
    /// The candidate's actions no call was paired with, in order.
    pub unpaired: Vec<Call>,
}

#[derive(Default)]
struct Printer {
    pieces: Vec<Piece>,
    differences: usize,
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

fn parse(text: &str) -> Option<Value> {
    loads(text).ok()
}

/// Same kind (`bool`, `int`, `float`, `str`, …) and equal.
fn same(a: &Value, b: &Value) -> bool {
    a.py_type_name() == b.py_type_name() && py_eq(a, b)
}

impl Printer {
    fn push(&mut self, text: &str, mark: Mark) {
        match self.pieces.last_mut() {
            Some(last) if last.mark == mark => last.text.push_str(text),
            _ => self.pieces.push(Piece {
                text: text.to_owned(),
                mark,
            }),
        }
    }

    /// Writes `v` pretty-printed, all with `mark`.
    fn value(&mut self, v: &Value, depth: usize, mark: Mark) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                self.push("{\n", mark);
                for (i, (k, x)) in m.iter().enumerate() {
                    self.push(&indent(depth + 1), mark);
                    self.key(k, mark);
                    self.value(x, depth + 1, mark);
                    self.push(if i + 1 < m.len() { ",\n" } else { "\n" }, mark);
                }
                self.push(&indent(depth), mark);
                self.push("}", mark);
            }
            Value::Array(a) if !a.is_empty() => {
                self.push("[\n", mark);
                for (i, x) in a.iter().enumerate() {
                    self.push(&indent(depth + 1), mark);
                    self.value(x, depth + 1, mark);
                    self.push(if i + 1 < a.len() { ",\n" } else { "\n" }, mark);
                }
                self.push(&indent(depth), mark);
                self.push("]", mark);
            }
            other => self.push(&dumps(other, Escape::Utf8), mark),
        }
    }

    fn key(&mut self, k: &str, mark: Mark) {
        self.push(&dumps(&Value::Str(k.to_owned()), Escape::Utf8), mark);
        self.push(": ", mark);
    }

    /// An entry (`key` and value, or an element when `key` is `None`) only one side has.
    fn one_sided(&mut self, key: Option<&str>, v: &Value, depth: usize, mark: Mark) {
        if let Some(k) = key {
            self.key(k, mark);
        }
        self.value(v, depth, mark);
        self.differences += 1;
    }

    /// Writes the model's `p` marked against the gold's `g`.
    fn diff(&mut self, p: &Value, g: &Value, depth: usize) {
        match (p, g) {
            (Value::Object(pm), Value::Object(gm)) if !(pm.is_empty() && gm.is_empty()) => {
                let missing: Vec<(&String, &Value)> =
                    gm.iter().filter(|(k, _)| !pm.contains_key(k)).collect();
                let n = pm.len() + missing.len();
                self.push("{\n", Mark::Same);
                let entries = pm
                    .iter()
                    .map(|(k, v)| (k, v, gm.get(k), Mark::Extra))
                    .chain(
                        missing
                            .into_iter()
                            .map(|(k, w)| (k, w, None, Mark::Missing)),
                    );
                for (i, (k, v, other, mark)) in entries.enumerate() {
                    self.push(&indent(depth + 1), Mark::Same);
                    match other {
                        Some(w) => {
                            self.key(k, Mark::Same);
                            self.diff(v, w, depth + 1);
                        }
                        None => self.one_sided(Some(k), v, depth + 1, mark),
                    }
                    self.push(if i + 1 < n { ",\n" } else { "\n" }, Mark::Same);
                }
                self.push(&indent(depth), Mark::Same);
                self.push("}", Mark::Same);
            }
            (Value::Array(pa), Value::Array(ga)) if !(pa.is_empty() && ga.is_empty()) => {
                let n = pa.len().max(ga.len());
                self.push("[\n", Mark::Same);
                for i in 0..n {
                    self.push(&indent(depth + 1), Mark::Same);
                    match (pa.get(i), ga.get(i)) {
                        (Some(v), Some(w)) => self.diff(v, w, depth + 1),
                        (Some(v), None) => self.one_sided(None, v, depth + 1, Mark::Extra),
                        (None, Some(w)) => self.one_sided(None, w, depth + 1, Mark::Missing),
                        (None, None) => {}
                    }
                    self.push(if i + 1 < n { ",\n" } else { "\n" }, Mark::Same);
                }
                self.push(&indent(depth), Mark::Same);
                self.push("]", Mark::Same);
            }
            _ if same(p, g) => self.value(p, depth, Mark::Same),
            _ => {
                self.value(p, depth, Mark::Changed);
                self.push(" ", Mark::Same);
                self.push(
                    &format!("(expected {})", dumps(g, Escape::Utf8)),
                    Mark::Expected,
                );
                self.differences += 1;
            }
        }
    }
}

/// Argument text pretty-printed (as it is when it is not JSON), unmarked.
pub fn pretty(arguments: &str) -> String {
    match parse(arguments) {
        Some(v) => {
            let mut p = Printer::default();
            p.value(&v, 0, Mark::Same);
            p.pieces.into_iter().map(|x| x.text).collect()
        }
        None => arguments.to_owned(),
    }
}

/// The model's `arguments` pretty-printed and marked against the gold's, with the number
/// of differences; `None` when the model's arguments are not JSON.
pub fn diff_arguments(arguments: &str, gold: &str) -> Option<(Vec<Piece>, usize)> {
    let p = parse(arguments)?;
    let g = parse(gold).unwrap_or_else(|| Value::Str(gold.to_owned()));
    let mut out = Printer::default();
    out.diff(&p, &g, 0);
    Some((out.pieces, out.differences))
}

fn pair(call: &Call, gold: Option<&Call>) -> CallDiff {
    let found = gold.and_then(|g| diff_arguments(&call.arguments, &g.arguments));
    let unreadable = parse(&call.arguments).is_none();
    let (pieces, differences) = match found {
        Some(d) => d,
        None if unreadable => (
            vec![Piece {
                text: call.arguments.clone(),
                mark: Mark::Changed,
            }],
            1,
        ),
        None => (
            vec![Piece {
                text: pretty(&call.arguments),
                mark: Mark::Same,
            }],
            0,
        ),
    };
    CallDiff {
        call: call.clone(),
        gold: gold.cloned(),
        pieces,
        differences,
        unreadable,
    }
}

fn cost(call: &Call, gold: &Call) -> usize {
    let differences = match diff_arguments(&call.arguments, &gold.arguments) {
        Some((_, n)) => n,
        None => 1,
    };
    differences + if call.name == gold.name { 0 } else { UNPAIRED }
}

/// Pairs the model's `calls` with the closest of `candidates` (see the module docs);
/// `None` when there are no calls or no candidates.
pub fn closest(calls: &[Call], candidates: &[Candidate]) -> Option<StepDiff> {
    if calls.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize, Vec<Option<usize>>)> = None;
    for (ci, cand) in candidates.iter().enumerate() {
        let mut used = vec![false; cand.actions.len()];
        let mut pairing = Vec::with_capacity(calls.len());
        let mut total = 0;
        for call in calls {
            let pick = cand
                .actions
                .iter()
                .enumerate()
                .filter(|(gi, _)| !used.get(*gi).copied().unwrap_or(true))
                .map(|(gi, g)| (gi, cost(call, g)))
                .min_by_key(|(_, c)| *c);
            match pick {
                Some((gi, c)) => {
                    if let Some(u) = used.get_mut(gi) {
                        *u = true;
                    }
                    total += c;
                    pairing.push(Some(gi));
                }
                None => {
                    total += UNPAIRED;
                    pairing.push(None);
                }
            }
        }
        total += used.iter().filter(|u| !**u).count() * UNPAIRED;
        if best.as_ref().is_none_or(|b| total < b.0) {
            best = Some((total, ci, pairing));
        }
    }
    let (_, ci, pairing) = best?;
    let cand = candidates.get(ci)?;
    let calls = calls
        .iter()
        .zip(&pairing)
        .map(|(c, gi)| pair(c, gi.and_then(|gi| cand.actions.get(gi))))
        .collect();
    let unpaired = cand
        .actions
        .iter()
        .enumerate()
        .filter(|(gi, _)| !pairing.contains(&Some(*gi)))
        .map(|(_, a)| a.clone())
        .collect();
    Some(StepDiff {
        candidate: ci,
        calls,
        unpaired,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: &str) -> Call {
        Call {
            name: name.into(),
            arguments: args.into(),
        }
    }

    fn cand(actions: &[(&str, &str)]) -> Candidate {
        Candidate {
            actions: actions.iter().map(|(n, a)| call(n, a)).collect(),
            observation: None,
        }
    }

    fn marked(pieces: &[Piece], mark: Mark) -> Vec<String> {
        pieces
            .iter()
            .filter(|p| p.mark == mark)
            .map(|p| p.text.trim().to_owned())
            .collect()
    }

    #[test]
    fn extra_missing_and_changed_keys_are_marked() {
        let (pieces, n) = diff_arguments(
            r#"{"city": "Pariss", "note": "x", "days": 3}"#,
            r#"{"city": "Paris", "days": 3, "units": "metric"}"#,
        )
        .expect("json");
        assert_eq!(n, 3);
        assert_eq!(marked(&pieces, Mark::Changed), vec![r#""Pariss""#]);
        assert_eq!(
            marked(&pieces, Mark::Expected),
            vec![r#"(expected "Paris")"#]
        );
        assert_eq!(marked(&pieces, Mark::Extra), vec![r#""note": "x""#]);
        assert_eq!(marked(&pieces, Mark::Missing), vec![r#""units": "metric""#]);
        let text: String = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            text,
            "{\n  \"city\": \"Pariss\" (expected \"Paris\"),\n  \"note\": \"x\",\n  \"days\": 3,\n  \"units\": \"metric\"\n}"
        );
    }

    #[test]
    fn nested_values_arrays_and_kinds() {
        let (pieces, n) = diff_arguments(
            r#"{"items": [{"id": 1, "qty": 2}, {"id": 2}], "max": 50.0, "ok": true}"#,
            r#"{"items": [{"id": 1, "qty": 1}], "max": 50, "ok": 1}"#,
        )
        .expect("json");
        // qty changed, second item extra, 50.0 vs 50 and true vs 1 differ in kind.
        assert_eq!(n, 4);
        assert_eq!(marked(&pieces, Mark::Changed), vec!["2", "50.0", "true"]);
        assert_eq!(
            marked(&pieces, Mark::Extra),
            vec!["{\n      \"id\": 2\n    }"]
        );
        let (same, n) =
            diff_arguments(r#"{"a":[1,2],"b":{}}"#, r#"{"b": {}, "a": [1, 2]}"#).expect("json");
        assert_eq!(n, 0, "key order does not matter");
        assert!(same.iter().all(|p| p.mark == Mark::Same));
        let (_, n) = diff_arguments("[1]", "[1, 2, 3]").expect("json");
        assert_eq!(n, 2, "two missing elements");
        assert_eq!(diff_arguments(r#"{"a": 1"#, r#"{"a": 1}"#), None);
    }

    #[test]
    fn the_closest_candidate_prefers_names_then_fewest_differences() {
        let calls = [call("search", r#"{"q": "usb", "max": 30}"#)];
        let cands = [
            cand(&[("lookup", r#"{"q": "usb", "max": 30}"#)]),
            cand(&[("search", r#"{"q": "usb-c", "max": 40}"#)]),
            cand(&[("search", r#"{"q": "usb", "max": 40}"#)]),
            cand(&[("search", r#"{"q": "usb", "max": 40}"#)]),
        ];
        let d = closest(&calls, &cands).expect("a candidate");
        assert_eq!(
            d.candidate, 2,
            "same name, one difference, earliest of the tie"
        );
        assert_eq!(d.calls[0].differences, 1);
        assert!(d.unpaired.is_empty());
        assert_eq!(closest(&[], &cands), None);
        assert_eq!(closest(&calls, &[]), None);
    }

    #[test]
    fn parallel_calls_pair_one_to_one_and_leftovers_are_reported() {
        let calls = [
            call("get_weather", r#"{"city": "Madrid"}"#),
            call("get_weather", r#"{"city": "Madrid"}"#),
        ];
        let cands = [cand(&[
            ("get_weather", r#"{"city": "Berlin"}"#),
            ("get_weather", r#"{"city": "Madrid"}"#),
            ("get_time", r#"{"city": "Berlin"}"#),
        ])];
        let d = closest(&calls, &cands).expect("a candidate");
        assert_eq!(
            d.calls[0].gold.as_ref().map(|g| g.arguments.as_str()),
            Some(r#"{"city": "Madrid"}"#)
        );
        assert_eq!(d.calls[0].differences, 0);
        assert_eq!(
            d.calls[1].gold.as_ref().map(|g| g.arguments.as_str()),
            Some(r#"{"city": "Berlin"}"#),
            "the second call takes the action left"
        );
        assert_eq!(d.calls[1].differences, 1);
        assert_eq!(d.unpaired, vec![call("get_time", r#"{"city": "Berlin"}"#)]);
        let more = [call("a", "{}"), call("b", "{}")];
        let d = closest(&more, &[cand(&[("a", "{}")])]).expect("a candidate");
        assert_eq!(d.calls[1].gold, None);
        assert_eq!(d.calls[1].pieces[0].mark, Mark::Same);
    }

    #[test]
    fn unreadable_arguments_are_shown_as_they_are() {
        let calls = [call("convert", r#"{"amount": 1.5, "to": "JPY""#)];
        let d = closest(
            &calls,
            &[cand(&[("convert", r#"{"amount": 1.5, "to": "JPY"}"#)])],
        )
        .expect("a candidate");
        let c = &d.calls[0];
        assert!(c.unreadable);
        assert_eq!(c.differences, 1);
        assert_eq!(
            c.pieces,
            vec![Piece {
                text: calls[0].arguments.clone(),
                mark: Mark::Changed
            }]
        );
        assert_eq!(pretty("not json"), "not json");
        assert_eq!(
            pretty(r#"{"a":[1,{"b":null}]}"#),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ]\n}"
        );
        assert_eq!(pretty("{}"), "{}");
    }
}
