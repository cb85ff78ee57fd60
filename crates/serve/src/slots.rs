//! The server's search slots, shared fairly between pages. At most a number
//! of searches run at once (`--max-searches`); when a slot frees, it goes to
//! the waiting page whose search time is least, not to the one that asked
//! first. A review takes a slot for each position and gives it back between
//! positions, so a page that asks for a short analysis while others review
//! long games waits for one position's search at most, and two long reviews
//! take turns.
//!
//! A page's search time is not a plain sum: it fades (halved every
//! [`USAGE_HALF_LIFE`]), and every second a page waits counts as a second
//! less. Under a plain sum, a page that once played a long game against the
//! model ranked behind every page that had searched less, and pages that
//! came and went (each new one at zero) kept it waiting past a minute while
//! all the slots stayed busy (seen in `sumito bench serve --soak`). Now a
//! page's wait is bounded by its recent search time: it outranks a newcomer
//! once it has waited as long as it recently searched.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// The slots of one server.
#[derive(Debug)]
pub struct SearchSlots {
    state: Arc<Mutex<SlotsState>>,
}

#[derive(Debug)]
struct SlotsState {
    free: usize,
    /// The pages waiting, in the order they asked (ties go to the first).
    waiting: Vec<Waiter>,
    /// The search time each page used, as it fades.
    used: HashMap<u64, Usage>,
    next_page: u64,
}

#[derive(Debug)]
struct Waiter {
    page: u64,
    since: Instant,
    grant: oneshot::Sender<SlotPermit>,
}

/// How long it takes a page's counted search time to halve.
pub const USAGE_HALF_LIFE: Duration = Duration::from_secs(20);

/// A page's search time, fading from `at` on.
#[derive(Debug, Clone, Copy)]
struct Usage {
    seconds: f64,
    at: Instant,
}

impl Usage {
    fn new(now: Instant) -> Usage {
        Usage {
            seconds: 0.0,
            at: now,
        }
    }

    /// The seconds still counted at `now`.
    fn at(&self, now: Instant) -> f64 {
        let faded = now.saturating_duration_since(self.at).as_secs_f64();
        self.seconds * 0.5f64.powf(faded / USAGE_HALF_LIFE.as_secs_f64())
    }

    fn add(&mut self, searched: Duration, now: Instant) {
        self.seconds = self.at(now) + searched.as_secs_f64();
        self.at = now;
    }
}

/// A page's place in the queue: its searches' time is counted under it, and
/// forgotten when it is dropped (the page closed).
#[derive(Debug)]
pub struct SlotUser {
    page: u64,
    state: Arc<Mutex<SlotsState>>,
}

/// One slot, held while a search runs; given back when dropped.
#[derive(Debug)]
pub struct SlotPermit {
    page: u64,
    granted: Instant,
    /// `None` once defused (a grant nobody took).
    state: Option<Arc<Mutex<SlotsState>>>,
}

impl SearchSlots {
    pub fn new(slots: usize) -> SearchSlots {
        SearchSlots {
            state: Arc::new(Mutex::new(SlotsState {
                free: slots.max(1),
                waiting: Vec::new(),
                used: HashMap::new(),
                next_page: 0,
            })),
        }
    }

    /// A new page's place.
    pub fn user(&self) -> SlotUser {
        let mut state = lock(&self.state);
        let page = state.next_page;
        state.next_page += 1;
        state.used.insert(page, Usage::new(Instant::now()));
        SlotUser {
            page,
            state: self.state.clone(),
        }
    }
}

fn lock(state: &Mutex<SlotsState>) -> std::sync::MutexGuard<'_, SlotsState> {
    // A panic while holding the lock leaves consistent counts (each change
    // is one statement), so a poisoned lock is used as it is.
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl SlotsState {
    /// A waiting page's rank (the least goes first): its faded search time
    /// less the time it has waited.
    fn rank(&self, waiter: &Waiter, now: Instant) -> f64 {
        let used = self.used.get(&waiter.page).map_or(0.0, |used| used.at(now));
        used - now.saturating_duration_since(waiter.since).as_secs_f64()
    }

    /// Gives free slots to the waiting pages, the least ranked first (ties
    /// to the first that asked). A grant whose page stopped waiting goes to
    /// the next.
    fn dispatch(&mut self, shared: &Arc<Mutex<SlotsState>>) {
        let now = Instant::now();
        while self.free > 0 && !self.waiting.is_empty() {
            let next = (0..self.waiting.len())
                .min_by(|&a, &b| {
                    let (a_rank, b_rank) = (
                        self.rank(&self.waiting[a], now),
                        self.rank(&self.waiting[b], now),
                    );
                    a_rank.total_cmp(&b_rank).then(a.cmp(&b))
                })
                .expect("a waiter");
            let waiter = self.waiting.remove(next);
            let permit = SlotPermit {
                page: waiter.page,
                granted: Instant::now(),
                state: Some(shared.clone()),
            };
            self.free -= 1;
            if let Err(mut unwanted) = waiter.grant.send(permit) {
                // Defused: dropping it must not take this lock again.
                unwanted.state = None;
                self.free += 1;
            }
        }
    }
}

impl SlotUser {
    /// Waits for a slot. Dropping the future gives up the place in the
    /// queue (a slot granted meanwhile goes back).
    pub async fn acquire(&self) -> SlotPermit {
        let receiver = {
            let mut state = lock(&self.state);
            let (grant, receiver) = oneshot::channel();
            state.waiting.push(Waiter {
                page: self.page,
                since: Instant::now(),
                grant,
            });
            state.dispatch(&self.state);
            receiver
        };
        match receiver.await {
            Ok(permit) => permit,
            // The sender is dropped only with a grant sent or the queue
            // gone, which outlives every user.
            Err(_) => unreachable!("a waiter's grant is sent before it is dropped"),
        }
    }

    /// The search time this page used, as it counts now (faded).
    pub fn used(&self) -> Duration {
        let used = lock(&self.state)
            .used
            .get(&self.page)
            .map_or(0.0, |used| used.at(Instant::now()));
        Duration::from_secs_f64(used)
    }
}

impl Drop for SlotUser {
    fn drop(&mut self) {
        lock(&self.state).used.remove(&self.page);
    }
}

impl Drop for SlotPermit {
    fn drop(&mut self) {
        let Some(shared) = self.state.take() else {
            return;
        };
        let mut state = lock(&shared);
        let now = Instant::now();
        if let Some(used) = state.used.get_mut(&self.page) {
            used.add(now.saturating_duration_since(self.granted), now);
        }
        state.free += 1;
        state.dispatch(&shared);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_freed_slot_goes_to_the_page_that_searched_least_not_the_first_to_ask() {
        let slots = SearchSlots::new(1);
        let (reviewer, fresh) = (Arc::new(slots.user()), slots.user());
        // The reviewer searched for a while.
        let permit = reviewer.acquire().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(permit);
        assert!(reviewer.used() >= Duration::from_millis(95));
        // It holds the slot again; then it asks first for the next one, the
        // fresh page after it.
        let holding = reviewer.acquire().await;
        let reviewer_waits = tokio::spawn({
            let reviewer = reviewer.clone();
            async move { reviewer.acquire().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        let fresh_waits = fresh.acquire();
        tokio::pin!(fresh_waits);
        assert!(
            tokio::time::timeout(Duration::from_millis(20), &mut fresh_waits)
                .await
                .is_err()
        );
        drop(holding);
        // The fresh page, which has used nothing, goes first.
        let fresh_permit = tokio::time::timeout(Duration::from_secs(1), &mut fresh_waits)
            .await
            .expect("the fresh page gets the slot");
        assert!(!reviewer_waits.is_finished());
        drop(fresh_permit);
        let permit = tokio::time::timeout(Duration::from_secs(1), reviewer_waits)
            .await
            .expect("then the reviewer")
            .unwrap();
        drop(permit);
    }

    #[tokio::test]
    async fn a_page_that_searched_long_is_not_kept_waiting_by_pages_that_come_and_go() {
        let slots = Arc::new(SearchSlots::new(1));
        let heavy = slots.user();
        let permit = heavy.acquire().await;
        tokio::time::sleep(Duration::from_millis(150)).await;
        drop(permit);
        // Pages that come and go (each new, having searched nothing) keep
        // the slot busy with short searches, one always waiting.
        let churn = |slots: Arc<SearchSlots>| async move {
            loop {
                let page = slots.user();
                let permit = page.acquire().await;
                tokio::time::sleep(Duration::from_millis(10)).await;
                drop(permit);
            }
        };
        let churning = [
            tokio::spawn(churn(slots.clone())),
            tokio::spawn(churn(slots.clone())),
        ];
        tokio::time::sleep(Duration::from_millis(30)).await;
        // The page that searched 150 ms outranks them once it has waited
        // about as long, whatever they do.
        let got = tokio::time::timeout(Duration::from_secs(2), heavy.acquire()).await;
        for task in churning {
            task.abort();
        }
        assert!(got.is_ok(), "the page that searched long never got a slot");
    }

    #[test]
    fn search_time_fades_by_half_every_half_life() {
        let start = Instant::now();
        let mut used = Usage::new(start);
        used.add(Duration::from_secs(8), start);
        assert!((used.at(start) - 8.0).abs() < 1e-9);
        assert!((used.at(start + USAGE_HALF_LIFE) - 4.0).abs() < 1e-9);
        assert!((used.at(start + 2 * USAGE_HALF_LIFE) - 2.0).abs() < 1e-9);
        used.add(Duration::from_secs(1), start + USAGE_HALF_LIFE);
        assert!((used.at(start + USAGE_HALF_LIFE) - 5.0).abs() < 1e-9);
    }

    #[tokio::test]
    async fn a_page_that_stops_waiting_leaves_no_slot_taken() {
        let slots = SearchSlots::new(1);
        let (first, second) = (slots.user(), slots.user());
        let held = first.acquire().await;
        // The second page gives up waiting (it closed).
        assert!(
            tokio::time::timeout(Duration::from_millis(20), second.acquire())
                .await
                .is_err()
        );
        drop(held);
        // The slot is free again for anyone.
        let again = tokio::time::timeout(Duration::from_secs(1), first.acquire()).await;
        assert!(again.is_ok());
    }
}
