//! Rendering tests for `wildtool_core::chart`: well-formed XML, accessibility markup,
//! escaping of hostile labels, proportional bar lengths, "no data" fallbacks.

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use wildtool_core::chart::{
    dashboard, describe, render_svg, render_svg_with, table, ChartKind, ChartSpec, Layout,
    Orientation, Point, Series,
};
use wildtool_core::outcome::{RawErrorLabel, TaskOutcome, TaskType, TurnSubtype};
use wildtool_core::report::RunReport;

const HOSTILE: &str = "<img src=x onerror=alert(1)>";

/// Parses the SVG fully; returns (element names in order, all text content, rect attrs).
struct Parsed {
    elements: Vec<String>,
    text: String,
    rects: Vec<Vec<(String, String)>>,
    root_attrs: Vec<(String, String)>,
}

fn parse(svg: &str) -> Parsed {
    let mut reader = Reader::from_str(svg);
    let mut depth: i32 = 0;
    let mut out = Parsed {
        elements: vec![],
        text: String::new(),
        rects: vec![],
        root_attrs: vec![],
    };
    let mut roots = 0;
    loop {
        let ev = reader.read_event();
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => panic!("malformed XML at {}: {e}\n{svg}", reader.buffer_position()),
        };
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let attrs: Vec<(String, String)> = e
                    .attributes()
                    .map(|a| {
                        let a = a.expect("well-formed attribute");
                        (
                            String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                            a.normalized_value(XmlVersion::Implicit1_0)
                                .expect("attribute value unescapes")
                                .into_owned(),
                        )
                    })
                    .collect();
                if depth == 0 {
                    roots += 1;
                    out.root_attrs = attrs.clone();
                }
                if name == "rect" {
                    out.rects.push(attrs);
                }
                out.elements.push(name);
                if matches!(ev, Event::Start(_)) {
                    depth += 1;
                }
            }
            Event::End(_) => depth -= 1,
            Event::Text(t) => {
                out.text.push_str(
                    &t.xml_content(XmlVersion::Implicit1_0)
                        .expect("text unescapes"),
                );
            }
            Event::GeneralRef(r) => {
                let name = String::from_utf8_lossy(&r).into_owned();
                let ch = match name.as_str() {
                    "lt" => "<",
                    "gt" => ">",
                    "amp" => "&",
                    "quot" => "\"",
                    "#39" => "'",
                    other => panic!("unexpected entity {other}"),
                };
                out.text.push_str(ch);
            }
            Event::Eof => break,
            _ => {}
        }
        assert!(depth >= 0, "unbalanced end tag");
    }
    assert_eq!(depth, 0, "unclosed elements");
    assert_eq!(roots, 1, "exactly one root element");
    out
}

fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn simple(values: &[f64]) -> ChartSpec {
    ChartSpec {
        id: "t".into(),
        title: "Accuracy by type".into(),
        categories: (0..values.len()).map(|i| format!("Cat {i}")).collect(),
        series: vec![Series::from_values("run", values)],
        value_axis: "Task accuracy".into(),
        ..ChartSpec::default()
    }
}

fn assert_accessible(p: &Parsed) {
    assert_eq!(p.elements.first().map(String::as_str), Some("svg"));
    assert_eq!(attr(&p.root_attrs, "role"), Some("img"));
    let labelled = attr(&p.root_attrs, "aria-labelledby").expect("aria-labelledby");
    assert_eq!(labelled, "c-t-title c-t-desc");
    assert!(attr(&p.root_attrs, "viewBox").is_some_and(|v| v.starts_with("0 0 ")));
    assert!(p.elements.contains(&"title".to_owned()));
    assert!(p.elements.contains(&"desc".to_owned()));
}

#[test]
fn horizontal_bars_are_accessible_and_proportional() {
    let svg = render_svg(&simple(&[0.25, 0.5, 1.0]));
    let p = parse(&svg);
    assert_accessible(&p);
    // Data bars carry a tooltip child and use the first palette colour.
    let widths: Vec<f64> = p
        .rects
        .iter()
        .filter(|r| attr(r, "fill") == Some("#0072B2"))
        .map(|r| {
            attr(r, "width")
                .and_then(|w| w.parse().ok())
                .expect("width")
        })
        .collect();
    assert_eq!(widths.len(), 3);
    let (a, b, c) = (widths[0], widths[1], widths[2]);
    assert!((b / a - 2.0).abs() < 0.02, "{widths:?}");
    assert!((c / a - 4.0).abs() < 0.02, "{widths:?}");
    assert!(p.text.contains("25.0%") && p.text.contains("100.0%"));
    assert!(p.text.contains("Task accuracy"));
}

#[test]
fn vertical_bars_heights_proportional_with_whiskers() {
    let mut spec = simple(&[]);
    spec.orientation = Orientation::Vertical;
    spec.categories = vec!["Task 1".into(), "Task 2".into()];
    spec.series = vec![Series {
        name: "run".into(),
        points: vec![
            Point::with_interval(0.8, 0.7, 0.9),
            Point::with_interval(0.4, 0.3, 0.5),
        ],
    }];
    let svg = render_svg(&spec);
    let p = parse(&svg);
    assert_accessible(&p);
    let heights: Vec<f64> = p
        .rects
        .iter()
        .filter(|r| attr(r, "fill") == Some("#0072B2"))
        .map(|r| {
            attr(r, "height")
                .and_then(|w| w.parse().ok())
                .expect("height")
        })
        .collect();
    assert_eq!(heights.len(), 2);
    assert!((heights[0] / heights[1] - 2.0).abs() < 0.02);
    // Two whiskers of three lines each, besides grid lines.
    let lines = p.elements.iter().filter(|e| *e == "line").count();
    assert!(lines >= 6 + 5, "{lines}");
    let desc = describe(&spec);
    assert!(desc.contains("Task 1: 80.0% (95% CI 70.0–90.0%)"), "{desc}");
    assert!(
        desc.contains("Highest: Task 1 (80.0%); lowest: Task 2 (40.0%)"),
        "{desc}"
    );
}

#[test]
fn hostile_labels_are_escaped_everywhere() {
    let spec = ChartSpec {
        id: "t\"><script>".into(),
        title: HOSTILE.into(),
        summary: Some(HOSTILE.into()),
        categories: vec![HOSTILE.into(), "ok".into()],
        series: vec![
            Series::from_values(HOSTILE, &[0.5, 0.2]),
            Series::from_values("b&b", &[0.1, 0.9]),
        ],
        value_axis: HOSTILE.into(),
        ..ChartSpec::default()
    };
    for kind in [ChartKind::Bars, ChartKind::Stacked, ChartKind::Stacked100] {
        for orientation in [Orientation::Horizontal, Orientation::Vertical] {
            let mut s = spec.clone();
            s.kind = kind;
            s.orientation = orientation;
            let svg = render_svg(&s);
            assert!(!svg.contains("<img"), "raw markup leaked: {svg}");
            assert!(!svg.contains("<script"), "raw markup leaked");
            let p = parse(&svg);
            assert!(!p.elements.iter().any(|e| e == "img" || e == "script"));
            // The payload survives as text (title/desc/tooltips).
            assert!(p.text.contains(HOSTILE));
            assert_eq!(
                attr(&p.root_attrs, "aria-labelledby"),
                Some("c-tscript-title c-tscript-desc")
            );
        }
    }
}

#[test]
fn nan_and_empty_inputs_render_no_data() {
    let cases = vec![
        simple(&[]),
        simple(&[f64::NAN, f64::INFINITY]),
        ChartSpec {
            categories: vec!["a".into()],
            ..ChartSpec::default()
        },
        ChartSpec::default(),
    ];
    for spec in cases {
        let svg = render_svg(&spec);
        let p = parse(&svg);
        assert_eq!(attr(&p.root_attrs, "role"), Some("img"));
        assert!(p.text.contains("No data"), "{svg}");
    }
    // A single NaN among real values is shown as missing, not drawn.
    let p = parse(&render_svg(&simple(&[f64::NAN, 0.5])));
    assert!(p.text.contains("no data") && p.text.contains("50.0%"));
    // Out-of-range values are clamped.
    let p = parse(&render_svg(&simple(&[1.7, -3.0])));
    assert!(p.text.contains("100.0%") && p.text.contains("0.0%"));
}

#[test]
fn grouped_bars_have_a_legend_and_one_bar_per_series() {
    let rows = vec![
        dashboard::ComparisonRow {
            label: "this run".into(),
            values: vec![
                Some(0.6),
                Some(0.2),
                Some(0.5),
                Some(0.4),
                Some(0.7),
                Some(0.9),
            ],
        },
        dashboard::ComparisonRow {
            label: "GPT-4o".into(),
            values: vec![
                Some(0.55),
                None,
                Some(0.5),
                Some(0.4),
                Some(0.6),
                Some(0.95),
            ],
        },
    ];
    let spec = dashboard::comparison(&rows);
    let p = parse(&render_svg(&spec));
    let first = p
        .rects
        .iter()
        .filter(|r| attr(r, "fill") == Some("#0072B2"))
        .count();
    let second = p
        .rects
        .iter()
        .filter(|r| attr(r, "fill") == Some(wildtool_core::chart::palette::COLOURS[1]))
        .count();
    // One legend swatch each, plus one bar per category (the missing one is not drawn).
    assert_eq!(first, 1 + 6);
    assert_eq!(second, 1 + 5);
    assert!(p.text.contains("GPT-4o") && p.text.contains("this run"));
    let t = table(&spec);
    assert_eq!(t.headers, vec!["Category", "this run", "GPT-4o"]);
    assert_eq!(t.rows[1], vec!["Session", "20.0%", "—"]);
}

#[test]
fn stacked_100_normalises_segments() {
    let spec = dashboard::error_breakdown(&[
        (
            "run".into(),
            Some([0.5, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ),
        ("none".into(), None),
    ]);
    let p = parse(&render_svg(&spec));
    // Segments: rects with a tooltip, excluding legend swatches (10 px wide).
    let seg: Vec<f64> = p
        .rects
        .iter()
        .filter_map(|r| {
            attr(r, "height")
                .filter(|h| *h == "22")
                .and(attr(r, "width"))
        })
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(seg.len(), 3, "{seg:?}");
    assert!((seg[0] / seg[1] - 2.0).abs() < 0.02 && (seg[1] - seg[2]).abs() < 0.1);
    assert!(p.text.contains("no data"));
    assert_eq!(spec.series.len(), 9);
}

fn outcome(session: u32, position: u8, t: TaskType, correct: bool) -> TaskOutcome {
    TaskOutcome {
        session,
        position,
        task_type: t,
        subtype: if position == 0 {
            None
        } else {
            Some(TurnSubtype::PartialInformation)
        },
        transitions: 1,
        correct,
        name_correct: correct,
        optimal: correct,
        steps_logged: 1,
        nodes_total: 2,
        nodes_done: if correct { 2 } else { 0 },
        error: (!correct).then_some(RawErrorLabel::Refusal),
        incomplete: false,
    }
}

#[test]
fn dashboard_specs_aggregate_outcomes() {
    let outcomes = vec![
        outcome(0, 0, TaskType::SingleTool, true),
        outcome(0, 1, TaskType::Chat, false),
        outcome(1, 0, TaskType::SingleTool, true),
        outcome(1, 1, TaskType::Chat, true),
        TaskOutcome {
            incomplete: true,
            ..outcome(2, 0, TaskType::SingleTool, false)
        },
    ];
    let report = RunReport::from_outcomes(&outcomes);
    let by_type = dashboard::accuracy_by_type("run", &report);
    let t = table(&by_type);
    assert_eq!(t.rows[0][0], "Single-Tool");
    assert_eq!(t.rows[0][1], "100.0%"); // the incomplete task is excluded
    assert_eq!(t.rows[5][1], "50.0%");
    assert_eq!(t.rows[1][1], "—");
    let row = dashboard::summarize("run", &report);
    assert_eq!(row.values[0], Some(0.75));
    assert_eq!(row.values[1], Some(0.5));
    let shares = dashboard::error_shares(&report).expect("one failure");
    assert_eq!(shares[0], 1.0);
    for spec in dashboard::standard_charts("run", &report) {
        parse(&render_svg(&spec));
    }
}

#[test]
fn the_transitions_chart_names_its_factor_once_and_no_word_is_broken_at_phone_width() {
    let outcomes: Vec<TaskOutcome> = (0..8)
        .map(|s| TaskOutcome {
            transitions: (s % 4) as u8,
            ..outcome(s, 0, TaskType::SingleTool, s % 2 == 0)
        })
        .collect();
    let report = RunReport::from_outcomes(&outcomes);
    let spec = dashboard::accuracy_by_transitions("run", &report);
    assert_eq!(spec.categories, ["0", "1", "2", "3"]);
    assert!(
        spec.title.contains("instruction transitions"),
        "{}",
        spec.title
    );
    for width in [280.0, 358.0, 640.0] {
        let svg = render_svg_with(&spec, Layout::narrow(width));
        let text = parse(&svg).text;
        assert!(
            !text.contains('\u{ad}') && !text.contains('…'),
            "{width}: {text}"
        );
    }
}

#[test]
fn leaderboard_reference_parses() {
    let json = crate::support::read("data/paper-leaderboard.json");
    let models = dashboard::parse_leaderboard(&json).expect("parses");
    assert!(models.len() >= 50);
    let row = models[0].to_row();
    assert_eq!(row.values.len(), 6);
    assert!(row.values[0].is_some_and(|v| v > 0.0 && v < 1.0));
}

#[test]
fn series_colours_come_from_the_palette_and_markers_tell_apart_more_than_twelve() {
    use wildtool_core::chart::palette::{series_style, COLOURS};
    let rows: Vec<dashboard::ComparisonRow> = (0..14)
        .map(|i| dashboard::ComparisonRow {
            label: format!("model {i}"),
            values: vec![Some(0.5); 6],
        })
        .collect();
    let spec = dashboard::comparison(&rows);
    let svg = render_svg(&spec);
    let p = parse(&svg);
    // Every bar and legend swatch uses a palette colour; the first twelve are distinct.
    for (k, colour) in COLOURS.iter().enumerate() {
        assert_eq!(series_style(k).colour, *colour);
        assert!(
            p.rects.iter().any(|r| attr(r, "fill") == Some(colour)),
            "{colour} unused"
        );
    }
    // Series 13 and 14 repeat colours 1 and 2, so they carry another marker: squares in
    // the legend and at the ends of their bars (circles for the first block).
    assert_ne!(series_style(12).marker, series_style(0).marker);
    let circles = svg.matches("<circle").count();
    assert_eq!(circles, 12 * (1 + 6), "{circles} circles");
    let small = |r: &&Vec<(String, String)>| attr(r, "stroke") == Some("#ffffff");
    assert_eq!(p.rects.iter().filter(small).count(), 2 * (1 + 6));
    // Twelve series or fewer: no markers.
    let svg = render_svg(&dashboard::comparison(&rows[..12]));
    assert_eq!(svg.matches("<circle").count(), 0);
}
