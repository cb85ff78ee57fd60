//! The process's stop request: set by the commands' signal handler (and
//! given to their `RunOptions::stop`), read by every role between steps and
//! by a start still waiting to take over a role. A file of its own, below
//! the run directory and the roles that both read it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The process's stop flag (one per process).
pub fn process_stop_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    Arc::clone(FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))))
}

/// Whether the process was asked to stop ([`process_stop_flag`]).
pub fn stop_requested() -> bool {
    process_stop_flag().load(Ordering::Relaxed)
}
