//! Helpers shared by the integration tests: an exact solver for the toy
//! games, and evaluators that are deterministic but not uniform, that fail,
//! or that write garbage.

#![allow(dead_code)] // each test binary uses a different part

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use sumito_mcts::{
    EvalBatch, EvalError, Evaluator, Game, RootAction, Search, SearchConfig, SearchResult, Wdl,
};

/// Game-theoretic value for the side to move, by negamax with memoisation.
pub struct Solver<G> {
    memo: HashMap<G, i8>,
}

impl<G: Game + Hash + Eq> Solver<G> {
    pub fn new() -> Self {
        Solver {
            memo: HashMap::new(),
        }
    }

    pub fn value(&mut self, state: &G) -> i8 {
        if let Some(outcome) = state.outcome() {
            return outcome.value_for(state.to_play()) as i8;
        }
        if let Some(&v) = self.memo.get(state) {
            return v;
        }
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let mut best = -1;
        for action in legal {
            best = best.max(self.action_value(state, action));
            if best == 1 {
                break;
            }
        }
        self.memo.insert(state.clone(), best);
        best
    }

    /// Value of playing `action` for the side to move in `state`.
    pub fn action_value(&mut self, state: &G, action: usize) -> i8 {
        let mut child = state.clone();
        child.apply(action);
        let v = self.value(&child);
        if child.to_play() == state.to_play() {
            v
        } else {
            -v
        }
    }

    /// The actions that keep the value of `state`.
    pub fn optimal_actions(&mut self, state: &G) -> Vec<usize> {
        let value = self.value(state);
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        legal
            .into_iter()
            .filter(|&a| self.action_value(state, a) == value)
            .collect()
    }
}

/// A fixed pseudo-random function of the state: varied logits and values, the
/// same answer for the same state whatever batch it arrives in.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashEvaluator;

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
    x ^ (x >> 33)
}

fn unit(x: u64) -> f32 {
    (mix(x) >> 40) as f32 / (1u64 << 24) as f32
}

impl<G: Game + Hash> Evaluator<G> for HashEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        for slot in batch.slots_mut() {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            slot.state.hash(&mut hasher);
            let h = hasher.finish();
            for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
                *logit = 2.0 * unit(h ^ action as u64) - 1.0;
            }
            let (w, d) = (unit(h.wrapping_add(1)), unit(h.wrapping_add(2)));
            let (w, d) = (w * 0.8, d * 0.2);
            *slot.value = Wdl {
                win: w,
                draw: d,
                loss: 1.0 - w - d,
            };
        }
        Ok(())
    }
}

/// Fails on its `fail_on`-th call (counting from 0); uniform otherwise.
pub struct FailingEvaluator {
    pub fail_on: usize,
    pub calls: std::sync::atomic::AtomicUsize,
}

impl FailingEvaluator {
    pub fn new(fail_on: usize) -> Self {
        FailingEvaluator {
            fail_on,
            calls: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

impl<G: Game> Evaluator<G> for FailingEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        let call = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if call == self.fail_on {
            return Err(EvalError::backend(
                "forward pass",
                std::io::Error::other("device lost"),
            ));
        }
        sumito_mcts::UniformEvaluator.evaluate(batch)
    }
}

/// Writes logits but forgets the values.
pub struct ForgetfulEvaluator;

impl<G: Game> Evaluator<G> for ForgetfulEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        for slot in batch.slots_mut() {
            slot.logits.fill(0.0);
        }
        Ok(())
    }
}

pub fn puct(simulations: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        ..SearchConfig::default()
    }
}

pub fn gumbel(simulations: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        gumbel: Some(Default::default()),
        ..SearchConfig::default()
    }
}

/// One search of `state` with a fresh tree.
pub fn run<G: Game, E: Evaluator<G>>(
    state: G,
    config: SearchConfig,
    seed: u64,
    evaluator: &E,
) -> SearchResult {
    Search::new(state, config, seed)
        .unwrap()
        .search(evaluator)
        .unwrap()
}

/// The root statistics of `action`.
pub fn root_action(result: &SearchResult, action: usize) -> RootAction {
    *result
        .root_actions
        .iter()
        .find(|a| a.action == action)
        .unwrap()
}
