//! The hard stop of a timed query: at its `time_ms` a clock sets the stop
//! flag its search checks at every batch of evaluations (the flag a
//! `terminate` sets), so that the search ends at its next batch however
//! much it slowed after its time was planned.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// A clock that sets a search's stop flag once its limit has passed, unless
/// it is dropped first (the search ended in time).
#[derive(Debug)]
pub struct TimeLimit {
    /// Dropped with the clock, which wakes its thread to end without
    /// setting anything.
    _cancel: mpsc::Sender<()>,
    reached: Arc<AtomicBool>,
}

impl TimeLimit {
    /// Sets `stop` `limit` from now, on a thread of its own; an error when
    /// the thread cannot start.
    pub fn start(limit: Duration, stop: Arc<AtomicBool>) -> std::io::Result<TimeLimit> {
        let (cancel, cancelled) = mpsc::channel::<()>();
        let reached = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&reached);
        std::thread::Builder::new()
            .name("time-limit".into())
            .spawn(move || {
                if cancelled.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
                    // Marked before the flag is set, so that whoever sees the
                    // flag set by it sees why.
                    seen.store(true, Ordering::SeqCst);
                    stop.store(true, Ordering::SeqCst);
                }
            })?;
        Ok(TimeLimit {
            _cancel: cancel,
            reached,
        })
    }

    /// Whether the limit passed and the stop flag was set by it.
    pub fn reached(&self) -> bool {
        self.reached.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_set_at_the_limit_and_never_after_the_clock_is_dropped() {
        let stop = Arc::new(AtomicBool::new(false));
        let limit = TimeLimit::start(Duration::from_millis(20), Arc::clone(&stop)).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(limit.reached());
        assert!(stop.load(Ordering::Relaxed));
        let stop = Arc::new(AtomicBool::new(false));
        drop(TimeLimit::start(Duration::from_millis(20), Arc::clone(&stop)).unwrap());
        std::thread::sleep(Duration::from_millis(200));
        assert!(!stop.load(Ordering::Relaxed));
    }
}
