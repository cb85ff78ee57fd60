//! One game played out between players, for either game (any
//! [`Board`]): the opening moves, then each side's player in turn until the
//! game ends, every player seeing every move. The matches of both games
//! ([`crate::arena::play_game`]) play their games here.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use sumito_game::Board;

use crate::player::{Player, PlayerError, SearchLimit};

/// The moves a player chose in a game and the time it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Thinking {
    pub moves: u32,
    pub time: Duration,
}

/// A game played to its end.
#[derive(Clone, Debug)]
pub struct PlayedOut<B: Board> {
    /// The last position (the game is over there).
    pub end: B,
    /// Every move, the opening's first.
    pub moves: Vec<B::Move>,
    /// Each side's thinking.
    pub thinking: Vec<Thinking>,
    /// The ply at which a position of the game first came again, if one
    /// did: players that cannot make progress often shuffle back and forth
    /// and leave the position alone then cycle until the move limit.
    pub first_repetition: Option<u32>,
}

/// Why a game was not played to its end.
#[derive(Debug)]
pub enum PlayOutError<M> {
    /// `stop()` said so before a move.
    Stopped,
    /// The player of `side` failed to choose at `ply`.
    Player {
        side: usize,
        ply: u32,
        cause: PlayerError,
    },
    /// The player of `side` chose a move that is not legal at `position`.
    IllegalMove {
        side: usize,
        mv: M,
        position: String,
    },
}

/// Plays `opening` from `start`, then lets `players[side]` (one a side, in
/// the board's side order) choose each move within `limits[side]` until the
/// game ends; every player is told of the new game and of every move.
/// `stop()` is asked before each chosen move.
pub fn play_out<B: Board>(
    start: B,
    opening: &[B::Move],
    players: &mut [Box<dyn Player<B>>],
    limits: &[SearchLimit],
    stop: &dyn Fn() -> bool,
) -> Result<PlayedOut<B>, PlayOutError<B::Move>> {
    for player in players.iter_mut() {
        player.new_game();
    }
    let mut position = start;
    let mut moves = Vec::new();
    // Every player sees every move (a search keeps its tree).
    let mut play = |position: &mut B, mv: B::Move, players: &mut [Box<dyn Player<B>>]| {
        for player in players.iter_mut() {
            player.observe_move(position, mv);
        }
        *position = position.play(mv);
        moves.push(mv);
    };
    for &mv in opening {
        play(&mut position, mv, players);
    }
    let mut thinking = vec![Thinking::default(); players.len()];
    let mut seen = HashSet::from([position.repetition_hash()]);
    let mut first_repetition = None;
    while !position.is_over() {
        if stop() {
            return Err(PlayOutError::Stopped);
        }
        let side = position.mover_side();
        let started = Instant::now();
        let chosen = players[side].choose_move(&position, &limits[side]);
        thinking[side].moves += 1;
        thinking[side].time += started.elapsed();
        let mv = chosen.map_err(|cause| PlayOutError::Player {
            side,
            ply: position.ply(),
            cause,
        })?;
        if !position.is_legal(mv) {
            return Err(PlayOutError::IllegalMove {
                side,
                mv,
                position: position.to_string(),
            });
        }
        play(&mut position, mv, players);
        if !seen.insert(position.repetition_hash()) && first_repetition.is_none() {
            first_repetition = Some(position.ply());
        }
    }
    Ok(PlayedOut {
        end: position,
        moves,
        thinking,
        first_repetition,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::RandomPlayer;
    use crate::players::general::seat_player;
    use sumito_engine::general::{GeneralLayout, GeneralPosition};
    use sumito_engine::rules_table::RulesTable;
    use sumito_engine::{Layout, Move, Position, Rules};

    /// Plays the first legal move, or (`illegal`) a move that is not legal.
    struct Stubborn {
        illegal: bool,
    }

    impl Player for Stubborn {
        fn name(&self) -> String {
            "stubborn".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            _: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            let legal = position.legal_moves();
            Ok(match self.illegal {
                false => legal[0],
                true => *Move::all()
                    .collect::<Vec<_>>()
                    .iter()
                    .find(|mv| !legal.contains(mv))
                    .unwrap(),
            })
        }
    }

    #[test]
    fn both_games_play_out_to_their_end() {
        let rules = Rules {
            max_plies: Some(40),
            ..Rules::default()
        };
        let start = Position::start(Layout::Standard, rules);
        let opening = [start.legal_moves()[3]];
        let mut players: Vec<Box<dyn Player>> = vec![
            Box::new(RandomPlayer::new(1)),
            Box::new(RandomPlayer::new(2)),
        ];
        let limits = [SearchLimit::default(); 2];
        let played = play_out(start, &opening, &mut players, &limits, &|| false).unwrap();
        assert!(played.end.is_game_over());
        assert_eq!(played.moves.len(), played.end.ply() as usize);
        assert_eq!(played.moves[0], opening[0]);
        let chosen: u32 = played.thinking.iter().map(|t| t.moves).sum();
        assert_eq!(chosen as usize, played.moves.len() - 1);

        let table = RulesTable {
            max_plies: Some(30),
            ..RulesTable::default()
        };
        let start: GeneralPosition = table
            .start(GeneralLayout::from_name("three-player").unwrap())
            .unwrap();
        let mut players: Vec<Box<dyn Player<GeneralPosition>>> = (0..3)
            .map(|seed| seat_player("random", seed).unwrap())
            .collect();
        let limits = [SearchLimit::default(); 3];
        let played = play_out(start, &[], &mut players, &limits, &|| false).unwrap();
        assert!(played.end.is_game_over());
        assert_eq!(played.thinking.iter().map(|t| t.moves).sum::<u32>(), 30);
    }

    #[test]
    fn an_illegal_move_and_a_stop_end_the_game_with_their_reason() {
        let start = Position::start(Layout::Standard, Rules::default());
        let mut players: Vec<Box<dyn Player>> = vec![
            Box::new(Stubborn { illegal: false }),
            Box::new(Stubborn { illegal: true }),
        ];
        let limits = [SearchLimit::default(); 2];
        match play_out(start, &[], &mut players, &limits, &|| false) {
            Err(PlayOutError::IllegalMove { side: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
        let asked = std::sync::atomic::AtomicU32::new(0);
        let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 1;
        match play_out(start, &[], &mut players, &limits, &stop) {
            Err(PlayOutError::Stopped) => {}
            other => panic!("{other:?}"),
        }
    }
}
