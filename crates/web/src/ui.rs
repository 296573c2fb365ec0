//! The page's element tree: what a view function returns and what crosses to the JS
//! renderer as JSON.
//!
//! A [`Node`] is an element (tag, attributes, children and an optional list key), a text
//! node or an [`Node::Svg`] leaf holding chart markup rendered by the core. Tags and
//! attribute *names* are `&'static str`, chosen by the views; only attribute *values* and
//! text can carry data, and the renderer writes them with `setAttribute`/`textContent`,
//! so nothing a dataset, a model or a link holds can become markup.
//!
//! Wire format (compact, read by `www/js/render.js`): a text node is a JSON string, an
//! SVG leaf `{"svg": markup}`, an element `{"t": tag, "a": {name: value}, "c": [children],
//! "k": key}` with empty parts left out.
//!
//! Events are declared, not attached: an element with `data-action` (and `data-arg`)
//! makes the runtime call `App.dispatch(action, arg, value)` on click, input, change,
//! toggle or file drop ([`Element::action`], [`Element::on_drop`]).

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

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
            Node::Svg(_) => {}
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
            Node::Text(_) => {}
            Node::Element(e) => {
                for c in &e.children {
                    c.collect_svgs(out);
                }
            }
        }
    }

    /// Serialises the tree to the renderer's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "\"\"".to_owned())
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

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Text(t) => s.serialize_str(t),
            Node::Svg(markup) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("svg", markup)?;
                m.end()
            }
            Node::Element(e) => e.serialize(s),
        }
    }
}

struct Attrs<'a>(&'a [(&'static str, String)]);

impl Serialize for Attrs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct Kids<'a>(&'a [Node]);

impl Serialize for Kids<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(Some(self.0.len()))?;
        for n in self.0 {
            q.serialize_element(n)?;
        }
        q.end()
    }
}

impl Serialize for Element {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = 1
            + usize::from(!self.attrs.is_empty())
            + usize::from(!self.children.is_empty())
            + usize::from(self.key.is_some());
        let mut m = s.serialize_map(Some(len))?;
        m.serialize_entry("t", self.tag)?;
        if !self.attrs.is_empty() {
            m.serialize_entry("a", &Attrs(&self.attrs))?;
        }
        if !self.children.is_empty() {
            m.serialize_entry("c", &Kids(&self.children))?;
        }
        if let Some(k) = &self.key {
            m.serialize_entry("k", k)?;
        }
        m.end()
    }
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
}
