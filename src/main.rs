//! The `wildtool` binary.

/// mimalloc: scoring parses, rewrites and frees many small JSON values, and the system
/// allocator spent about a third of a scoring run's instructions on them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's `mi_option_set` (linked in with the allocator).
    fn mi_option_set(option: std::os::raw::c_int, value: std::os::raw::c_long);
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e`.
const MI_OPTION_PURGE_DELAY: std::os::raw::c_int = 15;

fn main() -> std::process::ExitCode {
    // Never hand freed memory back to the kernel while the process runs (-1: no purge).
    // Every command is a short process or keeps about its peak anyway; the purges cost
    // `score` a dozen `madvise` calls and, at exit, the unmapping of pages that the exit
    // frees once more (about 3% of a 12 MB scoring run's CPU).
    // SAFETY: sets one integer option of the allocator; any value is valid for it.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    wildtool::cli::main()
}
