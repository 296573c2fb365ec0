//! The `wildtool` binary.

fn main() -> std::process::ExitCode {
    wildtool::cli::main()
}
