//! The search plays the toy games correctly with a uniform evaluator: it takes
//! wins, blocks losses and plays solved positions optimally, with the PUCT and
//! the Gumbel root.

use crate::common::{Solver, gumbel, puct, root_action, run};
use sumito_mcts::toy::{ConnectK, TicTacToe};
use sumito_mcts::{Game, Search, SearchConfig, SearchResult, UniformEvaluator};

type Connect4 = ConnectK<7, 6, 4>;
/// Connect-4 on a 5x4 board: small enough to solve exactly in a test.
type SmallConnect4 = ConnectK<5, 4, 4>;

fn search<G: Game>(state: G, config: SearchConfig, seed: u64) -> SearchResult {
    run(state, config, seed, &UniformEvaluator)
}

fn both_roots(simulations_puct: u32, simulations_gumbel: u32) -> [(&'static str, SearchConfig); 2] {
    [
        ("puct", puct(simulations_puct)),
        ("gumbel", gumbel(simulations_gumbel)),
    ]
}

#[test]
fn takes_a_win_in_one() {
    // X to move with X X . / O O . : 2 wins, 5 would only block.
    let ttt = TicTacToe::from_actions(&[0, 3, 1, 4]).unwrap();
    // X has three on the bottom row, O three in column 6: X wins at 3.
    let c4 = Connect4::from_actions(&[0, 6, 1, 6, 2, 6]).unwrap();
    for (name, config) in both_roots(100, 16) {
        for seed in 0..5 {
            let result = search(ttt, config.clone(), seed);
            assert_eq!(result.best_action, 2, "{name} seed {seed}: {result:?}");
            let win = root_action(&result, 2);
            assert_eq!(
                win.q,
                Some(1.0),
                "{name}: the winning move is valued exactly"
            );
            let result = search(c4, config.clone(), seed);
            assert_eq!(result.best_action, 3, "{name} seed {seed}: {result:?}");
        }
    }
}

#[test]
fn blocks_a_loss_in_one() {
    // O to move; X threatens 2.
    let ttt = TicTacToe::from_actions(&[0, 4, 1]).unwrap();
    // O to move; X threatens to complete the bottom row at 3.
    let c4 = Connect4::from_actions(&[0, 6, 1, 6, 2]).unwrap();
    for (name, config) in both_roots(400, 200) {
        for seed in 0..5 {
            let result = search(ttt, config.clone(), seed);
            assert_eq!(result.best_action, 2, "{name} seed {seed}: {result:?}");
            let result = search(c4, config.clone(), seed);
            assert_eq!(result.best_action, 3, "{name} seed {seed}: {result:?}");
        }
    }
}

#[test]
fn answers_a_corner_opening_with_the_centre() {
    // After X takes a corner, the centre is O's only move that does not lose.
    let state = TicTacToe::from_actions(&[0]).unwrap();
    let mut solver = Solver::new();
    assert_eq!(solver.optimal_actions(&state), vec![4]);
    // With a uniform prior the Gumbel root splits its budget evenly in the
    // first halving phase, so it needs more simulations than PUCT here.
    for (name, config) in both_roots(2000, 4000) {
        for seed in 0..3 {
            let result = search(state, config.clone(), seed);
            assert_eq!(result.best_action, 4, "{name} seed {seed}: {result:?}");
        }
    }
}

/// Plays a whole game against itself; every move must keep the game-theoretic value.
fn assert_perfect_self_play<G>(start: G, config: SearchConfig, seed: u64, name: &str)
where
    G: Game + std::hash::Hash + Eq + std::fmt::Display,
{
    let mut solver = Solver::new();
    let mut search = Search::new(start, config, seed).unwrap();
    while !search.is_game_over() {
        let state = search.root().clone();
        let result = search.search(&UniformEvaluator).unwrap();
        let optimal = solver.optimal_actions(&state);
        assert!(
            optimal.contains(&result.action),
            "{name} seed {seed}: {} in {state} loses value (optimal: {optimal:?}); {result:?}",
            result.action
        );
        search.advance(result.action).unwrap();
    }
}

#[test]
fn tictactoe_self_play_is_perfect() {
    for (name, config) in both_roots(2000, 4000) {
        for seed in 0..4 {
            assert_perfect_self_play(TicTacToe::new(), config.clone(), seed, name);
        }
    }
}

#[test]
fn plays_solved_connect4_positions_correctly() {
    // Positions from random play where at least one legal move changes the
    // game-theoretic value; the search must find a move that keeps it. With a
    // uniform evaluator only terminal positions carry information, so the
    // positions are late enough for the search to reach the ends of the game.
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut solver = Solver::new();
    let mut positions = Vec::new();
    while positions.len() < 12 {
        let mut state = SmallConnect4::new();
        let plies = rng.random_range(11..15);
        let mut legal = Vec::new();
        for _ in 0..plies {
            state.legal_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            state.apply(legal[rng.random_range(0..legal.len())]);
        }
        state.legal_actions(&mut legal);
        if state.terminal().is_none() && solver.optimal_actions(&state).len() < legal.len() {
            positions.push(state);
        }
    }
    for (name, config) in both_roots(4000, 800) {
        for (index, state) in positions.iter().enumerate() {
            let result = search(*state, config.clone(), index as u64);
            let optimal = solver.optimal_actions(state);
            assert!(
                optimal.contains(&result.best_action),
                "{name}: {} in {state} is a mistake (optimal: {optimal:?}, value {}); {result:?}",
                result.best_action,
                solver.value(state)
            );
        }
    }
}
