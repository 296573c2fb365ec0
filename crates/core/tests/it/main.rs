//! wildtool-core's integration tests, in one test binary (one link step): the core's
//! public API against the official fixtures, parity with the official scorer, property
//! tests of the parsers and codecs, the generator and the statistics. Native only: the
//! tests read the repository's fixtures.

#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../../tests/support.rs"]
mod support;

mod graph_support;

mod chart_svg;
mod checker_api;
mod checker_golden;
mod compare_leaderboard;
mod compare_stats;
mod counting_rule;
mod dataset_fuzz;
mod dataset_load;
mod formats_files;
mod gate_stats;
mod generate;
mod graph_examples;
mod graph_fixtures;
mod graph_parity;
mod json_parity;
mod json_props;
mod ledger_reader_diff;
mod ledger_suite;
mod order_props;
mod provider_models;
mod provider_preflight;
mod provider_shapes;
mod runner_parity;
mod score_fuzz;
mod score_golden;
mod share_codec;
mod share_pair;
mod stream_fixtures;
mod suite_data;
mod sweep_stats;
