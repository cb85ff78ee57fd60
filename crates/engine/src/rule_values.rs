//! The one check of the values of the rules (targets and limits), for the
//! two-player game and the general game alike: below both engines, so that
//! neither reaches into the other's files for it.

/// Marbles each player starts with, and the most a side can be asked to
/// push off.
pub const MARBLES_PER_SIDE: u8 = 14;

/// A rule's value outside its range (see [`check_rule_values`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key} {}", self.problem())]
pub struct RuleValueError {
    /// The key as the `[rules]` table names it, e.g. `max_plies`.
    pub key: &'static str,
    pub value: u32,
    /// The values allowed, e.g. `1 to 14`.
    pub allowed: &'static str,
}

impl RuleValueError {
    /// What is wrong, without the key: `is 0, must be 1 to 14`.
    pub fn problem(&self) -> String {
        format!("is {}, must be {}", self.value, self.allowed)
    }
}

/// The one check of the values of the rules, for the two-player game and
/// the general game alike (every `--rules` file, game record, run
/// configuration and bundle goes through it): `marbles_to_win` (one target,
/// or one per side) from 1 to [`MARBLES_PER_SIDE`], and the limits at least
/// 1 when given. A 0 would end every game before its first move, which no
/// command should play, record or train on.
pub fn check_rule_values(
    marbles_to_win: &[u8],
    max_plies: Option<u32>,
    no_push_off_plies: Option<u32>,
) -> Result<(), RuleValueError> {
    if let Some(&target) = marbles_to_win
        .iter()
        .find(|&&target| !(1..=MARBLES_PER_SIDE).contains(&target))
    {
        return Err(RuleValueError {
            key: "marbles_to_win",
            value: u32::from(target),
            allowed: "1 to 14",
        });
    }
    for (key, limit, allowed) in [
        (
            "max_plies",
            max_plies,
            "at least 1 (leave it out for no limit)",
        ),
        (
            "no_push_off_plies",
            no_push_off_plies,
            "at least 1 (leave it out for none)",
        ),
    ] {
        if limit == Some(0) {
            return Err(RuleValueError {
                key,
                value: 0,
                allowed,
            });
        }
    }
    Ok(())
}
