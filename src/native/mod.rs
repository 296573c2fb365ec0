//! Native IO for the runner: a blocking HTTP transport (`ureq`), a file checkpoint store,
//! and the driver that runs the core's run engine with worker threads.

pub mod cassette;
pub mod driver;
pub mod store;
pub mod transport;

pub use cassette::CassetteTransport;
pub use driver::{Control, Controller, Driver};
pub use store::FileStore;
pub use transport::{Transport, UreqTransport};
