//! The one Elo scale of the two-player game. Every Elo table (a run's, `sumito arena`'s, the
//! ladder's and the strength levels') holds the classical players it saw at
//! the ratings below and fits everyone else around them, so that a number
//! means the same wherever it is printed: in a run's log and curve, in a
//! bundle, in the level table and in the start-up banner.
//!
//! `random` is 0 by definition, and `greedy` is 722 above it: greedy wins
//! every game against random, so no match of the two measures the gap; 722
//! is what the ten strength levels of the shipped model measured, their
//! weak levels bridging the two (`sumito ladder quick --levels`, 20 games a
//! pairing). The alpha-beta depths are fitted from 100-game matches between
//! the classical players themselves, with greedy held at 722 (the chain
//! greedy–1–2–3–4–5 plus two cross-links, the ladder's openings; the games
//! and figures in docs/strength.md, "One Elo scale").

use sumito_game::GameKind;

use crate::elo::Anchor;

/// The classical players of the scale and their fixed ratings.
pub const ANCHORS: [(&str, f64); 7] = [
    ("random", 0.0),
    ("greedy", 722.0),
    ("alphabeta:depth=1", 946.0),
    ("alphabeta:depth=2", 1061.0),
    ("alphabeta:depth=3", 1173.0),
    ("alphabeta:depth=4", 1296.0),
    ("alphabeta:depth=5", 1452.0),
];

/// The fixed rating of `player` on the scale, if it is one of its anchors.
pub fn anchor_elo(player: &str) -> Option<f64> {
    ANCHORS
        .iter()
        .find(|(name, _)| *name == player)
        .map(|&(_, elo)| elo)
}

/// The anchor of a table of `players` (by index) of `game`: in the
/// two-player game every anchor of the scale among them held at its rating;
/// in the general game, whose classical players are other players (other
/// boards, other numbers of sides), `random` at 0; the mean at 0 when no
/// anchor played.
pub fn anchor_of<S: AsRef<str>>(game: GameKind, players: &[S]) -> Anchor {
    let elo_of = |name: &str| match game {
        GameKind::TwoPlayer => anchor_elo(name),
        GameKind::General => (name == "random").then_some(0.0),
    };
    let fixed: Vec<(usize, f64)> = players
        .iter()
        .enumerate()
        .filter_map(|(index, name)| elo_of(name.as_ref()).map(|elo| (index, elo)))
        .collect();
    if fixed.is_empty() {
        Anchor::Mean
    } else {
        Anchor::Fixed(fixed)
    }
}

/// The scale in words, for the foot of a table: "random 0, greedy 722, ...".
pub fn describe() -> String {
    ANCHORS
        .iter()
        .map(|(name, elo)| format!("{name} {elo:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_rises_with_strength_and_anchors_only_its_own_players() {
        assert!(ANCHORS.windows(2).all(|pair| pair[0].1 < pair[1].1));
        assert_eq!(anchor_elo("random"), Some(0.0));
        assert_eq!(anchor_elo("gen-4"), None);
        let players = ["gen-4", "greedy", "alphabeta:depth=2"];
        assert_eq!(
            anchor_of(GameKind::TwoPlayer, &players),
            Anchor::Fixed(vec![
                (1, 722.0),
                (2, anchor_elo("alphabeta:depth=2").unwrap())
            ])
        );
        assert_eq!(
            anchor_of(GameKind::TwoPlayer, &["gen-1", "gen-2"]),
            Anchor::Mean
        );
        // The general game's classical players are not the scale's: random
        // alone is held, at 0.
        assert_eq!(
            anchor_of(GameKind::General, &["gen-1", "greedy", "random"]),
            Anchor::player(2)
        );
        assert_eq!(anchor_of(GameKind::General, &players), Anchor::Mean);
        assert!(describe().starts_with("random 0, greedy 722, alphabeta:depth=1 "));
    }
}
