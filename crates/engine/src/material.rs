//! Material counted exactly: a minimax over every legal move of both sides to
//! a fixed number of plies whose only score is the marbles pushed off (a won
//! game counts [`WIN`]). The move choice of network players checks the
//! search's move with it (`sumito_game::choice`), and the tactics suite
//! labels its positions with it (`sumito_arena::tactics`).
//!
//! It is cheap for its exactness: a move of the side to move can only gain
//! material, so the last ply needs no search beyond "is there a push-off",
//! and alpha-beta cuts the many equal lines at once.

use crate::alphabeta::{self, GameTree, Node, Visit};
use crate::{Ending, Move, Outcome, Position};

/// A won (or lost) game in material terms: more than all marbles together.
pub const WIN: i32 = 100;

/// The material of `position` for its side to move: marbles pushed off by it
/// minus marbles it lost, or ±[`WIN`] once the game is over (a draw is 0).
pub fn material(position: &Position) -> i32 {
    let me = position.side_to_move();
    match position.ending() {
        Some(Ending {
            outcome: Outcome::Win(winner),
            ..
        }) => {
            if winner == me.index() {
                WIN
            } else {
                -WIN
            }
        }
        Some(Ending {
            outcome: Outcome::Draw(_),
            ..
        }) => 0,
        None => {
            i32::from(position.marbles_off(me.opponent())) - i32::from(position.marbles_off(me))
        }
    }
}

/// The material (for the side to move) after `depth` plies of best play by
/// both sides, every legal move searched; fail-soft alpha-beta in the window
/// `(alpha, beta)`: exact inside it, a bound outside.
pub fn material_search(position: &Position, depth: u32, alpha: i32, beta: i32) -> i32 {
    alphabeta::search(&mut MaterialTree, position, depth as i32, alpha, beta, 0)
        .expect("a material count is never stopped")
}

/// The two-player game as the material count searches it (see
/// [`crate::alphabeta`]): scores are [`material`], moves every legal one,
/// push-offs first.
struct MaterialTree;

impl GameTree for MaterialTree {
    type Position = Position;
    type Move = Move;
    type Score = i32;
    type Children = std::vec::IntoIter<Move>;

    fn enter(&mut self, position: &Position, visit: Visit<i32>) -> Node<i32, Self::Children> {
        let Visit { depth, beta, .. } = visit;
        let base = material(position);
        if depth <= 0 || position.ending().is_some() {
            return Node::Known(base);
        }
        let moves = position.legal_moves_unordered();
        if depth == 1 {
            // One's own move never loses material: the best is a push-off if
            // there is one (any push-off wins the game if one does).
            if base >= beta {
                return Node::Known(base);
            }
            return Node::Known(
                moves
                    .iter()
                    .find(|&&mv| position.is_push_off(mv))
                    .map_or(base, |&mv| -material(&position.play(mv))),
            );
        }
        // Push-offs first: they decide most cut-offs.
        let (mut ordered, quiet): (Vec<Move>, Vec<Move>) =
            moves.iter().partition(|&&mv| position.is_push_off(mv));
        ordered.extend(quiet);
        Node::Search {
            children: ordered.into_iter(),
            floor: -WIN - 1,
        }
    }

    fn next_child(
        &mut self,
        position: &Position,
        children: &mut Self::Children,
    ) -> Option<(Move, Position)> {
        children.next().map(|mv| (mv, position.play(mv)))
    }
}

/// `v_depth(mv)`: the material after `mv` and `depth - 1` more plies of best
/// play (`depth` ≥ 1).
pub fn move_value(position: &Position, mv: Move, depth: u32) -> i32 {
    -material_search(&position.play(mv), depth - 1, -WIN - 1, WIN + 1)
}

/// Whether `v_depth(mv) >= at_least` (a null-window search: much cheaper
/// than the exact value).
pub fn value_at_least(position: &Position, mv: Move, depth: u32, at_least: i32) -> bool {
    -material_search(&position.play(mv), depth - 1, -at_least, -at_least + 1) >= at_least
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain minimax of the same material over every move, no pruning.
    fn minimax(position: &Position, depth: u32) -> i32 {
        if depth == 0 || position.ending().is_some() {
            return material(position);
        }
        position
            .legal_moves()
            .iter()
            .map(|&mv| -minimax(&position.play(mv), depth - 1))
            .max()
            .unwrap_or_else(|| material(position))
    }

    /// Positions with push-offs for both sides a few plies away.
    const TACTICAL: [&str; 4] = [
        "wwww1/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 1",
        "5/6/7/8/bww6/8/7/6/5 w 0 0",
        "5/6/7/2www3/1bbbw4/2bb4/7/6/5 b 0 0",
        "5/6/7/8/bwwbb4/8/7/6/5 b 0 0",
    ];

    #[test]
    fn the_material_search_is_the_plain_minimax() {
        for text in TACTICAL {
            let position = Position::from_fen(text).unwrap();
            for depth in 0..=3 {
                assert_eq!(
                    material_search(&position, depth, -WIN - 1, WIN + 1),
                    minimax(&position, depth),
                    "{text} at depth {depth}"
                );
            }
        }
    }
}
