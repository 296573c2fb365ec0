//! wildtool's integration tests, in one test binary (one link step): the CLI end to end,
//! the native runner against local mock servers, and the architecture's invariants. The
//! core's own suite is `crates/core/tests/it` (`cargo test -p wildtool-core`).

#[path = "../support.rs"]
mod support;

mod mock_server;

mod outputs_crash;
mod outputs_safety;

mod audit_cli;
mod cli_compare;
mod cli_gate;
mod cli_report;
mod cli_score;
mod cli_score_inputs;
mod docs;
mod env_compare;
mod formats_fuzz;
mod generate_cli;
mod generate_ledger;
mod import_graph;
mod invariants;
mod ledger_behaviours;
mod ledger_cli;
mod ledger_oracle;
mod own_history;
mod probe_stream_cli;
mod provenance_cli;
mod provider_gemini_run;
mod runner_agents;
mod runner_cli;
mod runner_live;
mod runner_mock_serve;
mod runner_overhead;
mod runner_stream;
mod runner_transport;
mod sweep_cli;
mod verify_page;
