//! Native IO for the runner: a blocking HTTP transport (`ureq`), a file checkpoint store,
//! and a thread pool that runs independent tasks with bounded concurrency.

pub mod live;
pub mod pool;
pub mod run;
pub mod store;
pub mod transport;

pub use live::{LiveResponder, StepCounts};
pub use pool::run_pool;
pub use store::FileStore;
pub use transport::{HttpResponse, Transport, TransportError, UreqTransport};
