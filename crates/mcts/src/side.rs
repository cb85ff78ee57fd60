//! Who plays and how a game ended, as the search sees them: a [`Side`] (a
//! player, or a team whose players share one value) and a finished game's
//! [`Terminal`] result, beneath the values the tree stores ([`crate::values`]).

/// The most sides a game may have (five players, each for themselves).
pub const MAX_SIDES: usize = 5;

/// A side: a player, or a team whose players share one value (see
/// [`crate::values`]). [`Side::FIRST`] moves first in the game's usual starting
/// position (Black in Abalone); a game has at most [`MAX_SIDES`] sides.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Side(u8);

impl Side {
    pub const FIRST: Side = Side(0);
    pub const SECOND: Side = Side(1);

    /// The side with this index (`< MAX_SIDES`).
    pub fn new(side: usize) -> Side {
        assert!(side < MAX_SIDES, "side {side} of at most {MAX_SIDES}");
        Side(side as u8)
    }

    /// 0 for [`Side::FIRST`], 1 for [`Side::SECOND`], and so on.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The other side of a two-sided game.
    pub fn opponent(self) -> Side {
        Side(1 - self.0.min(1))
    }

    /// +1 for [`Side::FIRST`], -1 for the other: multiplies a two-sided
    /// value stored from the first side's point of view into this side's.
    pub(crate) fn sign(self) -> f32 {
        if self.0 == 0 { 1.0 } else { -1.0 }
    }
}

/// A finished game as the search values it: which sides share the result,
/// named absolutely (not relative to the side to move). All the search needs
/// of how a game ends; why it ended, and in whose words, is the game's own
/// (for Abalone, the engine's `Ending`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Terminal {
    Win(Side),
    /// A draw shared by every side.
    Draw,
    /// A draw shared by some sides only (bit `i` set: side `i` shares it),
    /// the others lose. Only games of more than two sides end so.
    Tie(u8),
}

impl Terminal {
    /// The value of this outcome for `player` in a two-sided game: 1 for a
    /// win, 0 for a draw, -1 for a loss.
    pub fn value_for(self, player: Side) -> f32 {
        self.value_for_side(player, 2)
    }

    /// The value of this outcome for `player` in a game of `sides` sides:
    /// `2 * share - 1`, where a win is a share of 1 and a draw among `k`
    /// sides a share of `1 / k` each (see [`crate::values`]).
    pub fn value_for_side(self, player: Side, sides: usize) -> f32 {
        let share = match self {
            Terminal::Win(winner) => f32::from(u8::from(winner == player)),
            Terminal::Draw => 1.0 / sides as f32,
            Terminal::Tie(mask) if mask & (1 << player.0) != 0 => 1.0 / mask.count_ones() as f32,
            Terminal::Tie(_) => 0.0,
        };
        2.0 * share - 1.0
    }

    /// 1 for a draw shared by every side, else 0 (for reporting).
    pub fn draw_share(self) -> f32 {
        if self == Terminal::Draw { 1.0 } else { 0.0 }
    }
}
