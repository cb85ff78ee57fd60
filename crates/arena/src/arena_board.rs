//! A game as matches and ladders see it: its classical players (what
//! `random`, `greedy` and `alphabeta` mean in it) and its ladder. The
//! runs' fixed opponents and the commands' players start from these; the
//! networks' players are registered above, for any game.

use sumito_engine::Position;
use sumito_engine::general::GeneralPosition;
use sumito_game::Board;

use crate::ladder::{DEFAULT_OPPONENTS, GENERAL_OPPONENTS, Ladder, LadderConfig};
use crate::levels::LEVEL_OPPONENTS;
use crate::match_start::learned_or_default_layouts;
use crate::player::{Entrant, PlayerRegistry};
use crate::players::{classical_kinds, general};

/// A game's classical players and its ladder.
pub trait ArenaBoard: Board {
    /// Its classical players.
    fn classical_players() -> PlayerRegistry<Self>;

    /// The default opponents of its ladder, weakest first (`levels`: of a
    /// ladder of strength levels).
    fn ladder_opponents(levels: bool) -> &'static [&'static str];

    /// The ladder `player` climbs with `config`'s games (rounded as the
    /// game needs).
    fn ladder(player: &Entrant<Self>, config: &LadderConfig) -> Result<Ladder<Self>, String>;
}

impl ArenaBoard for Position {
    /// `random`, `greedy` and `alphabeta` with its transposition table.
    fn classical_players() -> PlayerRegistry<Position> {
        PlayerRegistry::of(classical_kinds())
    }

    fn ladder_opponents(levels: bool) -> &'static [&'static str] {
        if levels {
            &LEVEL_OPPONENTS
        } else {
            &DEFAULT_OPPONENTS
        }
    }

    /// The two-player ladder: its fixed openings and rules, so that its
    /// tables compare.
    fn ladder(player: &Entrant, config: &LadderConfig) -> Result<Ladder<Position>, String> {
        Ladder::of_player(player, config)
    }
}

impl ArenaBoard for GeneralPosition {
    /// `random`, `greedy` and the paranoid `alphabeta`, each taking any
    /// number of seats.
    fn classical_players() -> PlayerRegistry<GeneralPosition> {
        PlayerRegistry::of(general::classical_kinds())
    }

    fn ladder_opponents(_: bool) -> &'static [&'static str] {
        &GENERAL_OPPONENTS
    }

    /// The ladder of a model of the general game: under the rules it
    /// learned, on every layout it learned (Standard where its rules name
    /// none), its games rounded up to whole rotations of the sides
    /// ([`Ladder::general`]).
    fn ladder(
        player: &Entrant<GeneralPosition>,
        config: &LadderConfig,
    ) -> Result<Ladder<GeneralPosition>, String> {
        let Some(table) = &player.trained_rules else {
            return Err(format!(
                "{}: the ladder of the general game is that of a model of it, whose rules it plays under",
                player.name
            ));
        };
        let layouts = learned_or_default_layouts(&player.name, table)?;
        Ladder::general(table, &layouts, config)
    }
}
