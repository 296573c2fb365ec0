//! The serving stacks the probe knows: how their replies give them away, and what to
//! look for when one of them loses or changes tool calls only when streaming. One table,
//! read by the probe's report in both front doors.

use crate::json::Value;

use super::compare::Symptom;

/// How a server is recognised in a reply body (non-streaming, or reassembled from a
/// stream: both keep the server's extra fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `system_fingerprint` equals this.
    Fingerprint(&'static str),
    /// `system_fingerprint` ends with this.
    FingerprintSuffix(&'static str),
    /// `system_fingerprint` is llama.cpp's build tag (`b<number>-<commit>`).
    BuildTag,
    /// A top-level field of this name.
    Field(&'static str),
    /// A field of this name in `choices[0]`.
    ChoiceField(&'static str),
}

impl Marker {
    fn matches(self, body: &Value) -> bool {
        let fingerprint = body.get("system_fingerprint").and_then(Value::as_str);
        match self {
            Marker::Fingerprint(f) => fingerprint == Some(f),
            Marker::FingerprintSuffix(s) => fingerprint.is_some_and(|f| f.ends_with(s)),
            Marker::BuildTag => fingerprint.is_some_and(|f| {
                f.strip_prefix('b')
                    .and_then(|rest| rest.split_once('-'))
                    .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            }),
            Marker::Field(k) => body.get(k).is_some(),
            Marker::ChoiceField(k) => body
                .get("choices")
                .and_then(Value::as_array)
                .and_then(|c| c.first())
                .is_some_and(|c| c.get(k).is_some()),
        }
    }
}

/// One serving stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownServer {
    /// Its name on the command line (`--server`) and in reports.
    pub name: &'static str,
    /// Its name for people.
    pub label: &'static str,
    /// Any one of these marks its replies.
    pub markers: &'static [Marker],
    /// What to look for, per symptom (the first entry for a symptom is used).
    pub advice: &'static [(Symptom, &'static str)],
}

/// The known servers, in the order they are tried.
pub const SERVERS: [KnownServer; 5] = [
    KnownServer {
        name: "vllm",
        label: "vLLM",
        markers: &[Marker::ChoiceField("stop_reason"), Marker::Field("kv_transfer_params")],
        advice: &[
            (Symptom::EmptyArguments, "vLLM sends a call's name with empty arguments when the whole call is generated in one step (issues #55082, #48347, #48020; fixes in PRs #48852, #55115, #55550 and #39615): upgrade to a release that contains them; until then --stream-interval above 1 makes it worse (issue #31501)"),
            (Symptom::MergedCalls, "vLLM's streaming tool parser for this model merged calls: check that --tool-call-parser matches the model, and upgrade (the parsers' streaming paths are fixed one by one, see the tool-calling label on vLLM's issues)"),
            (Symptom::LostCalls, "vLLM's streaming tool parser lost calls (issue #48347 shows a whole call lost when it arrives in one delta after text): check --tool-call-parser against the model and upgrade"),
            (Symptom::ChangedCalls, "vLLM can differ between two requests at temperature 0 (batching); run the probe again: a difference that repeats is the streaming parser's"),
            (Symptom::BrokenStream, "vLLM's stream broke off: see the server log for the request; an error event in the stream names the cause"),
        ],
    },
    KnownServer {
        name: "sglang",
        label: "SGLang",
        markers: &[Marker::ChoiceField("matched_stop")],
        advice: &[
            (Symptom::MergedCalls, "SGLang gave several calls one index when streaming (the index taken from the tool's position in the request, not the call's): PR #31860 fixes four calls streamed as one, PR #35625 the shared detector helper (issue #35564), PRs #23081 and #38198 Gemma 4, PR #33326 GLM-4.7; upgrade to a release that contains the fix for your --tool-call-parser"),
            (Symptom::LostCalls, "SGLang's streamed and non-streamed tool-call parsing disagree for this model: PR #35625 (issue #35564) makes them agree; upgrade"),
            (Symptom::EmptyArguments, "SGLang's streaming detector sent a call without its arguments: PR #35625 (issue #35564); upgrade"),
            (Symptom::ChangedCalls, "SGLang can differ between two requests at temperature 0; run the probe again: a difference that repeats is the streaming detector's (PR #35625)"),
            (Symptom::BrokenStream, "SGLang's stream broke off: see the server log for the request"),
        ],
    },
    KnownServer {
        name: "llamacpp",
        label: "llama.cpp (llama-server)",
        markers: &[Marker::Field("timings"), Marker::BuildTag],
        advice: &[
            (Symptom::LostCalls, "llama-server streams tool calls only with --jinja and a chat template that supports tools, and only in builds with streamed tool calls (PR #12379, May 2025); older builds send the call as text when streaming: upgrade and start it with --jinja"),
            (Symptom::EmptyArguments, "llama-server streamed a call without arguments: upgrade to a current build (streamed tool calls since PR #12379) and check the model's template"),
            (Symptom::MergedCalls, "llama-server merged calls when streaming: upgrade to a current build and check that the template emits one call per tool-call block"),
            (Symptom::ChangedCalls, "llama-server's streamed arguments differ: check the template with --jinja and try --parallel 1 (a shared batch can change results at temperature 0)"),
            (Symptom::BrokenStream, "llama-server's stream broke off: see the server log"),
        ],
    },
    KnownServer {
        name: "ollama",
        label: "Ollama",
        markers: &[Marker::Fingerprint("fp_ollama")],
        advice: &[
            (Symptom::MergedCalls, "Ollama sent every call at index 0 when streaming (issue #15457); clients that merge by index run the calls together: upgrade Ollama"),
            (Symptom::LostCalls, "older Ollama releases streamed no tool calls at all (issue #5796) or left the index out (issue #7881, fixed in 0.4.7): upgrade Ollama"),
            (Symptom::EmptyArguments, "Ollama streamed a call without arguments: upgrade Ollama and check the model's template"),
            (Symptom::ChangedCalls, "Ollama's streamed arguments differ: run the probe again with the model loaded once (OLLAMA_NUM_PARALLEL=1); a difference that repeats is the server's"),
            (Symptom::BrokenStream, "Ollama's stream broke off: see `ollama serve`'s log"),
        ],
    },
    KnownServer {
        name: "tgi",
        label: "Text Generation Inference",
        markers: &[Marker::FingerprintSuffix("-native")],
        advice: &[
            (Symptom::LostCalls, "TGI streams one call per reply (its tool grammar yields a single call at index 0), so parallel calls are lost when streaming; run this server without --stream"),
            (Symptom::MergedCalls, "TGI streams one call per reply (index 0); parallel calls run together: run this server without --stream"),
            (Symptom::EmptyArguments, "TGI streamed a call without arguments: upgrade TGI (its stream repeats id \"0\" and sends the name once)"),
            (Symptom::ChangedCalls, "TGI's streamed argument text is token by token and may differ in spacing only (which the probe ignores); other differences: upgrade TGI"),
            (Symptom::BrokenStream, "TGI's stream broke off: see the router log"),
        ],
    },
];

/// What to look for on an unknown server.
pub const GENERIC_ADVICE: &str = "report it to the server's maintainers with the evidence above; until it is fixed, run without --stream (wildtool's non-streaming requests are the official ones)";

/// The server named `name` (`--server`).
pub fn named(name: &str) -> Option<&'static KnownServer> {
    SERVERS.iter().find(|s| s.name == name)
}

/// The names `--server` accepts.
pub fn names() -> Vec<&'static str> {
    SERVERS.iter().map(|s| s.name).collect()
}

/// The server whose marks `body` carries.
pub fn recognise(body: &Value) -> Option<&'static KnownServer> {
    SERVERS
        .iter()
        .find(|s| s.markers.iter().any(|m| m.matches(body)))
}

impl KnownServer {
    /// What to look for when the probe saw `symptom`.
    pub fn advice_for(&self, symptom: Symptom) -> Option<&'static str> {
        self.advice
            .iter()
            .find(|(s, _)| *s == symptom)
            .map(|(_, a)| *a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::loads;

    #[test]
    fn each_server_is_recognised_by_its_own_marks_only() {
        let cases = [
            (
                r#"{"choices": [{"index": 0, "stop_reason": null}]}"#,
                Some("vllm"),
            ),
            (
                r#"{"choices": [{"index": 0, "matched_stop": 2}]}"#,
                Some("sglang"),
            ),
            (
                r#"{"system_fingerprint": "b6502-9b3c9f8e1"}"#,
                Some("llamacpp"),
            ),
            (r#"{"timings": {}}"#, Some("llamacpp")),
            (r#"{"system_fingerprint": "fp_ollama"}"#, Some("ollama")),
            (r#"{"system_fingerprint": "3.1.2-native"}"#, Some("tgi")),
            (r#"{"system_fingerprint": "fp_eb9dce56a8"}"#, None),
            (r#"{"system_fingerprint": "build-7"}"#, None),
        ];
        for (body, want) in cases {
            let v = loads(body).expect("json");
            assert_eq!(recognise(&v).map(|s| s.name), want, "{body}");
        }
    }

    #[test]
    fn every_server_says_what_to_look_for_for_every_symptom() {
        for s in SERVERS {
            for symptom in [
                Symptom::EmptyArguments,
                Symptom::MergedCalls,
                Symptom::LostCalls,
                Symptom::ChangedCalls,
                Symptom::BrokenStream,
            ] {
                assert!(s.advice_for(symptom).is_some(), "{} {symptom:?}", s.name);
            }
        }
        assert_eq!(named("sglang").map(|s| s.label), Some("SGLang"));
    }
}
