//! The wire format read back into an owned tree: how tests (and anything else that must
//! look inside a [`Node::Raw`](crate::Node::Raw) subtree) query a rendered view. The page
//! itself never needs it: raw subtrees go to the renderer as they are.

use serde_json::Value;

/// A node read from the wire format.
#[derive(Debug, Clone, PartialEq)]
pub enum Wire {
    /// An element.
    Element(WireElement),
    /// A text node.
    Text(String),
    /// An SVG leaf.
    Svg(String),
}

/// An element read from the wire format.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WireElement {
    /// Tag name.
    pub tag: String,
    /// Attributes in order.
    pub attrs: Vec<(String, String)>,
    /// Children in order.
    pub children: Vec<Wire>,
    /// List key.
    pub key: Option<String>,
}

/// Why a text is not the wire format of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not an element tree: {}", self.0)
    }
}

impl std::error::Error for WireError {}

/// Reads the JSON of one node.
pub fn parse(json: &str) -> Result<Wire, WireError> {
    let v: Value = serde_json::from_str(json).map_err(|e| WireError(e.to_string()))?;
    from_value(&v, "$")
}

fn from_value(v: &Value, path: &str) -> Result<Wire, WireError> {
    let str_of = |v: &Value, what: &str| {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| WireError(format!("{path}: {what} is not a string")))
    };
    match v {
        Value::String(s) => Ok(Wire::Text(s.clone())),
        Value::Object(m) => {
            if let Some(svg) = m.get("svg") {
                return Ok(Wire::Svg(str_of(svg, "svg")?));
            }
            let tag = str_of(
                m.get("t")
                    .ok_or_else(|| WireError(format!("{path}: no tag")))?,
                "t",
            )?;
            let mut e = WireElement {
                tag,
                ..WireElement::default()
            };
            if let Some(a) = m.get("a") {
                let a = a
                    .as_object()
                    .ok_or_else(|| WireError(format!("{path}: a is not an object")))?;
                for (k, v) in a {
                    e.attrs.push((k.clone(), str_of(v, k)?));
                }
            }
            if let Some(c) = m.get("c") {
                let c = c
                    .as_array()
                    .ok_or_else(|| WireError(format!("{path}: c is not an array")))?;
                for (i, n) in c.iter().enumerate() {
                    e.children.push(from_value(n, &format!("{path}.c[{i}]"))?);
                }
            }
            if let Some(k) = m.get("k") {
                e.key = Some(str_of(k, "k")?);
            }
            Ok(Wire::Element(e))
        }
        _ => Err(WireError(format!("{path}: neither a string nor an object"))),
    }
}

impl Wire {
    /// The element, if this is one.
    pub fn as_element(&self) -> Option<&WireElement> {
        match self {
            Wire::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The concatenated text of this node and its descendants.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out);
        out
    }

    fn collect_text(&self, out: &mut String) {
        match self {
            Wire::Text(t) => out.push_str(t),
            Wire::Svg(_) => {}
            Wire::Element(e) => {
                for c in &e.children {
                    c.collect_text(out);
                }
            }
        }
    }

    /// Every element in document order, this one included.
    pub fn elements(&self) -> Vec<&WireElement> {
        let mut out = Vec::new();
        if let Wire::Element(e) = self {
            e.collect(&mut out);
        }
        out
    }

    /// The element with `id`.
    pub fn by_id(&self, id: &str) -> Option<&WireElement> {
        self.elements()
            .into_iter()
            .find(|e| e.get("id") == Some(id))
    }

    /// Every SVG leaf's markup.
    pub fn svgs(&self) -> Vec<&str> {
        match self {
            Wire::Svg(s) => vec![s.as_str()],
            Wire::Text(_) => Vec::new(),
            Wire::Element(e) => e.children.iter().flat_map(Wire::svgs).collect(),
        }
    }
}

impl WireElement {
    fn collect<'a>(&'a self, out: &mut Vec<&'a WireElement>) {
        out.push(self);
        for c in &self.children {
            if let Wire::Element(e) = c {
                e.collect(out);
            }
        }
    }

    /// The value of attribute `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// True when `class` lists `name`.
    pub fn has_class(&self, name: &str) -> bool {
        self.get("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|n| n == name))
    }

    /// Text of this element and its descendants.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for c in &self.children {
            c.collect_text(&mut out);
        }
        out
    }

    /// Every descendant element (depth first), this one included.
    pub fn elements(&self) -> Vec<&WireElement> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }
}
