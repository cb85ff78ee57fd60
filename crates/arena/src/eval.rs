//! The static evaluation of the greedy and alpha-beta players: a weighted sum
//! of features in the style of ABA-PRO (Aichholzer, Aurenhammer, Werner):
//!
//! - **marbles off**: marbles each side has pushed off (by far the largest weight);
//! - **centre distance**: hexagonal distance of each side's marbles to a
//!   reference point, the weighted average of both sides' centres of mass and
//!   the board centre, so that a side is pulled towards the middle and
//!   towards the fight rather than towards a fixed cell;
//! - **cohesion**: pairs of adjacent own marbles;
//! - **danger**: own marbles on the edge that the opponent could push off
//!   with one move;
//! - **sumito**: the sumito (pushing) moves a side has available now.
//!
//! Every feature is measured for both colours and the evaluation is the
//! difference, from the side to move's point of view. The weights are an
//! [`EvalWeights`], loadable from TOML (`configs/eval-weights.toml`) so that
//! they can be tuned without recompiling.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sumito_engine::bitboard::{DIRECTION_SHIFTS, ON_BOARD, step};
use sumito_engine::{Color, Direction, Position};
use thiserror::Error;

use crate::spec::{SpecError, SpecParams};

/// Weights of the evaluation features, in evaluation points (the alpha-beta
/// scores are these points, rounded to whole numbers).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalWeights {
    /// Per marble pushed off by the side (minus those it lost).
    pub marble_off: f64,
    /// Per step of hexagonal distance to the reference point, summed over a
    /// side's marbles (scaled to a full set of 14, so that losing marbles does
    /// not look like centralising); the side closer to it gains.
    pub centre_distance: f64,
    /// Weight of the board centre (E5) in the reference point.
    pub reference_centre: f64,
    /// Weight of each side's centre of mass in the reference point.
    pub reference_mass: f64,
    /// Per pair of adjacent own marbles.
    pub cohesion: f64,
    /// Per own marble that the opponent could push off with one move (the
    /// side with fewer such marbles gains).
    pub danger: f64,
    /// Per sumito (pushing) move available.
    pub sumito: f64,
}

impl Default for EvalWeights {
    fn default() -> EvalWeights {
        EvalWeights {
            marble_off: 1000.0,
            centre_distance: 10.0,
            reference_centre: 1.0,
            reference_mass: 1.0,
            cohesion: 4.0,
            danger: 10.0,
            sumito: 4.0,
        }
    }
}

#[derive(Debug, Error)]
pub enum WeightsError {
    #[error("cannot read evaluation weights {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("evaluation weights {path}: {cause}")]
    Parse {
        path: PathBuf,
        cause: Box<toml::de::Error>,
    },
    #[error("evaluation weights {path}: {field} = {value} must be a finite number{extra}")]
    Value {
        path: PathBuf,
        field: &'static str,
        value: f64,
        extra: &'static str,
    },
}

impl EvalWeights {
    /// Reads weights from a TOML file; missing fields keep their defaults,
    /// unknown fields are an error (they are most likely typos).
    pub fn from_toml_file(path: &Path) -> Result<EvalWeights, WeightsError> {
        let text = sumito_fsio::read_text_capped(path, sumito_fsio::MAX_TEXT_FILE_BYTES).map_err(
            |source| WeightsError::Read {
                path: path.to_path_buf(),
                cause: source,
            },
        )?;
        EvalWeights::from_toml_str(&text, path)
    }

    /// Reads weights from TOML text; `path` only names the source in errors.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<EvalWeights, WeightsError> {
        let weights: EvalWeights = toml::from_str(text).map_err(|source| WeightsError::Parse {
            path: path.to_path_buf(),
            cause: Box::new(source),
        })?;
        let fields = [
            ("marble_off", weights.marble_off),
            ("centre_distance", weights.centre_distance),
            ("reference_centre", weights.reference_centre),
            ("reference_mass", weights.reference_mass),
            ("cohesion", weights.cohesion),
            ("danger", weights.danger),
            ("sumito", weights.sumito),
        ];
        for (field, value) in fields {
            if !value.is_finite() {
                return Err(WeightsError::Value {
                    path: path.to_path_buf(),
                    field,
                    value,
                    extra: "",
                });
            }
        }
        for (field, value) in [
            ("reference_centre", weights.reference_centre),
            ("reference_mass", weights.reference_mass),
        ] {
            if value < 0.0 {
                return Err(WeightsError::Value {
                    path: path.to_path_buf(),
                    field,
                    value,
                    extra: " and not negative",
                });
            }
        }
        if weights.reference_centre + weights.reference_mass <= 0.0 {
            return Err(WeightsError::Value {
                path: path.to_path_buf(),
                field: "reference_centre",
                value: weights.reference_centre,
                extra: " (reference_centre and reference_mass must not both be 0)",
            });
        }
        Ok(weights)
    }
}

/// The cells `t` such that `t + k·dir` is in `board`.
#[inline(always)]
fn ahead(board: u128, shift: i32, k: i32) -> u128 {
    step(board, -k * shift)
}

/// Row and diagonal of the centre E5.
const CENTRE: (f64, f64) = (4.0, 5.0);

/// The raw features of one colour.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SideFeatures {
    /// Opposing marbles this colour has pushed off.
    pub pushed_off: u32,
    /// Sum of distances to the reference point, scaled to 14 marbles.
    pub centre_distance: f64,
    /// Pairs of adjacent marbles of this colour.
    pub cohesion: u32,
    /// Marbles of this colour the opponent could push off with one move.
    pub danger: u32,
    /// Sumito moves available to this colour.
    pub sumito: u32,
}

/// The features of both colours, indexed by [`Color::index`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Features {
    pub sides: [SideFeatures; 2],
    /// The reference point as `(row, diag)`.
    pub reference: (f64, f64),
}

/// Hexagonal distance between two points in (row, diag) coordinates; exact
/// on cells and a norm in between, so it works for the fractional reference.
fn hex_distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dr, dd) = (a.0 - b.0, a.1 - b.1);
    dr.abs().max(dd.abs()).max((dr - dd).abs())
}

/// The marbles of one colour: bitboard and coordinates.
struct Marbles {
    bits: u128,
    coords: [(f64, f64); 14],
    count: usize,
}

impl Marbles {
    fn of(position: &Position, color: Color) -> Marbles {
        let mut marbles = Marbles {
            bits: position.bitboard(color),
            coords: [(0.0, 0.0); 14],
            count: 0,
        };
        for cell in position.marbles(color) {
            marbles.coords[marbles.count] = (f64::from(cell.row()), f64::from(cell.diag()));
            marbles.count += 1;
        }
        marbles
    }

    fn coords(&self) -> &[(f64, f64)] {
        &self.coords[..self.count]
    }

    fn mass_centre(&self) -> Option<(f64, f64)> {
        (self.count > 0).then(|| {
            let n = self.count as f64;
            let (r, d) = self
                .coords()
                .iter()
                .fold((0.0, 0.0), |(r, d), &(cr, cd)| (r + cr, d + cd));
            (r / n, d / n)
        })
    }
}

/// Sumito moves of `own` against `opp`: for each direction, the trailing
/// marbles of an own run of exactly 2 or 3 followed by fewer opposing
/// marbles and then an empty cell or the edge.
fn sumito_count(own: u128, opp: u128) -> u32 {
    let free = !(own | opp);
    DIRECTION_SHIFTS
        .iter()
        .map(|&s| {
            let pair = own & ahead(own, s, 1);
            let two_push_one = pair & ahead(opp, s, 2) & ahead(free, s, 3);
            let triple = pair & ahead(own, s, 2);
            let three_push = triple
                & ahead(opp, s, 3)
                & (ahead(free, s, 4) | (ahead(opp, s, 4) & ahead(free, s, 5)));
            (two_push_one | three_push).count_ones()
        })
        .sum()
}

/// Marbles of `own` that `opp` could push off with one move: on the edge
/// facing a direction, with (after at most one more own marble) more
/// opposing marbles lined up behind.
fn danger_count(own: u128, opp: u128) -> u32 {
    let off_board = !ON_BOARD;
    let endangered = DIRECTION_SHIFTS.iter().fold(0, |set, &s| {
        let at_edge = own & ahead(off_board, s, 1);
        let two_behind = ahead(opp, s, -1) & ahead(opp, s, -2);
        let pair_then_three =
            ahead(own, s, -1) & ahead(opp, s, -2) & ahead(opp, s, -3) & ahead(opp, s, -4);
        set | (at_edge & (two_behind | pair_then_three))
    });
    endangered.count_ones()
}

/// Pairs of adjacent marbles (each pair once: directions E, NE, NW).
fn cohesion_count(own: u128) -> u32 {
    [Direction::E, Direction::NE, Direction::NW]
        .iter()
        .map(|dir| (own & ahead(own, DIRECTION_SHIFTS[dir.index()], 1)).count_ones())
        .sum()
}

/// Measures every feature of `position`.
pub fn features(position: &Position, weights: &EvalWeights) -> Features {
    let marbles = [
        Marbles::of(position, Color::Black),
        Marbles::of(position, Color::White),
    ];
    let mut total_weight = weights.reference_centre;
    let mut reference = (
        CENTRE.0 * weights.reference_centre,
        CENTRE.1 * weights.reference_centre,
    );
    for side in &marbles {
        if let Some((r, d)) = side.mass_centre() {
            reference.0 += r * weights.reference_mass;
            reference.1 += d * weights.reference_mass;
            total_weight += weights.reference_mass;
        }
    }
    let reference = if total_weight > 0.0 {
        (reference.0 / total_weight, reference.1 / total_weight)
    } else {
        CENTRE
    };
    let sides = Color::ALL.map(|color| {
        let own = &marbles[color.index()];
        let opp = &marbles[color.opponent().index()];
        let distance: f64 = own
            .coords()
            .iter()
            .map(|&c| hex_distance(c, reference))
            .sum();
        SideFeatures {
            pushed_off: u32::from(position.marbles_off(color.opponent())),
            centre_distance: if own.count == 0 {
                0.0
            } else {
                distance * 14.0 / own.count as f64
            },
            cohesion: cohesion_count(own.bits),
            danger: danger_count(own.bits, opp.bits),
            sumito: sumito_count(own.bits, opp.bits),
        }
    });
    Features { sides, reference }
}

/// The evaluation of `position` from the side to move's point of view, in
/// points (see [`EvalWeights`]). Game ends are the search's business; this
/// only scores the board.
pub fn evaluate(position: &Position, weights: &EvalWeights) -> i32 {
    let features = features(position, weights);
    let us = position.side_to_move();
    let [mine, theirs] = [
        features.sides[us.index()],
        features.sides[us.opponent().index()],
    ];
    let difference = |a: u32, b: u32| f64::from(a) - f64::from(b);
    let score = weights.marble_off * difference(mine.pushed_off, theirs.pushed_off)
        + weights.centre_distance * (theirs.centre_distance - mine.centre_distance)
        + weights.cohesion * difference(mine.cohesion, theirs.cohesion)
        + weights.danger * difference(theirs.danger, mine.danger)
        + weights.sumito * difference(mine.sumito, theirs.sumito);
    score.round() as i32
}

/// Reads the `weights=PATH` parameter shared by the evaluating players: the
/// file's weights, or the defaults.
pub(crate) fn weights_param(params: &mut SpecParams<'_>) -> Result<Arc<EvalWeights>, SpecError> {
    match params.get_path("weights") {
        None => Ok(Arc::new(EvalWeights::default())),
        Some(path) => EvalWeights::from_toml_file(&path)
            .map(Arc::new)
            .map_err(|err| params.invalid(err.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules, Symmetry};

    fn position(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn start_layouts_are_balanced() {
        let weights = EvalWeights::default();
        for layout in Layout::NAMED {
            let start = Position::start(layout, Rules::default());
            let f = features(&start, &weights);
            assert_eq!(f.sides[0].cohesion, f.sides[1].cohesion, "{layout}");
            assert!((f.sides[0].centre_distance - f.sides[1].centre_distance).abs() < 1e-9);
            assert_eq!(evaluate(&start, &weights), 0, "{layout}");
        }
    }

    #[test]
    fn evaluation_is_invariant_under_symmetries() {
        let weights = EvalWeights::default();
        for start in sumito_engine::midgame_positions() {
            let value = evaluate(&start, &weights);
            for symmetry in Symmetry::ALL {
                assert_eq!(evaluate(&symmetry.apply_position(&start), &weights), value);
            }
        }
    }

    #[test]
    fn counts_sumito_and_danger() {
        // Black E7 E8, White E9 on the edge: Black's 2 push White's 1 off,
        // so White's E9 is in danger and Black has one sumito.
        let p = position("5/6/7/8/6bbw/8/7/6/5 b 0 0");
        let f = features(&p, &EvalWeights::default());
        let (black, white) = (f.sides[0], f.sides[1]);
        assert_eq!(black.sumito, 1);
        assert_eq!(white.danger, 1);
        assert_eq!(black.danger, 0);
        assert_eq!(white.sumito, 0);
        assert_eq!(black.cohesion, 1);
        // A pac (2 against 2) is neither.
        let p = position("5/6/7/8/5bbww/8/7/6/5 b 0 0");
        let f = features(&p, &EvalWeights::default());
        assert_eq!(f.sides[0].sumito + f.sides[1].sumito, 0);
        assert_eq!(f.sides[0].danger + f.sides[1].danger, 0);
        // An own marble behind the opponent blocks the sumito.
        let p = position("5/6/7/8/4bbwb1/8/7/6/5 b 0 0");
        assert_eq!(features(&p, &EvalWeights::default()).sides[0].sumito, 0);
        // 3 push 2 into the open.
        // 3 push 2 into the open; the front pair alone would be a pac.
        let p = position("5/6/7/8/bbbww4/8/7/6/5 b 0 0");
        assert_eq!(features(&p, &EvalWeights::default()).sides[0].sumito, 1);
    }

    /// `position` with the other side to move (through the text format).
    fn other_side_to_move(position: &Position) -> Position {
        let text = position.to_string();
        let mut fields: Vec<&str> = text.split(' ').collect();
        fields[1] = if fields[1] == "b" { "w" } else { "b" };
        Position::from_fen(&fields.join(" ")).unwrap()
    }

    /// Sumito moves and endangered marbles counted through the engine's
    /// legal moves, for the side to move: (its pushes, the opponent's
    /// marbles it could push off).
    fn counted_by_the_engine(position: &Position) -> (u32, u32) {
        let mover = position.side_to_move();
        let mut pushes = 0;
        let mut victims = std::collections::HashSet::new();
        for &mv in position.legal_moves().iter() {
            if position.is_push(mv) {
                pushes += 1;
            }
            if position.is_push_off(mv) {
                // The last of the opposing marbles in front of the group goes off.
                let dir = mv.direction();
                let mut off = mv.cells().last().unwrap();
                while let Some(next) = off.neighbour(dir)
                    && position.at(next) == Some(mover.opponent())
                {
                    off = next;
                }
                victims.insert(off);
            }
        }
        (pushes, victims.len() as u32)
    }

    proptest::proptest! {
        #[test]
        fn bitboard_counts_match_the_engine(layout in 0usize..9, seed in 0u64..1_000, plies in 0usize..80) {
            let start = Position::start(Layout::NAMED[layout], Rules::default());
            let position = *sumito_engine::random_playout(&start, plies, seed).last().unwrap();
            let f = features(&position, &EvalWeights::default());
            for p in [position, other_side_to_move(&position)] {
                if p.ending().is_some() {
                    continue;
                }
                let mover = p.side_to_move();
                let (pushes, victims) = counted_by_the_engine(&p);
                proptest::prop_assert_eq!(f.sides[mover.index()].sumito, pushes);
                proptest::prop_assert_eq!(f.sides[mover.opponent().index()].danger, victims);
            }
        }
    }

    #[test]
    fn marbles_off_dominate() {
        let weights = EvalWeights::default();
        let even = position("5/6/7/8/4b4/8/7/6/5 b 0 0");
        let ahead = position("5/6/7/8/4b4/8/7/6/5 b 0 1");
        assert_eq!(
            evaluate(&ahead, &weights) - evaluate(&even, &weights),
            weights.marble_off as i32
        );
    }

    #[test]
    fn weights_load_from_toml_with_clear_errors() {
        let path = Path::new("weights.toml");
        let w = EvalWeights::from_toml_str("cohesion = 7.5\n", path).unwrap();
        assert_eq!(w.cohesion, 7.5);
        assert_eq!(w.marble_off, EvalWeights::default().marble_off);
        let err = EvalWeights::from_toml_str("cohesoin = 1\n", path).unwrap_err();
        assert!(err.to_string().contains("cohesoin"), "{err}");
        assert!(err.to_string().contains("weights.toml"), "{err}");
        let err = EvalWeights::from_toml_str("reference_mass = -1\n", path).unwrap_err();
        assert!(err.to_string().contains("reference_mass"), "{err}");
        let err = EvalWeights::from_toml_str("reference_mass = 0\nreference_centre = 0\n", path)
            .unwrap_err();
        assert!(err.to_string().contains("both"), "{err}");
    }

    #[test]
    fn shipped_config_matches_the_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/eval-weights.toml");
        assert_eq!(
            EvalWeights::from_toml_file(&path).unwrap(),
            EvalWeights::default()
        );
    }
}
