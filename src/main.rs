//! The `wildtool` command-line front door.

fn main() {
    println!("wildtool {}", env!("CARGO_PKG_VERSION"));
}
