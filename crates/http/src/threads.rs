//! How many threads a Coffer process runs, bounded whatever the machine: one worker per
//! core up to [`MAX_WORKERS`] (for the HTTP server and for the async runtime alike), and
//! at most [`MAX_BLOCKING`] threads for database work. Left to their
//! defaults, each grows with the cores: on a 16-core machine `coffer dev` ran 180 threads
//! and held 514 MB after a minute of load (docs/benchmarks.md, issue 34).

use std::io;

/// Workers of each kind on a machine with more cores than this: the database (one
/// writer per SQLite file, a PostgreSQL server with cores of its own) stops the work
/// growing with threads well before.
pub const MAX_WORKERS: usize = 8;

/// Threads the runtime may start for blocking work (database calls, file reads), and the
/// HTTP workers' runtimes together (server.rs): about as many as a service's pools hold
/// connections, so work past it would mostly wait for a connection anyway; it waits in
/// the runtime's queue instead, in order.
pub const MAX_BLOCKING: usize = 128;

/// Workers when none are configured: one per core, at most [`MAX_WORKERS`].
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .min(MAX_WORKERS)
}

/// `configured`, or [`default_workers`] for 0.
pub fn workers(configured: usize) -> usize {
    if configured == 0 {
        default_workers()
    } else {
        configured
    }
}

/// The process's async runtime with `workers` worker threads and its blocking threads
/// bounded.
pub fn runtime(workers: usize) -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .max_blocking_threads(MAX_BLOCKING)
        .enable_all()
        .build()
}
