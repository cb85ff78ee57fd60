//! The network's view of a position of the general game (variants, 3 to 6
//! players): input planes for any number of seats, the policy index of every
//! move kind, and the value head's sides relative to the mover.
//!
//! # Frame
//! With two seats the board is turned by 180° when the second seat moves, as
//! in the two-player [`crate::encoding`], so a two-player variant keeps the
//! familiar view (the marble planes equal the two-player encoding's). With
//! three seats or more the board stays as it is: the seats of the layouts sit
//! at angles no single turn brings to the bottom for all of them, and the
//! seat planes already name who is who.
//!
//! # Input planes
//! [`GENERAL_INPUT_PLANES`] planes of 9×9 floats, laid out as in [`crate::encoding`]. Seats are taken
//! relative to the mover: *relative seat* `k` is the seat that moves `k`
//! turns after the mover (`k = 0` the mover).
//!
//! | planes | content |
//! |---|---|
//! | `PLANE_SEAT_MARBLES + k` (6) | relative seat `k`'s marbles |
//! | `PLANE_SEAT_RELATION + k` (6) | on every cell: 1 if relative seat `k` is on the mover's side (the mover, a partner), -1 if it is another side, 0 if the game has no such seat |
//! | `PLANE_SEAT_SCORE + k` (6) | marbles relative seat `k` has pushed off / 6 |
//! | `PLANE_SEAT_TARGET + k` (6) | marbles relative seat `k`'s side must push off / 6 |
//! | [`PLANE_NEUTRAL`] | neutral marbles |
//! | [`PLANE_OBSTACLE`] | obstacle cells |
//! | [`PLANE_HOLE`] | hole cells |
//! | [`PLANE_ON_BOARD`] | 1 on the 61 cells |
//! | [`PLANE_MOVE_LIMIT_ON`], [`PLANE_MOVE_LIMIT_PROGRESS`] | a move limit applies; plies played / limit |
//! | [`PLANE_NO_PUSH_OFF_ON`], [`PLANE_NO_PUSH_OFF_PROGRESS`], [`PLANE_CENTRE_LINE`] | the no-push-off rule applies; plies since the last push-off / K; row E under that rule |
//! | [`PLANE_SHIELD_MOVES`], [`PLANE_ROTATION_MOVES`] | these move kinds are allowed |
//! | [`PLANE_PUSHER_WINS`] | a neutral marble pushed off wins for the pusher |
//! | [`PLANE_ONE_COLOUR`] | one colour: every marble is common (then in the mover's plane) |
//!
//! A change to any of this is a new [`GENERAL_ENCODING_VERSION`].
//!
//! # Policy
//! One entry per move of every kind, [`GENERAL_POLICY_LEN`]: the index of a
//! move is [`GeneralMove::index`] of its image in the network's frame (group
//! moves, then shield moves, then rotations), whatever the rules allow, so
//! one network can serve every rules value.
//!
//! # Values
//! The value head has [`MAX_SIDES`] win outputs and a draw output. Output `k`
//! is the side that first moves `k` sides after the mover's side (sides in
//! the order they first move); [`absolute_shares`] turns the head's
//! probabilities into the search's [`SideShares`], indexed by side.

use sumito_engine::general::symmetry::apply_move;
use sumito_engine::general::{
    CellContent, GeneralMove, GeneralPosition, MAX_SEATS, NeutralPushOff,
};
use sumito_engine::{Cell, Color, Symmetry};
use sumito_game::GENERAL_ACTIONS;
use sumito_mcts::{MAX_SIDES, SideShares};

use crate::encoding::{GRID_POINTS, grid_point_of, view_symmetry};

pub use sumito_game::formats::GENERAL_ENCODING_VERSION;

pub const PLANE_SEAT_MARBLES: usize = 0;
pub const PLANE_SEAT_RELATION: usize = PLANE_SEAT_MARBLES + MAX_SEATS;
pub const PLANE_SEAT_SCORE: usize = PLANE_SEAT_RELATION + MAX_SEATS;
pub const PLANE_SEAT_TARGET: usize = PLANE_SEAT_SCORE + MAX_SEATS;
pub const PLANE_NEUTRAL: usize = PLANE_SEAT_TARGET + MAX_SEATS;
pub const PLANE_OBSTACLE: usize = PLANE_NEUTRAL + 1;
pub const PLANE_HOLE: usize = PLANE_OBSTACLE + 1;
pub const PLANE_ON_BOARD: usize = PLANE_HOLE + 1;
pub const PLANE_MOVE_LIMIT_ON: usize = PLANE_ON_BOARD + 1;
pub const PLANE_MOVE_LIMIT_PROGRESS: usize = PLANE_MOVE_LIMIT_ON + 1;
pub const PLANE_NO_PUSH_OFF_ON: usize = PLANE_MOVE_LIMIT_PROGRESS + 1;
pub const PLANE_NO_PUSH_OFF_PROGRESS: usize = PLANE_NO_PUSH_OFF_ON + 1;
pub const PLANE_CENTRE_LINE: usize = PLANE_NO_PUSH_OFF_PROGRESS + 1;
pub const PLANE_SHIELD_MOVES: usize = PLANE_CENTRE_LINE + 1;
pub const PLANE_ROTATION_MOVES: usize = PLANE_SHIELD_MOVES + 1;
pub const PLANE_PUSHER_WINS: usize = PLANE_ROTATION_MOVES + 1;
pub const PLANE_ONE_COLOUR: usize = PLANE_PUSHER_WINS + 1;

/// Input planes per position.
pub const GENERAL_INPUT_PLANES: usize = PLANE_ONE_COLOUR + 1;
/// Floats per encoded position.
pub const GENERAL_INPUT_LEN: usize = GENERAL_INPUT_PLANES * GRID_POINTS;
/// Entries of the policy vector: one per move of every kind.
pub const GENERAL_POLICY_LEN: usize = GENERAL_ACTIONS;
/// Outputs of the value head: a win per side (relative to the mover's side), then a draw.
pub const GENERAL_VALUE_LEN: usize = MAX_SIDES + 1;

/// Marble counts are scaled by this (the standard number of push-offs to win).
const MARBLE_SCALE: f32 = 6.0;
/// Row E, the centre line.
const CENTRE_ROW: u8 = 4;

/// The symmetry that turns the board into the network's frame when `seat`
/// moves in a game of `seats` seats (see the module documentation).
pub fn general_view_symmetry(seats: usize, seat: usize) -> Symmetry {
    if seats == 2 && seat == 1 {
        view_symmetry(Color::White)
    } else {
        Symmetry::IDENTITY
    }
}

fn frame(position: &GeneralPosition) -> Symmetry {
    general_view_symmetry(position.rules().seating.seats(), position.seat_to_move())
}

/// The seat `k` turns after the mover.
pub(crate) fn relative_seat(position: &GeneralPosition, k: usize) -> usize {
    let seating = position.rules().seating;
    (0..k).fold(position.seat_to_move(), |seat, _| seating.next(seat))
}

/// Writes the [`GENERAL_INPUT_LEN`] floats of `position` into `out` (all of it).
pub fn encode_general_position(position: &GeneralPosition, out: &mut [f32]) {
    assert_eq!(
        out.len(),
        GENERAL_INPUT_LEN,
        "encode_general_position needs {GENERAL_INPUT_LEN} floats"
    );
    out.fill(0.0);
    let rules = position.rules();
    let seating = rules.seating;
    let seats = seating.seats();
    let view = frame(position);
    let mover = position.seat_to_move();
    let plane = |index: usize| index * GRID_POINTS;
    // Relative index of every seat (seats in turn order from the mover).
    let mut relative = [0; MAX_SEATS];
    for k in 0..seats {
        relative[relative_seat(position, k)] = k;
    }
    for cell in Cell::all() {
        let point = grid_point_of(view.apply_cell(cell));
        let index = match position.at(cell) {
            CellContent::Marble(seat) => PLANE_SEAT_MARBLES + relative[seat],
            CellContent::Neutral => PLANE_NEUTRAL,
            CellContent::Obstacle => PLANE_OBSTACLE,
            CellContent::Hole => PLANE_HOLE,
            CellContent::Empty => PLANE_ON_BOARD,
        };
        out[plane(index) + point] = 1.0;
        out[plane(PLANE_ON_BOARD) + point] = 1.0;
        if rules.no_push_off_plies.is_some() && cell.row() == CENTRE_ROW {
            out[plane(PLANE_CENTRE_LINE) + point] = 1.0;
        }
    }
    let progress = |done: u32, limit: u32| (done as f32 / limit.max(1) as f32).min(1.0);
    let flag = |on: bool| if on { 1.0 } else { 0.0 };
    let mut constants = vec![
        (PLANE_MOVE_LIMIT_ON, flag(rules.max_plies.is_some())),
        (
            PLANE_MOVE_LIMIT_PROGRESS,
            rules
                .max_plies
                .map_or(0.0, |limit| progress(position.ply(), limit)),
        ),
        (
            PLANE_NO_PUSH_OFF_ON,
            flag(rules.no_push_off_plies.is_some()),
        ),
        (
            PLANE_NO_PUSH_OFF_PROGRESS,
            rules.no_push_off_plies.map_or(0.0, |limit| {
                progress(position.plies_since_push_off(), limit)
            }),
        ),
        (PLANE_SHIELD_MOVES, flag(rules.shield_moves)),
        (PLANE_ROTATION_MOVES, flag(rules.rotation_moves)),
        (
            PLANE_PUSHER_WINS,
            flag(rules.neutral_push_off == NeutralPushOff::PusherWins),
        ),
        (PLANE_ONE_COLOUR, flag(rules.one_colour)),
    ];
    for k in 0..seats {
        let seat = relative_seat(position, k);
        let relation = if seating.same_side(seat, mover) {
            1.0
        } else {
            -1.0
        };
        constants.push((PLANE_SEAT_RELATION + k, relation));
        constants.push((
            PLANE_SEAT_SCORE + k,
            f32::from(position.seat_score(seat)) / MARBLE_SCALE,
        ));
        constants.push((
            PLANE_SEAT_TARGET + k,
            f32::from(rules.target(seating.side_of(seat))) / MARBLE_SCALE,
        ));
    }
    for (index, value) in constants {
        if value != 0.0 {
            for cell in Cell::all() {
                out[plane(index) + grid_point_of(cell)] = value;
            }
        }
    }
}

/// The network's policy index of the move with action `action` (under the
/// position's rules) in `position`; `None` if no move has that action.
pub fn general_policy_index(position: &GeneralPosition, action: usize) -> Option<usize> {
    let mv = GeneralMove::from_action(action, position.rules())?;
    Some(apply_move(frame(position), mv).index())
}

/// The search's shares, indexed by side, of the value head's probabilities
/// `relative` (a win per side relative to the mover's side, then a draw;
/// [`GENERAL_VALUE_LEN`] entries, of which the first `sides` and the last
/// are used) for a position where side `mover_side` moves.
pub fn absolute_shares(relative: &[f32], mover_side: usize, sides: usize) -> SideShares {
    assert_eq!(relative.len(), GENERAL_VALUE_LEN);
    let mut win = [0.0; MAX_SIDES];
    for (k, &p) in relative.iter().take(sides).enumerate() {
        win[(mover_side + k) % sides] = p;
    }
    SideShares {
        win,
        draw: relative[MAX_SIDES],
    }
}

/// The value head's target (relative to the mover's side, see
/// [`absolute_shares`]) of a finished game's shares indexed by side.
pub fn relative_value_target(
    shares: &SideShares,
    mover_side: usize,
    sides: usize,
) -> [f32; GENERAL_VALUE_LEN] {
    let mut target = [0.0; GENERAL_VALUE_LEN];
    for (k, entry) in target.iter_mut().take(sides).enumerate() {
        *entry = shares.win[(mover_side + k) % sides];
    }
    target[MAX_SIDES] = shares.draw;
    target
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{INPUT_LEN, PLANE_OPPONENT, PLANE_OWN, encode_position};
    use sumito_engine::general::symmetry::{apply_position, kept_symmetries};
    use sumito_engine::general::{GeneralLayout, GeneralRules, GeneralSetup, Seating};
    use sumito_engine::{Layout, Position, Rules};
    use sumito_game::GeneralGame;
    use sumito_mcts::Game;

    fn start(layout: &str, rules: GeneralRules) -> GeneralPosition {
        GeneralSetup::layout(GeneralLayout::from_name(layout).unwrap())
            .start(&rules)
            .unwrap()
    }

    fn plane(planes: &[f32], index: usize) -> &[f32] {
        &planes[index * GRID_POINTS..(index + 1) * GRID_POINTS]
    }

    /// Positions along a deterministic game.
    fn along_a_game(position: GeneralPosition, plies: usize) -> Vec<GeneralPosition> {
        let mut game = GeneralGame(position);
        let mut actions = Vec::new();
        let mut out = vec![position];
        for ply in 0..plies {
            game.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            game.apply(actions[(ply * 7919 + 13) % actions.len()]);
            out.push(game.0);
        }
        out
    }

    #[test]
    fn two_seats_see_what_the_two_player_encoding_sees() {
        let mut classic = Position::start(Layout::BelgianDaisy, Rules::default());
        let mut general = GeneralGame(start("belgian-daisy", GeneralRules::plain(Seating::TWO)));
        let mut actions = Vec::new();
        let mut old = vec![0.0; INPUT_LEN];
        let mut new = vec![0.0; GENERAL_INPUT_LEN];
        for ply in 0..12 {
            encode_position(&classic, false, &mut old);
            encode_general_position(&general.0, &mut new);
            assert_eq!(
                plane(&new, PLANE_SEAT_MARBLES),
                plane(&old, PLANE_OWN),
                "ply {ply}"
            );
            assert_eq!(
                plane(&new, PLANE_SEAT_MARBLES + 1),
                plane(&old, PLANE_OPPONENT)
            );
            general.legal_actions(&mut actions);
            for &action in &actions {
                // The general game's policy index is the two-player one.
                assert_eq!(
                    general_policy_index(&general.0, action),
                    Some(crate::encoding::policy_index(&classic, action))
                );
            }
            let action = actions[(ply * 7919 + 13) % actions.len()];
            general.apply(action);
            classic = classic.play(sumito_engine::Move::from_action(action).unwrap());
        }
    }

    #[test]
    fn seats_are_seen_from_the_mover_with_partners_marked() {
        let rules = GeneralRules::plain(Seating::new(4, false).unwrap());
        let position = start("four-player", rules);
        let mut planes = vec![0.0; GENERAL_INPUT_LEN];
        for (ply, position) in along_a_game(position, 4).into_iter().enumerate() {
            encode_general_position(&position, &mut planes);
            let mover = position.seat_to_move();
            assert_eq!(mover, ply % 4);
            // The mover's marbles are in the first seat plane.
            let own: f32 = plane(&planes, PLANE_SEAT_MARBLES).iter().sum();
            assert_eq!(own as u32, position.marble_count(mover));
            // Relative seat 2 is the partner, 1 and 3 the other team; no 5th seat.
            let relation = |k: usize| plane(&planes, PLANE_SEAT_RELATION + k)[40];
            assert_eq!(
                [relation(0), relation(1), relation(2), relation(3)],
                [1.0, -1.0, 1.0, -1.0]
            );
            assert_eq!(relation(4), 0.0);
        }
    }

    #[test]
    fn the_frame_commutes_with_the_kept_symmetries() {
        let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        for position in along_a_game(start("three-player", rules), 9) {
            let mut planes = vec![0.0; GENERAL_INPUT_LEN];
            encode_general_position(&position, &mut planes);
            for symmetry in kept_symmetries(position.rules()) {
                let image = apply_position(symmetry, &position);
                let mut image_planes = vec![0.0; GENERAL_INPUT_LEN];
                encode_general_position(&image, &mut image_planes);
                for cell in Cell::all() {
                    let from = grid_point_of(cell);
                    let to = grid_point_of(symmetry.apply_cell(cell));
                    for index in 0..GENERAL_INPUT_PLANES {
                        assert_eq!(
                            planes[index * GRID_POINTS + from],
                            image_planes[index * GRID_POINTS + to],
                            "plane {index}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn policy_indices_are_distinct_and_value_sides_rotate() {
        let mut rules = GeneralRules::plain(Seating::new(3, false).unwrap());
        rules.shield_moves = true;
        rules.rotation_moves = true;
        let position = start("three-player", rules);
        let mut actions = Vec::new();
        GeneralGame(position).legal_actions(&mut actions);
        let mut indices: Vec<usize> = actions
            .iter()
            .map(|&a| general_policy_index(&position, a).unwrap())
            .collect();
        assert!(indices.iter().all(|&i| i < GENERAL_POLICY_LEN));
        indices.sort_unstable();
        indices.dedup();
        assert_eq!(indices.len(), actions.len());
        // Side 2 moves: the head's first output is side 2's win.
        let relative = [0.5, 0.2, 0.1, 0.0, 0.0, 0.2];
        let shares = absolute_shares(&relative, 2, 3);
        assert_eq!(shares.win[..3], [0.2, 0.1, 0.5]);
        assert_eq!(shares.draw, 0.2);
        assert_eq!(relative_value_target(&shares, 2, 3), relative);
    }
}
