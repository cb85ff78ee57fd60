//! The symmetries of the board that a rules value keeps, and their action on
//! general positions and moves.
//!
//! The rules never say where a player sits: seats, teams and turn order are
//! the same under every symmetry, and a start layout is a position like any
//! other. What can break a symmetry is a cell with a role: a symmetry is kept
//! when it maps the obstacle cells onto themselves and the hole cells onto
//! themselves. (Neutral marbles move, so they belong to the position.)

use super::moves::{GeneralMove, MoveKind, rotation_moves, shield_moves};
use super::position::GeneralPosition;
use super::rules::{GeneralRules, MAX_SEATS, cells_of};
use crate::board::Cell;
use crate::symmetry::Symmetry;
use std::collections::HashMap;
use std::sync::OnceLock;

fn map_bits(symmetry: Symmetry, bits: u128) -> u128 {
    cells_of(bits)
        .into_iter()
        .fold(0, |out, cell| out | symmetry.apply_cell(cell).bit())
}

/// The symmetries (of the 12) that `rules` keeps, the identity first.
pub fn kept_symmetries(rules: &GeneralRules) -> Vec<Symmetry> {
    Symmetry::ALL
        .into_iter()
        .filter(|&s| {
            map_bits(s, rules.obstacles) == rules.obstacles
                && map_bits(s, rules.holes) == rules.holes
        })
        .collect()
}

/// The image of a general position under a symmetry its rules keep: marbles
/// moved, everything else (seat to move, scores, counters, result) kept.
pub fn apply_position(symmetry: Symmetry, position: &GeneralPosition) -> GeneralPosition {
    let mut marbles = [0u128; MAX_SEATS];
    for (seat, board) in marbles.iter_mut().enumerate() {
        *board = map_bits(symmetry, position.bitboard(seat));
    }
    position.with_boards(marbles, map_bits(symmetry, position.neutral_bitboard()))
}

/// The image of a move.
pub fn apply_move(symmetry: Symmetry, mv: GeneralMove) -> GeneralMove {
    type Key = (Vec<Cell>, Vec<Cell>);
    static INDEX: OnceLock<HashMap<Key, GeneralMove>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = HashMap::new();
        for (i, shield) in shield_moves().iter().enumerate() {
            let to = shield
                .cells
                .iter()
                .map(|c| c.neighbour(shield.dir).expect("on board"))
                .collect();
            let mut from = shield.cells.to_vec();
            from.sort();
            index.insert((from, to_sorted(to)), GeneralMove::shield(i));
        }
        for (i, rotation) in rotation_moves().iter().enumerate() {
            let from = vec![rotation.middle, rotation.ends[0], rotation.ends[1]];
            let to = vec![rotation.middle, rotation.to[0], rotation.to[1]];
            index.insert((pair_key(&from), pair_key(&to)), GeneralMove::rotation(i));
        }
        index
    });
    match mv.kind() {
        MoveKind::Group(group) => GeneralMove::group(symmetry.apply_move(group)),
        MoveKind::Shield(shield) => {
            let from: Vec<Cell> = shield
                .cells
                .iter()
                .map(|&c| symmetry.apply_cell(c))
                .collect();
            let dir = symmetry.apply_direction(shield.dir);
            let to = from
                .iter()
                .map(|c| c.neighbour(dir).expect("on board"))
                .collect();
            let mut from_sorted = from;
            from_sorted.sort();
            index[&(from_sorted, to_sorted(to))]
        }
        MoveKind::Rotation(rotation) => {
            let m = symmetry.apply_cell(rotation.middle);
            let from = vec![
                m,
                symmetry.apply_cell(rotation.ends[0]),
                symmetry.apply_cell(rotation.ends[1]),
            ];
            let to = vec![
                m,
                symmetry.apply_cell(rotation.to[0]),
                symmetry.apply_cell(rotation.to[1]),
            ];
            index[&(pair_key(&from), pair_key(&to))]
        }
    }
}

fn to_sorted(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort();
    cells
}

/// Middle first, then the two others sorted: a rotation's cells before or
/// after, independent of the order its ends are listed in.
fn pair_key(cells: &[Cell]) -> Vec<Cell> {
    let mut rest = cells[1..].to_vec();
    rest.sort();
    let mut key = vec![cells[0]];
    key.extend(rest);
    key
}
