//! Templates of the domain packs: text with `{slot}`, `{slot.field}` and `{-slot}`
//! references and, in user-facing text, `[optional segments]` that disappear when a slot
//! inside them is left unsaid; and JSON templates whose strings are such texts (a string
//! that is exactly one reference becomes the referenced value with its JSON type).

use crate::json::Value;

/// A reference to a slot, optionally to one of its fields, optionally negated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    /// The slot name.
    pub slot: String,
    /// The field (`{slot.field}`).
    pub field: Option<String>,
    /// `{-slot}`: the negated number.
    pub neg: bool,
}

/// A piece of a text template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Lit(String),
    /// A reference.
    Ref(Ref),
    /// An optional segment (user-facing text only) and the literal text that replaces it
    /// when it is dropped (`[ for {city}|]`, `[{ref}|the station]`).
    Opt(Vec<Piece>, String),
}

/// A parsed text template.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    /// The pieces in order.
    pub pieces: Vec<Piece>,
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_ref(inner: &str) -> Result<Ref, String> {
    let (neg, body) = match inner.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let (slot, field) = match body.split_once('.') {
        Some((s, f)) => (s, Some(f)),
        None => (body, None),
    };
    if !is_ident(slot) || field.is_some_and(|f| !is_ident(f)) {
        return Err(format!("bad reference {{{inner}}}"));
    }
    Ok(Ref {
        slot: slot.to_owned(),
        field: field.map(str::to_owned),
        neg,
    })
}

impl Text {
    /// Parses `src`. With `optional`, `[` and `]` delimit optional segments (not
    /// nested); without, they are literal characters.
    pub fn parse(src: &str, optional: bool) -> Result<Self, String> {
        let mut stack: Vec<Vec<Piece>> = vec![Vec::new()];
        let mut lit = String::new();
        let mut fallback: Option<String> = None;
        let mut chars = src.char_indices().peekable();
        let flush = |lit: &mut String, stack: &mut Vec<Vec<Piece>>| {
            if !lit.is_empty() {
                if let Some(top) = stack.last_mut() {
                    top.push(Piece::Lit(std::mem::take(lit)));
                }
            }
        };
        while let Some((i, c)) = chars.next() {
            if let Some(fb) = fallback.as_mut() {
                match c {
                    ']' => {}
                    '[' | '{' | '}' | '|' => {
                        return Err(format!("only plain text may follow | in {src:?}"))
                    }
                    _ => {
                        fb.push(c);
                        continue;
                    }
                }
            }
            match c {
                '|' if optional && stack.len() == 2 => {
                    flush(&mut lit, &mut stack);
                    fallback = Some(String::new());
                }
                '{' => {
                    let rest = src.get(i + 1..).unwrap_or("");
                    let end = rest
                        .find('}')
                        .ok_or_else(|| format!("unclosed {{ in {src:?}"))?;
                    let inner = rest.get(..end).unwrap_or("");
                    let r = parse_ref(inner).map_err(|e| format!("{e} in {src:?}"))?;
                    flush(&mut lit, &mut stack);
                    if let Some(top) = stack.last_mut() {
                        top.push(Piece::Ref(r));
                    }
                    for _ in 0..=end {
                        chars.next();
                    }
                }
                '}' => return Err(format!("stray }} in {src:?}")),
                '[' if optional => {
                    if stack.len() > 1 {
                        return Err(format!("nested [ in {src:?}"));
                    }
                    flush(&mut lit, &mut stack);
                    stack.push(Vec::new());
                }
                ']' if optional => {
                    if stack.len() != 2 {
                        return Err(format!("stray ] in {src:?}"));
                    }
                    flush(&mut lit, &mut stack);
                    let seg = stack.pop().unwrap_or_default();
                    if !seg.iter().any(|p| matches!(p, Piece::Ref(_))) {
                        return Err(format!("optional segment without a slot in {src:?}"));
                    }
                    let fb = fallback.take().unwrap_or_default();
                    if let Some(top) = stack.last_mut() {
                        top.push(Piece::Opt(seg, fb));
                    }
                }
                _ => lit.push(c),
            }
        }
        if stack.len() != 1 {
            return Err(format!("unclosed [ in {src:?}"));
        }
        flush(&mut lit, &mut stack);
        Ok(Self {
            pieces: stack.pop().unwrap_or_default(),
        })
    }

    /// Every reference, optional segments included.
    pub fn refs(&self) -> Vec<&Ref> {
        let mut out = Vec::new();
        for p in &self.pieces {
            match p {
                Piece::Ref(r) => out.push(r),
                Piece::Opt(inner, _) => out.extend(inner.iter().filter_map(|q| match q {
                    Piece::Ref(r) => Some(r),
                    _ => None,
                })),
                Piece::Lit(_) => {}
            }
        }
        out
    }

    /// Slots referenced without a field outside optional segments (they cannot be left
    /// unsaid).
    pub fn required_bare(&self) -> Vec<&str> {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Ref(r) if r.field.is_none() => Some(r.slot.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether `slot` can be left unsaid: every bare reference to it is inside an optional
    /// segment (and there is at least one).
    pub fn can_drop(&self, slot: &str) -> bool {
        let inside = self.pieces.iter().any(|p| {
            matches!(p, Piece::Opt(inner, _) if inner.iter().any(|q| matches!(q, Piece::Ref(r) if r.slot == slot && r.field.is_none())))
        });
        inside && !self.required_bare().contains(&slot)
    }

    /// Whether the text starts with literal text.
    pub fn starts_literal(&self) -> bool {
        matches!(self.pieces.first(), Some(Piece::Lit(s)) if s.chars().next().is_some_and(char::is_alphabetic))
    }

    /// Renders with `resolve` giving each reference's text, or `None` for a slot left
    /// unsaid (its optional segment is dropped). `Err` when an unsaid slot is outside an
    /// optional segment or a reference fails.
    pub fn render(
        &self,
        resolve: &mut dyn FnMut(&Ref) -> Result<Option<String>, String>,
    ) -> Result<String, String> {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Lit(s) => out.push_str(s),
                Piece::Ref(r) => match resolve(r)? {
                    Some(s) => out.push_str(&s),
                    None => return Err(format!("slot {} cannot be left unsaid here", r.slot)),
                },
                Piece::Opt(inner, fb) => {
                    let mut seg = String::new();
                    let mut keep = true;
                    for q in inner {
                        match q {
                            Piece::Lit(s) => seg.push_str(s),
                            Piece::Ref(r) => match resolve(r)? {
                                Some(s) => seg.push_str(&s),
                                None => keep = false,
                            },
                            Piece::Opt(..) => {}
                        }
                    }
                    out.push_str(if keep { &seg } else { fb });
                }
            }
        }
        Ok(out)
    }
}

/// A JSON template.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// A literal value (numbers, booleans, null, strings without references).
    Lit(Value),
    /// A string that is exactly one reference: the referenced value itself.
    Exact(Ref),
    /// A string with references: their text interpolated.
    Str(Text),
    /// An array.
    Array(Vec<Json>),
    /// An object (key order kept).
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Compiles a parsed pack value.
    pub fn compile(v: &serde_json::Value) -> Result<Self, String> {
        Ok(match v {
            serde_json::Value::Null => Json::Lit(Value::Null),
            serde_json::Value::Bool(b) => Json::Lit(Value::Bool(*b)),
            serde_json::Value::Number(n) => Json::Lit(number(n)?),
            serde_json::Value::String(s) => {
                let t = Text::parse(s, false)?;
                match t.pieces.as_slice() {
                    [] => Json::Lit(Value::Str(String::new())),
                    [Piece::Lit(l)] => Json::Lit(Value::Str(l.clone())),
                    [Piece::Ref(r)] => Json::Exact(r.clone()),
                    _ => Json::Str(t),
                }
            }
            serde_json::Value::Array(a) => {
                Json::Array(a.iter().map(Json::compile).collect::<Result<_, _>>()?)
            }
            serde_json::Value::Object(o) => Json::Object(
                o.iter()
                    .map(|(k, v)| Ok((k.clone(), Json::compile(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
        })
    }

    /// Every reference.
    pub fn refs(&self) -> Vec<&Ref> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a Ref>) {
        match self {
            Json::Lit(_) => {}
            Json::Exact(r) => out.push(r),
            Json::Str(t) => out.extend(t.refs()),
            Json::Array(a) => a.iter().for_each(|j| j.collect(out)),
            Json::Object(o) => o.iter().for_each(|(_, j)| j.collect(out)),
        }
    }

    /// Top-level object keys whose value references `slot`.
    pub fn keys_referencing(&self, slot: &str) -> Vec<&str> {
        match self {
            Json::Object(o) => o
                .iter()
                .filter(|(_, j)| j.refs().iter().any(|r| r.slot == slot))
                .map(|(k, _)| k.as_str())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Converts a pack number: integers stay integers, anything else is a float.
pub fn number(n: &serde_json::Number) -> Result<Value, String> {
    if let Some(i) = n.as_i64() {
        Ok(Value::int(i))
    } else if let Some(f) = n.as_f64() {
        Ok(Value::Float(f))
    } else {
        Err(format!("number {n} out of range"))
    }
}

/// Converts a pack value into a wildtool JSON value.
pub fn value(v: &serde_json::Value) -> Result<Value, String> {
    Ok(match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => number(n)?,
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(value).collect::<Result<_, _>>()?),
        serde_json::Value::Object(o) => {
            let mut m = crate::json::Map::new();
            for (k, v) in o {
                m.insert(k.clone(), value(v)?);
            }
            Value::Object(m)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(t: &Text, unsaid: &str) -> Result<String, String> {
        t.render(&mut |r| {
            Ok(if r.slot == unsaid && r.field.is_none() {
                None
            } else {
                Some(format!(
                    "<{}{}>",
                    r.slot,
                    r.field
                        .as_deref()
                        .map(|f| format!(".{f}"))
                        .unwrap_or_default()
                ))
            })
        })
    }

    #[test]
    fn optional_segments_drop_with_their_slot() {
        let t = Text::parse("check the forecast[ for {city}] for {days} days", true)
            .unwrap_or_default();
        assert_eq!(
            render(&t, "").as_deref(),
            Ok("check the forecast for <city> for <days> days")
        );
        assert_eq!(
            render(&t, "city").as_deref(),
            Ok("check the forecast for <days> days")
        );
        assert!(render(&t, "days").is_err());
        assert!(t.can_drop("city") && !t.can_drop("days"));
        assert!(t.starts_literal());
        assert!(Text::parse("a [b] c", true).is_err());
        assert!(Text::parse("a {b", true).is_err());
        assert!(Text::parse("[x {a}] [y {b}]", true).is_ok());
        let alt = Text::parse("is [{ref}|the station] near?", true).unwrap_or_default();
        assert_eq!(render(&alt, "ref").as_deref(), Ok("is the station near?"));
        assert_eq!(render(&alt, "").as_deref(), Ok("is <ref> near?"));
        assert!(Text::parse("[{a}|x {b}]", true).is_err());
        let lit = Text::parse("[not optional]", false).unwrap_or_default();
        assert_eq!(lit.pieces, vec![Piece::Lit("[not optional]".into())]);
    }

    #[test]
    fn json_templates_keep_exact_references_typed() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"a": "{x}", "b": "id {x.id}", "c": [1, 2.5, "{-m}"]}"#)
                .unwrap_or_default();
        let j = Json::compile(&v).unwrap_or(Json::Lit(Value::Null));
        let Json::Object(o) = &j else {
            panic!("object expected")
        };
        assert!(matches!(o[0].1, Json::Exact(_)));
        assert!(matches!(o[1].1, Json::Str(_)));
        assert_eq!(j.keys_referencing("x"), vec!["a", "b"]);
        assert_eq!(j.refs().len(), 3);
    }
}
