//! Seeded random playouts: positions for tests and benchmarks.

use crate::layout::Layout;
use crate::position::{Position, Rules};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Plays up to `plies` uniformly random legal moves from `start`, choosing
/// with a ChaCha8 stream seeded with `seed`. Returns every position on the
/// way, `start` first; stops early when the game ends.
pub fn random_playout(start: &Position, plies: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut positions = vec![*start];
    let mut current = *start;
    for _ in 0..plies {
        let moves = current.legal_moves();
        if moves.is_empty() {
            break;
        }
        let index = ((u128::from(rng.next_u64()) * moves.len() as u128) >> 64) as usize;
        current = current.play(moves[index]);
        positions.push(current);
    }
    positions
}

/// A fixed set of midgame positions: the position after 30 random plies from
/// each named layout (seed = the layout's index).
pub fn midgame_positions() -> Vec<Position> {
    Layout::NAMED
        .iter()
        .enumerate()
        .filter_map(|(seed, &layout)| {
            random_playout(&Position::start(layout, Rules::default()), 30, seed as u64)
                .last()
                .copied()
        })
        .collect()
}
