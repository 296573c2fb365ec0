//! The probe's tool tasks: four small requests, each built to make a tool-calling model
//! answer with the call shape that servers are known to break when streaming.

use crate::json::{loads, Map, Value};

/// One probe task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeTask {
    /// A short name (`parallel`, `nested`, `long`, `repeated`).
    pub name: &'static str,
    /// What it checks, for people.
    pub checks: &'static str,
    /// The user turn.
    pub prompt: &'static str,
    /// The tools, in the dataset's (OpenAI) tool form.
    pub tools: &'static str,
}

/// The system turn of every probe request.
pub const SYSTEM: &str = "You are a function-calling assistant. When a request needs tools, answer only with tool calls, and make every call the request needs in this one reply.";

const LONG_NOTE: &str = "Release checklist for version 4.2 — follow every step in order.\n1. Freeze the main branch: announce it in #releases and wait for the last green build.\n2. Bump the version in Cargo.toml, package.json and the \"About\" dialog; commit as \"Release 4.2.0\".\n3. Run the full test command and the end-to-end suite; attach both logs to the release ticket.\n4. Build the signed artifacts for Linux (x86_64, aarch64), macOS (universal) and Windows (x64).\n5. Check every checksum against the build server's manifest; a mismatch stops the release.\n6. Write the notes: new features first, then fixes, then known issues; thank the contributors by name (Zoë, Jürgen, Ngozi, Hiroshi, María).\n7. Publish to the registry, then to the download page, then tag the commit v4.2.0.\n8. Watch the crash reports for 48 hours; if the rate passes 0.5 %, roll back and reopen the freeze.\n9. Unfreeze main and post \"4.2 is out 🎉\" with the link to the notes.";

/// The probe's tasks, in the order they are sent.
pub const TASKS: [ProbeTask; 4] = [
    ProbeTask {
        name: "parallel",
        checks: "parallel calls of two different functions in one reply",
        prompt: "Please do two things at once: book a table for 4 at Trattoria Roma tonight at 19:30, and send a text message to +44 20 7946 0958 saying 'Running ten minutes late'.",
        tools: r#"[{"type": "function", "function": {"name": "book_table", "description": "Book a restaurant table.", "parameters": {"type": "object", "properties": {"restaurant": {"type": "string"}, "party_size": {"type": "integer"}, "time": {"type": "string", "description": "HH:MM, 24-hour clock."}}, "required": ["restaurant", "party_size", "time"]}}}, {"type": "function", "function": {"name": "send_sms", "description": "Send a text message.", "parameters": {"type": "object", "properties": {"to": {"type": "string", "description": "Phone number."}, "text": {"type": "string"}}, "required": ["to", "text"]}}}]"#,
    },
    ProbeTask {
        name: "nested",
        checks: "nested arguments (objects and lists of objects)",
        prompt: "Create a calendar event titled 'Quarterly design review' on 2025-03-14 from 10:00 to 11:30 in room 4B of the North building, with attendees Ana Silva (ana@example.com) and Ben Okafor (ben@example.com), and a reminder 15 minutes before.",
        tools: r#"[{"type": "function", "function": {"name": "create_event", "description": "Create a calendar event.", "parameters": {"type": "object", "properties": {"title": {"type": "string"}, "date": {"type": "string", "description": "YYYY-MM-DD."}, "start": {"type": "string"}, "end": {"type": "string"}, "location": {"type": "object", "properties": {"building": {"type": "string"}, "room": {"type": "string"}}, "required": ["building", "room"]}, "attendees": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}, "required": ["name", "email"]}}, "reminders": {"type": "array", "items": {"type": "object", "properties": {"minutes_before": {"type": "integer"}}, "required": ["minutes_before"]}}}, "required": ["title", "date", "start", "end", "location", "attendees"]}}}]"#,
    },
    ProbeTask {
        name: "long",
        checks: "long arguments (about a kilobyte of text with quotes and non-ASCII characters)",
        prompt: "",
        tools: r#"[{"type": "function", "function": {"name": "save_note", "description": "Save a note.", "parameters": {"type": "object", "properties": {"title": {"type": "string"}, "body": {"type": "string", "description": "The note's text, exactly as given."}}, "required": ["title", "body"]}}}]"#,
    },
    ProbeTask {
        name: "repeated",
        checks: "several calls of one function in one reply",
        prompt: "What's the weather right now in Paris, Tokyo, Lima and Oslo? Look up each city.",
        tools: r#"[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for one city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}]"#,
    },
];

impl ProbeTask {
    /// The user turn (the long task's carries the note).
    pub fn user_text(&self) -> String {
        if self.name == "long" {
            format!("Save the following note exactly as written, with the title 'Release checklist':\n\n{LONG_NOTE}")
        } else {
            self.prompt.to_owned()
        }
    }

    /// The message list: the system turn and the user turn.
    pub fn messages(&self) -> Vec<Value> {
        let turn = |role: &str, text: String| {
            let mut m = Map::new();
            m.insert("role", Value::str(role));
            m.insert("content", Value::Str(text));
            Value::Object(m)
        };
        vec![
            turn("system", SYSTEM.to_owned()),
            turn("user", self.user_text()),
        ]
    }

    /// The tools as a value.
    pub fn tool_list(&self) -> Value {
        loads(self.tools).unwrap_or(Value::Array(Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_has_tools_and_a_turn() {
        for t in TASKS {
            assert!(
                t.tool_list().as_array().is_some_and(|l| !l.is_empty()),
                "{}",
                t.name
            );
            assert!(!t.user_text().is_empty());
        }
        assert!(TASKS[2].user_text().len() > 900, "the long task is long");
    }
}
