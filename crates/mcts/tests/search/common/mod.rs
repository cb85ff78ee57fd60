//! Helpers shared by the integration tests: an exact solver for the toy
//! games, and evaluators that are deterministic but not uniform, that fail,
//! or that write garbage.

#![allow(dead_code)] // not every helper is used by the tests

use std::collections::HashMap;
use std::hash::Hash;

use sumito_mcts::{
    EvalBatch, EvalError, Evaluator, Game, RootAction, Search, SearchConfig, SearchResult,
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
        if let Some(outcome) = state.terminal() {
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

/// Every state reachable from `start` that is not over, in order of discovery.
pub fn open_positions<G: Game + Hash + Eq>(start: G) -> Vec<G> {
    let mut seen = std::collections::HashSet::from([start.clone()]);
    let mut found = vec![start];
    let mut next = 0;
    let mut actions = Vec::new();
    while next < found.len() {
        let state = found[next].clone();
        next += 1;
        state.legal_actions(&mut actions);
        for &action in &actions {
            let mut child = state.clone();
            child.apply(action);
            if child.terminal().is_none() && seen.insert(child.clone()) {
                found.push(child);
            }
        }
    }
    found
}
