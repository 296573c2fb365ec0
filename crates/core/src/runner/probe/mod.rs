//! The streaming probe: the same small set of tool tasks ([`tasks::TASKS`]: parallel calls,
//! nested arguments, long arguments, several calls of one function) sent once without
//! streaming and once streamed, at temperature 0; the two replies' calls compared
//! ([`compare`]); a difference reported as the server's, with both replies as evidence
//! and, for the serving stacks in [`servers`], what to look for.
//!
//! Sans-IO: [`requests`] gives what to send, in order; the front end sends each one and
//! hands back a [`ProbeAnswer`] (a streamed answer is read with [`ProbeStream`], which
//! reassembles it in the core); [`judge`] makes the [`ProbeReport`].

pub mod compare;
pub mod servers;
pub mod tasks;

use crate::json::{loads, Value};
use crate::protocol::SeededIds;

use super::http::HttpReply;
use super::provider::{ChatRequest, Endpoint, HttpRequest, ProviderKind};
use super::stream::{streamed_request, StreamReader};
use compare::{calls_of, compare, Call, Difference, Symptom};
use servers::KnownServer;
use tasks::{ProbeTask, TASKS};

/// The temperature of every probe request.
pub const TEMPERATURE: f64 = 0.0;

/// One request of the probe.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeRequest {
    /// The task (index into [`TASKS`]).
    pub task: usize,
    /// Sent streamed.
    pub streamed: bool,
    /// What to send (the front end adds the key).
    pub request: HttpRequest,
}

/// Every request of the probe, in order: each task without streaming, then streamed.
pub fn requests(provider: ProviderKind, endpoint: &Endpoint, model: &str) -> Vec<ProbeRequest> {
    let mut out = Vec::new();
    for (i, task) in TASKS.iter().enumerate() {
        let messages = task.messages();
        let tools = task.tool_list();
        let plain = provider.build(
            &ChatRequest {
                model,
                temperature: TEMPERATURE,
                messages: &messages,
                tools: &tools,
            },
            endpoint,
        );
        out.push(ProbeRequest {
            task: i,
            streamed: false,
            request: plain.clone(),
        });
        out.push(ProbeRequest {
            task: i,
            streamed: true,
            request: streamed_request(provider, plain),
        });
    }
    out
}

/// What became of one probe request.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeAnswer {
    /// An HTTP answer; for a streamed request, the reassembled body (or the error body of
    /// a non-2xx status).
    Body {
        /// The status.
        status: u16,
        /// The body.
        body: String,
        /// Irregularities the reassembly recovered from.
        notes: Vec<String>,
    },
    /// No usable answer (network failure, timeout, an unusable stream).
    Failed(String),
}

impl ProbeAnswer {
    /// The answer to a request sent without streaming.
    pub fn from_reply(reply: HttpReply) -> Self {
        match reply {
            HttpReply::Response(r) => ProbeAnswer::Body {
                status: r.status,
                body: r.body,
                notes: Vec::new(),
            },
            HttpReply::Network(f) => ProbeAnswer::Failed(f.message),
            HttpReply::Aborted => ProbeAnswer::Failed("the request was aborted".to_owned()),
            HttpReply::Refused(reason) => ProbeAnswer::Failed(reason),
            HttpReply::TooLarge { status, size } => ProbeAnswer::Failed(format!(
                "HTTP {status}: the reply is too long ({size} bytes or more)"
            )),
        }
    }
}

/// A streamed probe answer being read: the head's status, then the chunks.
#[derive(Debug)]
pub struct ProbeStream {
    provider: ProviderKind,
    reader: Option<StreamReader>,
    failed: Option<String>,
}

impl ProbeStream {
    /// Ready for a response of `provider`.
    pub fn new(provider: ProviderKind) -> Self {
        Self {
            provider,
            reader: None,
            failed: None,
        }
    }

    /// The response's status arrived.
    pub fn head(&mut self, status: u16) {
        self.reader = Some(StreamReader::new(self.provider, status));
    }

    /// The next chunk; `false` when reading can stop (the stream failed or said it is
    /// over).
    pub fn bytes(&mut self, chunk: &[u8]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let provider = self.provider;
        let reader = self
            .reader
            .get_or_insert_with(|| StreamReader::new(provider, 200));
        match reader.feed(chunk) {
            Ok(p) => !p.finished,
            Err(e) => {
                self.failed = Some(e.to_string());
                false
            }
        }
    }

    /// The transport failed (`message`); a stream cut in the middle says where.
    pub fn fail(&mut self, message: &str) {
        if self.failed.is_none() {
            let at = self
                .reader
                .take()
                .and_then(|r| r.finish().err())
                .map(|e| format!("{e} ({message})"));
            self.failed = Some(at.unwrap_or_else(|| message.to_owned()));
        }
    }

    /// The answer, once the body has ended (or reading stopped).
    pub fn finish(self) -> ProbeAnswer {
        if let Some(f) = self.failed {
            return ProbeAnswer::Failed(f);
        }
        let Some(reader) = self.reader else {
            return ProbeAnswer::Failed("no response".to_owned());
        };
        let status = reader.status();
        let notes = reader.notes().to_vec();
        match reader.finish() {
            Ok(body) => ProbeAnswer::Body {
                status,
                body,
                notes,
            },
            Err(e) => ProbeAnswer::Failed(e.to_string()),
        }
    }
}

/// How one side of a task went.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Side {
    /// A reply with these calls (and text, if any).
    Reply {
        /// The calls, in order.
        calls: Vec<Call>,
        /// The reply's text.
        text: Option<String>,
    },
    /// No usable reply.
    Failed {
        /// Why.
        reason: String,
    },
}

/// How one task went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskVerdict {
    /// The same calls streamed and not.
    Agree,
    /// The streamed reply lost or changed calls.
    Differ,
    /// The model made no call without streaming: nothing to compare.
    NoCalls,
    /// The request without streaming failed: nothing to compare.
    Unanswered,
}

/// One task's result, with the evidence.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TaskReport {
    /// The task's name.
    pub task: &'static str,
    /// What it checks.
    pub checks: &'static str,
    /// The verdict.
    pub verdict: TaskVerdict,
    /// The reply without streaming.
    pub plain: Side,
    /// The reply streamed (reassembled).
    pub streamed: Side,
    /// What differs.
    pub differences: Vec<Difference>,
    /// What was accepted as the same, and what the reassembly recovered from.
    pub notes: Vec<String>,
}

/// The probe's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every task with calls agrees (at least one).
    Agree,
    /// The server loses or changes calls when streaming.
    Differ,
    /// Nothing could be compared, or some task got no answer without streaming.
    Inconclusive,
    /// No request without streaming got a usable answer: the endpoint cannot be probed.
    Unusable,
}

/// The whole probe's result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProbeReport {
    /// The verdict.
    pub verdict: Verdict,
    /// The server, when it was named or recognised.
    pub server: Option<&'static str>,
    /// Per task, in order.
    pub tasks: Vec<TaskReport>,
    /// What to look for (one line per symptom seen), when the streamed replies differ.
    pub advice: Vec<String>,
}

fn side(provider: ProviderKind, answer: &ProbeAnswer) -> (Side, Option<Value>) {
    match answer {
        ProbeAnswer::Failed(reason) => (
            Side::Failed {
                reason: reason.clone(),
            },
            None,
        ),
        ProbeAnswer::Body { status, body, .. } => {
            let mut ids = SeededIds::new(0);
            match provider.parse_response(*status, body, 0.0, &mut ids) {
                Ok(reply) => (
                    Side::Reply {
                        calls: calls_of(&reply),
                        text: reply.content.as_str().map(str::to_owned),
                    },
                    loads(body).ok(),
                ),
                Err(e) => (
                    Side::Failed {
                        reason: e.to_string(),
                    },
                    None,
                ),
            }
        }
    }
}

/// One task's result from its two answers.
fn judge_task(
    provider: ProviderKind,
    task: &ProbeTask,
    plain: &ProbeAnswer,
    streamed: &ProbeAnswer,
) -> (TaskReport, Vec<Value>) {
    let (p, pbody) = side(provider, plain);
    let (s, sbody) = side(provider, streamed);
    let mut notes = match streamed {
        ProbeAnswer::Body { notes, .. } => notes.clone(),
        ProbeAnswer::Failed(_) => Vec::new(),
    };
    let mut differences = Vec::new();
    let verdict = match (&p, &s) {
        (Side::Failed { .. }, _) => TaskVerdict::Unanswered,
        (Side::Reply { .. }, Side::Failed { reason }) => {
            differences.push(Difference::StreamFailed {
                reason: reason.clone(),
            });
            TaskVerdict::Differ
        }
        (Side::Reply { calls: pc, .. }, Side::Reply { calls: sc, .. }) => {
            if pc.is_empty() && sc.is_empty() {
                TaskVerdict::NoCalls
            } else {
                let (d, n) = compare(pc, sc);
                notes.extend(n);
                differences = d;
                if differences.is_empty() {
                    TaskVerdict::Agree
                } else {
                    TaskVerdict::Differ
                }
            }
        }
    };
    let bodies = pbody.into_iter().chain(sbody).collect();
    (
        TaskReport {
            task: task.name,
            checks: task.checks,
            verdict,
            plain: p,
            streamed: s,
            differences,
            notes,
        },
        bodies,
    )
}

/// The report from every task's two answers (`(plain, streamed)` in task order); `server`
/// names the serving stack when the user knows it (else it is recognised from the
/// replies, when it can be).
pub fn judge(
    provider: ProviderKind,
    answers: &[(ProbeAnswer, ProbeAnswer)],
    server: Option<&'static KnownServer>,
) -> ProbeReport {
    let mut tasks = Vec::new();
    let mut recognised = server;
    for (task, (plain, streamed)) in TASKS.iter().zip(answers) {
        let (report, bodies) = judge_task(provider, task, plain, streamed);
        if recognised.is_none() {
            recognised = bodies.iter().find_map(servers::recognise);
        }
        tasks.push(report);
    }
    let count = |v: TaskVerdict| tasks.iter().filter(|t| t.verdict == v).count();
    let verdict = if count(TaskVerdict::Differ) > 0 {
        Verdict::Differ
    } else if count(TaskVerdict::Unanswered) == tasks.len() {
        Verdict::Unusable
    } else if count(TaskVerdict::Unanswered) > 0 || count(TaskVerdict::Agree) == 0 {
        Verdict::Inconclusive
    } else {
        Verdict::Agree
    };
    let mut symptoms: Vec<Symptom> = tasks
        .iter()
        .flat_map(|t| t.differences.iter().map(Difference::symptom))
        .collect();
    crate::order::sort_by_key(&mut symptoms, |s| *s);
    symptoms.dedup();
    let advice = if verdict == Verdict::Differ {
        let mut lines: Vec<String> = symptoms
            .iter()
            .filter_map(|s| recognised.and_then(|r| r.advice_for(*s)))
            .map(str::to_owned)
            .collect();
        lines.push(servers::GENERIC_ADVICE.to_owned());
        lines
    } else {
        Vec::new()
    };
    ProbeReport {
        verdict,
        server: recognised.map(|s| s.label),
        tasks,
        advice,
    }
}

fn side_text(side: &Side) -> String {
    match side {
        Side::Failed { reason } => format!("no reply: {reason}"),
        Side::Reply { calls, text } if calls.is_empty() => format!(
            "no call; text: {}",
            text.as_deref()
                .map_or("(none)".to_owned(), |t| format!("{t:?}"))
        ),
        Side::Reply { calls, .. } => calls
            .iter()
            .map(|c| format!("{}({})", c.name, c.arguments))
            .collect::<Vec<_>>()
            .join(&format!("\n{:23}", "")),
    }
}

impl ProbeReport {
    /// The report for people: the verdict, each task with both replies when they differ,
    /// and what to look for.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let head = match self.verdict {
            Verdict::Agree => "streamed and non-streamed tool calls agree".to_owned(),
            Verdict::Differ => format!(
                "the server loses or changes tool calls when streaming{} (a server problem, not the model's)",
                self.server.map(|s| format!(" ({s})")).unwrap_or_default()
            ),
            Verdict::Inconclusive => "inconclusive: not every task could be compared".to_owned(),
            Verdict::Unusable => "the endpoint gave no usable reply without streaming".to_owned(),
        };
        out.push_str(&format!("probe-stream: {head}\n"));
        for t in &self.tasks {
            let state = match t.verdict {
                TaskVerdict::Agree => "same calls",
                TaskVerdict::Differ => "DIFFERENT",
                TaskVerdict::NoCalls => "not checked: the model made no call",
                TaskVerdict::Unanswered => "not checked: no reply without streaming",
            };
            out.push_str(&format!("  {} ({}): {state}\n", t.task, t.checks));
            for d in &t.differences {
                out.push_str(&format!("    - {}\n", d.describe()));
            }
            if t.verdict != TaskVerdict::Agree {
                out.push_str(&format!("    without streaming: {}\n", side_text(&t.plain)));
                out.push_str(&format!(
                    "    streamed:          {}\n",
                    side_text(&t.streamed)
                ));
            }
            for n in &t.notes {
                out.push_str(&format!("    note: {n}\n"));
            }
        }
        for a in &self.advice {
            out.push_str(&format!("  look for: {a}\n"));
        }
        out
    }

    /// The report as JSON (`--json`, the page).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
