//! The key-value store's keys: a run's metadata, outcomes, result text and checkpoint
//! lines, and the comparison set. The history and every feature that reads a stored run
//! name them from here.

/// Prefix of metadata keys.
pub const RUN_PREFIX: &str = "run/";
/// Key of the comparison set.
pub const COMPARE_KEY: &str = "compare";

/// Metadata key of `id`.
pub fn meta_key(id: &str) -> String {
    format!("run/{id}")
}
/// Outcomes key of `id`.
pub fn outcomes_key(id: &str) -> String {
    format!("out/{id}")
}
/// Key of a run's manifest (`manifest.json`), for runs made in the page.
pub fn manifest_key(id: &str) -> String {
    format!("man/{id}")
}
/// Result-text key of `id`.
pub fn result_key(id: &str) -> String {
    format!("res/{id}")
}
/// Prefix of `id`'s checkpoint lines.
pub fn checkpoint_prefix(id: &str) -> String {
    format!("ck/{id}/")
}
/// Key of `id`'s checkpoint line number `seq` (0 is the header).
pub fn checkpoint_key(id: &str, seq: usize) -> String {
    format!("ck/{id}/{seq:08}")
}
