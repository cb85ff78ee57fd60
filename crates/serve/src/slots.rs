//! The server's search slots, shared fairly between pages. At most a number
//! of searches run at once (`--max-searches`); when a slot frees, it goes to
//! the waiting page that has searched least so far (its searches' time
//! added up), not to the one that asked first. A review takes a slot for
//! each position and gives it back between positions, so a page that asks
//! for a short analysis while others review long games waits for one
//! position's search at most, and two long reviews take turns.

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
    /// The search time each page used so far.
    used: HashMap<u64, Duration>,
    next_page: u64,
}

#[derive(Debug)]
struct Waiter {
    page: u64,
    grant: oneshot::Sender<SlotPermit>,
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
        state.used.insert(page, Duration::ZERO);
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
    /// Gives free slots to the waiting pages, the one that searched least
    /// first. A grant whose page stopped waiting goes to the next.
    fn dispatch(&mut self, shared: &Arc<Mutex<SlotsState>>) {
        while self.free > 0 && !self.waiting.is_empty() {
            let next = (0..self.waiting.len())
                .min_by_key(|&index| {
                    let page = self.waiting[index].page;
                    (self.used.get(&page).copied().unwrap_or_default(), index)
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

    /// The search time this page used so far.
    pub fn used(&self) -> Duration {
        lock(&self.state)
            .used
            .get(&self.page)
            .copied()
            .unwrap_or_default()
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
        if let Some(used) = state.used.get_mut(&self.page) {
            *used += self.granted.elapsed();
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
        tokio::time::sleep(Duration::from_millis(30)).await;
        drop(permit);
        assert!(reviewer.used() >= Duration::from_millis(30));
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
