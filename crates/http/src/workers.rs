//! A service's background loops as one list: each worker named and described where it is
//! listed, started in the list's order after the event wiring's relay and consumers, and
//! logged as it starts. Every service lists its workers so (`workers/mod.rs`).

use tokio::task::JoinHandle;

/// One background loop of a service whose state is `S`.
pub struct Worker<S: ?Sized> {
    /// Short and stable, as logs and docs name it.
    pub name: &'static str,
    /// What it does, in a line.
    pub description: &'static str,
    /// Starts it on the current runtime; `None` where the settings give it nothing to do.
    pub start: fn(&S) -> Option<JoinHandle<()>>,
}

/// `first` (the event wiring's tasks), then every worker of `workers` that starts.
pub fn start_all<S: ?Sized>(
    service: &'static str,
    first: Vec<JoinHandle<()>>,
    workers: &[Worker<S>],
    state: &S,
) -> Vec<JoinHandle<()>> {
    let started = workers.iter().filter_map(|w| {
        let handle = (w.start)(state);
        tracing::debug!(
            service,
            worker = w.name,
            description = w.description,
            started = handle.is_some(),
            "worker"
        );
        handle
    });
    first.into_iter().chain(started).collect()
}
