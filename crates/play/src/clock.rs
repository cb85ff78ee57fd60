//! Time control as the rule sheets describe it: each player has a base time
//! for the whole game (tournaments use 10–15 minutes); a player whose time
//! runs out loses. Optionally a player earns extra time for every opposing
//! marble they push off (the sheets suggest about 10–15 % of the base time).
//!
//! Written `MINUTES[+SECONDS]` on the command line: `10` is ten minutes each
//! with no increment, `15+90` fifteen minutes and 90 seconds more for each
//! marble pushed off. Both numbers may have decimals (`0.5+7.5`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use sumito_engine::general::MAX_SEATS;

/// Base time and increment per marble pushed off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each player's time for the whole game.
    pub base: Duration,
    /// Added to a player's clock for each opposing marble they push off.
    pub increment_per_push_off: Duration,
}

/// Why a time control text was not understood.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TimeControlError {
    #[error(
        "time control {text:?}: expected MINUTES or MINUTES+SECONDS (minutes per player, seconds added per marble pushed off), e.g. 10 or 15+90"
    )]
    Syntax { text: String },
    #[error("time control {text:?}: {what} {value:?} is not a number")]
    NotANumber {
        text: String,
        what: &'static str,
        value: String,
    },
    #[error("time control {text:?}: {what} must be {range}, got {value}")]
    OutOfRange {
        text: String,
        what: &'static str,
        range: &'static str,
        value: f64,
    },
}

/// The longest base time accepted: a week, far beyond any real game, but
/// small enough that no arithmetic on clocks can overflow.
const MAX_MINUTES: f64 = 7.0 * 24.0 * 60.0;

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let trimmed = text.trim();
        let (minutes, increment) = match trimmed.split_once('+') {
            Some((minutes, increment)) => (minutes.trim(), Some(increment.trim())),
            None => (trimmed, None),
        };
        if minutes.is_empty() || increment.is_some_and(str::is_empty) {
            return Err(TimeControlError::Syntax {
                text: text.to_string(),
            });
        }
        let number = |what: &'static str, value: &str| -> Result<f64, TimeControlError> {
            value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| TimeControlError::NotANumber {
                    text: text.to_string(),
                    what,
                    value: value.to_string(),
                })
        };
        let minutes = number("the base time in minutes", minutes)?;
        if !(minutes > 0.0 && minutes <= MAX_MINUTES) {
            return Err(TimeControlError::OutOfRange {
                text: text.to_string(),
                what: "the base time",
                range: "more than 0 and at most 10080 minutes (a week)",
                value: minutes,
            });
        }
        let increment = match increment {
            Some(value) => number("the increment in seconds", value)?,
            None => 0.0,
        };
        if !(0.0..=MAX_MINUTES * 60.0).contains(&increment) {
            return Err(TimeControlError::OutOfRange {
                text: text.to_string(),
                what: "the increment",
                range: "0 to 604800 seconds",
                value: increment,
            });
        }
        Ok(TimeControl {
            base: Duration::from_secs_f64(minutes * 60.0),
            increment_per_push_off: Duration::from_secs_f64(increment),
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} min", self.base.as_secs_f64() / 60.0)?;
        if !self.increment_per_push_off.is_zero() {
            write!(
                f,
                " + {} s per marble pushed off",
                self.increment_per_push_off.as_secs_f64()
            )?;
        }
        Ok(())
    }
}

/// The clock of every seat (at most six).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    control: TimeControl,
    seats: usize,
    left: [Duration; MAX_SEATS],
}

impl Clocks {
    /// The clocks of `seats` seats at the base time.
    pub fn new(control: TimeControl, seats: usize) -> Clocks {
        assert!((1..=MAX_SEATS).contains(&seats), "{seats} seats");
        Clocks {
            control,
            seats,
            left: [control.base; MAX_SEATS],
        }
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Time left to `seat`.
    pub fn left(&self, seat: usize) -> Duration {
        self.left[seat]
    }

    /// Every seat's clock, in seat order (Black's first).
    pub fn all(&self) -> &[Duration] {
        &self.left[..self.seats]
    }

    /// Takes `used` off `seat`'s clock. Returns `false` if that was more
    /// than the time left: the player has lost on time (the clock stays at 0).
    pub fn charge(&mut self, seat: usize, used: Duration) -> bool {
        let left = &mut self.left[seat];
        match left.checked_sub(used) {
            Some(rest) if !rest.is_zero() => {
                *left = rest;
                true
            }
            _ => {
                *left = Duration::ZERO;
                false
            }
        }
    }

    /// Adds the increment for `count` marbles pushed off by `seat`.
    pub fn reward_push_offs(&mut self, seat: usize, count: u32) {
        self.left[seat] += self.control.increment_per_push_off * count;
    }

    /// Takes back the increment of `count` push-offs by `seat` (when their
    /// moves are undone), never below one millisecond: undoing does not
    /// make a player lose on time.
    pub fn revoke_push_offs(&mut self, seat: usize, count: u32) {
        let left = &mut self.left[seat];
        *left = left
            .saturating_sub(self.control.increment_per_push_off * count)
            .max(Duration::from_millis(1));
    }

    /// A thinking budget for one move of `seat`: a thirtieth of the time
    /// left plus the increment of one push-off, and never more than half
    /// the time left, so that a game of typical length fits in the clock.
    pub fn move_budget(&self, seat: usize) -> Duration {
        let left = self.left(seat);
        (left / 30 + self.control.increment_per_push_off).min(left / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        text.parse()
    }

    #[test]
    fn minutes_and_optional_increment_in_seconds() {
        assert_eq!(
            parse("10").unwrap(),
            TimeControl {
                base: Duration::from_secs(600),
                increment_per_push_off: Duration::ZERO
            }
        );
        assert_eq!(
            parse(" 15+90 ").unwrap(),
            TimeControl {
                base: Duration::from_secs(900),
                increment_per_push_off: Duration::from_secs(90)
            }
        );
        let half = parse("0.5+7.5").unwrap();
        assert_eq!(half.base, Duration::from_secs(30));
        assert_eq!(half.increment_per_push_off, Duration::from_millis(7500));
        assert_eq!(half.to_string(), "0.5 min + 7.5 s per marble pushed off");
    }

    #[test]
    fn bad_time_controls_say_what_is_wrong() {
        for (text, needle) in [
            ("", "expected MINUTES"),
            ("10+", "expected MINUTES"),
            ("+5", "expected MINUTES"),
            ("ten", "the base time in minutes \"ten\" is not a number"),
            ("10+x", "the increment in seconds \"x\" is not a number"),
            ("0", "more than 0"),
            ("-3", "more than 0"),
            ("nan", "is not a number"),
            ("inf", "is not a number"),
            ("99999", "a week"),
            ("10+-1", "the increment must be 0 to 604800 seconds"),
        ] {
            let message = parse(text).unwrap_err().to_string();
            assert!(message.contains(needle), "{text:?}: {message}");
        }
    }

    #[test]
    fn running_out_of_time_is_reported_once_and_the_clock_stops_at_zero() {
        let mut clocks = Clocks::new(parse("1+10").unwrap(), 2);
        assert!(clocks.charge(0, Duration::from_secs(59)));
        assert_eq!(clocks.left(0), Duration::from_secs(1));
        assert_eq!(clocks.left(1), Duration::from_secs(60));
        clocks.reward_push_offs(0, 1);
        assert_eq!(clocks.left(0), Duration::from_secs(11));
        clocks.revoke_push_offs(0, 2);
        assert_eq!(clocks.left(0), Duration::from_millis(1));
        assert!(!clocks.charge(0, Duration::from_secs(1)));
        assert_eq!(clocks.left(0), Duration::ZERO);
        // Using exactly the time left is running out too.
        assert!(!clocks.charge(1, Duration::from_secs(60)));
    }

    #[test]
    fn the_move_budget_keeps_time_for_the_rest_of_the_game() {
        let clocks = Clocks::new(parse("10+60").unwrap(), 2);
        assert_eq!(clocks.move_budget(0), Duration::from_secs(80));
        let mut short = Clocks::new(parse("1+60").unwrap(), 3);
        assert_eq!(short.move_budget(1), Duration::from_secs(30));
        short.charge(1, Duration::from_secs(50));
        assert_eq!(short.move_budget(1), Duration::from_secs(5));
        assert_eq!(short.all().len(), 3);
        assert_eq!(short.left(2), Duration::from_secs(60));
    }
}
