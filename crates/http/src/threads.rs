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
    runtime_giving_way(workers, 0)
}

/// [`runtime`] whose threads give way to the HTTP workers' when the cores are busy: each
/// starts `nice` steps below normal priority (0 leaves it normal, 19 is the lowest). The
/// HTTP workers answer requests on runtimes of their own (server.rs), started from the
/// thread that builds this runtime and so at its priority, while this one runs what the
/// process does besides: background workers, event handlers, and the stores' writers
/// (`coffer dev` starts them here: `Store::with_writers_on`). Under a write load on a busy
/// machine, reads then keep most of their latency and writes wait instead
/// (docs/decisions/reads-before-writes.md). Only lowering priority needs no privilege, so
/// a thread never asks for more than it was started with. Linux only, which keeps a nice
/// value per thread: elsewhere the call would lower the whole process.
pub fn runtime_giving_way(workers: usize, nice: u8) -> io::Result<tokio::runtime::Runtime> {
    // A nice value the building thread's plus `nice`, the same for every thread: one
    // started by a thread of this runtime has its nice value already, and must not be
    // lowered again.
    let target = (nice > 0)
        .then(|| rustix::process::getpriority_process(None).ok())
        .flatten()
        .map(|normal| (normal + i32::from(nice)).min(19));
    tokio::runtime::Builder::new_multi_thread()
        .thread_name("coffer-runtime")
        .worker_threads(workers.max(1))
        .max_blocking_threads(MAX_BLOCKING)
        .on_thread_start(move || give_way(target))
        .enable_all()
        .build()
}

/// Sets the calling thread's nice value to `target` (Linux keeps one per thread).
fn give_way(target: Option<i32>) {
    let Some(target) = target.filter(|_| cfg!(target_os = "linux")) else {
        return;
    };
    let lowered = rustix::process::getpriority_process(None).and_then(|now| {
        if now >= target {
            return Ok(());
        }
        rustix::process::setpriority_process(None, target)
    });
    if let Err(e) = lowered {
        tracing::warn!(error = %e, "a runtime thread keeps its priority");
    }
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use rustix::process::getpriority_process;

    #[test]
    fn a_runtime_giving_way_runs_its_tasks_and_blocking_work_below_normal_priority() {
        let normal = getpriority_process(None).unwrap();
        let runtime = super::runtime_giving_way(1, 5).unwrap();
        let (task, blocking) = runtime.block_on(async {
            let task = tokio::spawn(async { getpriority_process(None).unwrap() });
            // Started from a worker thread, which is below normal already: not lowered twice.
            let blocking = tokio::spawn(async {
                tokio::task::spawn_blocking(|| getpriority_process(None).unwrap()).await
            });
            (task.await.unwrap(), blocking.await.unwrap().unwrap())
        });
        assert_eq!(task, (normal + 5).min(19), "a worker thread");
        assert_eq!(blocking, (normal + 5).min(19), "a blocking thread");
        // The thread that started the runtime, where `coffer dev` starts its HTTP workers,
        // keeps its priority, and so do the threads it starts.
        assert_eq!(getpriority_process(None).unwrap(), normal);
        let plain = super::runtime(1).unwrap();
        let kept = plain.block_on(async {
            tokio::spawn(async { getpriority_process(None).unwrap() })
                .await
                .unwrap()
        });
        assert_eq!(kept, normal);
    }
}
