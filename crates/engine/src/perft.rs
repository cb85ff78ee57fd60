//! Perft: counting the leaves of the game tree to a fixed depth, the standard
//! check of a move generator. Finished positions are leaves of the tree and
//! count only at depth 0. At the last ply moves are counted, not made.

use crate::action::Move;
use crate::position::Position;

/// Number of move sequences of exactly `depth` plies from `position`.
pub fn perft(position: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_legal_moves() as u64,
        _ => position
            .legal_moves_unordered()
            .iter()
            .map(|&mv| perft(&position.play(mv), depth - 1))
            .sum(),
    }
}

/// Each legal move (in action order) with the perft count of `depth − 1`
/// below it, so the counts add up to `perft(position, depth)`. Empty for depth 0.
pub fn perft_divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    position
        .legal_moves()
        .iter()
        .map(|&mv| (mv, perft(&position.play(mv), depth - 1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Layout, Rules};

    /// Pinned counts, agreed with the independent reference model in
    /// `tests/reference.rs`.
    #[test]
    fn perft_from_standard_and_belgian_daisy() {
        let standard = Position::start(Layout::Standard, Rules::default());
        let counts: Vec<u64> = (0..=4).map(|d| perft(&standard, d)).collect();
        assert_eq!(counts, [1, 44, 1_936, 98_912, 5_045_110]);
        let daisy = Position::start(Layout::BelgianDaisy, Rules::default());
        let counts: Vec<u64> = (1..=3).map(|d| perft(&daisy, d)).collect();
        assert_eq!(counts, [52, 2_692, 149_322]);
    }

    #[test]
    fn divide_adds_up() {
        let standard = Position::start(Layout::Standard, Rules::default());
        let divide = perft_divide(&standard, 3);
        assert_eq!(divide.len(), 44);
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 98_912);
        assert!(perft_divide(&standard, 0).is_empty());
    }

    #[test]
    fn finished_positions_have_no_children() {
        let over = Position::from_fen("5/6/7/8/9/8/7/bbbbbb/bbbbb w 0 6").unwrap();
        assert_eq!(perft(&over, 0), 1);
        assert_eq!(perft(&over, 1), 0);
        assert_eq!(perft(&over, 3), 0);
    }
}
