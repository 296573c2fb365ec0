//! The `wildtool` command line: argument parsing, files, terminal and the native HTTP
//! transport around [`wildtool_core`], which does all the computing.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cli;
pub mod native;
