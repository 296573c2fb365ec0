//! wildtool's page. The page is a view over the core: Rust owns its state
//! ([`state::AppState`]), turns user actions and IO results ([`msg::Msg`]) into effects
//! ([`msg::Effect`]) and renders views ([`views`]) as element trees ([`ui::Node`]) that a
//! small JS runtime patches into the DOM. Runs go through the run engine ([`run`]),
//! uploads through the core's scorer ([`upload`]), and every number on the page comes
//! from the core's report ([`dashboard`]).
//!
//! Everything except [`app`] is plain Rust and compiles and is tested on every target;
//! [`app`] is the wasm-bindgen glue (the `App` the runtime talks to, the fetch transport,
//! timers, the key-value store, files).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod budget;
pub mod compare;
pub mod cx;
pub mod dashboard;
pub mod data;
pub mod env;
pub mod field;
pub mod generate;
pub mod history;
pub mod lab;
pub mod msg;
pub mod placement;
pub mod route;
pub mod run;
pub mod scoring;
pub mod setup;
pub mod state;
pub mod store;
pub mod traces;
pub mod upload;
pub mod verify;
pub mod views;
pub mod vocab;
pub mod widgets;

/// The element tree views return (the `wildtool-ui` crate, shared with the lab module).
pub use wildtool_ui as ui;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod transport;
