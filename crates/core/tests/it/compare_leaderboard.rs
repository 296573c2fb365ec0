//! The leaderboard overlay rule (official dataset by fingerprint or git blob id), the
//! ranked table, the twelve-colour palette and the difference chart.

use wildtool_core::chart::dashboard::parse_leaderboard;
use wildtool_core::chart::delta::{
    delta_table, describe_delta, format_pp, render_delta_svg, DeltaChart, DeltaPoint, DeltaSeries,
};
use wildtool_core::chart::palette::{series_style, COLOURS};
use wildtool_core::compare::leaderboard::{
    git_blob_id, identify, leaderboard_overlay, parse_official, published_row, ranked_table,
    run_row, RowSource, SortKey, TableRow,
};
use wildtool_core::compare::{DatasetRef, RunInput};
use wildtool_core::dataset::{fingerprint, load_dataset, Lang};
use wildtool_core::share::task_shapes;

use crate::support::read;

#[test]
fn official_list_and_overlay_decision() {
    let official = parse_official(&read("data/official-datasets.json")).expect("list parses");
    assert_eq!(official.len(), 1);
    let wtb = &official[0];
    assert_eq!(wtb.file, "Wild-Tool-Bench.jsonl");
    assert!(wtb.source.commit.starts_with("80a5f42"));
    assert_eq!((wtb.sessions, wtb.tasks), (256, 1024));

    // The bundled suite is not the official dataset: hidden, and the reason says why.
    let suite = read("data/suite.jsonl");
    let id = identify(suite.as_bytes());
    assert_eq!(id.fingerprint, fingerprint(&suite));
    let d = leaderboard_overlay(id.fingerprint, Some(&id.git_blob), &official);
    assert!(!d.shown && d.official.is_none());
    assert!(d.reason.contains("hidden"), "{}", d.reason);
    assert!(d.reason.contains(&format!("{:016x}", id.fingerprint)));
    assert!(d.reason.contains("80a5f42"));

    // Served another list, the same rule shows the leaderboard for a matching dataset,
    // by fingerprint alone or by git blob id alone.
    let by_fp = format!(
        r#"{{"datasets": [{{"name": "Suite as official", "file": "suite.jsonl",
            "source": {{"repository": "r", "path": "p", "commit": "0123456789"}},
            "fingerprint": "{:016x}", "sessions": 64, "tasks": 256}}]}}"#,
        id.fingerprint
    );
    let list = parse_official(&by_fp).expect("parses");
    let d = leaderboard_overlay(id.fingerprint, None, &list);
    assert!(d.shown, "{d:?}");
    assert_eq!(d.official.as_deref(), Some("Suite as official"));
    let mini = read("tests/fixtures/mini.jsonl");
    assert!(!leaderboard_overlay(fingerprint(&mini), None, &list).shown);

    // `git ls-files -s tests/fixtures/mini.jsonl` gives this blob id.
    let mini_id = identify(mini.as_bytes());
    assert_eq!(mini_id.git_blob, "886bdf1040ca0d19182d7cc88c668b18a3a51c59");
    assert_eq!(
        git_blob_id(suite.as_bytes()),
        "f6c6e33befeead467fddbd341d0dfaa3e826b2e4"
    );
    let by_blob = r#"{"datasets": [{"name": "Mini", "file": "mini.jsonl",
        "source": {"repository": "r", "path": "p", "commit": "c"},
        "git_blob": "886BDF1040CA0D19182D7CC88C668B18A3A51C59", "sessions": 8, "tasks": 32}]}"#;
    let list = parse_official(by_blob).expect("parses");
    assert!(leaderboard_overlay(mini_id.fingerprint, Some(&mini_id.git_blob), &list).shown);
    assert!(!leaderboard_overlay(mini_id.fingerprint, None, &list).shown);

    // Malformed lists are refused.
    for bad in [
        "{}",
        r#"{"datasets": [{"name": "x", "file": "f", "source": {"repository": "r", "path": "p", "commit": "c"}, "sessions": 1, "tasks": 1}]}"#,
        r#"{"datasets": [{"name": "x", "file": "f", "source": {"repository": "r", "path": "p", "commit": "c"}, "fingerprint": "xyz", "sessions": 1, "tasks": 1}]}"#,
        r#"{"datasets": [{"name": "x", "file": "f", "source": {"repository": "r", "path": "p", "commit": "c"}, "git_blob": "abc", "sessions": 1, "tasks": 1}]}"#,
    ] {
        assert!(parse_official(bad).is_err(), "{bad}");
    }
    assert!(!leaderboard_overlay(1, None, &[]).shown);
}

fn row(label: &str, task: Option<f64>) -> TableRow {
    TableRow {
        rank: None,
        label: label.to_owned(),
        source: RowSource::Run,
        task,
        task_ci95: None,
        session: None,
        single: None,
        multi: None,
        clarify: None,
        chat: None,
        tasks_scored: None,
        tasks_total: None,
    }
}

#[test]
fn ranked_table_sorts_ranks_ties_and_missing_values() {
    let rows = vec![
        row("b", Some(0.5)),
        row("a", Some(0.7)),
        row("c", Some(0.5)),
        row("none", None),
        row("d", Some(0.2)),
    ];
    let t = ranked_table(rows.clone(), SortKey::Task, false);
    let order: Vec<(&str, Option<u32>)> = t.iter().map(|r| (r.label.as_str(), r.rank)).collect();
    assert_eq!(
        order,
        vec![
            ("a", Some(1)),
            ("b", Some(2)),
            ("c", Some(2)),
            ("d", Some(4)),
            ("none", None)
        ]
    );
    // Ascending keeps ranks (1 = best) and missing values last.
    let t = ranked_table(rows.clone(), SortKey::Task, true);
    let order: Vec<(&str, Option<u32>)> = t.iter().map(|r| (r.label.as_str(), r.rank)).collect();
    assert_eq!(order.first(), Some(&("d", Some(4))));
    assert_eq!(order.last(), Some(&("none", None)));
    let t = ranked_table(rows, SortKey::Label, false);
    assert_eq!(t.first().map(|r| r.label.as_str()), Some("none"));
    assert!(t.iter().all(|r| r.rank.is_none()));

    // Published models and a run together.
    let models = parse_leaderboard(&read("data/paper-leaderboard.json")).expect("leaderboard");
    let mut rows: Vec<TableRow> = models.iter().map(published_row).collect();
    let suite = read("data/suite.jsonl");
    let shapes = task_shapes(&load_dataset(&suite, Lang::En));
    // A made-up run: every Chat task correct, everything else wrong, session 0 unscored.
    let trial: Vec<_> = shapes
        .iter()
        .filter(|s| s.session != 0)
        .map(|s| wildtool_core::outcome::TaskOutcome {
            session: s.session,
            position: s.position,
            task_type: s.task_type,
            subtype: s.subtype,
            transitions: s.transitions,
            correct: s.task_type == wildtool_core::outcome::TaskType::Chat,
            name_correct: false,
            optimal: false,
            steps_logged: 0,
            nodes_total: s.nodes_total,
            nodes_done: 0,
            error: None,
            incomplete: false,
        })
        .collect();
    let chats = trial.iter().filter(|o| o.correct).count() as f64;
    let run = RunInput {
        label: "my run".to_owned(),
        fingerprint: fingerprint(&suite),
        trials: vec![trial.clone()],
    };
    let ds = DatasetRef {
        fingerprint: fingerprint(&suite),
        shapes: &shapes,
    };
    let r = run_row(&run, ds).expect("row");
    assert_eq!(r.tasks_scored, Some(trial.len() as u64));
    assert_eq!(r.tasks_total, Some(shapes.len() as u64));
    assert!((r.task.unwrap_or(0.0) - chats / trial.len() as f64).abs() < 1e-12);
    assert_eq!(r.chat, Some(1.0));
    assert!(r.task_ci95.is_some_and(|ci| ci.lo < r.task.unwrap_or(0.0)));
    let twice = RunInput {
        trials: vec![trial.clone(), trial.clone()],
        ..run.clone()
    };
    let r2 = run_row(&twice, ds).expect("row");
    assert_eq!(r2.task, r.task);
    assert!(
        r2.task_ci95.is_none(),
        "no Wilson interval over repeated trials"
    );
    assert_eq!(r.single, Some(0.0));
    rows.push(r);
    let t = ranked_table(rows, SortKey::Chat, false);
    assert_eq!(t[0].label, "my run");
    assert_eq!(t[0].rank, Some(1));
    assert_eq!(t.len(), models.len() + 1);
    let bad = RunInput {
        fingerprint: 1,
        ..run
    };
    assert!(run_row(&bad, ds).is_err());
}

fn relative_luminance(hex: &str) -> f64 {
    let c = |i: usize| {
        let v = u8::from_str_radix(&hex[i..i + 2], 16).expect("hex") as f64 / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * c(1) + 0.7152 * c(3) + 0.0722 * c(5)
}

fn lab(hex: &str) -> [f64; 3] {
    let c = |i: usize| {
        let v = u8::from_str_radix(&hex[i..i + 2], 16).expect("hex") as f64 / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (c(1), c(3), c(5));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    [
        116.0 * f(y) - 16.0,
        500.0 * (f(x) - f(y)),
        200.0 * (f(y) - f(z)),
    ]
}

#[test]
fn palette_is_distinct_and_legible_with_a_second_cue_beyond_twelve() {
    assert_eq!(COLOURS.len(), 12);
    for c in COLOURS {
        let contrast = 1.05 / (relative_luminance(c) + 0.05);
        assert!(contrast >= 3.0, "{c}: {contrast:.2}:1 against white");
    }
    let mut min = f64::MAX;
    for (i, a) in COLOURS.iter().enumerate() {
        for b in COLOURS.iter().skip(i + 1) {
            let (la, lb) = (lab(a), lab(b));
            let d = ((la[0] - lb[0]).powi(2) + (la[1] - lb[1]).powi(2) + (la[2] - lb[2]).powi(2))
                .sqrt();
            min = min.min(d);
        }
    }
    assert!(min >= 25.0, "closest pair ΔE76 {min:.1}");
    let styles: Vec<_> = (0..72).map(series_style).collect();
    for (i, a) in styles.iter().enumerate() {
        for b in styles.iter().skip(i + 1) {
            assert!(
                (a.colour, a.marker) != (b.colour, b.marker),
                "{a:?} repeats"
            );
        }
    }
    assert_eq!(styles[12].colour, styles[0].colour);
    assert_ne!(styles[12].marker, styles[0].marker);
    assert_ne!(styles[12].dash, styles[0].dash);
    assert!(styles[..12].iter().all(|s| s.dash.is_none()));
}

#[test]
fn difference_chart_escapes_describes_and_tables() {
    let evil = "<img src=x onerror=alert(1)>";
    let chart = DeltaChart {
        id: "t".into(),
        title: evil.into(),
        summary: None,
        categories: vec![evil.into(), "Empty".into()],
        series: (0..14)
            .map(|k| DeltaSeries {
                name: format!("{evil} {k}"),
                points: vec![
                    DeltaPoint {
                        estimate: Some(0.031),
                        ci95: Some((-0.01, 0.072)),
                    },
                    DeltaPoint::default(),
                ],
            })
            .collect(),
        value_axis: "accuracy".into(),
        ends: Some((evil.into(), evil.into())),
    };
    let svg = render_delta_svg(&chart);
    assert!(!svg.contains("<img"), "escaped");
    assert!(svg.contains("&lt;img"));
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains("<title id=") && svg.contains("<desc id="));
    // Beyond twelve series the markers change (square after circles).
    assert!(svg.contains("<circle") && svg.contains("<rect x="));
    let desc = describe_delta(&chart);
    assert!(
        desc.contains("+3.1 pp (95% CI \u{2212}1.0 pp to +7.2 pp)"),
        "{desc}"
    );
    assert!(desc.contains("no data"));
    let table = delta_table(&chart);
    assert_eq!(table.rows.len(), 2);
    assert_eq!(table.headers.len(), 15);
    assert_eq!(format_pp(-0.0004), "0.0 pp");
    assert_eq!(format_pp(0.5), "+50.0 pp");
    let empty = DeltaChart {
        title: "nothing".into(),
        categories: vec!["x".into()],
        series: vec![DeltaSeries::default()],
        ..DeltaChart::default()
    };
    assert!(render_delta_svg(&empty).contains("No data"));
}
