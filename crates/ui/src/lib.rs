//! The element tree of wildtool's page: what a view function returns and what crosses to
//! the JS renderer as JSON. Both WebAssembly modules of the page build it (the app shell
//! and the lazily loaded lab module), so it lives in this small crate with no browser
//! dependency.
//!
//! A [`Node`] is an element (tag, attributes, children and an optional list key), a text
//! node, an [`Node::Svg`] leaf holding chart markup rendered by the core, or a
//! [`Node::Raw`] subtree already serialised elsewhere (a view the lab module rendered),
//! which is spliced into the output as it is, never parsed again. Tags and attribute
//! *names* are `&'static str`, chosen by the views; only attribute *values* and text can
//! carry data, and the renderer writes them with `setAttribute`/`textContent`, so nothing
//! a dataset, a model or a link holds can become markup.
//!
//! Wire format (compact, read by `www/js/render.js`): a text node is a JSON string, an
//! SVG leaf `{"svg": markup}`, an element `{"t": tag, "a": {name: value}, "c": [children],
//! "k": key}` with empty parts left out. [`wire`] reads it back into an owned tree (for
//! tests and for looking inside raw subtrees).
//!
//! Events are declared, not attached: an element with `data-action` (and `data-arg`)
//! makes the runtime call `App.dispatch(action, arg, value)` on click, input, change,
//! toggle or file drop ([`Element::action`], [`Element::on_drop`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod wire;

/// One node of a view.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// An element.
    Element(Element),
    /// A text node.
    Text(String),
    /// An SVG document rendered by the core (charts); parsed by the runtime as
    /// `image/svg+xml` with scripts and `foreignObject` removed.
    Svg(String),
    /// A subtree already in the wire format (the JSON of one node, as [`Node::to_json`]
    /// writes it), spliced into the output verbatim. The queries below do not look
    /// inside it; [`wire::parse`] does.
    Raw(String),
}

/// An element: tag, attributes (in order, names unique), children and a list key.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// Tag name (lower case HTML).
    pub tag: &'static str,
    /// Attributes; names are chosen by views, values may hold any text.
    pub attrs: Vec<(&'static str, String)>,
    /// Children in order.
    pub children: Vec<Node>,
    /// Identity among its siblings, so the renderer moves rather than rebuilds list rows.
    pub key: Option<String>,
}

/// A new element.
pub fn el(tag: &'static str) -> Element {
    Element {
        tag,
        attrs: Vec::new(),
        children: Vec::new(),
        key: None,
    }
}

/// A text node.
pub fn text(s: impl Into<String>) -> Node {
    Node::Text(s.into())
}

/// An element holding one text node.
pub fn el_text(tag: &'static str, s: impl Into<String>) -> Element {
    el(tag).text(s)
}

/// A data table: a caption, column headers, and rows whose first cell heads the row (rows
/// keyed by position).
pub fn data_table(caption: &str, headers: &[String], rows: &[Vec<String>]) -> Element {
    el("table")
        .class("data-table")
        .child(el_text("caption", caption))
        .child(
            el("thead").child(
                el("tr").children(
                    headers
                        .iter()
                        .map(|h| el_text("th", h.clone()).attr("scope", "col")),
                ),
            ),
        )
        .child(
            el("tbody").children(rows.iter().enumerate().map(|(r, row)| {
                el("tr")
                    .key(format!("row-{r}"))
                    .children(row.iter().enumerate().map(|(i, c)| {
                        if i == 0 {
                            el_text("th", c.clone()).attr("scope", "row")
                        } else {
                            el_text("td", c.clone())
                        }
                    }))
            })),
        )
}

/// Percent-encodes a query component of a page address (unreserved characters, `/` and
/// `:` stay as they are).
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/' | b':') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Element {
    /// Sets attribute `name` (replacing an earlier value).
    pub fn attr(mut self, name: &'static str, value: impl Into<String>) -> Self {
        let value = value.into();
        match self.attrs.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.attrs.push((name, value)),
        }
        self
    }

    /// Sets a boolean attribute (`disabled`, `checked`, `open`, `hidden` …) when `on`.
    pub fn flag(self, name: &'static str, on: bool) -> Self {
        if on {
            self.attr(name, "")
        } else {
            self
        }
    }

    /// Sets attribute `name` when `value` is `Some`.
    pub fn attr_opt(self, name: &'static str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(v) => self.attr(name, v),
            None => self,
        }
    }

    /// `id`.
    pub fn id(self, id: impl Into<String>) -> Self {
        self.attr("id", id)
    }

    /// `class` (space-separated names).
    pub fn class(self, class: impl Into<String>) -> Self {
        self.attr("class", class)
    }

    /// Appends a child.
    pub fn child(mut self, node: impl Into<Node>) -> Self {
        self.children.push(node.into());
        self
    }

    /// Appends a child when `Some`.
    pub fn child_opt(mut self, node: Option<impl Into<Node>>) -> Self {
        if let Some(n) = node {
            self.children.push(n.into());
        }
        self
    }

    /// Appends children.
    pub fn children<N: Into<Node>>(mut self, nodes: impl IntoIterator<Item = N>) -> Self {
        self.children.extend(nodes.into_iter().map(Into::into));
        self
    }

    /// Appends a text node.
    pub fn text(mut self, s: impl Into<String>) -> Self {
        self.children.push(Node::Text(s.into()));
        self
    }

    /// Sets the list key.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Declares the action this element dispatches (`data-action`, `data-arg`).
    pub fn action(self, action: &str, arg: impl Into<String>) -> Self {
        let arg = arg.into();
        let e = self.attr("data-action", action);
        if arg.is_empty() {
            e
        } else {
            e.attr("data-arg", arg)
        }
    }

    /// Declares the action a file dropped on this element dispatches (`data-drop`).
    pub fn on_drop(self, action: &str) -> Self {
        self.attr("data-drop", action)
    }

    /// The value of attribute `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl From<Element> for Node {
    fn from(e: Element) -> Self {
        Node::Element(e)
    }
}

impl From<String> for Node {
    fn from(s: String) -> Self {
        Node::Text(s)
    }
}

impl From<&str> for Node {
    fn from(s: &str) -> Self {
        Node::Text(s.to_owned())
    }
}

impl Node {
    /// The element, if this is one.
    pub fn as_element(&self) -> Option<&Element> {
        match self {
            Node::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The concatenated text of this node and its descendants (SVG leaves contribute
    /// nothing), with no separators added.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out);
        out
    }

    fn collect_text(&self, out: &mut String) {
        match self {
            Node::Text(t) => out.push_str(t),
            Node::Svg(_) | Node::Raw(_) => {}
            Node::Element(e) => {
                for c in &e.children {
                    c.collect_text(out);
                }
            }
        }
    }

    /// Every element in document order (depth first), this one included.
    pub fn elements(&self) -> Vec<&Element> {
        let mut out = Vec::new();
        self.collect_elements(&mut out);
        out
    }

    fn collect_elements<'a>(&'a self, out: &mut Vec<&'a Element>) {
        if let Node::Element(e) = self {
            out.push(e);
            for c in &e.children {
                c.collect_elements(out);
            }
        }
    }

    /// The element with `id`.
    pub fn by_id(&self, id: &str) -> Option<&Element> {
        self.elements()
            .into_iter()
            .find(|e| e.get("id") == Some(id))
    }

    /// Every SVG leaf's markup.
    pub fn svgs(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_svgs(&mut out);
        out
    }

    fn collect_svgs<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Node::Svg(s) => out.push(s),
            Node::Text(_) | Node::Raw(_) => {}
            Node::Element(e) => {
                for c in &e.children {
                    c.collect_svgs(out);
                }
            }
        }
    }

    /// Serialises the tree to the renderer's JSON.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Appends the tree's JSON to `out` (raw subtrees verbatim).
    pub fn write_json(&self, out: &mut String) {
        match self {
            Node::Text(t) => push_json_string(out, t),
            Node::Svg(markup) => {
                out.push_str("{\"svg\":");
                push_json_string(out, markup);
                out.push('}');
            }
            Node::Raw(json) => out.push_str(json),
            Node::Element(e) => e.write_json(out),
        }
    }

    /// The owned tree this node stands for, raw subtrees included (its JSON read back).
    pub fn expand(&self) -> Result<wire::Wire, wire::WireError> {
        wire::parse(&self.to_json())
    }
}

impl Element {
    /// Text of this element and its descendants.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for c in &self.children {
            c.collect_text(&mut out);
        }
        out
    }

    /// Every descendant element (depth first), this one included.
    pub fn elements(&self) -> Vec<&Element> {
        let mut out = vec![self];
        for c in &self.children {
            c.collect_elements(&mut out);
        }
        out
    }

    /// True when `class` lists `name`.
    pub fn has_class(&self, name: &str) -> bool {
        self.get("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|n| n == name))
    }
}

impl Element {
    /// Appends the element's JSON to `out`.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"t\":");
        push_json_string(out, self.tag);
        if !self.attrs.is_empty() {
            out.push_str(",\"a\":{");
            for (i, (k, v)) in self.attrs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(out, k);
                out.push(':');
                push_json_string(out, v);
            }
            out.push('}');
        }
        if !self.children.is_empty() {
            out.push_str(",\"c\":[");
            for (i, c) in self.children.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                c.write_json(out);
            }
            out.push(']');
        }
        if let Some(k) = &self.key {
            out.push_str(",\"k\":");
            push_json_string(out, k);
        }
        out.push('}');
    }

    /// The element's JSON.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

/// Appends `s` as a JSON string literal: quotes, backslashes and control characters
/// escaped (`\n`, `\t` … or `\u00XX`), everything else as it is (the escapes
/// `serde_json` writes).
pub fn push_json_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_to_the_compact_wire_format() {
        let tree: Node = el("ul")
            .class("list")
            .child(el("li").key("a").text("<b>one</b>"))
            .child(el("li").key("b").action("open", "2").text("two"))
            .child(Node::Svg("<svg/>".into()))
            .into();
        assert_eq!(
            tree.to_json(),
            r#"{"t":"ul","a":{"class":"list"},"c":[{"t":"li","c":["<b>one</b>"],"k":"a"},{"t":"li","a":{"data-action":"open","data-arg":"2"},"c":["two"],"k":"b"},{"svg":"<svg/>"}]}"#
        );
    }

    #[test]
    fn attributes_replace_and_flags_are_optional() {
        let e = el("button")
            .attr("title", "a")
            .attr("title", "b")
            .flag("disabled", false)
            .flag("hidden", true);
        assert_eq!(e.get("title"), Some("b"));
        assert_eq!(e.get("disabled"), None);
        assert_eq!(e.get("hidden"), Some(""));
        assert_eq!(e.attrs.len(), 2);
    }

    #[test]
    fn queries_find_text_ids_and_svgs() {
        let tree: Node = el("div")
            .child(el("p").id("x").text("hello ").child(el("b").text("world")))
            .child(Node::Svg("<svg>s</svg>".into()))
            .into();
        assert_eq!(tree.text_content(), "hello world");
        assert_eq!(
            tree.by_id("x").map(|e| e.text_content()),
            Some("hello world".into())
        );
        assert_eq!(tree.svgs(), vec!["<svg>s</svg>"]);
        assert_eq!(tree.elements().len(), 3);
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let samples = [
            "",
            "plain",
            "quote \" and \\ backslash",
            "lines\nand\ttabs\r",
            "\u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f}",
            "中文 émoji 🙂 \u{2028}",
            "</script><!--",
        ];
        for s in samples {
            let mut out = String::new();
            push_json_string(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn raw_subtrees_are_spliced_verbatim_and_read_back() {
        let inner = el("section").id("lab").child(el("p").text("from \"lab\""));
        let tree: Node = el("main")
            .child(el("h1").text("page"))
            .child(Node::Raw(inner.to_json()))
            .into();
        let json = tree.to_json();
        assert_eq!(
            json,
            format!(
                r#"{{"t":"main","c":[{{"t":"h1","c":["page"]}},{}]}}"#,
                inner.to_json()
            )
        );
        // The element queries stay outside the raw part; the wire reader sees it all.
        assert_eq!(tree.text_content(), "page");
        assert!(tree.by_id("lab").is_none());
        let wire = tree.expand().unwrap();
        assert_eq!(wire.text_content(), "pagefrom \"lab\"");
        let lab = wire.by_id("lab").unwrap();
        assert_eq!(lab.tag, "section");
        assert_eq!(lab.text_content(), "from \"lab\"");
        assert_eq!(wire::parse(&json).unwrap(), wire);
    }

    #[test]
    fn the_wire_reader_refuses_what_is_not_a_tree() {
        assert!(wire::parse("[1]").is_err());
        assert!(wire::parse(r#"{"a":{}}"#).is_err());
        assert!(wire::parse(r#"{"t":"p","c":[1]}"#).is_err());
        assert!(wire::parse("{").is_err());
        assert_eq!(
            wire::parse(r#"{"svg":"<svg/>"}"#).unwrap(),
            wire::Wire::Svg("<svg/>".into())
        );
    }
}
