//! The import graph of a crate's sources, for the structure checks: which file imports
//! which, the circles in it, and whether its modules keep to their floors.
//!
//! File A imports file B when A's code (comments, strings and `#[cfg(test)]` modules left
//! out) names B's module or an item defined in it, by a `use` declaration or an inline
//! path that starts at `crate`, `super`, `self`, one of A's child modules or a name A
//! brought in by a `use` (`use crate::setup;` … `setup::update(…)`). A name that
//! a module only hands on (`pub use x::Name;`) is followed to the file that defines it, so
//! a folder's `mod.rs` is not taken for the source of what it re-exports; `mod x;` is no
//! import. A folder's `mod.rs` (and the crate root) stands beneath the files of its
//! folder: they may use what it defines, and its own uses of them are how it presents
//! the folder, not arrows of the graph. Paths into other crates are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files (paths relative to the crate's `src/`, `/`-separated) and the files each imports.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The import graph of the crate whose sources are in `src` (its `lib.rs` or `main.rs`
/// and every module file below it; files declared `#[cfg(test)] mod x;` are left out).
pub fn crate_graph(src: &Path) -> Graph {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    let mut files: BTreeMap<Vec<String>, Source> = BTreeMap::new();
    for path in paths {
        let rel = path
            .strip_prefix(src)
            .expect("below src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path).expect("utf-8 source");
        files.insert(module_path(&rel), Source::read(rel, &text));
    }
    let tests: BTreeSet<Vec<String>> = files
        .iter()
        .flat_map(|(m, s)| s.test_children.iter().map(move |c| child(m, c)))
        .collect();
    files.retain(|m, _| !tests.contains(m));
    let resolver = Resolver { files: &files };
    files
        .iter()
        .map(|(module, source)| {
            let targets = source
                .paths
                .iter()
                .filter_map(|p| resolver.resolve(module, p, 0))
                .filter(|f| *f != source.rel && !owns(&source.rel, f))
                .collect();
            (source.rel.clone(), targets)
        })
        .collect()
}

/// The circles of `graph` (files that import each other in a loop, its strongly
/// connected components of more than one file), largest first.
pub fn circles(graph: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut part = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    part.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if part.len() > 1 {
                    part.sort();
                    self.found.push(part);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.found.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    t.found
}

/// The circles of the crate in `src` with more than `max` files, each described: its files
/// and, for every file, what it imports of the others.
pub fn circles_over(src: &Path, max: usize) -> Vec<String> {
    let graph = crate_graph(src);
    circles(&graph)
        .into_iter()
        .filter(|c| c.len() > max)
        .map(|c| {
            let ties: Vec<String> = c
                .iter()
                .map(|f| {
                    let to: Vec<&str> = graph[f]
                        .iter()
                        .filter(|t| c.contains(t))
                        .map(String::as_str)
                        .collect();
                    format!("  {f} -> {}", to.join(", "))
                })
                .collect();
            format!("{} files:\n{}", c.len(), ties.join("\n"))
        })
        .collect()
}

/// The module a file belongs to one level below `folder` (`""` for the crate's top
/// level): `runner/engine/spec.rs` is in `runner` at the top and in `engine` below
/// `runner/`; the folder's own `mod.rs` (or the crate root) is `mod`. `None` for a file
/// outside `folder`.
pub fn unit<'f>(file: &'f str, folder: &str) -> Option<&'f str> {
    let rest = file.strip_prefix(folder)?;
    let first = rest.split('/').next().unwrap_or(rest);
    Some(match first.strip_suffix(".rs") {
        Some("mod" | "lib" | "main") => "mod",
        Some(stem) => stem,
        None => first,
    })
}

/// The imports between the modules one level below `folder`: module → modules it imports
/// (imports inside one module, and those of the folder's own `mod.rs`, left out).
pub fn units(graph: &Graph, folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, targets) in graph {
        let Some(from) = unit(file, folder).filter(|u| *u != "mod") else {
            continue;
        };
        let deps = out.entry(from.to_owned()).or_default();
        for t in targets {
            if let Some(to) = unit(t, folder).filter(|u| *u != from && *u != "mod") {
                deps.insert(to.to_owned());
            }
        }
    }
    out
}

/// What breaks the floors of the modules one level below `folder` (`floors[0]` is the
/// ground): a module on no floor or on two, a floor naming a module that does not exist,
/// an import of a module on a higher floor, and a circle among the modules.
pub fn floor_breaks(graph: &Graph, folder: &str, floors: &[&[&str]]) -> Vec<String> {
    let mut breaks = upward_imports(graph, folder, floors);
    for circle in circles(&units(graph, folder)) {
        breaks.push(format!(
            "the modules {circle:?} of {folder} import each other in a circle"
        ));
    }
    breaks
}

/// What breaks the floors of the modules one level below `folder` short of a circle among
/// the modules of one floor: a module on no floor or on two, a floor naming a module that
/// has no file, an import of a module on a higher floor.
pub fn upward_imports(graph: &Graph, folder: &str, floors: &[&[&str]]) -> Vec<String> {
    let deps = units(graph, folder);
    let mut floor_of = BTreeMap::new();
    let mut breaks = Vec::new();
    for (n, floor) in floors.iter().enumerate() {
        for m in *floor {
            if floor_of.insert(*m, n).is_some() {
                breaks.push(format!("{folder}{m} is on two floors"));
            }
            if !deps.contains_key(*m) {
                breaks.push(format!("{folder}{m} is on floor {} but has no file", n + 1));
            }
        }
    }
    for (m, ds) in &deps {
        let Some(&own) = floor_of.get(m.as_str()) else {
            breaks.push(format!("{folder}{m} is on no floor"));
            continue;
        };
        for d in ds {
            if let Some(&theirs) = floor_of.get(d.as_str()) {
                if theirs > own {
                    let why = import_sites(graph, folder, m, d);
                    breaks.push(format!(
                        "{folder}{m} (floor {}) imports {folder}{d} (floor {}): {why}",
                        own + 1,
                        theirs + 1
                    ));
                }
            }
        }
    }
    breaks
}

/// Imports of a feature's handlers or views from outside the feature: `features` are
/// top-level modules (folders); a file of theirs is a handler or a view when it is named
/// `update.rs` or `view.rs` or imports `state` (the composed state). Other modules, except
/// the `exempt` ones that compose the features, see a feature only through its other
/// files (its sub-state types and pure functions).
pub fn internal_imports(
    graph: &Graph,
    features: &[&str],
    exempt: &[&str],
    state: &str,
) -> Vec<String> {
    let inner = |file: &str| {
        let name = file.rsplit('/').next().unwrap_or(file);
        name == "update.rs"
            || name == "view.rs"
            || graph.get(file).is_some_and(|t| t.contains(state))
    };
    let mut found = Vec::new();
    for (file, targets) in graph {
        let Some(from) = unit(file, "") else { continue };
        if exempt.contains(&from) {
            continue;
        }
        for t in targets {
            let Some(to) = unit(t, "") else { continue };
            if to != from && features.contains(&to) && inner(t) {
                found.push(format!(
                    "{file} imports {t}, a handler or view of the feature {to}"
                ));
            }
        }
    }
    found
}

/// `a -> b` for every file of module `from` that imports a file of module `to`.
fn import_sites(graph: &Graph, folder: &str, from: &str, to: &str) -> String {
    let mut sites = Vec::new();
    for (file, targets) in graph {
        if unit(file, folder) != Some(from) {
            continue;
        }
        for t in targets {
            if unit(t, folder) == Some(to) {
                sites.push(format!("{file} -> {t}"));
            }
        }
    }
    sites.join(", ")
}

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable source dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Is `file` inside the folder whose `mod.rs` (or crate root) is `parent`?
fn owns(parent: &str, file: &str) -> bool {
    let folder = match parent.rsplit_once('/') {
        Some((dir, "mod.rs")) => format!("{dir}/"),
        None if parent == "lib.rs" || parent == "main.rs" => String::new(),
        _ => return false,
    };
    file.starts_with(&folder)
}

/// `runner/engine/mod.rs` → `[runner, engine]`; `lib.rs` → `[]`.
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    let at_root = parts.is_empty();
    if !(stem == "mod" || (at_root && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_owned());
    }
    parts
}

fn child(module: &[String], name: &str) -> Vec<String> {
    let mut m = module.to_vec();
    m.push(name.to_owned());
    m
}

/// One source file as the graph needs it.
struct Source {
    rel: String,
    /// Paths the code names, as written (`[crate, runner, checkpoint, TaskRecord]`).
    paths: Vec<Vec<String>>,
    /// Names bound by this file's `use` declarations and the paths they stand for.
    bindings: BTreeMap<String, Vec<String>>,
    /// Child modules declared here (`mod x;` or `mod x { … }`), test modules excepted.
    children: BTreeSet<String>,
    /// Child modules declared `#[cfg(test)] mod x;`.
    test_children: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other(char),
}

impl Source {
    fn read(rel: String, text: &str) -> Self {
        let toks = without_test_modules(lex(text));
        let mut s = Source {
            rel,
            paths: Vec::new(),
            bindings: BTreeMap::new(),
            children: BTreeSet::new(),
            test_children: BTreeSet::new(),
        };
        let word = |i: usize| match toks.get(i) {
            Some(Tok::Ident(w)) => Some(w.as_str()),
            _ => None,
        };
        // Child modules first: an inline path may start with one.
        for i in 0..toks.len() {
            if word(i) == Some("mod") {
                if let Some(name) = word(i + 1) {
                    if test_attr_before(&toks[..i]) {
                        s.test_children.insert(name.to_owned());
                    } else {
                        s.children.insert(name.to_owned());
                    }
                }
            }
        }
        let mut handed_on = Vec::new();
        let mut used = BTreeSet::new();
        let mut i = 0;
        while i < toks.len() {
            let after_colons = i > 0 && toks[i - 1] == Tok::Colons;
            match word(i) {
                Some("use") => {
                    // `pub use` or `pub(…) use`: names handed on.
                    let public = word(i.wrapping_sub(1)) == Some("pub")
                        || (toks.get(i.wrapping_sub(1)) == Some(&Tok::Other(')'))
                            && word(i.wrapping_sub(4)) == Some("pub"));
                    let mut trees = Vec::new();
                    i += 1;
                    use_tree(&toks, &mut i, Vec::new(), &mut trees);
                    for (path, name) in trees {
                        if let Some(name) = &name {
                            s.bindings.insert(name.clone(), path.clone());
                        }
                        // A name handed on is followed where it is used, and counted here
                        // only if this file's code uses it too.
                        if public {
                            handed_on.push((path, name));
                        } else {
                            s.paths.push(path);
                        }
                    }
                }
                Some(w)
                    if !after_colons
                        && (matches!(w, "crate" | "super" | "self")
                            || s.children.contains(w)
                            || s.bindings.contains_key(w))
                        && toks.get(i + 1) == Some(&Tok::Colons) =>
                {
                    let mut path = vec![w.to_owned()];
                    i += 1;
                    while toks.get(i) == Some(&Tok::Colons) {
                        match word(i + 1) {
                            Some(next) => {
                                path.push(next.to_owned());
                                i += 2;
                            }
                            None => break,
                        }
                    }
                    s.paths.push(path);
                    continue;
                }
                Some(w) => {
                    used.insert(w.to_owned());
                }
                None => {}
            }
            i += 1;
        }
        s.paths.extend(
            handed_on
                .into_iter()
                .filter(|(_, name)| name.as_ref().is_some_and(|n| used.contains(n)))
                .map(|(path, _)| path),
        );
        s
    }
}

/// Do the tokens before an item end with `#[cfg(test)]` (and an optional `pub`)?
fn test_attr_before(before: &[Tok]) -> bool {
    let before = match before.split_last() {
        Some((Tok::Ident(w), rest)) if w == "pub" => rest,
        _ => before,
    };
    let attr = [
        Tok::Other('#'),
        Tok::Other('['),
        Tok::Ident("cfg".into()),
        Tok::Other('('),
        Tok::Ident("test".into()),
        Tok::Other(')'),
        Tok::Other(']'),
    ];
    before.ends_with(&attr)
}

/// The tokens without `#[cfg(test)] mod x { … }` (test code may import anything).
fn without_test_modules(toks: Vec<Tok>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let inline_test = toks[i] == Tok::Ident("mod".into())
            && toks.get(i + 2) == Some(&Tok::Open)
            && test_attr_before(&out);
        if !inline_test {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        let mut depth = 0;
        i += 2;
        while i < toks.len() {
            match toks[i] {
                Tok::Open => depth += 1,
                Tok::Close => depth -= 1,
                _ => {}
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
    }
    out
}

/// Reads one use tree at `i` into `(full path, name it binds)` pairs; `i` ends after it.
fn use_tree(
    toks: &[Tok],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix;
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(w)) if w != "as" => {
                path.push(w.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::Colons) {
                    *i += 1;
                    continue;
                }
                break;
            }
            Some(Tok::Colons) => *i += 1,
            Some(Tok::Open) => {
                *i += 1;
                while *i < toks.len() && toks[*i] != Tok::Close {
                    use_tree(toks, i, path.clone(), out);
                    if toks.get(*i) == Some(&Tok::Comma) {
                        *i += 1;
                    } else if toks.get(*i) != Some(&Tok::Close) {
                        break;
                    }
                }
                *i += 1;
                return;
            }
            Some(Tok::Star) => {
                *i += 1;
                out.push((path, None));
                return;
            }
            _ => break,
        }
    }
    if path.last().is_some_and(|l| l == "self") {
        path.pop();
    }
    let mut name = path.last().cloned();
    if toks.get(*i) == Some(&Tok::Ident("as".into())) {
        if let Some(Tok::Ident(alias)) = toks.get(*i + 1) {
            name = Some(alias.clone());
        }
        *i += 2;
    }
    if !path.is_empty() {
        out.push((path, name));
    }
}

struct Resolver<'a> {
    files: &'a BTreeMap<Vec<String>, Source>,
}

impl Resolver<'_> {
    /// The file a path written in `module` leads to, or `None` when it leaves the crate.
    fn resolve(&self, module: &[String], path: &[String], depth: usize) -> Option<String> {
        let source = self.files.get(module)?;
        let (first, mut rest) = path.split_first()?;
        let mut m: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => {
                let mut m = module.to_vec();
                m.pop();
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                m
            }
            c if source.children.contains(c) => child(module, c),
            // A name bound by a `use` (a module brought in, `limits::check`).
            c => {
                let bound = source.bindings.get(c)?;
                if depth >= 8 || bound.first() == Some(first) {
                    return None;
                }
                let mut through = bound.clone();
                through.extend(rest.iter().cloned());
                return self.resolve(module, &through, depth + 1);
            }
        };
        while let Some(seg) = rest.first() {
            let deeper = child(&m, seg);
            if seg == "self" {
                rest = &rest[1..];
            } else if self.files.contains_key(&deeper) {
                m = deeper;
                rest = &rest[1..];
            } else {
                break;
            }
        }
        let target = self.files.get(&m)?;
        if let (Some(name), true) = (rest.first(), depth < 8) {
            if let Some(bound) = target.bindings.get(name) {
                let mut through = bound.clone();
                through.extend(rest[1..].iter().cloned());
                if let Some(file) = self.resolve(&m, &through, depth + 1) {
                    return Some(file);
                }
            }
        }
        Some(target.rel.clone())
    }
}

/// Identifiers and the punctuation the graph needs, without comments, strings and
/// character literals.
fn lex(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut toks = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i + 1);
        } else if ch == '\'' {
            // A character literal, or a lifetime (left as punctuation).
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let w: String = c[start..i].iter().collect();
            let raw = matches!(w.as_str(), "r" | "br") && (at(i) == '"' || at(i) == '#');
            if raw {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                if at(i) == '"' {
                    i += 1;
                    loop {
                        if i >= c.len() {
                            break;
                        }
                        if c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                            i += 1 + hashes;
                            break;
                        }
                        i += 1;
                    }
                }
            } else if w == "b" && at(i) == '"' {
                i = skip_string(&c, i + 1);
            } else if w == "b" && at(i) == '\'' {
                i += 1;
                while i < c.len() && c[i] != '\'' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            } else {
                toks.push(Tok::Ident(w));
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else {
            match ch {
                ':' if at(i + 1) == ':' => {
                    toks.push(Tok::Colons);
                    i += 1;
                }
                '{' => toks.push(Tok::Open),
                '}' => toks.push(Tok::Close),
                ',' => toks.push(Tok::Comma),
                ';' => toks.push(Tok::Semi),
                '*' => toks.push(Tok::Star),
                c if c.is_whitespace() => {}
                c => toks.push(Tok::Other(c)),
            }
            i += 1;
        }
    }
    toks
}

/// The index after a string literal's closing quote (`i` is after its opening quote).
fn skip_string(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}
