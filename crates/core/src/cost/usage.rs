//! Token usage as recorded: per request (step) of a task, the official
//! `input_token_count` and `output_token_count` entries of its result `T`, and the prompt
//! tokens the server reported as read from its cache, which wildtool keeps outside the
//! official files, in the checkpoint record's `usage` extension
//! (`{"cached_input_token_count": [int | null …]}`, one entry per step).

use std::collections::BTreeMap;

use crate::json::{loads, Map, Value};

/// The checkpoint record key of the usage extension.
pub const USAGE_KEY: &str = "usage";
/// Its per-step list of cached prompt tokens.
pub const CACHED_KEY: &str = "cached_input_token_count";

/// One request's tokens (`None` where the server reported none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepTokens {
    /// Prompt tokens (cached ones included).
    pub input: Option<u64>,
    /// Prompt tokens read from cache.
    pub cached_input: Option<u64>,
    /// Completion tokens.
    pub output: Option<u64>,
}

fn count(v: &Value) -> Option<u64> {
    v.as_i64().map(|x| x.max(0) as u64)
}

/// The steps of a task result (`T` or a scored `T'`), with `cached` entries (the usage
/// extension's list) when known.
pub fn task_steps(task: &Value, cached: Option<&[Value]>) -> Vec<StepTokens> {
    let list = |k: &str| -> &[Value] {
        task.get(k)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    };
    let (ins, outs) = (list("input_token_count"), list("output_token_count"));
    let n = ins.len().max(outs.len());
    (0..n)
        .map(|i| StepTokens {
            input: ins.get(i).and_then(count),
            output: outs.get(i).and_then(count),
            cached_input: cached.and_then(|c| c.get(i)).and_then(count),
        })
        .collect()
}

/// The cached counts of a checkpoint record's extension (`None` without one).
pub fn record_cached(record: &Value) -> Option<Vec<Value>> {
    record.get(USAGE_KEY)?.get(CACHED_KEY)?.as_array().cloned()
}

/// The usage extension of a finished task, as JSON text (`None` when no step reported a
/// cached count, so records stay as before).
pub fn extension_json(cached: &[Value]) -> Option<String> {
    if cached.iter().all(Value::is_null) {
        return None;
    }
    let mut inner = Map::new();
    inner.insert(CACHED_KEY, Value::Array(cached.to_vec()));
    Some(crate::json::dumps(
        &Value::Object(inner),
        crate::json::Escape::Utf8,
    ))
}

/// Cached counts by `(trial, line, task)` from checkpoint record lines.
pub type CachedCounts = BTreeMap<(u32, usize, usize), Vec<Value>>;

/// Reads the usage extension of every record line (later records of a task replace
/// earlier ones, as on resume).
pub fn cached_from_records(records: &[String]) -> CachedCounts {
    let mut out = CachedCounts::new();
    for line in records {
        let Ok(v) = loads(line) else { continue };
        let (Some(l), Some(t)) = (
            v.get("line").and_then(Value::as_i64),
            v.get("task").and_then(Value::as_i64),
        ) else {
            continue;
        };
        let trial = v.get("trial").and_then(Value::as_i64).unwrap_or(1);
        let (Ok(l), Ok(t), Ok(trial)) =
            (usize::try_from(l), usize::try_from(t), u32::try_from(trial))
        else {
            continue;
        };
        match record_cached(&v) {
            Some(c) => {
                out.insert((trial, l, t), c);
            }
            None => {
                out.remove(&(trial, l, t));
            }
        }
    }
    out
}

/// Per task of a result or score line: `(session index, position, steps)`; `cached`
/// gives the cached counts by `(line, task)` of the line's trial.
pub fn line_usage(
    line: &str,
    cached: &dyn Fn(usize, usize) -> Option<Vec<Value>>,
) -> Vec<(usize, usize, Vec<StepTokens>)> {
    let Ok(v) = loads(line) else {
        return Vec::new();
    };
    let Some(session) = v
        .get("id")
        .and_then(Value::as_str)
        .and_then(|id| id.rsplit('_').next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return Vec::new();
    };
    let tasks = v
        .get("result")
        .or_else(|| v.get("results"))
        .and_then(Value::as_array);
    tasks
        .map(|ts| {
            ts.iter()
                .enumerate()
                .map(|(pos, t)| {
                    let c = cached(session, pos);
                    (session, pos, task_steps(t, c.as_deref()))
                })
                .collect()
        })
        .unwrap_or_default()
}
