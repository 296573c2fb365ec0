//! Share-link codec: size bounds on realistic 1,024-task datasets, round trips, and
//! typed errors (never panics) on garbled, truncated and hostile links.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use proptest::prelude::*;
use wildtool_core::outcome::{RawErrorLabel, TaskOutcome, TaskType, TurnSubtype};
use wildtool_core::share::{
    decode, encode, link_len, read_header, ShareError, ShareHeader, SharedRun, TaskShape,
    MAX_LABEL_BYTES, MAX_SCORER_VERSION_BYTES,
};

const FP: u64 = 0x0123_4567_89ab_cdef;

/// A realistic 256-session × 4-task dataset (type mix and node counts as in the
/// released data, each type at its largest typical node count).
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
        let mut types = Vec::new();
        for _ in 0..4 {
            let t = match next() % 1024 {
                0..=255 => TaskType::SingleTool,
                256..=411 => TaskType::ParallelMultiTool,
                412..=427 => TaskType::SequentialMultiTool,
                428..=511 => TaskType::MixedMultiTool,
                512..=767 => TaskType::Clarify,
                _ => TaskType::Chat,
            };
            types.push(t);
        }
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

fn base_outcome(s: &TaskShape) -> TaskOutcome {
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

/// A valid outcome for `s` chosen by `k` (kind), `a`, `b`, `c` (field selectors).
fn outcome_for(s: &TaskShape, k: u32, a: u32, b: u32, c: u32) -> TaskOutcome {
    let n = u32::from(s.nodes_total);
    let mut o = base_outcome(s);
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

fn header(label: &str, count: usize) -> ShareHeader {
    ShareHeader {
        scorer_version: "wildtool-0.1.0".into(),
        model_label: label.into(),
        dataset_fingerprint: FP,
        task_count: count as u32,
    }
}

fn worst_case_run(shapes: &[TaskShape], label: &str) -> SharedRun {
    let outcomes = shapes
        .iter()
        .map(|s| {
            let mut o = base_outcome(s);
            o.error = Some(RawErrorLabel::ParamValue);
            o.name_correct = true;
            o.steps_logged = s.nodes_total + 1;
            o.nodes_done = s.nodes_total;
            o
        })
        .collect();
    SharedRun {
        header: header(label, shapes.len()),
        outcomes,
    }
}

fn typical_run(shapes: &[TaskShape]) -> SharedRun {
    let outcomes = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let i = i as u32;
            let mut o = base_outcome(s);
            if i % 5 < 2 {
                o.correct = true;
                o.name_correct = true;
                o.optimal = i % 3 == 0;
                o.steps_logged = s.min_length;
                o.nodes_done = s.nodes_total;
            } else {
                o.error = Some(RawErrorLabel::ALL[(i % 12) as usize]);
                o.steps_logged = 1 + (i as u16 % s.nodes_total.max(1));
                o.nodes_done = i as u16 % s.nodes_total.max(1);
                o.name_correct = i % 7 == 0;
            }
            o
        })
        .collect();
    SharedRun {
        header: header("gpt-4o-mini (temperature 0)", shapes.len()),
        outcomes,
    }
}

#[test]
fn realistic_1024_task_runs_fit_in_2000_characters() {
    let shapes = realistic_shapes();
    assert_eq!(shapes.len(), 1024);
    let long_label = "模".repeat(40); // 120 bytes, cut to 64
    let worst = worst_case_run(&shapes, &long_label);
    let worst_link = encode(&worst, &shapes).expect("encodes");
    let typical = typical_run(&shapes);
    let typical_link = encode(&typical, &shapes).expect("encodes");
    println!(
        "worst-case link: {} chars; typical link: {} chars",
        worst_link.len(),
        typical_link.len()
    );
    assert!(
        worst_link.len() <= 2000,
        "worst case {} chars",
        worst_link.len()
    );
    assert!(typical_link.len() <= 2000);
    assert_eq!(worst_link.len(), link_len(&shapes, 14, 64 - 64 % 3));
    // Round trips; the label comes back cut on a character boundary.
    let back = decode(&worst_link, FP, &shapes).expect("decodes");
    assert_eq!(back.outcomes, worst.outcomes);
    assert_eq!(back.header.model_label, "模".repeat(21));
    assert_eq!(
        decode(&typical_link, FP, &shapes).expect("decodes"),
        typical
    );
}

#[test]
fn every_task_at_five_nodes_with_maximal_header_still_fits() {
    let mut shapes = realistic_shapes();
    for s in &mut shapes {
        s.nodes_total = 5;
    }
    let mut run = worst_case_run(&shapes, &"x".repeat(MAX_LABEL_BYTES));
    run.header.scorer_version = "v".repeat(MAX_SCORER_VERSION_BYTES);
    let link = encode(&run, &shapes).expect("encodes");
    println!("all-5-node worst link: {} chars", link.len());
    assert!(link.len() <= 2000, "{}", link.len());
    assert_eq!(decode(&link, FP, &shapes).expect("decodes"), run);
}

#[test]
fn header_is_readable_without_the_dataset() {
    let shapes = realistic_shapes();
    let link = encode(&typical_run(&shapes), &shapes).expect("encodes");
    let h = read_header(&format!("https://example.org/wildtool/#{link}")).expect("header");
    assert_eq!(h.dataset_fingerprint, FP);
    assert_eq!(h.task_count, 1024);
    assert_eq!(h.model_label, "gpt-4o-mini (temperature 0)");
}

#[test]
fn dataset_mismatches_are_reported() {
    let shapes = realistic_shapes();
    let link = encode(&typical_run(&shapes), &shapes).expect("encodes");
    let err = decode(&link, FP ^ 1, &shapes).expect_err("fingerprint");
    assert!(matches!(err, ShareError::FingerprintMismatch { .. }));
    assert!(err.to_string().contains("different dataset"));
    let err = decode(&link, FP, &shapes[..1000]).expect_err("count");
    assert_eq!(
        err,
        ShareError::TaskCountMismatch {
            link: 1024,
            dataset: 1000
        }
    );
    // Same count, different node counts: body length or range no longer fits.
    let mut other = shapes.clone();
    for s in &mut other {
        s.nodes_total = 9;
    }
    assert!(matches!(
        decode(&link, FP, &other),
        Err(ShareError::BodyLength { .. })
    ));
}

#[test]
fn malformed_links_give_typed_errors() {
    let shapes = realistic_shapes();
    let link = encode(&typical_run(&shapes), &shapes).expect("encodes");
    type Check = fn(&ShareError) -> bool;
    let cases: Vec<(String, Check)> = vec![
        (String::new(), |e| matches!(e, ShareError::Empty)),
        ("#".into(), |e| matches!(e, ShareError::Empty)),
        ("hello".into(), |e| matches!(e, ShareError::MissingVersion)),
        ("x1.AAAA".into(), |e| {
            matches!(e, ShareError::MissingVersion)
        }),
        (link.replacen("v1.", "v2.", 1), |e| {
            matches!(e, ShareError::UnsupportedVersion { .. })
        }),
        ("v1.<img src=x onerror=alert(1)>".into(), |e| {
            matches!(e, ShareError::Base64(_))
        }),
        ("v1.".into(), |e| matches!(e, ShareError::Truncated { .. })),
        (link[..link.len() / 2].to_owned(), |e| {
            matches!(e, ShareError::Checksum | ShareError::Base64(_))
        }),
        ("v1.".to_owned() + &"A".repeat(70_000), |e| {
            matches!(e, ShareError::TooLong { .. })
        }),
    ];
    for (input, ok) in cases {
        let err = decode(&input, FP, &shapes).expect_err("must fail");
        assert!(ok(&err), "{input:.40}: {err:?}");
        assert!(!err.to_string().is_empty());
    }
    // Flip one character in the middle: checksum catches it.
    let mut chars: Vec<char> = link.chars().collect();
    let mid = chars.len() / 2;
    chars[mid] = if chars[mid] == 'A' { 'B' } else { 'A' };
    let garbled: String = chars.into_iter().collect();
    assert!(matches!(
        decode(&garbled, FP, &shapes),
        Err(ShareError::Checksum)
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
    format!("v1.{}", URL_SAFE_NO_PAD.encode(bytes))
}

#[test]
fn forged_links_with_valid_checksums_are_rejected() {
    let shapes = realistic_shapes();
    // Huge label length.
    let e = read_header(&forge(&[1, b'x', 255, b'a', b'b'])).expect_err("label");
    assert!(
        matches!(
            e,
            ShareError::FieldTooLong {
                field: "model label",
                ..
            }
        ),
        "{e:?}"
    );
    // Label that is not UTF-8.
    let e = read_header(&forge(&[0, 2, 0xff, 0xfe])).expect_err("utf8");
    assert!(matches!(e, ShareError::Utf8 { .. }));
    // Truncated fingerprint.
    let e = read_header(&forge(&[0, 0, 1, 2, 3])).expect_err("fp");
    assert!(matches!(
        e,
        ShareError::Truncated {
            what: "dataset fingerprint"
        }
    ));
    // Endless varint and huge task count.
    let mut p = vec![0, 0];
    p.extend_from_slice(&FP.to_le_bytes());
    let mut endless = p.clone();
    endless.extend_from_slice(&[0xff; 8]);
    assert!(matches!(
        read_header(&forge(&endless)),
        Err(ShareError::BadTaskCount)
    ));
    let mut huge = p.clone();
    huge.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert!(matches!(
        read_header(&forge(&huge)),
        Err(ShareError::BadTaskCount)
    ));
    // Right header, body all 0xff: outside the state space.
    let mut body = p.clone();
    body.extend_from_slice(&[0x80, 0x08]); // 1024
    let mut plain = typical_run(&shapes);
    plain.header.scorer_version.clear();
    plain.header.model_label.clear();
    let real = encode(&plain, &shapes).expect("encodes");
    let total = URL_SAFE_NO_PAD.decode(&real[3..]).expect("base64").len();
    let body_bytes = total - 4 - body.len();
    body.extend(std::iter::repeat_n(0xff, body_bytes));
    let e = decode(&forge(&body), FP, &shapes).expect_err("range");
    assert_eq!(e, ShareError::OutOfRange);
}

#[test]
fn encode_rejects_outcomes_outside_the_model() {
    let shapes = realistic_shapes();
    let mut run = typical_run(&shapes);
    run.outcomes[3].steps_logged = 99;
    assert!(matches!(
        encode(&run, &shapes),
        Err(ShareError::Unrepresentable { index: 3, .. })
    ));
    let mut run = typical_run(&shapes);
    run.outcomes[2].correct = false;
    run.outcomes[2].optimal = true;
    run.outcomes[2].error = Some(RawErrorLabel::Refusal);
    let e = encode(&run, &shapes).expect_err("failed+optimal");
    assert!(e.to_string().contains("task 2"), "{e}");
    let mut run = typical_run(&shapes);
    run.outcomes[0].task_type = TaskType::Chat;
    run.outcomes[0].nodes_total = 77;
    assert!(matches!(
        encode(&run, &shapes),
        Err(ShareError::Unrepresentable { index: 0, .. })
    ));
    let mut run = typical_run(&shapes);
    run.outcomes.pop();
    assert!(matches!(
        encode(&run, &shapes),
        Err(ShareError::TaskCountMismatch { .. })
    ));
}

fn arb_run() -> impl Strategy<Value = (Vec<TaskShape>, SharedRun)> {
    (
        prop::collection::vec(
            (
                0u16..=8,
                any::<u32>(),
                any::<u32>(),
                any::<u32>(),
                any::<u32>(),
            ),
            0..60,
        ),
        "\\PC{0,20}",
        any::<u64>(),
    )
        .prop_map(|(tasks, label, fp)| {
            let shapes: Vec<TaskShape> = tasks
                .iter()
                .enumerate()
                .map(|(i, (n, ..))| TaskShape {
                    session: (i / 4) as u32,
                    position: (i % 4) as u8,
                    task_type: TaskType::ALL[i % 6],
                    subtype: (i % 4 > 0).then_some(TurnSubtype::LongRangeDependency),
                    transitions: (i % 4) as u8,
                    nodes_total: *n,
                    min_length: 1,
                })
                .collect();
            let outcomes = shapes
                .iter()
                .zip(&tasks)
                .map(|(s, (_, k, a, b, c))| outcome_for(s, *k, *a, *b, *c))
                .collect();
            let run = SharedRun {
                header: ShareHeader {
                    scorer_version: "0.1.0".into(),
                    model_label: label,
                    dataset_fingerprint: fp,
                    task_count: shapes.len() as u32,
                },
                outcomes,
            };
            (shapes, run)
        })
}

proptest! {
    #[test]
    fn round_trip_is_identity((shapes, run) in arb_run()) {
        let link = encode(&run, &shapes).expect("valid run encodes");
        let back = decode(&link, run.header.dataset_fingerprint, &shapes).expect("decodes");
        prop_assert_eq!(back, run);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,300}") {
        let shapes = realistic_shapes();
        let _ = read_header(&s);
        let _ = decode(&s, FP, &shapes);
        let with_prefix = format!("v1.{s}");
        let _ = read_header(&with_prefix);
        let _ = decode(&with_prefix, FP, &shapes);
    }

    #[test]
    fn arbitrary_checksummed_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let shapes: Vec<TaskShape> = realistic_shapes().into_iter().take(64).collect();
        let link = forge(&bytes);
        let _ = read_header(&link);
        let _ = decode(&link, FP, &shapes);
    }
}
