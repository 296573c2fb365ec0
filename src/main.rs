//! The `wildtool` binary.

/// mimalloc: scoring parses, rewrites and frees many small JSON values, and the system
/// allocator spent about a third of a scoring run's instructions on them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // No transparent huge pages for this process: where the system gives them to every
    // mapping, each 2 MiB fault of the allocator's arenas is zeroed (and, when memory is
    // fragmented, compacted) in the kernel, which cost a scoring run of 60 ms up to
    // 90 ms of system time more; 4 KiB faults cost a few ms. Best effort.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    wildtool::cli::main()
}
