//! The moves of the general game and their action indices.
//!
//! A [`GeneralMove`] is one of
//! * the 1734 (group, direction) pairs of the two-player game ([`Move`]),
//!   the same indices 0..1734 (in team play a group may hold the partner's
//!   marbles in front of the mover's own; the pairs are the same);
//! * a **shield** move: a triangle of three mutually adjacent cells and one
//!   of six directions ([`SHIELD_COUNT`] in all, in the order of
//!   [`shield_moves`]);
//! * a **rotation**: a lance or arc of three cells turning 60° about its
//!   middle cell, anticlockwise or clockwise ([`ROTATION_COUNT`] in all, in
//!   the order of [`rotation_moves`]).
//!
//! A rules value's action space (the network's policy) is the 1734 group
//! moves, then the shield moves if the rules allow them, then the rotations
//! if they allow them: [`action_count`], [`GeneralMove::action`],
//! [`GeneralMove::from_action`].

use super::rules::GeneralRules;
use crate::action::{ACTION_COUNT, Move};
use crate::board::{Cell, Direction};
use std::sync::OnceLock;

/// The six directions anticlockwise, starting east: turning a neighbour of
/// a cell 60° anticlockwise about it takes it to the next direction here.
pub const ANTICLOCKWISE: [Direction; 6] = [
    Direction::E,
    Direction::NE,
    Direction::NW,
    Direction::W,
    Direction::SW,
    Direction::SE,
];

/// One shield move: the triangle (cells in ascending index order) and the
/// direction all three step.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ShieldMove {
    pub cells: [Cell; 3],
    pub dir: Direction,
}

/// One rotation: the middle cell stays; `ends` (the lower cell index first)
/// step to `to` (in the same order), both turning 60° the same way about the
/// middle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RotationMove {
    pub middle: Cell,
    pub ends: [Cell; 2],
    pub to: [Cell; 2],
    pub anticlockwise: bool,
}

impl RotationMove {
    /// Whether the three cells form a straight line (a lance) rather than an
    /// obtuse angle (an arc).
    pub fn is_lance(&self) -> bool {
        self.middle
            .direction_to(self.ends[0])
            .map(Direction::opposite)
            == self.middle.direction_to(self.ends[1])
    }
}

/// Every shield move on the 61 cells, in index order: triangles ordered by
/// their lowest cell (`{c, c+E, c+NE}` before `{c, c+NW, c+NE}`), each with
/// the six directions in [`Direction::ALL`] order; only moves whose
/// destinations are all on the board.
pub fn shield_moves() -> &'static [ShieldMove] {
    static TABLE: OnceLock<Vec<ShieldMove>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out = Vec::new();
        for cell in Cell::all() {
            let up = Direction::NE;
            for side in [Direction::E, Direction::NW] {
                let (Some(b), Some(c)) = (cell.neighbour(side), cell.neighbour(up)) else {
                    continue;
                };
                let mut cells = [cell, b, c];
                cells.sort();
                for dir in Direction::ALL {
                    if cells.iter().all(|cell| cell.neighbour(dir).is_some()) {
                        out.push(ShieldMove { cells, dir });
                    }
                }
            }
        }
        out
    })
}

/// Every rotation on the 61 cells, in index order: by middle cell; for each
/// the lances (end directions E–W, NE–SW, NW–SE) then the arcs (E–NW, NE–W,
/// NW–SW, W–SE, SW–E, SE–NE, by [`ANTICLOCKWISE`] index of the first end),
/// each turning anticlockwise then clockwise; only those whose four cells
/// besides the middle are on the board.
pub fn rotation_moves() -> &'static [RotationMove] {
    static TABLE: OnceLock<Vec<RotationMove>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out = Vec::new();
        let shapes: Vec<(usize, usize)> = (0..3)
            .map(|i| (i, i + 3))
            .chain((0..6).map(|i| (i, (i + 2) % 6)))
            .collect();
        for middle in Cell::all() {
            for &(a, b) in &shapes {
                for anticlockwise in [true, false] {
                    let turn = |i: usize| {
                        if anticlockwise {
                            (i + 1) % 6
                        } else {
                            (i + 5) % 6
                        }
                    };
                    let at = |i: usize| middle.neighbour(ANTICLOCKWISE[i]);
                    let (Some(ea), Some(eb), Some(ta), Some(tb)) =
                        (at(a), at(b), at(turn(a)), at(turn(b)))
                    else {
                        continue;
                    };
                    let (ends, to) = if ea < eb {
                        ([ea, eb], [ta, tb])
                    } else {
                        ([eb, ea], [tb, ta])
                    };
                    out.push(RotationMove {
                        middle,
                        ends,
                        to,
                        anticlockwise,
                    });
                }
            }
        }
        out
    })
}

/// Number of shield moves on the board.
pub fn shield_count() -> usize {
    shield_moves().len()
}

/// Number of rotations on the board.
pub fn rotation_count() -> usize {
    rotation_moves().len()
}

/// Shield moves on the 61 cells (pinned by a test).
pub const SHIELD_COUNT: usize = 480;
/// Rotations on the 61 cells (pinned by a test).
pub const ROTATION_COUNT: usize = 702;

/// A move of the general game: a group move, a shield move or a rotation.
/// Compact (`u16`): 0..1734 the group moves, then the shield moves, then the
/// rotations, whatever the rules (see [`GeneralMove::action`] for a rules
/// value's policy index).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct GeneralMove(u16);

/// What a [`GeneralMove`] does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveKind {
    Group(Move),
    Shield(ShieldMove),
    Rotation(RotationMove),
}

impl GeneralMove {
    /// A group move.
    pub fn group(mv: Move) -> GeneralMove {
        GeneralMove(mv.action() as u16)
    }

    pub(crate) fn shield(index: usize) -> GeneralMove {
        GeneralMove((ACTION_COUNT + index) as u16)
    }

    pub(crate) fn rotation(index: usize) -> GeneralMove {
        GeneralMove((ACTION_COUNT + SHIELD_COUNT + index) as u16)
    }

    /// The move with index `index` among every move of every kind (the
    /// inverse of [`GeneralMove::index`]), if there is one.
    pub fn from_index(index: usize) -> Option<GeneralMove> {
        (index < ACTION_COUNT + SHIELD_COUNT + ROTATION_COUNT).then_some(GeneralMove(index as u16))
    }

    /// Its index among every move of every kind.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// What it does.
    pub fn kind(self) -> MoveKind {
        let index = self.index();
        if index < ACTION_COUNT {
            MoveKind::Group(Move::from_action(index).expect("below ACTION_COUNT"))
        } else if index < ACTION_COUNT + SHIELD_COUNT {
            MoveKind::Shield(shield_moves()[index - ACTION_COUNT])
        } else {
            MoveKind::Rotation(rotation_moves()[index - ACTION_COUNT - SHIELD_COUNT])
        }
    }

    /// The group move, if it is one.
    pub fn as_group(self) -> Option<Move> {
        match self.kind() {
            MoveKind::Group(mv) => Some(mv),
            _ => None,
        }
    }

    /// Its policy index under `rules`, if these rules have such moves.
    pub fn action(self, rules: &GeneralRules) -> Option<usize> {
        let index = self.index();
        if index < ACTION_COUNT {
            Some(index)
        } else if index < ACTION_COUNT + SHIELD_COUNT {
            rules.shield_moves.then_some(index)
        } else if rules.rotation_moves {
            let shields = if rules.shield_moves { SHIELD_COUNT } else { 0 };
            Some(index - SHIELD_COUNT + shields)
        } else {
            None
        }
    }

    /// The move with policy index `action` under `rules`.
    pub fn from_action(action: usize, rules: &GeneralRules) -> Option<GeneralMove> {
        if action < ACTION_COUNT {
            return Some(GeneralMove(action as u16));
        }
        let mut rest = action - ACTION_COUNT;
        if rules.shield_moves {
            if rest < SHIELD_COUNT {
                return Some(GeneralMove::shield(rest));
            }
            rest -= SHIELD_COUNT;
        }
        (rules.rotation_moves && rest < ROTATION_COUNT).then(|| GeneralMove::rotation(rest))
    }

    /// The cells whose marbles this move picks up (the group; for a shield
    /// the triangle; for a rotation the two ends, the middle stays).
    pub fn moving_cells(self) -> Vec<Cell> {
        match self.kind() {
            MoveKind::Group(mv) => mv.cells().collect(),
            MoveKind::Shield(shield) => shield.cells.to_vec(),
            MoveKind::Rotation(rotation) => rotation.ends.to_vec(),
        }
    }
}

/// The size of `rules`' action space: 1734 group moves, plus the shield
/// moves and the rotations where the rules allow them.
pub fn action_count(rules: &GeneralRules) -> usize {
    ACTION_COUNT
        + if rules.shield_moves { SHIELD_COUNT } else { 0 }
        + if rules.rotation_moves {
            ROTATION_COUNT
        } else {
            0
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::general::rules::Seating;

    #[test]
    fn the_extra_move_tables_have_their_pinned_sizes_and_no_duplicates() {
        assert_eq!(shield_count(), SHIELD_COUNT);
        assert_eq!(rotation_count(), ROTATION_COUNT);
        let mut shields: Vec<_> = shield_moves().iter().map(|s| (s.cells, s.dir)).collect();
        shields.sort_by_key(|(c, d)| (*c, d.index()));
        shields.dedup();
        assert_eq!(shields.len(), SHIELD_COUNT);
        let mut rotations: Vec<_> = rotation_moves().iter().map(|r| (r.ends, r.to)).collect();
        rotations.sort();
        rotations.dedup();
        assert_eq!(rotations.len(), ROTATION_COUNT);
        // Every triangle is three mutually adjacent cells.
        for shield in shield_moves() {
            let [a, b, c] = shield.cells;
            assert!(a.direction_to(b).is_some() && a.direction_to(c).is_some());
            assert!(b.direction_to(c).is_some());
        }
        // A lance stays a lance, an arc an arc.
        for rotation in rotation_moves() {
            let after = RotationMove {
                ends: rotation.to,
                ..*rotation
            };
            assert_eq!(rotation.is_lance(), after.is_lance());
        }
    }

    #[test]
    fn action_indices_follow_the_rules_options() {
        let mut rules = GeneralRules::plain(Seating::TWO);
        assert_eq!(action_count(&rules), 1734);
        let rotation = GeneralMove::rotation(5);
        assert_eq!(rotation.action(&rules), None);
        rules.rotation_moves = true;
        assert_eq!(rotation.action(&rules), Some(1734 + 5));
        rules.shield_moves = true;
        assert_eq!(rotation.action(&rules), Some(1734 + SHIELD_COUNT + 5));
        assert_eq!(action_count(&rules), 1734 + SHIELD_COUNT + ROTATION_COUNT);
        for action in 0..action_count(&rules) {
            let mv = GeneralMove::from_action(action, &rules).unwrap();
            assert_eq!(mv.action(&rules), Some(action));
        }
        assert_eq!(GeneralMove::from_action(action_count(&rules), &rules), None);
    }
}
