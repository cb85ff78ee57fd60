//! Material counted exactly in the general game (variants, 3 to 6 players,
//! teams): the count of [`crate::material`] for one side against all the
//! others. A paranoid minimax over every legal move of every seat to a fixed
//! number of plies: the seats of the side counted choose the moves that keep
//! it the most material, every other seat the moves that leave it the least
//! (as if the others played together against it, as the paranoid alpha-beta
//! player assumes). With two sides it is the two-player count.
//!
//! The material of a side is what it gained since the position the count
//! started from: marbles its seats pushed off (neutral ones credited to them
//! included) minus its marbles that left the board; a game it won counts
//! [`WIN`], one it lost (or one drawn among other sides) `-WIN`, one drawn
//! with it 0. The network players' move choice checks the search's move
//! with it (`material=` in a player spec, `sumito_game::choice`).

use super::{GeneralMove, GeneralPosition};
use crate::alphabeta::{self, GameTree, Node, Visit};
use crate::ending::{Ending, Outcome};
pub use crate::material::WIN;

/// What material is measured against: the side counted and its standing
/// (score plus marbles on the board) where the count started.
#[derive(Clone, Copy, Debug)]
struct Counted {
    side: usize,
    base: i32,
}

impl Counted {
    fn of(position: &GeneralPosition) -> Counted {
        let side = position.side_to_move();
        Counted {
            side,
            base: standing(position, side),
        }
    }

    /// The material of `position` for the side counted.
    fn material(self, position: &GeneralPosition) -> i32 {
        match position.ending() {
            Some(Ending {
                outcome: Outcome::Win(winner),
                ..
            }) => {
                if winner == self.side {
                    WIN
                } else {
                    -WIN
                }
            }
            Some(Ending {
                outcome: Outcome::Draw(mask),
                ..
            }) => {
                if mask >> self.side & 1 == 1 {
                    0
                } else {
                    -WIN
                }
            }
            None => standing(position, self.side) - self.base,
        }
    }
}

/// Side `side`'s score and marbles on the board together: it rises by one
/// for each marble it pushes off and falls by one for each of its own lost.
fn standing(position: &GeneralPosition, side: usize) -> i32 {
    let seating = position.rules().seating;
    let marbles: u32 = seating
        .seats_of(side)
        .map(|seat| position.marble_count(seat))
        .sum();
    (position.side_score(side) + marbles) as i32
}

/// The children of `position`, the best for the seat to move first (push-offs
/// decide most cut-offs).
fn ordered_children(
    position: &GeneralPosition,
    counted: Counted,
    maximizing: bool,
) -> Vec<(i32, GeneralMove, GeneralPosition)> {
    let mut children: Vec<(i32, GeneralMove, GeneralPosition)> = position
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let child = position.play(mv);
            (counted.material(&child), mv, child)
        })
        .collect();
    if maximizing {
        children.sort_by_key(|&(material, _, _)| std::cmp::Reverse(material));
    } else {
        children.sort_by_key(|&(material, _, _)| material);
    }
    children
}

/// The general game as the material count searches it (see
/// [`crate::alphabeta`]): the seats of the side counted score its material,
/// every other seat the material negated (they play against it together).
struct MaterialTree {
    counted: Counted,
}

impl MaterialTree {
    /// Whether the seat to move in `position` plays for the side counted.
    fn maximizing(&self, position: &GeneralPosition) -> bool {
        position.side_to_move() == self.counted.side
    }

    /// `material` (the side counted's) as the mover of `position` scores it.
    fn for_mover(&self, position: &GeneralPosition, material: i32) -> i32 {
        if self.maximizing(position) {
            material
        } else {
            -material
        }
    }
}

impl GameTree for MaterialTree {
    type Position = GeneralPosition;
    type Move = GeneralMove;
    type Score = i32;
    type Children = std::vec::IntoIter<(i32, GeneralMove, GeneralPosition)>;

    fn enter(
        &mut self,
        position: &GeneralPosition,
        visit: Visit<i32>,
    ) -> Node<i32, Self::Children> {
        let (counted, depth) = (self.counted, visit.depth);
        if depth <= 0 || position.ending().is_some() {
            return Node::Known(self.for_mover(position, counted.material(position)));
        }
        let maximizing = self.maximizing(position);
        if depth == 1 {
            // The last ply needs only the best child for the mover, not an order.
            let values = position
                .legal_moves()
                .into_iter()
                .map(|mv| counted.material(&position.play(mv)));
            let best = if maximizing {
                values.max()
            } else {
                values.min()
            };
            let best = best.unwrap_or_else(|| counted.material(position));
            return Node::Known(self.for_mover(position, best));
        }
        let children = ordered_children(position, counted, maximizing);
        if children.is_empty() {
            return Node::Known(self.for_mover(position, counted.material(position)));
        }
        Node::Search {
            children: children.into_iter(),
            floor: -WIN - 1,
        }
    }

    fn next_child(
        &mut self,
        _position: &GeneralPosition,
        children: &mut Self::Children,
    ) -> Option<(GeneralMove, GeneralPosition)> {
        children.next().map(|(_, mv, child)| (mv, child))
    }

    fn opposed(&self, position: &GeneralPosition, child: &GeneralPosition) -> bool {
        self.maximizing(position) != self.maximizing(child)
    }
}

/// The material of the side counted after `depth` plies of paranoid best
/// play from `position`; fail-soft alpha-beta in `(alpha, beta)`: exact
/// inside the window, a bound outside.
fn search(position: &GeneralPosition, counted: Counted, depth: u32, alpha: i32, beta: i32) -> i32 {
    let mut tree = MaterialTree { counted };
    let score = if tree.maximizing(position) {
        alphabeta::search(&mut tree, position, depth as i32, alpha, beta, 0)
    } else {
        alphabeta::search(&mut tree, position, depth as i32, -beta, -alpha, 0).map(|s| -s)
    };
    score.expect("a material count is never stopped")
}

/// The material of the side to move in `position` after `mv` and
/// `depth - 1` more plies of paranoid best play (`depth` ≥ 1).
pub fn move_value(position: &GeneralPosition, mv: GeneralMove, depth: u32) -> i32 {
    let counted = Counted::of(position);
    search(&position.play(mv), counted, depth - 1, -WIN - 1, WIN + 1)
}

/// Whether [`move_value`] is at least `at_least` (a null-window search:
/// much cheaper than the exact value).
pub fn value_at_least(
    position: &GeneralPosition,
    mv: GeneralMove,
    depth: u32,
    at_least: i32,
) -> bool {
    let counted = Counted::of(position);
    search(
        &position.play(mv),
        counted,
        depth - 1,
        at_least - 1,
        at_least,
    ) >= at_least
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::general::{GeneralRules, Seating};

    /// A plain paranoid minimax of the same material, no pruning.
    fn minimax(position: &GeneralPosition, counted: Counted, depth: u32) -> i32 {
        if depth == 0 || position.ending().is_some() {
            return counted.material(position);
        }
        let values = position
            .legal_moves()
            .into_iter()
            .map(|mv| minimax(&position.play(mv), counted, depth - 1));
        let best = if position.side_to_move() == counted.side {
            values.max()
        } else {
            values.min()
        };
        best.unwrap_or_else(|| counted.material(position))
    }

    fn three() -> GeneralRules {
        GeneralRules::plain(Seating::new(3, false).unwrap())
    }

    /// Three players in contact, push-offs a ply or two away for each.
    const TACTICAL: [&str; 4] = [
        // Black can push white's E9 off.
        "r4/6/7/8/5bbbw/8/7/6/5 b 0,0,0",
        // Black can push two of two opponents, red's E9 going off.
        "r4/6/7/8/4bbbwr/8/7/rr4/wbbrr b 0,0,0",
        // White threatens to push black's E1 off.
        "r4/6/7/8/bwww5/8/7/6/bb3 b 0,0,0",
        // The same, red to move after black.
        "r4/6/7/3rr3/bwww1b3/8/7/6/5 b 0,0,0",
    ];

    fn positions() -> Vec<GeneralPosition> {
        TACTICAL
            .iter()
            .map(|text| GeneralPosition::from_text(text, Some(&three())).unwrap())
            .collect()
    }

    #[test]
    fn the_count_is_the_plain_paranoid_minimax() {
        let mut varied = 0;
        for position in positions() {
            let counted = Counted::of(&position);
            for depth in 0..=3 {
                let exact = minimax(&position, counted, depth);
                assert_eq!(
                    search(&position, counted, depth, -WIN - 1, WIN + 1),
                    exact,
                    "{position} at depth {depth}"
                );
                varied += usize::from(exact != 0);
            }
            // And move by move, exactly and as null-window questions.
            for mv in position.legal_moves() {
                let exact = minimax(&position.play(mv), counted, 2);
                assert_eq!(move_value(&position, mv, 3), exact, "{position} {mv:?}");
                assert!(value_at_least(&position, mv, 3, exact));
                assert!(!value_at_least(&position, mv, 3, exact + 1));
            }
        }
        // The positions are tactical: some count is not zero.
        assert!(varied > 0);
    }

    #[test]
    fn a_free_marble_is_taken_and_a_threatened_one_saved() {
        let [free, _, threatened, _] = positions().try_into().unwrap();
        // Black pushes white's E9 off, with two marbles or three: the moves
        // that gain.
        let gains: Vec<GeneralMove> = free
            .legal_moves()
            .into_iter()
            .filter(|&mv| move_value(&free, mv, 1) == 1)
            .collect();
        assert_eq!(gains.len(), 2);
        assert!(gains.iter().all(|&mv| free.play(mv).seat_score(0) == 1));
        // Over two plies, leaving E1 where it is loses it; moving it keeps it.
        let keeps = |mv: GeneralMove| move_value(&threatened, mv, 2) == 0;
        let saving: Vec<GeneralMove> = threatened
            .legal_moves()
            .into_iter()
            .filter(|&mv| keeps(mv))
            .collect();
        assert!(!saving.is_empty());
        let losing = threatened
            .legal_moves()
            .into_iter()
            .find(|&mv| !keeps(mv))
            .unwrap();
        assert_eq!(move_value(&threatened, losing, 2), -1);
    }
}
