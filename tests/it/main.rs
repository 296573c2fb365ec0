//! wildtool's integration tests, in one test binary (one link step): the CLI end to end,
//! the core's public API against the official fixtures, the native runner against local
//! mock servers, and the architecture's invariants.

mod graph_support;
mod mock_server;

mod chart_svg;
mod checker_api;
mod checker_golden;
mod cli_compare;
mod cli_gate;
mod cli_report;
mod cli_score;
mod cli_score_inputs;
mod compare_leaderboard;
mod compare_stats;
mod counting_rule;
mod dataset_fuzz;
mod dataset_load;
mod formats_files;
mod formats_fuzz;
mod gate_stats;
mod generate;
mod generate_cli;
mod graph_examples;
mod graph_fixtures;
mod graph_parity;
mod invariants;
mod json_parity;
mod json_props;
mod order_props;
mod provider_gemini_run;
mod provider_models;
mod provider_preflight;
mod provider_shapes;
mod runner_agents;
mod runner_cli;
mod runner_live;
mod runner_mock_serve;
mod runner_overhead;
mod runner_parity;
mod runner_transport;
mod score_fuzz;
mod score_golden;
mod share_codec;
mod share_pair;
mod suite_data;
mod sweep_cli;
mod sweep_stats;
