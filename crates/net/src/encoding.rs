//! The network's view of a position: input planes and the policy vector.
//!
//! # Input planes
//! [`INPUT_PLANES`] planes of [`GRID`]×[`GRID`] floats. The hexagon sits in a
//! 9×9 grid: cell (row `r`, diagonal `d`) is grid row `r`, column `d - 1`; the
//! 20 grid points outside the hexagon are 0 in every plane.
//!
//! Everything is seen by the side to move. When White is to move the board is
//! turned by 180° (a symmetry of the game, [`view_symmetry`]), so the mover's
//! marbles of a standard layout always start at the bottom. The policy uses the
//! same view: the network's policy index of an engine action `a` is
//! `view_symmetry(side).apply_action(a)` ([`policy_index`]).
//!
//! | plane | content |
//! |---|---|
//! | [`PLANE_OWN`] | the mover's marbles |
//! | [`PLANE_OPPONENT`] | the opponent's marbles |
//! | [`PLANE_ON_BOARD`] | 1 on the 61 cells (the convolutions see the rim) |
//! | [`PLANE_OWN_OFF`] | mover's marbles pushed off / 6, on every cell |
//! | [`PLANE_OPPONENT_OFF`] | opponent's marbles pushed off / 6 |
//! | [`PLANE_MARBLES_TO_WIN`] | push-offs needed to win / 6 |
//! | [`PLANE_MOVE_LIMIT_ON`] | 1 if a move limit applies |
//! | [`PLANE_MOVE_LIMIT_PROGRESS`] | ply / move limit (0 without one) |
//! | [`PLANE_NO_PUSH_OFF_ON`] | 1 if the "no push-off within K plies" rule applies |
//! | [`PLANE_NO_PUSH_OFF_PROGRESS`] | plies since the last push-off / K (0 without the rule) |
//! | [`PLANE_CENTRE_LINE`] | 1 on row E when that rule applies (it decides the game then) |
//!
//! A network with push-off planes (`[net.model] push_off_planes`, encoding
//! [`PUSH_OFF_ENCODING_VERSION`]) reads two more, the threats that decide
//! material at one ply, which a small network otherwise has to learn to see
//! from the marbles' geometry across the board (KataGo gives its network
//! liberties and ladders the same way):
//!
//! | plane | content |
//! |---|---|
//! | [`PLANE_PUSH_OFF_TARGETS`] | the opponent's marbles the mover can push off with one move |
//! | [`PLANE_PUSH_OFF_THREATS`] | the mover's marbles the opponent could push off if it were its turn |
//!
//! A change to any of this is a new [`ENCODING_VERSION`]; checkpoints record
//! the version they were trained with and refuse to load under another.
//!
//! # Symmetries
//! The 12 symmetries of the hexagon ([`Symmetry`]) act on planes by moving
//! every cell's values to the image cell ([`transform_planes`]) and on policy
//! vectors by moving every action's entry to the image action
//! ([`transform_policy`]). Because the 180° turn commutes with every symmetry
//! of the hexagon, `encode(s(p)) == transform_planes(s, encode(p))` holds in the
//! network's (turned) frame too, for all 12. Under the no-push-off rule the
//! centre line breaks the symmetry: only the 4 symmetries that keep row E on
//! row E are allowed ([`symmetries_for`]).

use std::sync::OnceLock;

use sumito_engine::{ACTION_COUNT, CELL_COUNT, Cell, Color, Move, Position, Rules, Symmetry};

use crate::NetError;

pub use sumito_game::formats::{ENCODING_VERSION, PUSH_OFF_ENCODING_VERSION};
/// Side of the square grid holding the hexagon.
pub const GRID: usize = 9;
/// Points of the grid.
pub const GRID_POINTS: usize = GRID * GRID;
/// Input planes per position.
pub const INPUT_PLANES: usize = 11;
/// Floats per encoded position.
pub const INPUT_LEN: usize = INPUT_PLANES * GRID_POINTS;
/// Input planes per position with the push-off planes.
pub const PUSH_OFF_INPUT_PLANES: usize = INPUT_PLANES + 2;
/// Floats per encoded position with the push-off planes.
pub const PUSH_OFF_INPUT_LEN: usize = PUSH_OFF_INPUT_PLANES * GRID_POINTS;
/// Entries of the policy vector: one per engine action.
pub const POLICY_LEN: usize = ACTION_COUNT;

pub const PLANE_OWN: usize = 0;
pub const PLANE_OPPONENT: usize = 1;
pub const PLANE_ON_BOARD: usize = 2;
pub const PLANE_OWN_OFF: usize = 3;
pub const PLANE_OPPONENT_OFF: usize = 4;
pub const PLANE_MARBLES_TO_WIN: usize = 5;
pub const PLANE_MOVE_LIMIT_ON: usize = 6;
pub const PLANE_MOVE_LIMIT_PROGRESS: usize = 7;
pub const PLANE_NO_PUSH_OFF_ON: usize = 8;
pub const PLANE_NO_PUSH_OFF_PROGRESS: usize = 9;
pub const PLANE_CENTRE_LINE: usize = 10;
pub const PLANE_PUSH_OFF_TARGETS: usize = 11;
pub const PLANE_PUSH_OFF_THREATS: usize = 12;

/// Marble counts are scaled by this (the standard number of push-offs to win).
const MARBLE_SCALE: f32 = 6.0;
/// Row E, the centre line.
const CENTRE_ROW: u8 = 4;

struct Tables {
    /// The 180° turn.
    half_turn: Symmetry,
    /// Grid point of every cell.
    grid_point: [usize; CELL_COUNT],
    /// Grid point of every cell after the 180° turn.
    turned_grid_point: [usize; CELL_COUNT],
    /// The symmetries that keep row E on row E.
    centre_line_symmetries: Vec<Symmetry>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let is_half_turn = |symmetry: &Symmetry| {
            Cell::all().all(|cell| {
                let image = symmetry.apply_cell(cell);
                image.row() == 8 - cell.row() && image.diag() == 10 - cell.diag()
            })
        };
        let half_turn = *Symmetry::ALL
            .iter()
            .find(|symmetry| is_half_turn(symmetry))
            .expect("the engine's symmetries include the 180° turn");
        let mut grid_point = [0; CELL_COUNT];
        let mut turned_grid_point = [0; CELL_COUNT];
        for cell in Cell::all() {
            grid_point[cell.index()] = grid_point_of(cell);
            turned_grid_point[cell.index()] = grid_point_of(half_turn.apply_cell(cell));
        }
        let centre_line_symmetries = Symmetry::ALL
            .iter()
            .copied()
            .filter(|symmetry| {
                Cell::all()
                    .filter(|cell| cell.row() == CENTRE_ROW)
                    .all(|cell| symmetry.apply_cell(cell).row() == CENTRE_ROW)
            })
            .collect();
        Tables {
            half_turn,
            grid_point,
            turned_grid_point,
            centre_line_symmetries,
        }
    })
}

/// Grid point (`row * 9 + diagonal - 1`) of a cell.
pub fn grid_point_of(cell: Cell) -> usize {
    usize::from(cell.row()) * GRID + usize::from(cell.diag()) - 1
}

/// The symmetry that turns the board into the network's frame for `side` to
/// move: the identity for Black, the 180° turn for White.
pub fn view_symmetry(side: Color) -> Symmetry {
    match side {
        Color::Black => Symmetry::IDENTITY,
        Color::White => tables().half_turn,
    }
}

/// The symmetries under which positions with these rules keep their meaning:
/// all 12, or the 4 that keep the centre line in place when the no-push-off
/// rule (decided on row E) applies.
pub fn symmetries_for(rules: Rules) -> &'static [Symmetry] {
    if rules.no_push_off_plies.is_some() {
        &tables().centre_line_symmetries
    } else {
        &Symmetry::ALL
    }
}

/// Floats per encoded position, with or without the push-off planes.
pub fn input_len(push_off_planes: bool) -> usize {
    if push_off_planes {
        PUSH_OFF_INPUT_LEN
    } else {
        INPUT_LEN
    }
}

/// Writes the [`input_len`] floats of `position` into `out` (all of it):
/// the basic planes, then the push-off planes if asked for.
pub fn encode_position(position: &Position, push_off_planes: bool, out: &mut [f32]) {
    out.fill(0.0);
    encode_position_zeroed(position, push_off_planes, out);
}

/// [`encode_position`] into floats that are all 0 already (a batch's fresh
/// inputs), which it writes only where they are not 0.
pub(crate) fn encode_position_zeroed(position: &Position, push_off_planes: bool, out: &mut [f32]) {
    let len = input_len(push_off_planes);
    assert_eq!(out.len(), len, "encode_position needs {len} floats");
    debug_assert!(out.iter().all(|&value| value == 0.0));
    let tables = tables();
    let me = position.side_to_move();
    let grid = match me {
        Color::Black => &tables.grid_point,
        Color::White => &tables.turned_grid_point,
    };
    let plane = |index: usize| index * GRID_POINTS;
    for cell in position.marbles(me) {
        out[plane(PLANE_OWN) + grid[cell.index()]] = 1.0;
    }
    for cell in position.marbles(me.opponent()) {
        out[plane(PLANE_OPPONENT) + grid[cell.index()]] = 1.0;
    }
    let rules = position.rules();
    let progress = |done: u32, limit: u32| (done as f32 / limit.max(1) as f32).min(1.0);
    let constants = [
        (PLANE_ON_BOARD, 1.0),
        (
            PLANE_OWN_OFF,
            f32::from(position.marbles_off(me)) / MARBLE_SCALE,
        ),
        (
            PLANE_OPPONENT_OFF,
            f32::from(position.marbles_off(me.opponent())) / MARBLE_SCALE,
        ),
        (
            PLANE_MARBLES_TO_WIN,
            f32::from(rules.marbles_to_win) / MARBLE_SCALE,
        ),
        (
            PLANE_MOVE_LIMIT_ON,
            if rules.max_plies.is_some() { 1.0 } else { 0.0 },
        ),
        (
            PLANE_MOVE_LIMIT_PROGRESS,
            rules
                .max_plies
                .map_or(0.0, |limit| progress(position.ply(), limit)),
        ),
        (
            PLANE_NO_PUSH_OFF_ON,
            if rules.no_push_off_plies.is_some() {
                1.0
            } else {
                0.0
            },
        ),
        (
            PLANE_NO_PUSH_OFF_PROGRESS,
            rules.no_push_off_plies.map_or(0.0, |limit| {
                progress(position.plies_since_push_off(), limit)
            }),
        ),
    ];
    for (index, value) in constants {
        if value != 0.0 {
            for &point in &tables.grid_point {
                out[plane(index) + point] = value;
            }
        }
    }
    if rules.no_push_off_plies.is_some() {
        // Row E is row E in both views (the half turn maps it onto itself).
        for cell in Cell::all().filter(|cell| cell.row() == CENTRE_ROW) {
            out[plane(PLANE_CENTRE_LINE) + tables.grid_point[cell.index()]] = 1.0;
        }
    }
    if push_off_planes {
        for cell in position.push_off_targets(me) {
            out[plane(PLANE_PUSH_OFF_TARGETS) + grid[cell.index()]] = 1.0;
        }
        for cell in position.push_off_targets(me.opponent()) {
            out[plane(PLANE_PUSH_OFF_THREATS) + grid[cell.index()]] = 1.0;
        }
    }
}

/// The network's policy index of engine action `action` in `position`.
pub fn policy_index(position: &Position, action: usize) -> usize {
    policy_index_for(position.side_to_move(), action)
}

/// The network's policy index of engine action `action` when `side` moves.
pub fn policy_index_for(side: Color, action: usize) -> usize {
    match side {
        Color::Black => action,
        Color::White => tables().half_turn.apply_action(action),
    }
}

/// Writes the dense policy target (network frame, [`POLICY_LEN`] floats) of a
/// search policy given over the legal moves of `position`. The weights are
/// normalised to sum to 1; every move must be legal and every weight finite
/// and non-negative, with a positive sum.
pub fn encode_policy_target(
    position: &Position,
    target: &[(Move, f32)],
    out: &mut [f32],
) -> Result<(), String> {
    assert_eq!(
        out.len(),
        POLICY_LEN,
        "policy targets have {POLICY_LEN} floats"
    );
    out.fill(0.0);
    let mut total = 0.0f32;
    for &(mv, weight) in target {
        if !weight.is_finite() || weight < 0.0 {
            return Err(format!(
                "policy weight {weight} of move {mv} is not a probability"
            ));
        }
        if !position.is_legal(mv) {
            return Err(format!("policy target names move {mv}, which is not legal"));
        }
        out[policy_index(position, mv.action())] += weight;
        total += weight;
    }
    if total <= 0.0 {
        return Err("policy target is empty or sums to 0".to_owned());
    }
    for value in out.iter_mut() {
        *value /= total;
    }
    Ok(())
}

/// Moves every cell's values of encoded planes to the cell's image under
/// `symmetry` (`out` is fully written).
pub fn transform_planes(symmetry: Symmetry, planes: &[f32], out: &mut [f32]) {
    assert_eq!(planes.len() % GRID_POINTS, 0, "whole planes");
    assert_eq!(out.len(), planes.len());
    out.fill(0.0);
    for cell in Cell::all() {
        let from = grid_point_of(cell);
        let to = grid_point_of(symmetry.apply_cell(cell));
        for plane in 0..planes.len() / GRID_POINTS {
            out[plane * GRID_POINTS + to] = planes[plane * GRID_POINTS + from];
        }
    }
}

/// Moves every action's entry of a policy vector to the action's image under
/// `symmetry` (`out` is fully written).
pub fn transform_policy(symmetry: Symmetry, policy: &[f32], out: &mut [f32]) {
    assert_eq!(policy.len(), POLICY_LEN);
    assert_eq!(out.len(), POLICY_LEN);
    for (action, &value) in policy.iter().enumerate() {
        out[symmetry.apply_action(action)] = value;
    }
}

/// Checks that `position` can be evaluated: the game is not over.
pub(crate) fn check_evaluable(index: usize, position: &Position) -> Result<(), NetError> {
    match sumito_game::Board::result_text(position) {
        None => Ok(()),
        Some(result) => Err(NetError::InvalidPosition {
            index,
            problem: format!("the game is over ({result}); there is nothing to evaluate"),
        }),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use sumito_engine::Layout;

    /// Positions from random games on several layouts and rule sets, for tests.
    pub(crate) fn sample_positions(count: usize, seed: u64) -> Vec<Position> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rule_sets = [
            Rules::default(),
            Rules {
                marbles_to_win: 6,
                max_plies: Some(200),
                no_push_off_plies: None,
            },
            Rules {
                marbles_to_win: 5,
                max_plies: Some(300),
                no_push_off_plies: Some(15),
            },
        ];
        let mut positions = Vec::with_capacity(count);
        while positions.len() < count {
            let layout = Layout::NAMED[rng.random_range(0..Layout::NAMED.len())];
            let rules = rule_sets[rng.random_range(0..rule_sets.len())];
            let mut position = Position::start(layout, rules);
            let plies = rng.random_range(0..60);
            for _ in 0..plies {
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                position = position.play(moves[rng.random_range(0..moves.len())]);
            }
            if position.ending().is_none() {
                positions.push(position);
            }
        }
        positions
    }

    /// Every plane, the push-off planes included.
    fn encoded(position: &Position) -> Vec<f32> {
        let mut planes = vec![0.0; PUSH_OFF_INPUT_LEN];
        encode_position(position, true, &mut planes);
        planes
    }

    #[test]
    fn the_basic_planes_are_the_first_planes_of_the_push_off_encoding() {
        for position in sample_positions(20, 5) {
            let mut basic = vec![0.0; INPUT_LEN];
            encode_position(&position, false, &mut basic);
            assert_eq!(basic[..], encoded(&position)[..INPUT_LEN]);
        }
    }

    #[test]
    fn push_off_planes_mark_the_marbles_each_side_can_push_off() {
        let mut marked = 0;
        for position in sample_positions(200, 7) {
            let planes = encoded(&position);
            let me = position.side_to_move();
            let grid = |cell: Cell| grid_point_of(view_symmetry(me).apply_cell(cell));
            let plane_cells = |plane: usize| -> Vec<usize> {
                (0..GRID_POINTS)
                    .filter(|&point| planes[plane * GRID_POINTS + point] == 1.0)
                    .collect()
            };
            let mut targets: Vec<usize> = position.push_off_targets(me).map(grid).collect();
            let mut threats: Vec<usize> =
                position.push_off_targets(me.opponent()).map(grid).collect();
            targets.sort();
            threats.sort();
            // Targets are the opponent's marbles, threats the mover's own.
            for &point in &targets {
                assert_eq!(planes[PLANE_OPPONENT * GRID_POINTS + point], 1.0);
            }
            for &point in &threats {
                assert_eq!(planes[PLANE_OWN * GRID_POINTS + point], 1.0);
            }
            assert_eq!(plane_cells(PLANE_PUSH_OFF_TARGETS), targets, "{position}");
            assert_eq!(plane_cells(PLANE_PUSH_OFF_THREATS), threats, "{position}");
            marked += targets.len() + threats.len();
        }
        assert!(marked > 20, "only {marked} marked marbles");
    }

    #[test]
    fn standard_start_from_both_sides() {
        let black = Position::start(Layout::Standard, Rules::default());
        let planes = encoded(&black);
        let count = |plane: usize| {
            planes[plane * GRID_POINTS..(plane + 1) * GRID_POINTS]
                .iter()
                .filter(|&&v| v == 1.0)
                .count()
        };
        assert_eq!(count(PLANE_OWN), 14);
        assert_eq!(count(PLANE_OPPONENT), 14);
        assert_eq!(count(PLANE_ON_BOARD), CELL_COUNT);
        // Black's marbles are on rows A-C: grid rows 0-2.
        let own = &planes[PLANE_OWN * GRID_POINTS..][..GRID_POINTS];
        assert!(
            own.iter()
                .enumerate()
                .all(|(point, &v)| v == 0.0 || point / GRID <= 2)
        );
        // After one Black move, White is to move and sees its marbles at the bottom.
        let white = black.play(black.legal_moves()[0]);
        let planes = encoded(&white);
        let own = &planes[PLANE_OWN * GRID_POINTS..][..GRID_POINTS];
        assert_eq!(own.iter().filter(|&&v| v == 1.0).count(), 14);
        assert!(
            own.iter()
                .enumerate()
                .all(|(point, &v)| v == 0.0 || point / GRID <= 2)
        );
    }

    #[test]
    fn off_board_points_are_zero_and_constants_fill_the_board() {
        let rules = Rules {
            marbles_to_win: 6,
            max_plies: Some(100),
            no_push_off_plies: Some(15),
        };
        let position = Position::start(Layout::BelgianDaisy, rules);
        let planes = encoded(&position);
        let on_board: Vec<usize> = Cell::all().map(grid_point_of).collect();
        for plane in 0..PUSH_OFF_INPUT_PLANES {
            for point in 0..GRID_POINTS {
                if !on_board.contains(&point) {
                    assert_eq!(
                        planes[plane * GRID_POINTS + point],
                        0.0,
                        "plane {plane} point {point}"
                    );
                }
            }
        }
        let first = on_board[0];
        assert_eq!(planes[PLANE_MARBLES_TO_WIN * GRID_POINTS + first], 1.0);
        assert_eq!(planes[PLANE_MOVE_LIMIT_ON * GRID_POINTS + first], 1.0);
        assert_eq!(planes[PLANE_NO_PUSH_OFF_ON * GRID_POINTS + first], 1.0);
        let centre: f32 = planes[PLANE_CENTRE_LINE * GRID_POINTS..][..GRID_POINTS]
            .iter()
            .sum();
        assert_eq!(centre, 9.0);
    }

    #[test]
    fn half_turn_is_found_and_is_its_own_inverse() {
        let turn = view_symmetry(Color::White);
        assert_ne!(turn, Symmetry::IDENTITY);
        assert_eq!(turn.inverse(), turn);
        for action in 0..POLICY_LEN {
            assert_eq!(
                policy_index_for(Color::White, policy_index_for(Color::White, action)),
                action
            );
        }
        assert_eq!(symmetries_for(Rules::default()).len(), 12);
        let centre_rules = Rules {
            no_push_off_plies: Some(15),
            ..Rules::default()
        };
        assert_eq!(symmetries_for(centre_rules).len(), 4);
        assert!(symmetries_for(centre_rules).contains(&turn));
    }

    #[test]
    fn encoding_commutes_with_every_symmetry() {
        for position in sample_positions(40, 1) {
            let planes = encoded(&position);
            let mut transformed = vec![0.0; PUSH_OFF_INPUT_LEN];
            for &symmetry in symmetries_for(position.rules()) {
                transform_planes(symmetry, &planes, &mut transformed);
                let image = symmetry.apply_position(&position);
                assert_eq!(encoded(&image), transformed, "{symmetry:?} on {position}");
            }
        }
    }

    #[test]
    fn policies_commute_with_every_symmetry() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for position in sample_positions(40, 3) {
            let moves = position.legal_moves();
            let target: Vec<(Move, f32)> =
                moves.iter().map(|&mv| (mv, rng.random::<f32>())).collect();
            let mut dense = vec![0.0; POLICY_LEN];
            encode_policy_target(&position, &target, &mut dense).unwrap();
            let mut transformed = vec![0.0; POLICY_LEN];
            let mut image_dense = vec![0.0; POLICY_LEN];
            for &symmetry in symmetries_for(position.rules()) {
                transform_policy(symmetry, &dense, &mut transformed);
                let image = symmetry.apply_position(&position);
                let image_target: Vec<(Move, f32)> = target
                    .iter()
                    .map(|&(mv, w)| (symmetry.apply_move(mv), w))
                    .collect();
                encode_policy_target(&image, &image_target, &mut image_dense).unwrap();
                assert_eq!(image_dense, transformed, "{symmetry:?} on {position}");
                for &mv in moves.iter() {
                    assert_eq!(
                        policy_index(&image, symmetry.apply_move(mv).action()),
                        symmetry.apply_action(policy_index(&position, mv.action()))
                    );
                }
            }
        }
    }

    #[test]
    fn policy_targets_are_checked() {
        let position = Position::start(Layout::Standard, Rules::default());
        let legal = position.legal_moves()[0];
        let illegal = (0..POLICY_LEN)
            .filter_map(Move::from_action)
            .find(|&mv| !position.is_legal(mv))
            .unwrap();
        let mut dense = vec![0.0; POLICY_LEN];
        assert!(
            encode_policy_target(&position, &[(illegal, 1.0)], &mut dense)
                .unwrap_err()
                .contains("not legal")
        );
        assert!(encode_policy_target(&position, &[(legal, f32::NAN)], &mut dense).is_err());
        assert!(encode_policy_target(&position, &[], &mut dense).is_err());
        encode_policy_target(&position, &[(legal, 3.0)], &mut dense).unwrap();
        assert_eq!(dense.iter().sum::<f32>(), 1.0);
    }
}
