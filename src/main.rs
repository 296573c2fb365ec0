//! The `wildtool` binary.

/// mimalloc: scoring parses, rewrites and frees many small JSON values, and the system
/// allocator spent about a third of a scoring run's instructions on them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    wildtool::cli::main()
}
