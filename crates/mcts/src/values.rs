//! What the tree knows about how a game will end: one value per side.
//!
//! A *side* is whoever shares a result: a player, or a team whose players
//! share one value. The search never sees seats, only sides ([`Game::to_play`]
//! names the side to move), so team games are games of fewer sides in which a
//! side may move several times in a row.
//!
//! Every side's value lies in `[-1, 1]`: `2 * share - 1`, where `share` is the
//! side's expected share of the result (a win is 1, a draw among `k` sides
//! gives each `1 / k`, a loss 0). With two sides this is the familiar
//! `win - loss` and the two values are each other's negation, which lets
//! [`ZeroSum`] store one number per node exactly as a two-player search does.
//! With more sides, [`SideValues`] stores one per side, and each node is
//! chosen by the side that moves there (max^n).
//!
//! [`Game::to_play`]: crate::Game::to_play

use std::fmt::Debug;

/// The most sides a game may have, which sizes [`SideValues`] (defined with
/// [`Side`], beneath this module).
pub use crate::side::MAX_SIDES;
use crate::side::{Side, Terminal};

/// Win, draw and loss probabilities from the point of view of the side to move.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Wdl {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
}

impl Wdl {
    /// A certain draw.
    pub const DRAW: Wdl = Wdl {
        win: 0.0,
        draw: 1.0,
        loss: 0.0,
    };
    /// No knowledge: win, draw and loss equally likely (expected value 0).
    pub const UNKNOWN: Wdl = Wdl {
        win: 1.0 / 3.0,
        draw: 1.0 / 3.0,
        loss: 1.0 / 3.0,
    };

    /// Marks an output slot as not yet written.
    pub(crate) const UNSET: Wdl = Wdl {
        win: f32::NAN,
        draw: f32::NAN,
        loss: f32::NAN,
    };

    /// The WDL without draws whose expected value is `value` (clamped to `[-1, 1]`),
    /// for evaluators with a scalar value head.
    pub fn from_value(value: f32) -> Wdl {
        let value = value.clamp(-1.0, 1.0);
        Wdl {
            win: (1.0 + value) / 2.0,
            draw: 0.0,
            loss: (1.0 - value) / 2.0,
        }
    }

    /// The expected value `win - loss`, in `[-1, 1]`.
    pub fn value(self) -> f32 {
        self.win - self.loss
    }

    /// The same outcome seen by the opponent.
    pub fn flipped(self) -> Wdl {
        Wdl {
            win: self.loss,
            draw: self.draw,
            loss: self.win,
        }
    }

    /// Checks that this is a probability distribution (to within rounding) and
    /// returns it normalised to sum exactly to 1.
    pub(crate) fn validated(self) -> Result<Wdl, String> {
        let parts = [self.win, self.draw, self.loss];
        if parts.iter().any(|p| !p.is_finite()) {
            return Err(format!("value {self:?} was not written or is not finite"));
        }
        if parts.iter().any(|&p| p < -1e-4) {
            return Err(format!("value {self:?} has a negative probability"));
        }
        let sum: f32 = parts.iter().sum();
        if (sum - 1.0).abs() > 1e-2 {
            return Err(format!("value {self:?} sums to {sum}, not 1"));
        }
        let [win, draw, loss] = parts.map(|p| p.max(0.0) / sum);
        Ok(Wdl { win, draw, loss })
    }
}

/// How the tree stores values, chosen by the game ([`crate::Game::Values`]):
/// [`ZeroSum`] for two sides, [`SideValues`] for more. Two-sided games pay
/// nothing for the generality: the search is compiled for each choice.
pub trait Values: Copy + Debug + Send + Sync + 'static {
    /// What an evaluator writes for a state: [`Wdl`] (side to move's view)
    /// for two sides, [`SideShares`] for more.
    type Estimate: Copy + PartialEq + Debug + Send + Sync;
    /// The running sum of backed-up values kept in every node.
    type Sum: Copy + Debug + Send + Sync;

    /// An empty sum.
    const ZERO_SUM: Self::Sum;
    /// A placeholder before a node is evaluated.
    const ZERO: Self;
    /// An estimate not yet written (invalid, so that an evaluator that
    /// forgets an item is caught).
    const UNSET: Self::Estimate;

    /// The estimate of an evaluator that knows nothing: every result equally
    /// likely.
    fn unknown(sides: usize) -> Self::Estimate;

    /// Checks an evaluator's `estimate` of a state where `to_play` moves and
    /// returns its values and its draw probability.
    fn from_estimate(
        estimate: Self::Estimate,
        to_play: Side,
        sides: usize,
    ) -> Result<(Self, f32), String>;

    /// The exact values of a finished game.
    fn of_terminal(outcome: Terminal, sides: usize) -> Self;

    /// The value for `player`'s side, in `[-1, 1]`.
    fn for_player(self, player: Side) -> f32;

    /// Adds these values to `sum`.
    fn add_to(self, sum: &mut Self::Sum);

    /// The sum of `player`'s values in `sum`.
    fn sum_for(sum: &Self::Sum, player: Side) -> f64;
}

/// Two sides whose values are each other's negation: one number, the first
/// side's value, per node.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ZeroSum(pub f32);

impl Values for ZeroSum {
    type Estimate = Wdl;
    type Sum = f64;

    const ZERO_SUM: f64 = 0.0;
    const ZERO: ZeroSum = ZeroSum(0.0);
    const UNSET: Wdl = Wdl::UNSET;

    fn unknown(_sides: usize) -> Wdl {
        Wdl::UNKNOWN
    }

    fn from_estimate(estimate: Wdl, to_play: Side, _sides: usize) -> Result<(Self, f32), String> {
        let wdl = estimate.validated()?;
        Ok((ZeroSum(to_play.sign() * wdl.value()), wdl.draw))
    }

    fn of_terminal(outcome: Terminal, _sides: usize) -> Self {
        ZeroSum(outcome.value_for(Side::FIRST))
    }

    #[inline]
    fn for_player(self, player: Side) -> f32 {
        player.sign() * self.0
    }

    #[inline]
    fn add_to(self, sum: &mut f64) {
        *sum += f64::from(self.0);
    }

    #[inline]
    fn sum_for(sum: &f64, player: Side) -> f64 {
        f64::from(player.sign()) * sum
    }
}

/// One value per side (up to [`MAX_SIDES`]), for games of more than two sides.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct SideValues(pub [f32; MAX_SIDES]);

/// An evaluator's estimate for a game of several sides: each side's
/// probability of winning outright (indexed by side, not relative to the side
/// to move) and the probability of a draw shared by all sides. Entries beyond
/// the game's sides are 0; together they sum to 1.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct SideShares {
    pub win: [f32; MAX_SIDES],
    pub draw: f32,
}

impl SideShares {
    /// The shares of a finished game (a value target): the winner's win
    /// share 1, a draw among every side a draw share of 1, a tie among `k`
    /// sides a win share of `1 / k` for each of them, so that
    /// [`Self::values`] gives [`Terminal::value_for_side`].
    pub fn of_terminal(outcome: Terminal, sides: usize) -> SideShares {
        let mut shares = SideShares {
            win: [0.0; MAX_SIDES],
            draw: 0.0,
        };
        match outcome {
            Terminal::Win(winner) => shares.win[winner.index()] = 1.0,
            Terminal::Draw => shares.draw = 1.0,
            Terminal::Tie(mask) => {
                let share = 1.0 / mask.count_ones() as f32;
                for (side, win) in shares.win.iter_mut().enumerate().take(sides) {
                    if mask & (1 << side) != 0 {
                        *win = share;
                    }
                }
            }
        }
        shares
    }

    /// The values these shares give each side: `2 * (win + draw / sides) - 1`.
    pub fn values(&self, sides: usize) -> [f32; MAX_SIDES] {
        let mut values = [0.0; MAX_SIDES];
        for (value, win) in values.iter_mut().zip(&self.win).take(sides) {
            *value = 2.0 * (win + self.draw / sides as f32) - 1.0;
        }
        values
    }
}

impl Values for SideValues {
    type Estimate = SideShares;
    type Sum = [f64; MAX_SIDES];

    const ZERO_SUM: [f64; MAX_SIDES] = [0.0; MAX_SIDES];
    const ZERO: SideValues = SideValues([0.0; MAX_SIDES]);
    const UNSET: SideShares = SideShares {
        win: [f32::NAN; MAX_SIDES],
        draw: f32::NAN,
    };

    fn unknown(sides: usize) -> SideShares {
        let share = 1.0 / (sides as f32 + 1.0);
        let mut win = [0.0; MAX_SIDES];
        win[..sides].fill(share);
        SideShares { win, draw: share }
    }

    fn from_estimate(
        estimate: SideShares,
        _to_play: Side,
        sides: usize,
    ) -> Result<(Self, f32), String> {
        let parts = estimate.win[..sides]
            .iter()
            .chain(std::iter::once(&estimate.draw));
        let mut sum = 0.0;
        for &p in parts {
            if !p.is_finite() {
                return Err(format!(
                    "value {estimate:?} was not written or is not finite"
                ));
            }
            if p < -1e-4 {
                return Err(format!("value {estimate:?} has a negative probability"));
            }
            sum += p.max(0.0);
        }
        if (sum - 1.0).abs() > 1e-2 {
            return Err(format!("value {estimate:?} sums to {sum}, not 1"));
        }
        let mut normalised = SideShares {
            win: [0.0; MAX_SIDES],
            draw: estimate.draw.max(0.0) / sum,
        };
        for (to, from) in normalised.win.iter_mut().zip(&estimate.win).take(sides) {
            *to = from.max(0.0) / sum;
        }
        Ok((SideValues(normalised.values(sides)), normalised.draw))
    }

    fn of_terminal(outcome: Terminal, sides: usize) -> Self {
        let mut values = [0.0; MAX_SIDES];
        for (side, value) in values.iter_mut().enumerate().take(sides) {
            *value = outcome.value_for_side(Side::new(side), sides);
        }
        SideValues(values)
    }

    #[inline]
    fn for_player(self, player: Side) -> f32 {
        self.0[player.index()]
    }

    #[inline]
    fn add_to(self, sum: &mut [f64; MAX_SIDES]) {
        for (total, &value) in sum.iter_mut().zip(&self.0) {
            *total += f64::from(value);
        }
    }

    #[inline]
    fn sum_for(sum: &[f64; MAX_SIDES], player: Side) -> f64 {
        sum[player.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sides_keep_the_win_minus_loss_value() {
        let (values, draw) = ZeroSum::from_estimate(
            Wdl {
                win: 0.6,
                draw: 0.1,
                loss: 0.3,
            },
            Side::SECOND,
            2,
        )
        .unwrap();
        assert!((values.for_player(Side::SECOND) - 0.3).abs() < 1e-6);
        assert!((values.for_player(Side::FIRST) + 0.3).abs() < 1e-6);
        assert!((draw - 0.1).abs() < 1e-6);
        assert_eq!(ZeroSum::of_terminal(Terminal::Draw, 2), ZeroSum(0.0));
        let mut sum = ZeroSum::ZERO_SUM;
        ZeroSum(0.5).add_to(&mut sum);
        ZeroSum(-0.25).add_to(&mut sum);
        assert_eq!(ZeroSum::sum_for(&sum, Side::SECOND), -0.25);
    }

    #[test]
    fn shares_of_outcomes_give_the_outcomes_values() {
        for outcome in [
            Terminal::Win(Side::new(2)),
            Terminal::Draw,
            Terminal::Tie(0b101),
            Terminal::Tie(0b011),
        ] {
            let shares = SideShares::of_terminal(outcome, 3);
            let total: f32 = shares.win.iter().sum::<f32>() + shares.draw;
            assert!((total - 1.0).abs() < 1e-6, "{outcome:?}");
            let values = shares.values(3);
            for (side, value) in values.iter().enumerate().take(3) {
                let expected = outcome.value_for_side(Side::new(side), 3);
                assert!((value - expected).abs() < 1e-6, "{outcome:?} side {side}");
            }
        }
    }

    #[test]
    fn many_sides_value_shares_and_ties() {
        let third = SideValues::of_terminal(Terminal::Win(Side::new(2)), 3);
        assert_eq!(third.0[..3], [-1.0, -1.0, 1.0]);
        let tie = SideValues::of_terminal(Terminal::Tie(0b011), 3);
        assert_eq!(tie.0[..3], [0.0, 0.0, -1.0]);
        let draw = SideValues::of_terminal(Terminal::Draw, 3);
        for value in &draw.0[..3] {
            assert!((value - (2.0 / 3.0 - 1.0)).abs() < 1e-6);
        }
        // The same draw as the estimate of a certain draw.
        let certain_draw = SideShares {
            win: [0.0; MAX_SIDES],
            draw: 1.0,
        };
        let (values, p_draw) = SideValues::from_estimate(certain_draw, Side::FIRST, 3).unwrap();
        assert_eq!(values, draw);
        assert_eq!(p_draw, 1.0);
        // Knowing nothing: every side at par.
        let (unknown, _) =
            SideValues::from_estimate(SideValues::unknown(3), Side::FIRST, 3).unwrap();
        for value in &unknown.0[..3] {
            assert!((value - (2.0 / 3.0 - 1.0)).abs() < 1e-6);
        }
    }

    #[test]
    fn many_sides_estimates_are_checked() {
        let unset = SideValues::from_estimate(SideValues::UNSET, Side::FIRST, 3);
        assert!(unset.unwrap_err().contains("not written"));
        let mut win = [0.0; MAX_SIDES];
        win[..3].copy_from_slice(&[0.5, 0.5, 0.5]);
        let too_much = SideShares { win, draw: 0.0 };
        assert!(
            SideValues::from_estimate(too_much, Side::FIRST, 3)
                .unwrap_err()
                .contains("sums to")
        );
        // Entries beyond the game's sides are not read.
        let mut win = [f32::NAN; MAX_SIDES];
        win[..2].copy_from_slice(&[0.25, 0.25]);
        let two = SideShares { win, draw: 0.5 };
        let (values, _) = SideValues::from_estimate(two, Side::FIRST, 2).unwrap();
        assert_eq!(values.0[..2], [0.0, 0.0]);
    }
}
