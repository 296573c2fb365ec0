//! SVG chart rendering (pure Rust, shared by the page and `wildtool report`).
