//! Proven results (MCTS-solver): a win in one is never missed whatever the
//! priors, and every result the search reports as proven is the exact one.

use crate::common::{Solver, gumbel, open_positions, puct, run};
use sumito_mcts::toy::{ConnectK, TicTacToe};
use sumito_mcts::{
    EvalBatch, EvalError, Evaluator, Game, GumbelConfig, SearchConfig, UniformEvaluator, Wdl,
};

type Connect4 = ConnectK<7, 6, 4>;

/// Gives one action a prior of about e^-30 and every other action the same
/// prior: a network that has not learnt that a move wins.
struct Blind {
    action: usize,
}

impl<G: Game<Values = sumito_mcts::ZeroSum>> Evaluator<G> for Blind {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        for slot in batch.slots_mut() {
            for (logit, &action) in slot.logits.iter_mut().zip(slot.legal_actions) {
                *logit = if action == self.action { -30.0 } else { 0.0 };
            }
            *slot.value = Wdl::UNKNOWN;
        }
        Ok(())
    }
}

#[test]
fn a_win_in_one_is_played_whatever_the_prior_and_the_temperature() {
    // X has three on the bottom row: column 3 wins at once.
    let c4 = Connect4::from_actions(&[0, 6, 1, 6, 2, 5]).unwrap();
    let narrow_gumbel = SearchConfig {
        simulations: 4,
        gumbel: Some(GumbelConfig {
            considered_actions: 2,
            ..GumbelConfig::default()
        }),
        temperature: 1.0,
        temperature_plies: 100,
        ..SearchConfig::default()
    };
    let narrow_puct = SearchConfig {
        simulations: 4,
        temperature: 1.0,
        temperature_plies: 100,
        ..SearchConfig::default()
    };
    for (name, config) in [("gumbel", narrow_gumbel), ("puct", narrow_puct)] {
        for seed in 0..20 {
            let result = run(c4, config.clone(), seed, &Blind { action: 3 });
            assert_eq!(result.best_action, 3, "{name} seed {seed}");
            assert_eq!(
                result.action, 3,
                "{name} seed {seed}: played at temperature 1"
            );
            assert_eq!(result.solved, Some(1.0), "{name} seed {seed}");
        }
    }
}

fn tictactoe_positions() -> Vec<TicTacToe> {
    open_positions(TicTacToe::new())
}

#[test]
fn proven_results_are_the_exact_ones() {
    let mut solver = Solver::new();
    let positions = tictactoe_positions();
    for (name, config) in [("puct", puct(300)), ("gumbel", gumbel(100))] {
        let mut proven = 0;
        for (seed, state) in positions.iter().enumerate().step_by(7) {
            let result = run(*state, config.clone(), seed as u64, &UniformEvaluator);
            let Some(solved) = result.solved else {
                continue;
            };
            proven += 1;
            let exact = f32::from(solver.value(state));
            assert_eq!(solved, exact, "{name}: {state} proven {solved}, is {exact}");
            assert!(
                solver.optimal_actions(state).contains(&result.best_action),
                "{name}: {state} proven {solved} but plays {}",
                result.best_action
            );
        }
        // Many late positions are solved outright by a few hundred simulations.
        assert!(
            proven > positions.len() / 7 / 3,
            "{name}: only {proven} proven"
        );
    }
}

#[test]
fn lost_positions_are_proven_lost() {
    // Lost positions with at most five empty cells: every move of the side
    // to move is met by a win, which a few hundred simulations prove.
    let mut solver = Solver::new();
    let lost: Vec<TicTacToe> = tictactoe_positions()
        .into_iter()
        .filter(|state| {
            let mut actions = Vec::new();
            state.legal_actions(&mut actions);
            actions.len() <= 5 && solver.value(state) == -1
        })
        .collect();
    assert!(lost.len() > 20);
    for (seed, state) in lost.iter().enumerate() {
        let result = run(*state, puct(400), seed as u64, &UniformEvaluator);
        assert_eq!(result.solved, Some(-1.0), "{state}: {result:?}");
    }
}
