//! The `wildtool` command-line front door. All logic lives in the library; this binary
//! parses arguments and does the file and terminal IO.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
