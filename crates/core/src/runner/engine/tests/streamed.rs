//! Streamed runs on a fake clock: the same results as without streaming, the stream switch
//! on every request (the preflight's too), torn, oversized, unknown and endless streams
//! retried as transport failures within the timeouts, first-token latency, and cancel.

use super::*;
use crate::runner::stream::replay::events_for;

/// What the scripted server does with one streamed request.
#[derive(Clone)]
enum Step {
    Head(u16),
    Bytes(Vec<u8>),
    /// Let this much time pass (the engine's timers run).
    Wait(f64),
    End,
}

fn streamed(body: &str, piece: usize, gap: f64) -> Vec<Step> {
    let events = events_for(ProviderKind::OpenAi, body, piece).expect("streamable");
    let mut steps = vec![Step::Head(200)];
    for event in events.split_inclusive("\n\n") {
        steps.push(Step::Wait(gap));
        steps.push(Step::Bytes(event.as_bytes().to_vec()));
    }
    steps.push(Step::End);
    steps
}

fn stream_settings() -> RunSettings {
    RunSettings {
        stream: true,
        concurrency: 1,
        stream_idle_timeout: 5.0,
        ..http_settings(1)
    }
}

impl Sim<'_> {
    /// Runs to the end, one request at a time: `server(transmit)` scripts the stream.
    fn run_streamed(&mut self, mut server: impl FnMut(&Transmit) -> Vec<Step>) -> RunEnd {
        for _ in 0..100_000 {
            self.engine.handle_timeout(self.now);
            self.drain();
            let batch = self.take();
            for t in &batch {
                assert!(t.stream, "every request is streamed");
                for step in server(t) {
                    if self.aborted.contains(&t.id) || self.engine.is_finished() {
                        break;
                    }
                    match step {
                        Step::Head(s) => self.engine.handle_head(t.id, HttpHead::new(s), self.now),
                        Step::Bytes(b) => self.engine.handle_bytes(t.id, &b, self.now),
                        Step::Wait(d) => {
                            // Time passes up to each of the engine's timers in turn.
                            let until = self.now + d;
                            while self.now < until && !self.aborted.contains(&t.id) {
                                let next = self.engine.poll_timeout().unwrap_or(until);
                                self.now = next.clamp(self.now, until);
                                self.engine.handle_timeout(self.now);
                                self.drain();
                            }
                        }
                        Step::End => self.engine.handle_end(t.id, self.now),
                    }
                    self.drain();
                }
            }
            self.drain();
            if self.engine.is_finished() {
                return self.end();
            }
            if batch.is_empty() {
                match self.engine.poll_timeout() {
                    Some(t) => self.now = t.max(self.now),
                    None => panic!("stalled at {}", self.now),
                }
            }
        }
        panic!("did not finish")
    }
}

use crate::runner::http::HttpHead;

#[test]
fn a_streamed_run_gives_the_results_of_the_same_run_without_streaming() {
    let ds = mini();
    let ss = sessions(&ds);
    let plain = Sim::new(
        &ss,
        spec(RunSettings {
            concurrency: 1,
            ..http_settings(1)
        }),
        &[],
    )
    .run(|_, t| ok(gold_body(&ds, t, "")));
    let mut sim = Sim::new(&ss, spec(stream_settings()), &[]);
    let end = sim.run_streamed(|t| streamed(&gold_body(&ds, t, ""), 3, 0.0));
    assert_eq!(end.status, RunStatus::Done);
    assert_eq!(end.trials, plain.trials, "the same result file");
    assert_eq!(end.progress.input_tokens, plain.progress.input_tokens);
    for t in &sim.transmits {
        assert!(
            t.request
                .body
                .ends_with(r#", "stream": true, "stream_options": {"include_usage": true}}"#),
            "{}",
            t.request.body
        );
    }
    let summary = end.progress.first_token.expect("first-token latency");
    assert_eq!(summary.count, end.progress.requests);
}

#[test]
fn the_preflight_streams_too_and_passes_on_a_reassembled_reply() {
    let ds = mini();
    let ss = sessions(&ds);
    let mut sim = Sim::new(
        &ss,
        spec(RunSettings {
            preflight: true,
            ..stream_settings()
        }),
        &[],
    );
    let end = sim.run_streamed(|t| match t.task {
        None => streamed(
            r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "p", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, "finish_reason": "tool_calls"}]}"#,
            4,
            0.0,
        ),
        Some(_) => streamed(&gold_body(&ds, t, ""), 50, 0.0),
    });
    assert_eq!(end.status, RunStatus::Done);
    let first = sim.transmits.first().expect("the preflight");
    assert!(first.task.is_none() && first.stream);
    assert!(first.request.body.contains(r#""stream": true"#));
    let tasks = sim.transmits.iter().filter(|t| t.task.is_some()).count() as u64;
    assert_eq!(
        end.progress.first_token.map(|f| f.count),
        Some(tasks),
        "the preflight is not counted"
    );
}

/// The first attempt of every request is `bad`; later ones are correct streams.
fn first_attempt_bad(bad: Vec<Step>, want: &str) -> (RunEnd, Vec<RequestId>, Vec<Transmit>) {
    let ds = mini();
    let ss: Vec<&Session> = sessions(&ds).into_iter().take(1).collect();
    let mut sim = Sim::new(&ss, spec(stream_settings()), &[]);
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    let end = sim.run_streamed(|t| {
        if seen.insert(t.request.body.clone()) {
            bad.clone()
        } else {
            streamed(&gold_body(&ds, t, ""), 7, 0.0)
        }
    });
    for e in &sim.events {
        if let Event::Progress(p) = e {
            if let Some(f) = &p.last_failure {
                failures.push(f.clone());
            }
        }
    }
    assert!(
        failures.iter().any(|f| f.contains(want)),
        "a failure names it ({want}): {failures:?}"
    );
    assert_eq!(end.status, RunStatus::Done, "retried until done");
    assert!(end.progress.retries > 0);
    (end, sim.aborted.clone(), sim.transmits.clone())
}

#[test]
fn a_connection_closed_mid_event_is_retried() {
    let torn = vec![
        Step::Head(200),
        Step::Bytes(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel".to_vec()),
        Step::End,
    ];
    first_attempt_bad(torn, "cut in the middle of event 1");
}

#[test]
fn an_event_over_the_body_limit_is_refused_and_retried() {
    let mut huge = b"data: \"".to_vec();
    huge.resize(crate::input::limits::MAX_REPLY_BODY_BYTES + 64, b'a');
    let steps = vec![Step::Head(200), Step::Bytes(huge), Step::End];
    let (_, aborted, transmits) = first_attempt_bad(steps, "event 1 of the stream is too long");
    assert!(
        transmits.first().is_some_and(|t| aborted.contains(&t.id)),
        "the oversized stream's request is aborted at once"
    );
}

#[test]
fn events_of_unknown_types_are_refused_and_retried() {
    let steps = vec![
        Step::Head(200),
        Step::Bytes(b"event: thinking\ndata: {}\n\n".to_vec()),
        Step::End,
    ];
    first_attempt_bad(steps, "unknown type \"thinking\"");
}

#[test]
fn a_silent_stream_times_out_after_the_idle_timeout() {
    let steps = vec![
        Step::Head(200),
        Step::Bytes(
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n".to_vec(),
        ),
        Step::Wait(60.0),
    ];
    first_attempt_bad(
        steps,
        "the event stream stalled: nothing arrived for 5s after event 1",
    );
}

/// When the first failure naming `want` was reported, on the run's clock.
fn failed_at(events: &[Event], want: &str) -> Option<f64> {
    events.iter().find_map(|e| match e {
        Event::Progress(p) if p.last_failure.as_deref().is_some_and(|f| f.contains(want)) => {
            Some(p.elapsed)
        }
        _ => None,
    })
}

#[test]
fn stalls_and_endless_streams_end_exactly_at_their_timeouts() {
    let ds = mini();
    let ss: Vec<&Session> = sessions(&ds).into_iter().take(1).collect();
    let silent = vec![Step::Head(200), Step::Wait(600.0)];
    let mut endless = vec![Step::Head(200)];
    for _ in 0..600 {
        endless.push(Step::Wait(1.0));
        endless.push(Step::Bytes(b": keep-alive\n\n".to_vec()));
    }
    for (steps, want, at) in [
        (silent, "stalled", 5.0),
        (endless, "no response within 10s", 10.0),
    ] {
        let mut sim = Sim::new(&ss, spec(stream_settings()), &[]);
        let mut first = true;
        sim.run_streamed(|t| {
            if std::mem::take(&mut first) {
                steps.clone()
            } else {
                streamed(&gold_body(&ds, t, ""), 9, 0.0)
            }
        });
        assert_eq!(failed_at(&sim.events, want), Some(at), "{want}");
    }
}

#[test]
fn a_stream_that_never_ends_is_cut_at_the_request_timeout() {
    let mut steps = vec![Step::Head(200)];
    for _ in 0..40 {
        steps.push(Step::Wait(1.0));
        steps.push(Step::Bytes(b": keep-alive\n\n".to_vec()));
    }
    first_attempt_bad(steps, "no response within 10s");
}

#[test]
fn first_token_latency_is_the_time_to_the_first_output() {
    let ds = mini();
    let ss: Vec<&Session> = sessions(&ds).into_iter().take(1).collect();
    let mut sim = Sim::new(&ss, spec(stream_settings()), &[]);
    // The role chunk after 0.25 s, then every event 0.25 s apart: the first output is the
    // second event, 0.5 s after sending.
    let end = sim.run_streamed(|t| streamed(&gold_body(&ds, t, ""), 1000, 0.25));
    let f = end.progress.first_token.expect("measured");
    assert_eq!((f.median, f.max), (0.5, 0.5));
    assert!(end.progress.detail().contains("first token 0.50 s median"));
}

#[test]
fn cancel_during_a_stream_aborts_it_and_later_chunks_are_ignored() {
    let ds = mini();
    let ss = sessions(&ds);
    let mut sim = Sim::new(&ss, spec(stream_settings()), &[]);
    let t = sim.take().pop().expect("a request");
    sim.engine.handle_head(t.id, HttpHead::new(200), 0.0);
    sim.engine.handle_bytes(
        t.id,
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
        0.1,
    );
    sim.engine.cancel(0.2);
    sim.drain();
    assert!(sim.aborted.contains(&t.id));
    sim.engine.handle_bytes(t.id, b"data: [DONE]\n\n", 0.3);
    sim.engine.handle_end(t.id, 0.3);
    sim.drain();
    assert_eq!(sim.end().status, RunStatus::Cancelled);
}
