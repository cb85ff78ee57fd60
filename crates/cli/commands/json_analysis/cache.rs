//! The analysis program's cache of network evaluations, shared by all its searches:
//! a program that asks about the same positions again (a game analysed
//! after each new move, a position searched deeper) gets their
//! evaluations without the network. Exact: the key is the whole state the
//! network reads. `clear_cache` empties it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use sumito_mcts::{Estimate, EvalBatch, EvalError, Evaluator, Game};

/// One state's evaluation: its logits, in the order of its legal actions,
/// and its value.
struct Entry<G: Game> {
    logits: Box<[f32]>,
    value: Estimate<G>,
}

/// Two generations, the newer filled until it holds `capacity` states and
/// then made the older (the older dropped): recently used states stay, at
/// most twice `capacity` are held, and no entry carries bookkeeping.
struct Generations<G: Game> {
    newer: HashMap<G, Entry<G>>,
    older: HashMap<G, Entry<G>>,
}

/// Evaluations by state, at most twice `capacity` of them.
pub struct EvaluationCache<G: Game> {
    capacity: usize,
    generations: Mutex<Generations<G>>,
}

impl<G: Game + Hash + Eq> EvaluationCache<G> {
    pub fn new(capacity: usize) -> EvaluationCache<G> {
        EvaluationCache {
            capacity: capacity.max(1),
            generations: Mutex::new(Generations {
                newer: HashMap::new(),
                older: HashMap::new(),
            }),
        }
    }

    /// Empties the cache; returns how many evaluations it held.
    pub fn clear(&self) -> usize {
        let mut generations = self.lock();
        let held = generations.newer.len() + generations.older.len();
        generations.newer = HashMap::new();
        generations.older = HashMap::new();
        held
    }

    /// The evaluations it holds.
    pub fn held(&self) -> usize {
        let generations = self.lock();
        generations.newer.len() + generations.older.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations<G>> {
        // (Entries are whole once inserted: a panic elsewhere leaves none torn.)
        self.generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<G: Game + Hash + Eq> std::fmt::Debug for EvaluationCache<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvaluationCache")
            .field("capacity", &self.capacity)
            .field("held", &self.held())
            .finish()
    }
}

/// An evaluator that answers from `cache` what it can and asks `inner`
/// the rest, in one batch.
pub struct CachedEvaluator<G: Game> {
    pub cache: Arc<EvaluationCache<G>>,
    pub inner: Box<dyn Evaluator<G>>,
}

impl<G: Game + Hash + Eq> std::fmt::Debug for CachedEvaluator<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedEvaluator")
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl<G: Game + Hash + Eq> Evaluator<G> for CachedEvaluator<G> {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        let mut missing = EvalBatch::new();
        let mut missing_items = Vec::new();
        {
            let mut generations = self.cache.lock();
            for item in 0..batch.len() {
                let state = batch.state(item);
                let entry = match generations.newer.get(state) {
                    Some(entry) => Some((entry.logits.clone(), entry.value)),
                    None => generations.older.remove(state).map(|entry| {
                        let found = (entry.logits.clone(), entry.value);
                        generations.newer.insert(state.clone(), entry);
                        found
                    }),
                };
                match entry {
                    Some((logits, value)) => {
                        batch.logits_mut(item).copy_from_slice(&logits);
                        batch.set_value(item, value);
                    }
                    None => {
                        missing.push(state.clone(), batch.legal_actions(item));
                        missing_items.push(item);
                    }
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        self.inner.evaluate(&mut missing)?;
        let mut generations = self.cache.lock();
        for (index, &item) in missing_items.iter().enumerate() {
            let logits = missing.logits(index);
            let value = missing.value(index);
            batch.logits_mut(item).copy_from_slice(logits);
            batch.set_value(item, value);
            if generations.newer.len() >= self.cache.capacity {
                generations.older = std::mem::take(&mut generations.newer);
            }
            generations.newer.insert(
                missing.state(index).clone(),
                Entry {
                    logits: logits.into(),
                    value,
                },
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use sumito_mcts::toy::TicTacToe;
    use sumito_mcts::{Search, SearchConfig, UniformEvaluator, Wdl};

    /// Counts the states it is asked, and gives each action a logit of
    /// its own so that a wrong copy would show.
    struct Counting(AtomicUsize);
    impl Evaluator<TicTacToe> for Counting {
        fn evaluate(&self, batch: &mut EvalBatch<TicTacToe>) -> Result<(), EvalError> {
            self.0.fetch_add(batch.len(), Ordering::Relaxed);
            for slot in batch.slots_mut() {
                for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
                    *logit = action as f32 / 10.0;
                }
                *slot.value = Wdl::from_value(0.25);
            }
            Ok(())
        }
    }

    #[test]
    fn a_second_search_of_a_position_needs_no_network_and_clearing_empties_it() {
        let cache = Arc::new(EvaluationCache::new(1000));
        let network = Arc::new(Counting(AtomicUsize::new(0)));
        let cached = CachedEvaluator {
            cache: Arc::clone(&cache),
            inner: Box::new(Arc::clone(&network)),
        };
        let asked_of_network = || network.0.load(Ordering::Relaxed);
        let config = SearchConfig {
            simulations: 100,
            ..SearchConfig::default()
        };
        let search = |evaluator: &dyn Evaluator<TicTacToe>| {
            Search::new(TicTacToe::new(), config.clone(), 3)
                .unwrap()
                .search(evaluator)
                .unwrap()
        };
        let direct = search(&Counting(AtomicUsize::new(0)));
        let first = search(&cached);
        let asked = cache.held();
        assert!(asked > 50, "{asked}");
        let second = search(&cached);
        assert_eq!(direct, first);
        assert_eq!(first, second);
        assert_eq!(asked_of_network(), asked);
        assert_eq!(cache.clear(), asked);
        assert_eq!(cache.held(), 0);
        search(&cached);
        assert_eq!(asked_of_network(), 2 * asked);
    }

    #[test]
    fn it_holds_at_most_two_generations() {
        let cache = Arc::new(EvaluationCache::new(10));
        let cached = CachedEvaluator {
            cache: Arc::clone(&cache),
            inner: Box::new(UniformEvaluator),
        };
        let config = SearchConfig {
            simulations: 300,
            ..SearchConfig::default()
        };
        Search::new(TicTacToe::new(), config, 1)
            .unwrap()
            .search(&cached)
            .unwrap();
        assert!((11..=20).contains(&cache.held()), "{}", cache.held());
    }
}
