//! The evaluator contract: a batch of states in, policy logits and values out.

use crate::Game;
use crate::error::EvalError;
use crate::values::Values;

/// The states a search wants evaluated, and the evaluator's answers.
///
/// Item `i` has a state ([`EvalBatch::state`]), its legal actions
/// ([`EvalBatch::legal_actions`], computed once by the search), one logit slot
/// per legal action and one value slot (the game's estimate type: a [`Wdl`]
/// for two sides, a [`crate::SideShares`] for more). Buffers are reused between calls, so
/// a batch costs no allocation once warm.
#[derive(Clone, Debug)]
pub struct EvalBatch<G: Game> {
    states: Vec<G>,
    /// `legal_starts[i]..legal_starts[i + 1]` indexes item `i`'s legal actions and logits.
    legal_starts: Vec<usize>,
    legal_actions: Vec<usize>,
    logits: Vec<f32>,
    values: Vec<Estimate<G>>,
}

impl<G: Game> Default for EvalBatch<G> {
    fn default() -> Self {
        EvalBatch {
            states: Vec::new(),
            legal_starts: vec![0],
            legal_actions: Vec::new(),
            logits: Vec::new(),
            values: Vec::new(),
        }
    }
}

/// One item of an [`EvalBatch`], with its outputs open for writing.
#[derive(Debug)]
pub struct EvalSlot<'a, G: Game> {
    pub state: &'a G,
    /// The legal actions of `state`; `logits[j]` belongs to `legal_actions[j]`.
    pub legal_actions: &'a [usize],
    pub logits: &'a mut [f32],
    /// For two sides a [`Wdl`] from the point of view of the side to move
    /// in `state`; for more, [`crate::SideShares`] indexed by side.
    pub value: &'a mut Estimate<G>,
}

impl<G: Game> EvalBatch<G> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// All states, in item order (convenient for encoding a whole batch at once).
    pub fn states(&self) -> &[G] {
        &self.states
    }

    pub fn state(&self, item: usize) -> &G {
        &self.states[item]
    }

    pub fn legal_actions(&self, item: usize) -> &[usize] {
        &self.legal_actions[self.legal_starts[item]..self.legal_starts[item + 1]]
    }

    pub fn logits(&self, item: usize) -> &[f32] {
        &self.logits[self.legal_starts[item]..self.legal_starts[item + 1]]
    }

    pub fn logits_mut(&mut self, item: usize) -> &mut [f32] {
        &mut self.logits[self.legal_starts[item]..self.legal_starts[item + 1]]
    }

    pub fn value(&self, item: usize) -> Estimate<G> {
        self.values[item]
    }

    pub fn set_value(&mut self, item: usize, value: Estimate<G>) {
        self.values[item] = value;
    }

    /// Every item with its outputs open for writing, in item order.
    pub fn slots_mut(&mut self) -> impl Iterator<Item = EvalSlot<'_, G>> {
        let starts = &self.legal_starts;
        let legal_actions = &self.legal_actions;
        let mut logits_left: &mut [f32] = &mut self.logits;
        self.states
            .iter()
            .zip(self.values.iter_mut())
            .enumerate()
            .map(move |(item, (state, value))| {
                let range = starts[item]..starts[item + 1];
                let (logits, rest) = std::mem::take(&mut logits_left).split_at_mut(range.len());
                logits_left = rest;
                EvalSlot {
                    state,
                    legal_actions: &legal_actions[range],
                    logits,
                    value,
                }
            })
    }

    /// Adds a state with its legal actions; its outputs start unset (NaN).
    pub fn push(&mut self, state: G, legal_actions: &[usize]) {
        self.states.push(state);
        self.legal_actions.extend_from_slice(legal_actions);
        self.logits.resize(self.legal_actions.len(), f32::NAN);
        self.legal_starts.push(self.legal_actions.len());
        self.values.push(G::Values::UNSET);
    }

    /// Empties the batch, keeping its buffers.
    pub fn clear(&mut self) {
        self.states.clear();
        self.legal_starts.truncate(1);
        self.legal_actions.clear();
        self.logits.clear();
        self.values.clear();
    }
}

/// What an evaluator writes for one state of the game `G`.
pub type Estimate<G> = <<G as Game>::Values as Values>::Estimate;

/// Evaluates whole batches of states; see the crate documentation for the contract.
pub trait Evaluator<G: Game>: Send + Sync {
    /// Writes logits and a value for every item of `batch`.
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError>;
}

/// An evaluator that refuses every batch once its flag is set, so that a
/// search over it ends at its next batch (a server stops the search of a
/// page that closed, an analysis its search at its time limit): with the
/// result of its completed simulations from [`crate::Search::search`], with
/// [`EvalError::Stopped`] from a driver or before the root is evaluated.
/// The flag is checked once a batch: a search stops within one batch's
/// evaluation.
#[derive(Debug)]
pub struct StoppableEvaluator<E> {
    inner: E,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl<E> StoppableEvaluator<E> {
    pub fn new(inner: E, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        StoppableEvaluator { inner, stop }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for StoppableEvaluator<E> {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(EvalError::Stopped);
        }
        self.inner.evaluate(batch)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        (**self).evaluate(batch)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        (**self).evaluate(batch)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        (**self).evaluate(batch)
    }
}

/// The evaluator that knows nothing: a uniform prior over the legal actions
/// and every result equally likely ([`Wdl::UNKNOWN`], value 0, for two sides). Search with it is pure tree
/// search driven by terminal positions; it is the baseline for tests and for
/// measuring the search's own speed.
#[derive(Clone, Copy, Default, Debug)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        batch.logits.fill(0.0);
        for (state, value) in batch.states.iter().zip(batch.values.iter_mut()) {
            *value = G::Values::unknown(state.sides());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::TicTacToe;
    use crate::values::Wdl;

    #[test]
    fn slots_cover_each_item_with_its_own_legal_actions() {
        let mut batch = EvalBatch::new();
        batch.push(TicTacToe::new(), &[0, 1, 2]);
        batch.push(TicTacToe::new(), &[5]);
        batch.push(TicTacToe::new(), &[6, 7]);
        for (item, slot) in batch.slots_mut().enumerate() {
            for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
                *logit = (action * 10 + item) as f32;
            }
            *slot.value = Wdl::from_value(item as f32 / 2.0);
        }
        assert_eq!(batch.logits(0), &[0.0, 10.0, 20.0]);
        assert_eq!(batch.logits(1), &[51.0]);
        assert_eq!(batch.logits(2), &[62.0, 72.0]);
        assert_eq!(batch.value(2), Wdl::from_value(1.0));
        batch.clear();
        assert!(batch.is_empty());
        batch.push(TicTacToe::new(), &[3]);
        assert!(batch.logits(0)[0].is_nan(), "a reused batch starts unset");
        assert!(batch.value(0).validated().is_err());
    }

    #[test]
    fn wdl_validation_rejects_non_distributions() {
        assert!(
            Wdl {
                win: 0.5,
                draw: 0.5,
                loss: 0.5
            }
            .validated()
            .is_err()
        );
        assert!(
            Wdl {
                win: -0.5,
                draw: 1.0,
                loss: 0.5
            }
            .validated()
            .is_err()
        );
        assert!(
            Wdl {
                win: f32::INFINITY,
                draw: 0.0,
                loss: 0.0
            }
            .validated()
            .is_err()
        );
        let ok = Wdl {
            win: 0.6,
            draw: 0.1,
            loss: 0.3,
        }
        .validated()
        .unwrap();
        assert!((ok.value() - 0.3).abs() < 1e-6);
        assert_eq!(Wdl::from_value(0.5).flipped(), Wdl::from_value(-0.5));
    }
}
