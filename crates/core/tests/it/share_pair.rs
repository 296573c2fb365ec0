//! Comparison links (`v2.`): length bounds for two 1,024-task runs, round trips, the
//! byte layout (nothing but labels, scorer, fingerprint and outcomes), and typed errors
//! (never a panic) on garbled, truncated, forged and hostile links.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use proptest::prelude::*;
use wildtool_core::outcome::{RawErrorLabel, TaskOutcome, TaskType, TurnSubtype};
use wildtool_core::share::pair::{
    decode_pair, encode_pair, link_kind, pair_link_len, pair_link_len_with, read_pair_header,
    Detail, LinkKind, PairHeader, SharedPair, MAX_PAIR_LINK_CHARS,
};
use wildtool_core::share::{
    decode, encode, task_shapes, ShareError, ShareHeader, SharedRun, TaskShape, MAX_LABEL_BYTES,
    MAX_SCORER_VERSION_BYTES,
};

const FP: u64 = 0x0123_4567_89ab_cdef;

/// 256 sessions × 4 tasks, type mix and node counts of the released data, each type at
/// its largest typical node count.
fn realistic_shapes() -> Vec<TaskShape> {
    let mut shapes = Vec::with_capacity(1024);
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for session in 0..256u32 {
        let types: Vec<TaskType> = (0..4)
            .map(|_| match next() % 1024 {
                0..=255 => TaskType::SingleTool,
                256..=411 => TaskType::ParallelMultiTool,
                412..=427 => TaskType::SequentialMultiTool,
                428..=511 => TaskType::MixedMultiTool,
                512..=767 => TaskType::Clarify,
                _ => TaskType::Chat,
            })
            .collect();
        let transitions = wildtool_core::outcome::transition_count(&types);
        for (position, t) in types.iter().enumerate() {
            let nodes_total: u16 = match t {
                TaskType::Chat => 1,
                TaskType::SingleTool => 2,
                TaskType::Clarify | TaskType::SequentialMultiTool => 4,
                TaskType::ParallelMultiTool | TaskType::MixedMultiTool => 5,
            };
            shapes.push(TaskShape {
                session,
                position: position as u8,
                task_type: *t,
                subtype: (position > 0).then(|| TurnSubtype::ALL[(next() % 3) as usize]),
                transitions,
                nodes_total,
                min_length: nodes_total.saturating_sub(1).max(1),
            });
        }
    }
    shapes
}

/// The bundled suite repeated to 256 sessions (1,024 tasks with real node counts).
fn suite_shapes_1024() -> Vec<TaskShape> {
    let suite = crate::support::read("data/suite.jsonl");
    let lines: Vec<&str> = suite.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut text = String::new();
    for i in 0..256 {
        let mut v: serde_json::Value =
            serde_json::from_str(lines[i % lines.len()]).expect("suite line");
        v["id"] = serde_json::Value::String(format!("wild_tool_bench_{i}"));
        text.push_str(&v.to_string());
        text.push('\n');
    }
    let loaded = wildtool_core::dataset::load_dataset(&text, wildtool_core::dataset::Lang::En);
    task_shapes(&loaded)
}

fn base(s: &TaskShape) -> TaskOutcome {
    TaskOutcome {
        session: s.session,
        position: s.position,
        task_type: s.task_type,
        subtype: s.subtype,
        transitions: s.transitions,
        correct: false,
        name_correct: false,
        optimal: false,
        steps_logged: 0,
        nodes_total: s.nodes_total,
        nodes_done: 0,
        error: None,
        incomplete: false,
    }
}

/// A valid outcome for `s` chosen by selectors.
fn outcome_for(s: &TaskShape, k: u32, a: u32, b: u32, c: u32) -> TaskOutcome {
    let n = u32::from(s.nodes_total);
    let mut o = base(s);
    o.steps_logged = (a % (n + 2)) as u16;
    o.nodes_done = (b % (n + 1)) as u16;
    match k % 10 {
        0..=3 => {
            o.correct = true;
            o.name_correct = true;
            o.optimal = c % 2 == 0;
        }
        4 => o.incomplete = true,
        _ => {
            o.name_correct = c % 2 == 1;
            let label = (c / 2) % 13;
            o.error = (label > 0).then(|| RawErrorLabel::ALL[(label - 1) as usize]);
        }
    }
    o
}

fn run_from(shapes: &[TaskShape], seed: u32) -> Vec<TaskOutcome> {
    shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let i = i as u32 ^ seed;
            outcome_for(
                s,
                i.wrapping_mul(7),
                i / 3,
                i.wrapping_mul(13) / 5,
                i.wrapping_mul(31),
            )
        })
        .collect()
}

fn pair(shapes: &[TaskShape], a: &str, b: &str, scorer: &str) -> SharedPair {
    SharedPair {
        header: PairHeader {
            scorer_version: scorer.to_owned(),
            label_a: a.to_owned(),
            label_b: b.to_owned(),
            dataset_fingerprint: FP,
            task_count: shapes.len() as u32,
        },
        detail: Detail::Full,
        a: run_from(shapes, 0),
        b: run_from(shapes, 0x55),
    }
}

#[test]
fn two_1024_task_runs_fit_in_3500_characters() {
    let scorer = wildtool_core::SCORER_VERSION;
    let suite = suite_shapes_1024();
    assert_eq!(suite.len(), 1024);
    let typical = pair(&suite, "gpt-4o-mini", "qwen3-8b (temperature 0.7)", scorer);
    let typical_link = encode_pair(&typical, &suite).expect("encodes");
    let shapes = realistic_shapes();
    let long = "模".repeat(40); // 120 bytes, cut to 63 (21 characters)
    let mut worst = pair(
        &shapes,
        &long,
        &"x".repeat(200),
        &"v".repeat(MAX_SCORER_VERSION_BYTES),
    );
    let worst_link = encode_pair(&worst, &shapes).expect("encodes");
    // Every task at five nodes (the largest typical radix) with maximal header fields.
    let mut five = shapes.clone();
    for s in &mut five {
        s.nodes_total = 5;
    }
    let all_five = pair(&five, &"x".repeat(64), &"y".repeat(64), &"v".repeat(32));
    let five_link = encode_pair(&all_five, &five).expect("encodes");
    // One v1 link of the same suite, for scale.
    let single = encode(
        &SharedRun {
            header: ShareHeader {
                scorer_version: scorer.to_owned(),
                model_label: "gpt-4o-mini".to_owned(),
                dataset_fingerprint: FP,
                task_count: 1024,
            },
            outcomes: typical.a.clone(),
        },
        &suite,
    )
    .expect("v1");
    println!(
        "pair link, suite x4 (1,024 tasks), short labels: {} chars; realistic shapes, maximal header: {} chars; every task 5 nodes, maximal header: {} chars; one v1 link of the same suite: {} chars",
        typical_link.len(),
        worst_link.len(),
        five_link.len(),
        single.len()
    );
    for l in [&typical_link, &worst_link, &five_link] {
        assert!(l.len() <= MAX_PAIR_LINK_CHARS, "{} chars", l.len());
        assert!(l.starts_with("v2."));
    }
    assert_eq!(
        typical_link.len(),
        pair_link_len(&suite, scorer.len(), 11, 26)
    );
    assert_eq!(worst_link.len(), pair_link_len(&shapes, 32, 63, 64));
    // Round trips with full detail; labels come back cut on a character boundary.
    assert_eq!(
        decode_pair(&typical_link, FP, &suite).expect("decodes"),
        typical
    );
    let back = decode_pair(&worst_link, FP, &shapes).expect("decodes");
    assert_eq!(back.detail, Detail::Full);
    assert_eq!(back.a, worst.a);
    assert_eq!(back.b, worst.b);
    assert_eq!(back.header.label_a, "模".repeat(21));
    assert_eq!(back.header.label_b, "x".repeat(MAX_LABEL_BYTES));
    worst.header.label_a = "模".repeat(21);
    worst.header.label_b = "x".repeat(64);
    assert_eq!(back, worst);
    // With every task at five nodes, full detail would not fit: the link drops the
    // progress counters, says so, and keeps every other field.
    let full_five = pair_link_len_with(&five, Detail::Full, 32, 64, 64);
    println!("every task 5 nodes with full detail would be {full_five} chars");
    assert!(full_five > MAX_PAIR_LINK_CHARS);
    let back = decode_pair(&five_link, FP, &five).expect("decodes");
    assert_eq!(back.detail, Detail::NoProgress);
    let strip = |v: &[TaskOutcome]| -> Vec<TaskOutcome> {
        v.iter()
            .map(|o| TaskOutcome {
                steps_logged: 0,
                nodes_done: 0,
                ..o.clone()
            })
            .collect()
    };
    assert_eq!(back.a, strip(&all_five.a));
    assert_eq!(back.b, strip(&all_five.b));
    assert_eq!(back.header, all_five.header);
}

#[test]
fn the_link_holds_nothing_but_header_and_outcomes() {
    let shapes = realistic_shapes();
    let p = pair(&shapes, "A", "B", "s");
    let link = encode_pair(&p, &shapes).expect("encodes");
    let bytes = URL_SAFE_NO_PAD
        .decode(link.trim_start_matches("v2."))
        .expect("base64");
    // scorer (1+1) + detail 1 + labels (1+1, 1+1) + fingerprint 8 + count varint 2 + body
    // + checksum 4: the body is exactly the outcome digits of both runs.
    assert_eq!(bytes[2], 0, "full detail");
    let body = bytes.len() - (2 + 1 + 2 + 2 + 8 + 2 + 4);
    let single = encode(
        &SharedRun {
            header: ShareHeader {
                scorer_version: "s".into(),
                model_label: "A".into(),
                dataset_fingerprint: FP,
                task_count: 1024,
            },
            outcomes: p.a.clone(),
        },
        &shapes,
    )
    .expect("v1");
    let single_body = URL_SAFE_NO_PAD
        .decode(single.trim_start_matches("v1."))
        .expect("base64")
        .len()
        - (2 + 2 + 8 + 2 + 4);
    // Two runs' digits packed jointly take at most one byte more than twice one run's.
    assert!(
        body <= 2 * single_body + 1 && body + 1 >= 2 * single_body,
        "{body} vs {single_body}"
    );
    let h = read_pair_header(&format!("https://example.org/wt/#{link}")).expect("header");
    assert_eq!((h.label_a.as_str(), h.label_b.as_str()), ("A", "B"));
    assert_eq!((h.dataset_fingerprint, h.task_count), (FP, 1024));
    let (ra, rb) = p.runs();
    assert_eq!(ra.outcomes, p.a);
    assert_eq!(rb.header.model_label, "B");
}

#[test]
fn kinds_versions_and_datasets_are_checked() {
    let shapes = realistic_shapes();
    let p = pair(&shapes, "A", "B", "s");
    let link = encode_pair(&p, &shapes).expect("encodes");
    assert_eq!(link_kind(&link), Ok(LinkKind::Comparison));
    assert_eq!(link_kind(&format!("x#{link}")), Ok(LinkKind::Comparison));
    let (ra, _) = p.runs();
    let v1 = encode(&ra, &shapes).expect("v1");
    assert_eq!(link_kind(&v1), Ok(LinkKind::Run));
    assert!(matches!(
        link_kind("v9.AAAA"),
        Err(ShareError::UnsupportedVersion { .. })
    ));
    assert!(matches!(
        link_kind("hello"),
        Err(ShareError::MissingVersion)
    ));
    assert!(matches!(link_kind(""), Err(ShareError::Empty)));
    // Each decoder refuses the other kind.
    assert!(matches!(
        decode_pair(&v1, FP, &shapes),
        Err(ShareError::UnsupportedVersion { .. })
    ));
    assert!(matches!(
        decode(&link, FP, &shapes),
        Err(ShareError::UnsupportedVersion { .. })
    ));
    assert!(matches!(
        decode_pair(&link, FP ^ 1, &shapes),
        Err(ShareError::FingerprintMismatch { .. })
    ));
    assert_eq!(
        decode_pair(&link, FP, &shapes[..1000]),
        Err(ShareError::TaskCountMismatch {
            link: 1024,
            dataset: 1000
        })
    );
    let mut other = shapes.clone();
    for s in &mut other {
        s.nodes_total = 9;
    }
    assert!(matches!(
        decode_pair(&link, FP, &other),
        Err(ShareError::BodyLength { .. })
    ));
    // Encoding refuses outcomes that do not fit the dataset.
    let mut bad = p.clone();
    bad.b[3].nodes_total += 1;
    assert!(matches!(
        encode_pair(&bad, &shapes),
        Err(ShareError::Unrepresentable { index: 3, .. })
    ));
    let mut short = p.clone();
    short.b.pop();
    assert!(matches!(
        encode_pair(&short, &shapes),
        Err(ShareError::TaskCountMismatch { .. })
    ));
}

fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

fn forge(payload: &[u8]) -> String {
    let mut bytes = payload.to_vec();
    bytes.extend_from_slice(&fnv(payload).to_le_bytes());
    format!("v2.{}", URL_SAFE_NO_PAD.encode(bytes))
}

#[test]
fn forged_and_hostile_links_give_messages() {
    let shapes = realistic_shapes();
    let cases = [
        forge(&[1, b'x', 0, 255, b'a']),
        forge(&[1, b'x', 0, 1, b'a', 1]),
        forge(&[1, b'x', 0, 1, 0xff, 1, b'b']),
        forge(&[1, b'x', 7, 1, b'a', 1, b'b']),
        forge(&[
            0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ]),
        forge(&[]),
        "v2.<img src=x onerror=alert(1)>".to_owned(),
        "v2.".to_owned() + &"A".repeat(70_000),
        "v2.".to_owned(),
    ];
    for c in &cases {
        let e = decode_pair(c, FP, &shapes).expect_err("must fail");
        assert!(!e.to_string().is_empty());
        let _ = read_pair_header(c);
    }
    // A valid header with a body full of 0xff is out of range.
    let p = pair(&shapes, "A", "B", "s");
    let link = encode_pair(&p, &shapes).expect("encodes");
    let mut payload = URL_SAFE_NO_PAD
        .decode(link.trim_start_matches("v2."))
        .expect("base64");
    payload.truncate(payload.len() - 4);
    let head = 2 + 1 + 2 + 2 + 8 + 2;
    for b in payload.iter_mut().skip(head) {
        *b = 0xff;
    }
    assert_eq!(
        decode_pair(&forge(&payload), FP, &shapes),
        Err(ShareError::OutOfRange)
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn round_trip_any_outcomes(sel in proptest::collection::vec((0u32..10, 0u32..9, 0u32..9, 0u32..40), 24)) {
        let shapes: Vec<TaskShape> = realistic_shapes().into_iter().take(24).collect();
        let a: Vec<TaskOutcome> = shapes.iter().zip(&sel).map(|(s, (k, x, y, z))| outcome_for(s, *k, *x, *y, *z)).collect();
        let b: Vec<TaskOutcome> = shapes.iter().zip(sel.iter().rev()).map(|(s, (k, x, y, z))| outcome_for(s, *k, *x, *y, *z)).collect();
        let p = SharedPair {
            header: PairHeader { scorer_version: "s".into(), label_a: "a".into(), label_b: "b".into(), dataset_fingerprint: FP, task_count: 24 },
            detail: Detail::Full,
            a, b,
        };
        let link = encode_pair(&p, &shapes).expect("encodes");
        prop_assert_eq!(decode_pair(&link, FP, &shapes).expect("decodes"), p);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let shapes: Vec<TaskShape> = realistic_shapes().into_iter().take(32).collect();
        let _ = decode_pair(&text, FP, &shapes);
        let _ = read_pair_header(&text);
        let _ = link_kind(&text);
        let _ = decode_pair(&format!("v2.{text}"), FP, &shapes);
    }

    #[test]
    fn forged_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..300)) {
        let shapes: Vec<TaskShape> = realistic_shapes().into_iter().take(32).collect();
        let link = forge(&payload);
        let _ = read_pair_header(&link);
        if let Ok(p) = decode_pair(&link, FP, &shapes) {
            // Whatever decodes re-encodes to the same outcomes.
            let again = encode_pair(&p, &shapes).expect("re-encodes");
            let back = decode_pair(&again, FP, &shapes).expect("decodes");
            prop_assert_eq!((back.header, back.a, back.b), (p.header, p.a, p.b));
        }
    }

    #[test]
    fn damaged_links_never_panic(cut in 0usize..400, flip in 0usize..400, ch in proptest::char::any()) {
        let shapes: Vec<TaskShape> = realistic_shapes().into_iter().take(64).collect();
        let p = SharedPair {
            header: PairHeader { scorer_version: "s".into(), label_a: "a".into(), label_b: "b".into(), dataset_fingerprint: FP, task_count: 64 },
            detail: Detail::Full,
            a: run_from(&shapes, 1),
            b: run_from(&shapes, 2),
        };
        let link = encode_pair(&p, &shapes).expect("encodes");
        let chars: Vec<char> = link.chars().collect();
        let truncated: String = chars.iter().take(cut.min(chars.len())).collect();
        let _ = decode_pair(&truncated, FP, &shapes);
        let mut flipped = chars.clone();
        let i = flip % flipped.len();
        flipped[i] = ch;
        let flipped: String = flipped.into_iter().collect();
        match decode_pair(&flipped, FP, &shapes) {
            Ok(back) => prop_assert_eq!(back, p.clone()), // the same character put back
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
