//! The search with more than two sides (max^n), checked against exact
//! solutions of small coin-row games (`toy::CoinRow`).
//!
//! With more than two sides the exact value of a position can depend on how
//! the other sides break ties between moves that are equal for them, so the
//! solver below computes every value vector that some tie-breaking can give,
//! and the checks use only positions where the mover's best choice is clear:
//! every move either gives the mover the best value under every tie-breaking
//! or is worse under every tie-breaking.

use std::collections::{BTreeSet, HashMap};

use crate::common::open_positions;

use sumito_mcts::toy::{CoinRow, HashEvaluator};
use sumito_mcts::{
    Game, GumbelConfig, MultiGameDriver, Search, SearchConfig, Side, Terminal, UniformEvaluator,
};

/// A value vector in units of 1/60 (every share 1/k for k <= 5 is a whole number of them).
type Exact = Vec<i32>;

fn exact_outcome(outcome: Terminal, sides: usize) -> Exact {
    (0..sides)
        .map(|side| (outcome.value_for_side(Side::new(side), sides) * 60.0).round() as i32)
        .collect()
}

/// Every value vector that some tie-breaking of max^n gives `state`.
fn solve(state: &CoinRow, memo: &mut HashMap<CoinRow, BTreeSet<Exact>>) -> BTreeSet<Exact> {
    if let Some(known) = memo.get(state) {
        return known.clone();
    }
    let result = match state.terminal() {
        Some(outcome) => BTreeSet::from([exact_outcome(outcome, state.sides())]),
        None => {
            let mover = state.to_play().index();
            let children = child_values(state, memo);
            // A child can be chosen with value vector v if v's mover value is at
            // least what every other child surely gives.
            let surely: Vec<i32> = children
                .iter()
                .map(|set| set.iter().map(|v| v[mover]).min().expect("non-empty"))
                .collect();
            let mut possible = BTreeSet::new();
            for (index, set) in children.iter().enumerate() {
                let others_best = surely
                    .iter()
                    .enumerate()
                    .filter(|&(other, _)| other != index)
                    .map(|(_, &value)| value)
                    .max()
                    .unwrap_or(i32::MIN);
                possible.extend(set.iter().filter(|v| v[mover] >= others_best).cloned());
            }
            possible
        }
    };
    memo.insert(*state, result.clone());
    result
}

fn child_values(
    state: &CoinRow,
    memo: &mut HashMap<CoinRow, BTreeSet<Exact>>,
) -> Vec<BTreeSet<Exact>> {
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    actions
        .iter()
        .map(|&action| {
            let mut child = *state;
            child.apply(action);
            solve(&child, memo)
        })
        .collect()
}

fn positions(start: CoinRow) -> Vec<CoinRow> {
    open_positions(start)
}

/// The actions that are best for the mover under every tie-breaking, if every
/// action is either that or worse under every tie-breaking; `None` where the
/// choice depends on how others break ties.
fn clearly_best_actions(
    state: &CoinRow,
    memo: &mut HashMap<CoinRow, BTreeSet<Exact>>,
) -> Option<Vec<usize>> {
    let mover = state.to_play().index();
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    if actions.len() < 2 {
        return None;
    }
    let children = child_values(state, memo);
    let range = |set: &BTreeSet<Exact>| {
        let values = set.iter().map(|v| v[mover]);
        (values.clone().min().unwrap(), values.max().unwrap())
    };
    let best = children.iter().map(|set| range(set).1).max().unwrap();
    let mut clear = Vec::new();
    for (set, &action) in children.iter().zip(&actions) {
        let (low, high) = range(set);
        if low == best && high == best {
            clear.push(action);
        } else if high >= best {
            return None;
        }
    }
    (clear.len() < actions.len()).then_some(clear)
}

fn check_best_moves(start: CoinRow, config: SearchConfig) -> usize {
    let mut memo = HashMap::new();
    let mut checked = 0;
    for (index, state) in positions(start).into_iter().enumerate() {
        let Some(best) = clearly_best_actions(&state, &mut memo) else {
            continue;
        };
        let mut search = Search::new(state, config.clone(), index as u64).unwrap();
        let result = search.search(&UniformEvaluator).unwrap();
        assert!(
            best.contains(&result.best_action),
            "{state:?}: the search plays {} where only {best:?} is best for side {}; root actions {:?}",
            result.best_action,
            state.to_play().index(),
            result.root_actions
        );
        checked += 1;
    }
    checked
}

fn puct(simulations: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        ..SearchConfig::default()
    }
}

fn gumbel(simulations: u32) -> SearchConfig {
    SearchConfig {
        simulations,
        gumbel: Some(GumbelConfig::default()),
        ..SearchConfig::default()
    }
}

const COINS: [u8; 8] = [3, 1, 4, 1, 5, 9, 2, 6];

#[test]
fn three_players_each_choose_their_own_best_move() {
    let start = CoinRow::new(&COINS, &[0, 1, 2]).unwrap();
    assert!(check_best_moves(start, puct(600)) >= 10);
    assert!(check_best_moves(start, gumbel(200)) >= 10);
}

#[test]
fn partners_in_a_row_move_twice_and_share_a_value() {
    // Two teams, each moving twice in a row: the same side may move again.
    let start = CoinRow::new(&COINS, &[0, 0, 1, 1]).unwrap();
    assert_eq!(start.sides(), 2);
    assert!(check_best_moves(start, puct(600)) >= 10);
    // Five sides, the most there are.
    let five = CoinRow::new(&[7, 2, 9, 4, 4, 8, 1, 5, 3, 6], &[0, 1, 2, 3, 4]).unwrap();
    assert!(check_best_moves(five, gumbel(300)) >= 10);
}

#[test]
fn root_values_follow_a_certain_result() {
    let mut memo = HashMap::new();
    let start = CoinRow::new(&COINS, &[0, 1, 2]).unwrap();
    let mut checked = 0;
    for (index, state) in positions(start).into_iter().enumerate() {
        let solution = solve(&state, &mut memo);
        // Positions whose result is certain (one vector) with a winner.
        let [exact] = solution.iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let Some(winner) = exact.iter().position(|&v| v == 60) else {
            continue;
        };
        let mut search = Search::new(state, puct(800), index as u64).unwrap();
        let result = search.search(&UniformEvaluator).unwrap();
        assert_eq!(result.side_values.len(), 3);
        let best_other = (0..3)
            .filter(|&side| side != winner)
            .map(|side| result.side_values[side])
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            result.side_values[winner] > best_other,
            "{state:?}: side {winner} wins for sure, values {:?}",
            result.side_values
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} positions checked");
}

#[test]
fn terminal_values_and_draw_shares() {
    // One coin each: equal totals for all three sides is a draw.
    let mut all_equal = CoinRow::new(&[2, 2, 2], &[0, 1, 2]).unwrap();
    for _ in 0..3 {
        all_equal.apply(0);
    }
    assert_eq!(all_equal.terminal(), Some(Terminal::Draw));
    // Two of three share the best total.
    let mut two = CoinRow::new(&[5, 5, 1], &[0, 1, 2]).unwrap();
    for _ in 0..3 {
        two.apply(0);
    }
    assert_eq!(two.terminal(), Some(Terminal::Tie(0b011)));
    assert_eq!(exact_outcome(Terminal::Tie(0b011), 3), vec![0, 0, -60]);
    // The search reports the certain draw of the last move.
    let mut last = CoinRow::new(&[2, 2, 2], &[0, 1, 2]).unwrap();
    last.apply(0);
    last.apply(0);
    let result = Search::new(last, puct(16), 1)
        .unwrap()
        .search(&UniformEvaluator)
        .unwrap();
    // The one move's mean value is exactly the draw's, 2/3 - 1; the root's
    // own estimate (knowing nothing) is one visit among 17.
    let q = result.root_actions[0].q.unwrap();
    assert!((q + 1.0 / 3.0).abs() < 1e-6, "{q}");
    assert!(result.wdl.draw > 0.95, "{:?}", result.wdl);
}

#[test]
fn the_driver_gives_each_game_its_own_result() {
    // A game gives the same result alone or driven with others (determinism
    // with vector values and an evaluator with varied answers).
    let start = CoinRow::new(&COINS, &[0, 1, 2]).unwrap();
    let games: Vec<CoinRow> = positions(start).into_iter().take(12).collect();
    let config = gumbel(32);
    let alone: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(seed, game)| {
            Search::new(*game, config.clone(), seed as u64)
                .unwrap()
                .search(&HashEvaluator)
                .unwrap()
        })
        .collect();
    let mut driver = MultiGameDriver::new();
    for (seed, game) in games.iter().enumerate() {
        driver.push(Search::new(*game, config.clone(), seed as u64).unwrap());
    }
    let mut together = vec![None; games.len()];
    while together.iter().any(Option::is_none) {
        for (index, result) in driver.step(&HashEvaluator).unwrap() {
            together[index].get_or_insert(result);
        }
    }
    for (alone, together) in alone.iter().zip(&together) {
        assert_eq!(Some(alone), together.as_ref());
    }
}
