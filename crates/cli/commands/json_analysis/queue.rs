//! The positions waiting for a search, and those being searched: the
//! higher `priority` first, then in the order they came; stopped by
//! `terminate` whether waiting or under way.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use sumito_game::Board;

use super::query::Query;

/// One position of a query: its turn.
#[derive(Debug)]
pub struct Work<B: Board> {
    pub query: Arc<Query<B>>,
    pub turn: usize,
    /// Set to stop its search (`terminate`).
    pub stop: Arc<AtomicBool>,
    /// Its place among those of the same priority.
    order: u64,
}

impl<B: Board> PartialEq for Work<B> {
    fn eq(&self, other: &Self) -> bool {
        self.order == other.order
    }
}

impl<B: Board> Eq for Work<B> {}

impl<B: Board> PartialOrd for Work<B> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<B: Board> Ord for Work<B> {
    /// The heap's greatest first: the higher priority, then the earlier.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.query
            .priority
            .cmp(&other.query.priority)
            .then(other.order.cmp(&self.order))
    }
}

/// Which positions a `terminate` is about.
#[derive(Debug)]
pub struct Selection<'a> {
    /// The queries' id; `None`: every query.
    pub id: Option<&'a Value>,
    /// The turns; `None`: every turn.
    pub turns: Option<&'a [usize]>,
}

impl Selection<'_> {
    fn covers<B: Board>(&self, work: &Work<B>) -> bool {
        self.id.is_none_or(|id| *id == work.query.id)
            && self.turns.is_none_or(|turns| turns.contains(&work.turn))
    }
}

#[derive(Debug)]
struct State<B: Board> {
    waiting: BinaryHeap<Work<B>>,
    /// The stop flags of the positions under way, with their query and turn.
    running: Vec<(u64, Value, usize, Arc<AtomicBool>)>,
    next_order: u64,
    /// No more queries will come: the workers end once it is empty.
    closed: bool,
}

/// The queue of the analysis program's positions.
#[derive(Debug)]
pub struct WorkQueue<B: Board> {
    state: Mutex<State<B>>,
    ready: Condvar,
}

impl<B: Board> Default for WorkQueue<B> {
    fn default() -> Self {
        WorkQueue::new()
    }
}

impl<B: Board> WorkQueue<B> {
    pub fn new() -> WorkQueue<B> {
        WorkQueue {
            state: Mutex::new(State {
                waiting: BinaryHeap::new(),
                running: Vec::new(),
                next_order: 0,
                closed: false,
            }),
            ready: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<B>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues every turn of `query`.
    pub fn push(&self, query: Query<B>) {
        let query = Arc::new(query);
        let mut state = self.lock();
        for &turn in &query.turns {
            let order = state.next_order;
            state.next_order += 1;
            state.waiting.push(Work {
                query: Arc::clone(&query),
                turn,
                stop: Arc::new(AtomicBool::new(false)),
                order,
            });
        }
        drop(state);
        self.ready.notify_all();
    }

    /// No more queries: the workers end once the queue is empty.
    pub fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// The next position to search, waiting for one; `None` once the
    /// queue is closed and empty. The position is under way until
    /// [`WorkQueue::done`].
    pub fn take(&self) -> Option<Work<B>> {
        let mut state = self.lock();
        loop {
            if let Some(work) = state.waiting.pop() {
                let entry = (
                    work.order,
                    work.query.id.clone(),
                    work.turn,
                    Arc::clone(&work.stop),
                );
                state.running.push(entry);
                return Some(work);
            }
            if state.closed {
                return None;
            }
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// `work`'s search has ended.
    pub fn done(&self, work: &Work<B>) {
        self.lock()
            .running
            .retain(|(order, ..)| *order != work.order);
    }

    /// Stops the positions `selection` covers: those under way are told to
    /// stop (they answer with what they have), those waiting are taken out
    /// and returned (the caller answers them). Also returns how many were
    /// under way.
    pub fn terminate(&self, selection: &Selection<'_>) -> (Vec<Work<B>>, usize) {
        let mut state = self.lock();
        let mut stopped = 0;
        for (_, id, turn, stop) in &state.running {
            if selection.id.is_none_or(|wanted| wanted == id)
                && selection.turns.is_none_or(|turns| turns.contains(turn))
            {
                stop.store(true, Ordering::Relaxed);
                stopped += 1;
            }
        }
        let (taken, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut state.waiting)
            .into_vec()
            .into_iter()
            .partition(|work| selection.covers(work));
        state.waiting = kept.into();
        let mut taken = taken;
        taken.sort_by_key(|work| work.order);
        (taken, stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use sumito_arena::players::network::SearchBudget;
    use sumito_engine::{Layout, Position, Rules};

    fn query(id: &str, priority: i64, turns: Vec<usize>) -> Query<Position> {
        let start = Position::start(Layout::Standard, Rules::default());
        let positions = vec![start; turns.iter().max().unwrap() + 1];
        Query {
            id: Value::from(id),
            positions,
            turns,
            budget: SearchBudget::Time(Duration::from_millis(1)),
            top: 1,
            report: None,
            include_policy: false,
            priority,
            filter: None,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn the_higher_priority_comes_first_then_the_earlier() {
        let queue = WorkQueue::new();
        queue.push(query("low", -1, vec![0]));
        queue.push(query("a", 0, vec![0, 1]));
        queue.push(query("high", 5, vec![0]));
        queue.push(query("b", 0, vec![0]));
        queue.close();
        let mut seen = Vec::new();
        while let Some(work) = queue.take() {
            seen.push(format!("{}:{}", work.query.id.as_str().unwrap(), work.turn));
            queue.done(&work);
        }
        assert_eq!(seen, ["high:0", "a:0", "a:1", "b:0", "low:0"]);
    }

    #[test]
    fn terminate_takes_out_the_waiting_and_stops_the_running() {
        let queue = WorkQueue::new();
        queue.push(query("x", 0, vec![0, 1, 2]));
        queue.push(query("y", 0, vec![0]));
        let running = queue.take().unwrap();
        assert_eq!(running.turn, 0);
        let (taken, stopped) = queue.terminate(&Selection {
            id: Some(&Value::from("x")),
            turns: Some(&[0, 2]),
        });
        assert_eq!(stopped, 1);
        assert!(running.stop.load(Ordering::Relaxed));
        let turns: Vec<usize> = taken.iter().map(|work| work.turn).collect();
        assert_eq!(turns, [2]);
        queue.done(&running);
        let (taken, stopped) = queue.terminate(&Selection {
            id: None,
            turns: None,
        });
        assert_eq!((taken.len(), stopped), (2, 0));
        queue.close();
        assert!(queue.take().is_none());
    }
}
