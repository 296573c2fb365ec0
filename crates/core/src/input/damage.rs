//! A result line that could not be read, told in the file's terms: the scorer's JSON
//! error counts lines and columns inside the one line it was given ("line 28: … line 1
//! column 5481 (char 5480)"); the user needs the file's line and a column in it, and to
//! hear that a line that ends before its JSON does looks cut off.

/// `line 28 looks cut off: it ends before its JSON is complete (…)` or
/// `line 3, column 12: Expecting ',' delimiter`.
pub fn describe(err: &str, text: &str) -> String {
    let Some((head, rest)) = err.split_once(": ") else {
        return err.to_owned();
    };
    let Some((what, pos)) = rest.rsplit_once(": line 1 column ") else {
        return err.to_owned();
    };
    let column: usize = pos
        .split(' ')
        .next()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    if column == 0 {
        return err.to_owned();
    }
    let cut = what.starts_with("Unterminated") || column > text.trim_end().chars().count();
    if cut {
        format!(
            "{head} looks cut off: it ends before its JSON is complete ({what} column {column})"
        )
    } else {
        format!("{head}, column {column}: {what}")
    }
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn a_damaged_line_is_named_by_its_file_line_and_column() {
        let cut = r#"{"id": "wild_tool_bench_3", "result": [["a"#;
        let e = format!(
            "line 28: Unterminated string starting at: line 1 column {} (char {})",
            cut.len() + 1,
            cut.len()
        );
        let d = describe(&e, cut);
        assert!(
            d.starts_with("line 28 looks cut off: it ends before"),
            "{d}"
        );
        assert!(!d.contains("line 1"), "{d}");
        let bad = r#"{"id": 1 "x": 2}"#;
        let d = describe(
            "line 3: Expecting ',' delimiter: line 1 column 10 (char 9)",
            bad,
        );
        assert_eq!(d, "line 3, column 10: Expecting ',' delimiter");
        assert_eq!(describe("line 4: no id", "{}"), "line 4: no id");
    }
}
