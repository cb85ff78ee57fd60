//! The one alpha-beta of the workspace: a fail-soft alpha-beta (negamax)
//! over any game tree, written once for every minimax there is: the exact
//! material counts of both games ([`crate::material`],
//! [`crate::general::material`]) and the arena's `alphabeta` players (the
//! two-player one with its table, move ordering and quiescence, and the
//! general game's paranoid one).
//!
//! What differs from game to game and from search to search is a
//! [`GameTree`]: what a node is before its children are searched (a leaf,
//! a finished game, a table's entry, a stopped search, or children in
//! the order to try them), and what the search learns when it leaves a node
//! or cuts one off. [`search`] is generic over it, so that each tree
//! compiles to a search of its own with no indirection.
//!
//! Scores are the mover's: those of the side whose seat is to move at the
//! node. A child's score counts for its parent with its sign turned when
//! the two movers play against each other ([`GameTree::opposed`]): always
//! in a game of two sides, and in a paranoid search of more (every other
//! side against one) when play passes between that side and the rest.

use std::ops::Neg;

/// A score of the search: ordered, and negated for the opposing side.
pub trait Score: Copy + PartialOrd + Neg<Output = Self> {
    /// The least score above `self`: the top of a null window.
    fn above(self) -> Self;
}

impl Score for i32 {
    #[inline]
    fn above(self) -> i32 {
        self + 1
    }
}

impl Score for f64 {
    #[inline]
    fn above(self) -> f64 {
        self.next_up()
    }
}

/// What a node is, before its children are searched.
#[derive(Debug)]
pub enum Node<S, C> {
    /// Its score is known without its children: a leaf, a finished game,
    /// an entry of a table.
    Known(S),
    /// The search was stopped (a time, a node count, a flag): no score.
    Stopped,
    /// Its children, in the order to search them, and the score the mover
    /// has without any of them (the lowest score, or a stand-pat score
    /// that a child must beat).
    Search { children: C, floor: S },
}

/// Where a node is searched: `depth` plies above the horizon, `ply` plies
/// below the root, in the window `(alpha, beta)`. Depth and ply are the
/// tree's own: the search hands a child `depth - 1` and `ply + 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Visit<S> {
    pub depth: i32,
    pub ply: usize,
    pub alpha: S,
    pub beta: S,
}

/// A game tree as [`search`] walks it.
pub trait GameTree {
    type Position;
    type Move: Copy;
    type Score: Score;
    /// A node's children still to search (see [`GameTree::next_child`]).
    type Children;
    /// Whether a child after the first is searched with a null window
    /// first, and again with the whole window only when it falls inside
    /// (principal variation search).
    const NULL_WINDOWS: bool = false;

    /// The node `position`, searched where `visit` says.
    fn enter(
        &mut self,
        position: &Self::Position,
        visit: Visit<Self::Score>,
    ) -> Node<Self::Score, Self::Children>;

    /// The next child of `position` to search, with the move to it.
    fn next_child(
        &mut self,
        position: &Self::Position,
        children: &mut Self::Children,
    ) -> Option<(Self::Move, Self::Position)>;

    /// Whether the mover of `child` plays against the mover of `position`.
    fn opposed(&self, _position: &Self::Position, _child: &Self::Position) -> bool {
        true
    }

    /// `mv` scored at least the window's `beta`, and the rest of
    /// `position`'s children are not searched.
    fn cut_off(&mut self, _position: &Self::Position, _mv: Self::Move, _visit: Visit<Self::Score>) {
    }

    /// `position`, searched where `visit` says, scored `best`, first
    /// reached by `best_move` (none if no child beat the floor).
    fn leave(
        &mut self,
        _position: &Self::Position,
        _visit: Visit<Self::Score>,
        _best: Self::Score,
        _best_move: Option<Self::Move>,
    ) {
    }
}

/// The score of `position` for its mover, `depth` plies above the horizon
/// and `ply` below the root: exact inside the window `(alpha, beta)`, a
/// bound outside it (fail-soft); `None` when the search was stopped.
#[inline]
pub fn search<T: GameTree>(
    tree: &mut T,
    position: &T::Position,
    depth: i32,
    alpha: T::Score,
    beta: T::Score,
    ply: usize,
) -> Option<T::Score> {
    let visit = Visit {
        depth,
        ply,
        alpha,
        beta,
    };
    let (mut children, mut best) = match tree.enter(position, visit) {
        Node::Known(score) => return Some(score),
        Node::Stopped => return None,
        Node::Search { children, floor } => (children, floor),
    };
    let mut alpha = alpha;
    if best > alpha {
        alpha = best;
    }
    let mut best_move = None;
    let mut first = true;
    while let Some((mv, child)) = tree.next_child(position, &mut children) {
        let opposed = tree.opposed(position, &child);
        let mut score;
        if T::NULL_WINDOWS && !first {
            score = score_of(
                tree,
                &child,
                opposed,
                depth - 1,
                alpha,
                alpha.above(),
                ply + 1,
            )?;
            if score > alpha && score < beta {
                score = score_of(tree, &child, opposed, depth - 1, alpha, beta, ply + 1)?;
            }
        } else {
            score = score_of(tree, &child, opposed, depth - 1, alpha, beta, ply + 1)?;
        }
        first = false;
        if score > best {
            best = score;
            best_move = Some(mv);
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    tree.cut_off(position, mv, visit);
                    break;
                }
            }
        }
    }
    tree.leave(position, visit, best, best_move);
    Some(best)
}

/// The score of `child` for the mover of its parent `position` (see
/// [`search`]): how a root's caller scores the root's children.
#[inline]
pub fn search_child<T: GameTree>(
    tree: &mut T,
    position: &T::Position,
    child: &T::Position,
    depth: i32,
    alpha: T::Score,
    beta: T::Score,
    ply: usize,
) -> Option<T::Score> {
    let opposed = tree.opposed(position, child);
    score_of(tree, child, opposed, depth, alpha, beta, ply)
}

/// The score of `child` for its parent's mover in the parent's window.
#[inline(always)]
fn score_of<T: GameTree>(
    tree: &mut T,
    child: &T::Position,
    opposed: bool,
    depth: i32,
    alpha: T::Score,
    beta: T::Score,
    ply: usize,
) -> Option<T::Score> {
    if opposed {
        search(tree, child, depth, -beta, -alpha, ply).map(Neg::neg)
    } else {
        search(tree, child, depth, alpha, beta, ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree given as nested lists: a leaf is its score for the side to
    /// move at the root's level parity; `teams[i]` says which team moves at
    /// depth `i` from the root, so that same-team plies are not negated.
    #[derive(Clone, Debug)]
    enum Toy {
        Leaf(i32),
        Inner(Vec<Toy>),
    }

    /// Scores for the team moving at the root (team 0); the other team
    /// minimises them.
    struct ToyTree<const NULL_WINDOWS: bool> {
        teams: Vec<usize>,
    }

    impl<const NULL_WINDOWS: bool> GameTree for ToyTree<NULL_WINDOWS> {
        type Position = (usize, Toy);
        type Move = usize;
        type Score = i32;
        type Children = std::iter::Enumerate<std::vec::IntoIter<Toy>>;
        const NULL_WINDOWS: bool = NULL_WINDOWS;

        fn enter(&mut self, position: &(usize, Toy), _: Visit<i32>) -> Node<i32, Self::Children> {
            let (level, node) = position;
            match node {
                Toy::Leaf(score) if self.teams[*level] == 0 => Node::Known(*score),
                Toy::Leaf(score) => Node::Known(-score),
                Toy::Inner(children) => Node::Search {
                    children: children.clone().into_iter().enumerate(),
                    floor: i32::MIN + 1,
                },
            }
        }

        fn next_child(
            &mut self,
            position: &(usize, Toy),
            children: &mut Self::Children,
        ) -> Option<(usize, (usize, Toy))> {
            children
                .next()
                .map(|(i, child)| (i, (position.0 + 1, child)))
        }

        fn opposed(&self, position: &(usize, Toy), child: &(usize, Toy)) -> bool {
            self.teams[position.0] != self.teams[child.0]
        }
    }

    /// Plain minimax for team 0 of the same tree.
    fn minimax(node: &Toy, level: usize, teams: &[usize]) -> i32 {
        match node {
            Toy::Leaf(score) => *score,
            Toy::Inner(children) => {
                let values = children.iter().map(|c| minimax(c, level + 1, teams));
                if teams[level] == 0 {
                    values.max().unwrap()
                } else {
                    values.min().unwrap()
                }
            }
        }
    }

    fn toy(seed: &mut u64, depth: usize) -> Toy {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as i32;
        if depth == 0 {
            Toy::Leaf(r % 21 - 10)
        } else {
            Toy::Inner(
                (0..2 + r as usize % 3)
                    .map(|_| toy(seed, depth - 1))
                    .collect(),
            )
        }
    }

    #[test]
    fn the_search_is_the_plain_minimax_for_any_order_of_teams() {
        let mut seed = 7;
        for teams in [
            vec![0, 1, 0, 1, 0],
            vec![0, 1, 1, 0, 1],
            vec![0, 0, 1, 1, 0],
        ] {
            for _ in 0..20 {
                let tree = toy(&mut seed, 4);
                let exact = minimax(&tree, 0, &teams);
                let root = (0, tree.clone());
                let plain = search(
                    &mut ToyTree::<false> {
                        teams: teams.clone(),
                    },
                    &root,
                    4,
                    -1000,
                    1000,
                    0,
                );
                let pvs = search(
                    &mut ToyTree::<true> {
                        teams: teams.clone(),
                    },
                    &root,
                    4,
                    -1000,
                    1000,
                    0,
                );
                assert_eq!(plain, Some(exact), "{teams:?} {tree:?}");
                assert_eq!(pvs, Some(exact), "{teams:?} {tree:?}");
                // A null window around the score tells which side of it
                // the score lies.
                let mut walker = ToyTree::<false> {
                    teams: teams.clone(),
                };
                assert!(search(&mut walker, &root, 4, exact - 1, exact, 0).unwrap() >= exact);
                assert!(search(&mut walker, &root, 4, exact, exact + 1, 0).unwrap() <= exact);
            }
        }
    }
}
