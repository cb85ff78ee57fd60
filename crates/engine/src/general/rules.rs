//! The rules value of the general game: who plays (2–6 seats, every player
//! for themselves or teams, the turn order), the cells with a role, the extra
//! moves, the one-colour game, the targets and the limits.

use crate::board::{BOARD_MASK, Cell};
use std::fmt;

/// At most six players.
pub const MAX_SEATS: usize = 6;

/// The colour names of the seats, in seat order (the default turn order of
/// each layout). Two players are Black and White, as in the two-player game.
pub const SEAT_NAMES: [&str; MAX_SEATS] = ["black", "white", "red", "green", "blue", "yellow"];

/// The letters of the seats in the position text and on the ASCII board.
pub const SEAT_LETTERS: [char; MAX_SEATS] = ['b', 'w', 'r', 'g', 'u', 'y'];

/// Who plays: the number of seats, whether they form teams, and the turn
/// order.
///
/// Seats are numbered in the layout's turn order (0 moves first). With 3 or
/// 5 players every player plays for themselves. With 4 or 6 players partners
/// sit opposite and form teams: seat `s` plays in team `s % teams` (four
/// players: bottom 0 and top 2 against left 1 and right 3; six players:
/// bottom 0 and top 3, lower left 1 and upper right 4, upper left 2 and
/// lower right 5), so the teams alternate. With `partners_in_a_row` the partners of a team move
/// one after the other: seats 0, 2, 1, 3 (four players) or 0, 3, 1, 4, 2, 5
/// (six players).
///
/// A *side* is what wins: a player, or a team. Sides are numbered in the
/// order they first move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Seating {
    seats: u8,
    partners_in_a_row: bool,
}

/// Why a rules value cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("{0} players: Sumito plays 2 to 6")]
    Seats(usize),
    #[error("partners_in_a_row applies only to team games (4 or 6 players), not to {0} players")]
    PartnersInARow(usize),
    #[error(
        "marbles_to_win has {found} values, but {sides} sides play (one value for all, or one per {what} in turn order)"
    )]
    TargetCount {
        found: usize,
        sides: usize,
        what: &'static str,
    },
    /// A target out of its range ([`crate::check_rule_values`]).
    #[error(transparent)]
    Value(#[from] crate::RuleValueError),
    #[error("{cell} is both {first} and {second}")]
    CellRoles {
        cell: Cell,
        first: &'static str,
        second: &'static str,
    },
}

impl Seating {
    /// `seats` players (2–6); `partners_in_a_row` only for team games.
    pub fn new(seats: usize, partners_in_a_row: bool) -> Result<Seating, RulesError> {
        if !(2..=MAX_SEATS).contains(&seats) {
            return Err(RulesError::Seats(seats));
        }
        if partners_in_a_row && (!seats.is_multiple_of(2) || seats == 2) {
            return Err(RulesError::PartnersInARow(seats));
        }
        Ok(Seating {
            seats: seats as u8,
            partners_in_a_row,
        })
    }

    /// The two-player game.
    pub const TWO: Seating = Seating {
        seats: 2,
        partners_in_a_row: false,
    };

    /// Number of players.
    pub fn seats(self) -> usize {
        usize::from(self.seats)
    }

    /// Whether partners sit opposite and play as teams (4 and 6 players).
    pub fn teams(self) -> bool {
        self.seats >= 4 && self.seats.is_multiple_of(2)
    }

    /// Whether a team's partners move one after the other.
    pub fn partners_in_a_row(self) -> bool {
        self.partners_in_a_row
    }

    /// Number of sides (players, or teams).
    pub fn sides(self) -> usize {
        if self.teams() {
            self.seats() / 2
        } else {
            self.seats()
        }
    }

    /// The side seat `seat` plays for.
    pub fn side_of(self, seat: usize) -> usize {
        seat % self.sides()
    }

    /// The seats of side `side`.
    pub fn seats_of(self, side: usize) -> impl Iterator<Item = usize> {
        let sides = self.sides();
        (0..self.seats()).filter(move |&seat| seat % sides == side)
    }

    /// Whether seats `a` and `b` play for the same side.
    pub fn same_side(self, a: usize, b: usize) -> bool {
        self.side_of(a) == self.side_of(b)
    }

    /// The seats in the order they move.
    pub fn turn_order(self) -> Vec<usize> {
        if self.partners_in_a_row {
            let sides = self.sides();
            (0..sides).flat_map(|side| [side, side + sides]).collect()
        } else {
            (0..self.seats()).collect()
        }
    }

    /// The seat that moves after `seat`.
    pub fn next(self, seat: usize) -> usize {
        let order = self.turn_order();
        let at = order.iter().position(|&s| s == seat).unwrap_or(0);
        order[(at + 1) % order.len()]
    }

    /// What a side is called: `black`, or `black+red` for a team.
    pub fn side_name(self, side: usize) -> String {
        self.seats_of(side)
            .map(|seat| SEAT_NAMES[seat])
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// What a neutral marble pushed off (or into a hole) does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum NeutralPushOff {
    /// It counts as a marble pushed off by the pusher's opponent (with more
    /// than two sides: the first opposing seat after the pusher in turn
    /// order).
    #[default]
    OpponentScores,
    /// The pusher's side wins at once.
    PusherWins,
}

impl NeutralPushOff {
    /// `opponent-scores` or `pusher-wins`.
    pub fn name(self) -> &'static str {
        match self {
            NeutralPushOff::OpponentScores => "opponent-scores",
            NeutralPushOff::PusherWins => "pusher-wins",
        }
    }

    /// Reads [`NeutralPushOff::name`].
    pub fn from_name(name: &str) -> Option<NeutralPushOff> {
        match name {
            "opponent-scores" => Some(NeutralPushOff::OpponentScores),
            "pusher-wins" => Some(NeutralPushOff::PusherWins),
            _ => None,
        }
    }
}

/// Every rule of the general game that holds during play (the start is
/// separate: see [`super::GeneralSetup`]). Small and `Copy`; part of every
/// [`super::GeneralPosition`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GeneralRules {
    pub seating: Seating,
    /// Marbles each side must push off to win, by side (first
    /// [`Seating::sides`] entries).
    pub marbles_to_win: [u8; MAX_SEATS],
    /// Move limit in plies: then the side with the most marbles pushed off
    /// wins; equal best is a draw among them.
    pub max_plies: Option<u32>,
    /// After this many plies without a marble pushed off the game ends and
    /// the side holding the most cells of row E wins; equal best is a draw
    /// among them.
    pub no_push_off_plies: Option<u32>,
    /// Closed cells, as a bitboard.
    pub obstacles: u128,
    /// Cells that are always empty and swallow pushed marbles, as a bitboard.
    pub holes: u128,
    pub neutral_push_off: NeutralPushOff,
    pub shield_moves: bool,
    pub rotation_moves: bool,
    pub one_colour: bool,
}

impl GeneralRules {
    /// The plain rules for `seating`: 6 marbles to win, no limits, no cells
    /// with a role, no extra moves.
    pub fn plain(seating: Seating) -> GeneralRules {
        GeneralRules {
            seating,
            marbles_to_win: [6; MAX_SEATS],
            max_plies: None,
            no_push_off_plies: None,
            obstacles: 0,
            holes: 0,
            neutral_push_off: NeutralPushOff::OpponentScores,
            shield_moves: false,
            rotation_moves: false,
            one_colour: false,
        }
    }

    /// Sets the targets: one value for every side, or one per side in the
    /// order the sides first move.
    pub fn with_targets(mut self, targets: &[u8]) -> Result<GeneralRules, RulesError> {
        let sides = self.seating.sides();
        if targets.len() != 1 && targets.len() != sides {
            return Err(RulesError::TargetCount {
                found: targets.len(),
                sides,
                what: if self.seating.teams() {
                    "team"
                } else {
                    "player"
                },
            });
        }
        // The range is the same as the two-player game's.
        crate::check_rule_values(targets, None, None)?;
        for (side, target) in self.marbles_to_win.iter_mut().enumerate().take(sides) {
            *target = if targets.len() == 1 {
                targets[0]
            } else {
                targets[side]
            };
        }
        Ok(self)
    }

    /// Sets the obstacle and hole cells; a cell cannot be both.
    pub fn with_cells(
        mut self,
        obstacles: &[Cell],
        holes: &[Cell],
    ) -> Result<GeneralRules, RulesError> {
        self.obstacles = cells_to_bits(obstacles);
        self.holes = cells_to_bits(holes);
        if let Some(cell) = first_cell(self.obstacles & self.holes) {
            return Err(RulesError::CellRoles {
                cell,
                first: "an obstacle",
                second: "a hole",
            });
        }
        Ok(self)
    }

    /// The marbles side `side` must push off.
    pub fn target(&self, side: usize) -> u8 {
        self.marbles_to_win[side]
    }

    /// Cells a moving marble may enter when they are free: on the board, not
    /// an obstacle, not a hole.
    pub(crate) fn open_cells(&self) -> u128 {
        BOARD_MASK & !self.obstacles & !self.holes
    }

    /// Whether these rules are those of the two-player engine's
    /// [`crate::Position`] (then it plays them, much faster).
    pub fn is_two_player_plain(&self) -> bool {
        self.seating == Seating::TWO
            && self.marbles_to_win[0] == self.marbles_to_win[1]
            && self.obstacles == 0
            && self.holes == 0
            && !self.shield_moves
            && !self.rotation_moves
            && !self.one_colour
    }
}

impl fmt::Display for GeneralRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seating = self.seating;
        write!(f, "{} players", seating.seats())?;
        if seating.teams() {
            write!(f, " in {} teams", seating.sides())?;
            if seating.partners_in_a_row() {
                f.write_str(" (partners in a row)")?;
            }
        }
        let targets = &self.marbles_to_win[..seating.sides()];
        if targets.iter().all(|&t| t == targets[0]) {
            write!(f, ", {} marbles to win", targets[0])?;
        } else {
            let list: Vec<String> = (0..seating.sides())
                .map(|side| format!("{} {}", seating.side_name(side), targets[side]))
                .collect();
            write!(f, ", marbles to win: {}", list.join(", "))?;
        }
        match self.max_plies {
            Some(limit) => write!(f, ", {limit}-ply limit")?,
            None => f.write_str(", no move limit")?,
        }
        if let Some(plies) = self.no_push_off_plies {
            write!(f, ", ends after {plies} plies without a push-off")?;
        }
        for (bits, what) in [(self.obstacles, "obstacles"), (self.holes, "holes")] {
            if bits != 0 {
                let cells: Vec<String> = crate::board::bits(bits)
                    .filter_map(Cell::from_bit)
                    .map(|c| c.to_string())
                    .collect();
                write!(f, ", {what} {}", cells.join(" "))?;
            }
        }
        if self.neutral_push_off == NeutralPushOff::PusherWins {
            f.write_str(", a neutral marble pushed off wins")?;
        }
        if self.shield_moves {
            f.write_str(", shield moves")?;
        }
        if self.rotation_moves {
            f.write_str(", rotation moves")?;
        }
        if self.one_colour {
            f.write_str(", one colour")?;
        }
        Ok(())
    }
}

pub(crate) fn cells_to_bits(cells: &[Cell]) -> u128 {
    cells.iter().fold(0, |bits, cell| bits | cell.bit())
}

pub(crate) fn cells_of(bits: u128) -> Vec<Cell> {
    crate::board::bits(bits)
        .filter_map(Cell::from_bit)
        .collect()
}

pub(crate) fn first_cell(bits: u128) -> Option<Cell> {
    crate::board::bits(bits).filter_map(Cell::from_bit).next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn teams_alternate_and_partners_in_a_row_move_together() {
        let four = Seating::new(4, false).unwrap();
        assert_eq!(four.sides(), 2);
        assert_eq!(four.turn_order(), [0, 1, 2, 3]);
        assert!(four.same_side(0, 2) && four.same_side(1, 3) && !four.same_side(0, 1));
        let in_a_row = Seating::new(4, true).unwrap();
        assert_eq!(in_a_row.turn_order(), [0, 2, 1, 3]);
        assert_eq!(in_a_row.next(2), 1);
        assert_eq!(in_a_row.next(3), 0);
        let six = Seating::new(6, true).unwrap();
        assert_eq!(six.turn_order(), [0, 3, 1, 4, 2, 5]);
        assert_eq!(six.side_name(1), "white+blue");
        let three = Seating::new(3, false).unwrap();
        assert_eq!((three.sides(), three.teams()), (3, false));
        assert_eq!(
            Seating::new(3, true).unwrap_err(),
            RulesError::PartnersInARow(3)
        );
        assert_eq!(Seating::new(7, false).unwrap_err(), RulesError::Seats(7));
    }

    #[test]
    fn targets_are_one_for_all_or_one_per_side() {
        let rules = GeneralRules::plain(Seating::TWO)
            .with_targets(&[6, 4])
            .unwrap();
        assert_eq!((rules.target(0), rules.target(1)), (6, 4));
        let err = GeneralRules::plain(Seating::new(4, false).unwrap())
            .with_targets(&[6, 5, 4])
            .unwrap_err();
        assert!(err.to_string().contains("per team"), "{err}");
    }
}
