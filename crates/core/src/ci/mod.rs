//! What CI systems read: JUnit XML of runs and gate decisions ([`junit`]) and a Markdown
//! summary for a pull-request comment ([`summary`]). Pure text builders over the core's
//! documents; the adapters write the files.

pub mod junit;
pub mod summary;
