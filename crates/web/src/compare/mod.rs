//! The Compare view: runs of one dataset side by side, computed by the lab module.

pub mod view;
