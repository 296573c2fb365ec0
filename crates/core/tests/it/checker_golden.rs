//! Every row of `tests/fixtures/args_golden.jsonl` (94 official verdicts, PROTOCOL §5).
//!
//! Rows whose official verdict is `EXCEPTION: …` are official crashes; wildtool returns the
//! PROTOCOL §6 verdict instead (row 63, C3: `correct`) and marks the quirk.

use wildtool_core::checker::{check_verdict, JiebaSegmenter, Quirk, Verdict};
use wildtool_core::json::{loads, Value};

struct Row {
    id: i64,
    note: String,
    tools: Value,
    name: String,
    predicted: Value,
    gold: String,
    verdict: String,
}

fn rows() -> Vec<Row> {
    let text = crate::support::read_fixture("args_golden.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v = loads(line).expect("fixture line parses");
            let field = |k: &str| v.get(k).cloned().unwrap_or_else(|| panic!("field {k}"));
            let string = |k: &str| {
                field(k)
                    .as_str()
                    .unwrap_or_else(|| panic!("{k} str"))
                    .to_owned()
            };
            Row {
                id: field("id").as_i64().expect("id"),
                note: string("note"),
                tools: field("tools"),
                name: string("name"),
                predicted: field("predict_args_str"),
                gold: string("answer_args_str"),
                verdict: string("verdict"),
            }
        })
        .collect()
}

/// What wildtool must return for an official verdict: the verdict itself, or for an
/// official crash the PROTOCOL §6 replacement and its quirk.
fn expected(row: &Row) -> (String, Vec<Quirk>) {
    match row.verdict.strip_prefix("EXCEPTION: ") {
        None => (row.verdict.clone(), Vec::new()),
        Some("TypeError: unhashable type: 'list'") => {
            ("correct".to_owned(), vec![Quirk::ListValuedType])
        }
        Some(other) => panic!(
            "row {}: official crash {other:?} has no PROTOCOL mapping",
            row.id
        ),
    }
}

#[test]
fn every_golden_row_matches() {
    let seg = JiebaSegmenter::with_default_dict();
    let rows = rows();
    assert_eq!(rows.len(), 94, "fixture row count");
    let mut failures = Vec::new();
    for row in &rows {
        let (want, want_quirks) = expected(row);
        match check_verdict(&row.tools, &row.name, &row.predicted, &row.gold, &seg) {
            Ok(Verdict { text, quirks }) if text == want && quirks == want_quirks => {}
            Ok(got) => failures.push(format!(
                "row {} ({}): expected {want:?} {want_quirks:?}, got {:?} {:?}",
                row.id, row.note, got.text, got.quirks
            )),
            Err(e) => failures.push(format!(
                "row {} ({}): expected {want:?}, got error {e}",
                row.id, row.note
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn exception_rows_are_exactly_the_c3_row() {
    let ids: Vec<i64> = rows()
        .iter()
        .filter(|r| r.verdict.starts_with("EXCEPTION"))
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [63]);
}

#[test]
fn chinese_rows_need_the_segmenter() {
    // Rows 38–41 reach the jieba step; without a segmenter they must be reported, not guessed.
    let seg = wildtool_core::checker::NoSegmenter;
    for row in rows().iter().filter(|r| (38..=41).contains(&r.id)) {
        let got = check_verdict(&row.tools, &row.name, &row.predicted, &row.gold, &seg);
        assert!(got.is_err(), "row {}: {got:?}", row.id);
        let text =
            wildtool_core::checker::check(&row.tools, &row.name, &row.predicted, &row.gold, &seg);
        assert_eq!(text, wildtool_core::checker::SEGMENTER_UNAVAILABLE);
    }
    // Row 37 is decided by normalisation before jieba.
    let row37 = rows().into_iter().find(|r| r.id == 37).expect("row 37");
    let got = check_verdict(
        &row37.tools,
        &row37.name,
        &row37.predicted,
        &row37.gold,
        &seg,
    );
    assert_eq!(got.map(|v| v.text), Ok("correct".to_owned()));
}
