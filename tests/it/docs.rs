//! The documentation's shape, checked: README.md stays short and links every page under
//! `docs/`; every relative link (and `#anchor`) in the Markdown documents resolves; the
//! sections generated from the code are up to date; and no document copies text that
//! lives in the code (a `--help` text, a glossary entry, a registry note) or lists flags.
//!
//! Generated sections sit between `<!-- generated:NAME … -->` and `<!-- /generated:NAME -->`.
//! After changing the code they come from, rewrite them with
//! `UPDATE_DOCS=1 cargo test --test it docs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use wildtool_core::generate::plan;
use wildtool_core::input::limits::{human_bytes, Limit, LimitError};
use wildtool_core::report::glossary::GLOSSARY;
use wildtool_core::runner::registry;

/// README.md's length budget, in lines.
const README_MAX_LINES: usize = 200;

/// Text fragments shorter than this are not checked for copies (they are phrases, not
/// paragraphs).
const MIN_COPY_CHARS: usize = 40;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn md_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            md_files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

/// The Markdown documents, as paths relative to the repository root: README.md,
/// ARCHITECTURE.md and everything under `docs/` and `data/`.
fn documents() -> Vec<String> {
    let mut files = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    md_files_under(&root().join("docs"), &mut files);
    md_files_under(&root().join("data"), &mut files);
    files
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect()
}

/// The pages under `docs/`.
fn docs_pages() -> Vec<String> {
    documents()
        .into_iter()
        .filter(|d| d.starts_with("docs/"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Markdown reading: lines outside code fences, links, heading anchors.

/// `(line number, line)` of the lines outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A line without its inline code spans.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a document, with their lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        let line = without_code_spans(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n, target.to_owned()));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a document's headings get (duplicates numbered as GitHub numbers them).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let t = line.trim_start();
        if !t.starts_with('#') {
            continue;
        }
        let heading = t.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(&heading.replace('`', ""));
        let mut s = base.clone();
        let mut k = 1;
        while seen.contains(&s) {
            s = format!("{base}-{k}");
            k += 1;
        }
        seen.insert(s);
    }
    seen
}

/// `dir/../x` → `x`, for paths relative to the root.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Generated sections.

/// `|` inside a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The `///` doc comment right above the first line of `source` that starts with `item`,
/// joined into one line.
fn doc_comment_above(source: &str, item: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(item))?;
    let mut doc = Vec::new();
    for l in lines[..at].iter().rev() {
        let t = l.trim_start();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.trim().to_owned());
        } else if t.starts_with("#[") {
            continue;
        } else {
            break;
        }
    }
    doc.reverse();
    Some(doc.join(" ").trim().to_owned())
}

/// Rust sources under `dir` (relative to the root), with their text.
fn sources_under(dir: &str) -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join(dir), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("utf-8 source");
            (p, text)
        })
        .collect()
}

/// The exit codes: every `pub const EXIT_…: u8 = N;` of the CLI with its doc comment.
fn gen_exit_codes() -> String {
    let mut rows = Vec::new();
    for (_, text) in sources_under("src") {
        for line in text.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix("pub const EXIT_") else {
                continue;
            };
            let (name, value) = rest
                .split_once(": u8 = ")
                .expect("pub const EXIT_X: u8 = N;");
            let code: u8 = value.trim_end_matches(';').parse().expect("a number");
            let doc = doc_comment_above(&text, t).unwrap_or_default();
            assert!(!doc.is_empty(), "EXIT_{name} has no doc comment");
            let meaning = doc.strip_prefix("Exit code of ").unwrap_or(&doc).to_owned();
            rows.push((code, meaning));
        }
    }
    rows.sort();
    assert!(rows.len() >= 4, "the exit code constants moved: {rows:?}");
    let mut out = String::from("| code | meaning |\n|---|---|\n");
    for (code, doc) in rows {
        out.push_str(&format!("| {code} | {} |\n", cell(&doc)));
    }
    out
}

/// The glossary of `report::glossary`.
fn gen_glossary() -> String {
    GLOSSARY
        .iter()
        .map(|(term, text)| format!("- **{term}** — {text}\n"))
        .collect()
}

/// The size limits: values and messages from `input::limits`, what each applies to from
/// the table in that module's documentation.
fn gen_limits() -> String {
    let (_, source) = sources_under("crates/core/src")
        .into_iter()
        .find(|(_, t)| t.contains("pub const MAX_LINE_BYTES"))
        .expect("the file that defines the limits");
    let applies = |constant: &str| -> String {
        let row = source
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("//!"))
            .find(|l| l.contains(&format!("[`{constant}`]")))
            .unwrap_or_else(|| panic!("{constant} is not in the limits module's table"));
        let cells: Vec<&str> = row.trim().trim_matches('|').split(" | ").collect();
        cells.last().expect("a row").trim().to_owned()
    };
    let mut out = String::from(
        "| limit | value | applies to, and beyond it | message (one byte too many) |\n|---|---|---|---|\n",
    );
    for (limit, constant, line) in [
        (Limit::Line, "MAX_LINE_BYTES", Some(3)),
        (Limit::Document, "MAX_DOCUMENT_BYTES", None),
        (Limit::ReplyBody, "MAX_REPLY_BODY_BYTES", None),
        (Limit::Step, "MAX_STEP_BYTES", None),
    ] {
        let bytes = limit.bytes();
        let message = LimitError {
            limit,
            size: bytes as u64 + 1,
            line,
        };
        out.push_str(&format!(
            "| `{constant}` | {} ({bytes} bytes) | {} | \"{}\" |\n",
            human_bytes(bytes as u64),
            cell(&applies(constant)),
            cell(&message.to_string())
        ));
    }
    out
}

/// The providers of the registry.
fn gen_providers() -> String {
    let mut out = String::from(
        "| provider | dialect | default base URL | key from (CLI) | key header | from a browser |\n|---|---|---|---|---|---|\n",
    );
    for p in registry::PROVIDERS {
        out.push_str(&format!(
            "| `{}` | {} | {} | `{}` | `{}` | {} |\n",
            p.kind.name(),
            cell(p.label),
            p.default_base_url
                .map(|u| format!("`{u}`"))
                .unwrap_or_else(|| "none: `--base-url` required".to_owned()),
            p.key_env,
            p.auth_header,
            cell(p.cors)
        ));
    }
    out
}

/// The built-in agents of the registry.
fn gen_agents() -> String {
    let mut out = String::from("| agent | what it does |\n|---|---|\n");
    for a in registry::AGENTS {
        let needs = if a.needs_results {
            " Needs `--replay-file`."
        } else {
            ""
        };
        out.push_str(&format!(
            "| `{}` | {}{needs} |\n",
            a.name,
            cell(a.description)
        ));
    }
    out
}

/// The presets of the registry.
fn gen_presets() -> String {
    let mut out = String::from(
        "| preset | dialect | base URL | key | calling it from the page | tool calls need |\n|---|---|---|---|---|---|\n",
    );
    for p in registry::PRESETS {
        let key = match (p.needs_key, p.key_env) {
            (true, Some(env)) => format!("yes (`{env}`)"),
            (true, None) => "yes".to_owned(),
            (false, _) => "no".to_owned(),
        };
        out.push_str(&format!(
            "| {} | {} | `{}` | {key} | {} | {} |\n",
            cell(p.label),
            p.provider.name(),
            p.base_url,
            cell(p.cors),
            p.tools.map(cell).unwrap_or_else(|| "—".to_owned())
        ));
    }
    out
}

/// The default weights of the generator's unset factors.
fn gen_factor_weights() -> String {
    fn w(values: &[u32]) -> String {
        values
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(":")
    }
    let subtypes = plan::SUBTYPE_WEIGHTS
        .iter()
        .enumerate()
        .map(|(i, row)| format!("task {}: {}", i + 2, w(row)))
        .collect::<Vec<_>>()
        .join("; ");
    let rows = [
        ("`transitions`", "0:1:2:3", w(&plan::TRANSITION_WEIGHTS)),
        (
            "first task's coarse type",
            "Single:Multi:Clarify:Chat",
            w(&plan::FIRST_WEIGHTS),
        ),
        (
            "coarse type a transition changes to",
            "Single:Multi:Clarify:Chat (never the current one)",
            w(&plan::CHANGE_WEIGHTS),
        ),
        (
            "`multi`",
            "parallel:sequential:mixed",
            w(&plan::MULTI_WEIGHTS),
        ),
        ("`width`", "2:3:4:5:6:7:8", w(&plan::WIDTH_WEIGHTS)),
        ("`depth`", "2:3:4:5", w(&plan::DEPTH_WEIGHTS)),
        (
            "`shape`",
            "chain-side:fan-out:fan-in:two-chains",
            w(&plan::SHAPE_WEIGHTS),
        ),
        ("`subtypes`", "coref:partial:long", subtypes),
        ("`rounds`", "1:2", w(&plan::ROUND_WEIGHTS)),
        ("`distractors`", "0:1:2:3:4", w(&plan::DISTRACTOR_WEIGHTS)),
    ];
    let mut out = String::from("| factor | levels | default weights |\n|---|---|---|\n");
    for (factor, levels, weights) in rows {
        out.push_str(&format!("| {factor} | {levels} | {weights} |\n"));
    }
    out
}

/// Every generated section: the file it lives in, its name and its text.
fn generated_sections() -> Vec<(&'static str, &'static str, String)> {
    vec![
        ("docs/cli.md", "exit-codes", gen_exit_codes()),
        ("docs/scoring.md", "glossary", gen_glossary()),
        ("docs/scoring.md", "limits", gen_limits()),
        ("docs/providers.md", "providers", gen_providers()),
        ("docs/providers.md", "agents", gen_agents()),
        ("docs/providers.md", "presets", gen_presets()),
        ("docs/generate.md", "factor-weights", gen_factor_weights()),
    ]
}

/// The byte range of the body of section `name` in `text` (after its opening marker's
/// line, up to its closing marker).
fn section_range(text: &str, name: &str) -> Option<(usize, usize)> {
    let open = format!("<!-- generated:{name} ");
    let close = format!("<!-- /generated:{name} -->");
    let start = text.find(&open)?;
    let body = start + text[start..].find('\n')? + 1;
    let end = body + text[body..].find(&close)?;
    Some((body, end))
}

/// `text` with every generated section blanked out (what was written by hand; line
/// numbers stay as they were).
fn hand_written(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("<!-- generated:") {
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find("<!-- /generated:")
            .map_or(rest.len(), |e| at + e);
        out.extend(rest[at..end].matches('\n').map(|_| '\n'));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn generated_sections_are_up_to_date() {
    let bless = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for (file, name, want) in generated_sections() {
        let mut text = read(file);
        let (body, end) = section_range(&text, name)
            .unwrap_or_else(|| panic!("{file} has no generated section `{name}`"));
        if text[body..end] != want {
            if bless {
                text.replace_range(body..end, &want);
                std::fs::write(root().join(file), &text).expect("write the document");
            } else {
                stale.push(format!("{file}: section `{name}`"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated documentation is stale (run `UPDATE_DOCS=1 cargo test --test it docs`):\n{}",
        stale.join("\n")
    );
}

#[test]
fn every_generated_marker_has_a_generator() {
    let known: BTreeSet<(String, String)> = generated_sections()
        .into_iter()
        .map(|(f, n, _)| (f.to_owned(), n.to_owned()))
        .collect();
    let mut unknown = Vec::new();
    for doc in documents() {
        let text = read(&doc);
        for (n, line) in text.lines().enumerate() {
            if let Some(rest) = line.trim().strip_prefix("<!-- generated:") {
                let name = rest.split_whitespace().next().unwrap_or("").to_owned();
                if !known.contains(&(doc.clone(), name.clone())) {
                    unknown.push(format!("{doc}:{}: {name}", n + 1));
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "generated sections nothing generates:\n{}",
        unknown.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Shape and links.

#[test]
fn the_readme_is_short_and_links_every_page_of_the_docs() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES} (put the rest under docs/)"
    );
    let linked: BTreeSet<String> = links(&readme)
        .into_iter()
        .map(|(_, t)| t.split('#').next().unwrap_or("").to_owned())
        .collect();
    let missing: Vec<String> = docs_pages()
        .into_iter()
        .filter(|p| !linked.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "pages under docs/ that README.md does not link (add them to \"Where to read on\"): {missing:?}"
    );
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for doc in documents() {
        let text = read(&doc);
        let dir = Path::new(&doc)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        for (n, target) in links(&text) {
            if target.is_empty()
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.starts_with('<')
            {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                PathBuf::from(&doc)
            } else {
                normalise(&dir.join(path))
            };
            if !root().join(&file).exists() {
                broken.push(format!("{doc}:{n}: {target} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor {
                if file.extension().is_some_and(|e| e == "md") {
                    let target_text =
                        std::fs::read_to_string(root().join(&file)).expect("a Markdown document");
                    if !anchors(&target_text).contains(anchor) {
                        broken.push(format!("{doc}:{n}: {target} (no such heading)"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Copies of text that lives in the code.

/// Lowercase, without Markdown emphasis and code marks, whitespace collapsed.
fn normalised(text: &str) -> String {
    text.to_lowercase()
        .replace(['`', '*'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The sentences (and `;`-separated clauses) of a text long enough to count as a copy.
fn fragments(text: &str) -> Vec<String> {
    let text = normalised(text);
    text.split(". ")
        .flat_map(|s| s.split("; "))
        .map(|s| s.trim().trim_end_matches('.').to_owned())
        .filter(|s| s.chars().count() >= MIN_COPY_CHARS)
        .collect()
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wildtool"))
        .args(args)
        .output()
        .expect("run wildtool");
    assert!(out.status.success(), "wildtool {args:?} failed");
    String::from_utf8(out.stdout).expect("utf-8 help")
}

/// The subcommands `wildtool --help` lists.
fn subcommands() -> Vec<String> {
    let top = help(&["--help"]);
    let mut names = Vec::new();
    let mut in_commands = false;
    for line in top.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if !line.starts_with("  ") {
                break;
            }
            let name = line.split_whitespace().next().unwrap_or("");
            if !name.is_empty() && name != "help" {
                names.push(name.to_owned());
            }
        }
    }
    assert!(names.len() >= 8, "commands in `wildtool --help`: {names:?}");
    names
}

/// The help texts written in the code: every description line of `wildtool --help` and of
/// each command's `--help` (not the usage lines or flag names).
fn help_texts() -> Vec<String> {
    let mut texts = Vec::new();
    let mut pages = vec![help(&["--help"])];
    pages.extend(subcommands().iter().map(|c| help(&[c.as_str(), "--help"])));
    for page in pages {
        for line in page.lines() {
            let t = line.trim();
            if t.is_empty() || t.starts_with("Usage:") || t.ends_with(':') {
                continue;
            }
            // "  --flag <X>  help" or "  name  about": the text after the first wide gap.
            let text = if t.starts_with('-') || line.starts_with("  ") && !line.starts_with("   ") {
                match t.split_once("  ") {
                    Some((_, rest)) => rest.trim(),
                    None => continue,
                }
            } else {
                t
            };
            texts.push(text.to_owned());
        }
    }
    texts
}

#[test]
fn every_flag_has_help() {
    let mut bare = Vec::new();
    for command in subcommands() {
        let page = help(&[command.as_str(), "--help"]);
        let lines: Vec<&str> = page.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            // Flags ("-h, --help", "--out <OUT>"), not the "- value: …" lines of an enum.
            if !t.starts_with('-') || t.starts_with("- ") {
                continue;
            }
            let inline = t
                .split_once("  ")
                .is_some_and(|(_, r)| !r.trim().is_empty());
            let indent = line.len() - t.len();
            let below = lines.get(i + 1).is_some_and(|next| {
                let nt = next.trim_start();
                !nt.is_empty() && next.len() - nt.len() > indent && !nt.starts_with('-')
            });
            if !inline && !below {
                bare.push(format!("wildtool {command}: {}", t.trim()));
            }
        }
    }
    assert!(
        bare.is_empty(),
        "flags without a doc comment:\n{}",
        bare.join("\n")
    );
}

/// Texts held by the code, with where they live.
fn code_texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in help_texts() {
        out.push(("--help".to_owned(), t));
    }
    for (term, text) in GLOSSARY {
        out.push((format!("report::glossary ({term})"), text.to_owned()));
    }
    for p in registry::PROVIDERS {
        out.push(("registry::PROVIDERS".to_owned(), p.cors.to_owned()));
    }
    for a in registry::AGENTS {
        out.push(("registry::AGENTS".to_owned(), a.description.to_owned()));
    }
    for p in registry::PRESETS {
        out.push(("registry::PRESETS".to_owned(), p.cors.to_owned()));
        if let Some(t) = p.tools {
            out.push(("registry::PRESETS".to_owned(), t.to_owned()));
        }
    }
    out
}

#[test]
fn no_document_copies_text_that_lives_in_the_code() {
    let texts = code_texts();
    let mut copies = Vec::new();
    for doc in documents() {
        let written = normalised(&hand_written(&read(&doc)));
        for (origin, text) in &texts {
            for f in fragments(text) {
                if written.contains(&f) {
                    copies.push(format!("{doc}: copies {origin}: \"{f}\""));
                }
            }
        }
    }
    copies.sort();
    copies.dedup();
    assert!(
        copies.is_empty(),
        "text that lives in the code, copied (link to it or generate it instead):\n{}",
        copies.join("\n")
    );
}

#[test]
fn no_document_lists_flags() {
    let mut tables = Vec::new();
    for doc in documents() {
        let text = hand_written(&read(&doc));
        for (n, line) in prose_lines(&text) {
            let t = line.trim_start();
            let first = t
                .strip_prefix('|')
                .map(|r| r.trim_start().trim_start_matches('`'));
            let separator = t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
            if !separator && first.is_some_and(|c| c.starts_with("--")) {
                tables.push(format!("{doc}:{n}: {}", t));
            }
        }
    }
    assert!(
        tables.is_empty(),
        "flag tables (flags are documented once, in `wildtool <command> --help`):\n{}",
        tables.join("\n")
    );
}

#[test]
fn the_link_and_anchor_readers_work() {
    let text = "# A `b` c\n## Requests: the browser's HTTP/1.1 cap\n```\n# not a heading\n```\n## A `b` c\nSee [x](docs/cli.md#wildtool-run) and `[y](not/a/link)`.\n";
    let a = anchors(text);
    assert!(a.contains("a-b-c") && a.contains("a-b-c-1"), "{a:?}");
    assert!(a.contains("requests-the-browsers-http11-cap"), "{a:?}");
    assert!(!a.contains("not-a-heading"));
    assert_eq!(
        links(text),
        vec![(7, "docs/cli.md#wildtool-run".to_owned())]
    );
    assert_eq!(
        hand_written("a\n<!-- generated:x (y) -->\nbody\n<!-- /generated:x -->\nb\n"),
        "a\n\n\n<!-- /generated:x -->\nb\n"
    );
    assert_eq!(
        fragments("Short. This sentence is certainly longer than forty characters."),
        vec!["this sentence is certainly longer than forty characters".to_owned()]
    );
}

/// The page's automation contract (query parameters and `document.body.dataset` hooks) as
/// `docs/page.md` lists it: every name in the first column of its tables is one the page's
/// code reads or sets.
#[test]
fn the_documented_automation_names_exist_in_the_page() {
    let text = read("docs/page.md");
    let start = text
        .find("## Headless automation")
        .expect("docs/page.md: \"Headless automation\"");
    let section = &text[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let code: String = sources_under("crates/web/src")
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let mut names = Vec::new();
    for line in section.lines() {
        let Some(first) = line.strip_prefix("| `") else {
            continue;
        };
        let cell = first.split(" |").next().unwrap_or("");
        for (i, token) in format!("`{cell}").split('`').enumerate() {
            if i % 2 == 1 {
                names.push(token.split('=').next().unwrap_or("").to_owned());
            }
        }
    }
    assert!(names.len() >= 20, "names read from docs/page.md: {names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !code.contains(&format!("\"{n}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/page.md names automation parameters or hooks the page does not have: {missing:?}"
    );
}
