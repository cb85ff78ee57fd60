//! Riding out an outage of an object store: an operation that finds the
//! store unreachable ([`StoreError::Unreachable`]) waits and tries again,
//! with backoff, for up to a limit, so that a restarted or briefly cut-off
//! store does not stop every process of a run. Said once when it starts and
//! once when it ends, on standard error (the log of a role).
//!
//! Only a store that answered once in this process is waited for: one that
//! never did (a wrong endpoint, a server not started) fails at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::StoreError;

/// How long an outage is ridden out: a restart or failover of the store, a
/// network cut of a few minutes.
pub(crate) const OUTAGE_LIMIT: Duration = Duration::from_secs(600);

/// The first wait after an unreachable answer (the client has already
/// retried for about a second), doubled up to [`MAX_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(500);
const MAX_WAIT: Duration = Duration::from_secs(8);

/// One store's outage state, shared by every thread and clone using it.
#[derive(Debug)]
pub(crate) struct Outage {
    /// How messages name the store.
    location: String,
    limit: Duration,
    /// The store answered at least once.
    reached: AtomicBool,
    /// When the current outage was first seen, if one is under way.
    since: Mutex<Option<Instant>>,
}

impl Outage {
    /// The outage state of the store at `location`, one per process, so
    /// that every handle on the store says an outage once.
    pub(crate) fn of(location: &str) -> Arc<Outage> {
        static OUTAGES: OnceLock<Mutex<HashMap<String, Arc<Outage>>>> = OnceLock::new();
        OUTAGES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(location.to_owned())
            .or_insert_with(|| Arc::new(Outage::new(location.to_owned())))
            .clone()
    }

    pub(crate) fn new(location: String) -> Outage {
        Outage {
            location,
            limit: OUTAGE_LIMIT,
            reached: AtomicBool::new(false),
            since: Mutex::new(None),
        }
    }

    #[cfg(test)]
    fn with_limit(mut self, limit: Duration) -> Outage {
        self.limit = limit;
        self
    }

    /// Runs `op` until it does not find the store unreachable, or the
    /// outage has lasted the limit (then its error is returned).
    pub(crate) fn ride_out<T>(
        &self,
        mut op: impl FnMut() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut wait = FIRST_WAIT;
        loop {
            match op() {
                Err(err @ StoreError::Unreachable { .. }) => {
                    if !self.waits_out(&err) {
                        return Err(err);
                    }
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(MAX_WAIT);
                }
                other => {
                    self.answered();
                    return other;
                }
            }
        }
    }

    /// [`Outage::ride_out`] for an operation with a result per item: tried
    /// again whole while any item finds the store unreachable.
    pub(crate) fn ride_out_many<T>(
        &self,
        mut op: impl FnMut() -> Vec<Result<T, StoreError>>,
    ) -> Vec<Result<T, StoreError>> {
        let mut wait = FIRST_WAIT;
        loop {
            let results = op();
            let unreachable = results.iter().find_map(|result| match result {
                Err(err @ StoreError::Unreachable { .. }) => Some(err),
                _ => None,
            });
            match unreachable {
                Some(err) if self.waits_out(err) => {
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(MAX_WAIT);
                }
                Some(_) => return results,
                None => {
                    if !results.is_empty() {
                        self.answered();
                    }
                    return results;
                }
            }
        }
    }

    /// Whether to wait and try again after `err`: the store answered before
    /// and the outage is younger than the limit. Says that it waits when
    /// the outage begins.
    fn waits_out(&self, err: &StoreError) -> bool {
        if !self.reached.load(Ordering::Relaxed) {
            return false;
        }
        let mut since = self.since.lock().unwrap_or_else(|p| p.into_inner());
        let started = *since.get_or_insert_with(|| {
            eprintln!(
                "storage {} is unreachable ({err}); waiting for it and trying again for up to {} s",
                self.location,
                self.limit.as_secs()
            );
            Instant::now()
        });
        started.elapsed() < self.limit
    }

    /// The store answered: ends an outage under way, saying so.
    fn answered(&self) {
        self.reached.store(true, Ordering::Relaxed);
        let mut since = self.since.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(started) = since.take() {
            eprintln!(
                "storage {} is reachable again after {:.0} s",
                self.location,
                started.elapsed().as_secs_f64()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn unreachable() -> StoreError {
        StoreError::Unreachable {
            location: "s3://b/run".into(),
            key: "k".into(),
            message: "error sending request".into(),
        }
    }

    #[test]
    fn an_outage_is_waited_out_once_the_store_has_answered() {
        let outage = Outage::new("s3://b/run".into());
        // Never reached: the error comes back at once.
        let calls = Cell::new(0);
        let never = outage.ride_out(|| -> Result<(), StoreError> {
            calls.set(calls.get() + 1);
            Err(unreachable())
        });
        assert!(matches!(never, Err(StoreError::Unreachable { .. })));
        assert_eq!(calls.get(), 1);
        // Reached once, then down for two attempts: the third answers.
        assert_eq!(outage.ride_out(|| Ok::<_, StoreError>(1)).unwrap(), 1);
        calls.set(0);
        let back = outage.ride_out(|| {
            calls.set(calls.get() + 1);
            if calls.get() < 3 {
                Err(unreachable())
            } else {
                Ok(7)
            }
        });
        assert_eq!(back.unwrap(), 7);
        assert_eq!(calls.get(), 3);
        assert!(outage.since.lock().unwrap().is_none());
        // Other errors are not waited for.
        calls.set(0);
        let other = outage.ride_out(|| -> Result<(), StoreError> {
            calls.set(calls.get() + 1);
            Err(StoreError::Remote {
                location: "s3://b/run".into(),
                key: "k".into(),
                message: "403 Forbidden".into(),
            })
        });
        assert!(matches!(other, Err(StoreError::Remote { .. })));
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn an_outage_longer_than_the_limit_gives_the_error() {
        let outage = Outage::new("s3://b/run".into()).with_limit(Duration::from_millis(700));
        outage.ride_out(|| Ok::<_, StoreError>(())).unwrap();
        let started = Instant::now();
        let result = outage.ride_out(|| -> Result<(), StoreError> { Err(unreachable()) });
        assert!(matches!(result, Err(StoreError::Unreachable { .. })));
        assert!(started.elapsed() >= Duration::from_millis(700));
        assert!(started.elapsed() < Duration::from_secs(5));
        // Many items: tried again whole while one finds it unreachable.
        let outage = Outage::new("s3://b/run".into());
        outage.ride_out(|| Ok::<_, StoreError>(())).unwrap();
        let calls = Cell::new(0);
        let results = outage.ride_out_many(|| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                vec![Ok(1), Err(unreachable())]
            } else {
                vec![Ok(1), Ok(2)]
            }
        });
        assert_eq!(calls.get(), 2);
        assert!(results.iter().all(Result::is_ok));
    }
}
