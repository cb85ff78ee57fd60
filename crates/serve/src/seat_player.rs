//! The players of a page's seats: the programs that play a seat (the
//! classical players from the page's menu, and models), each a `Player` of
//! its own game that sees the page's positions (the general engine's) as
//! positions of that game; how one thinks about a move, within a time cap,
//! and how long it took; and a player's turn as the server runs it on
//! another thread.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sumito_arena::player::{Player, tighter_time};
use sumito_engine::general::{GeneralMove, GeneralPosition};
use sumito_game::{Board, GameKind, with_board};
use sumito_play::session::SeatedPlayer;

use crate::menu::{CLASSICAL_THINK_LIMIT, MODEL_PLANNED_SHARE, PagePlayer, PagePolicy};
use sumito_arena::arena_board::ArenaBoard;

/// A player at a seat: a player of any game, which sees the page's
/// positions (the general engine's) as positions of its own game.
pub struct SeatPlayer(Box<dyn PageSeat + Send>);

impl std::fmt::Debug for SeatPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatPlayer")
    }
}

/// A player's answer: the move and, if it estimates it, its win probability.
#[derive(Clone, Copy, Debug)]
pub struct PlayerMove {
    pub mv: GeneralMove,
    pub win: Option<f32>,
    /// Wall-clock time of the thinking.
    pub think: Duration,
}

impl SeatPlayer {
    /// `player`, a player of game `B` (the two-player engine's players
    /// and models for plain two-player games, the general game's for the
    /// others), at a seat of the page.
    pub fn of<B: Board>(player: SeatedPlayer<'static, B>) -> SeatPlayer {
        SeatPlayer(Box::new(InGame(player)))
    }

    /// `player`, which searches within its own budget (a model), at a seat
    /// of the page.
    pub fn searching<B: Board>(player: impl Player<B> + 'static) -> SeatPlayer {
        SeatPlayer::of(SeatedPlayer::searching(player.name(), Box::new(player)))
    }

    /// The classical player `chosen` from the page's menu, one of `game`'s
    /// classical players (the two-player engine's, with the command line's
    /// weights from `policy`, in a plain two-player game; the general
    /// game's otherwise), seeded with `seed`; it thinks at most
    /// [`CLASSICAL_THINK_LIMIT`] a move.
    pub fn classical(
        chosen: &PagePlayer,
        game: GameKind,
        policy: &PagePolicy,
        seed: u64,
    ) -> Result<SeatPlayer, String> {
        with_board!(game, B => {
            let entrant = B::classical_players()
                .prepare_str(&policy.player_spec(chosen, game))
                .map_err(|err| err.to_string())?;
            let mut seated = SeatedPlayer::of_entrant(&entrant, seed);
            seated.limit.time = tighter_time(seated.limit.time, Some(CLASSICAL_THINK_LIMIT));
            Ok(SeatPlayer::of::<B>(seated))
        })
    }

    /// Thinks about `position` (a seat's turn), at most `cap`.
    pub fn think(
        &mut self,
        position: &GeneralPosition,
        cap: Option<Duration>,
    ) -> Result<PlayerMove, String> {
        let started = Instant::now();
        let mut answer = self.0.think(position, cap)?;
        answer.think = started.elapsed();
        Ok(answer)
    }

    /// Sees `mv` played from `before` (a player that keeps its search tree
    /// along the game moves it on).
    pub(crate) fn observe(&mut self, before: &GeneralPosition, mv: GeneralMove) {
        self.0.observe(before, mv);
    }

    /// Forgets the game so far (a new game, an undo).
    pub(crate) fn new_game(&mut self) {
        self.0.new_game();
    }

    /// Ends its searches when `stop` is set.
    pub(crate) fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.0.set_stop(stop);
    }
}

/// A seat's player as the page drives it, whatever its game.
trait PageSeat {
    fn think(
        &mut self,
        position: &GeneralPosition,
        cap: Option<Duration>,
    ) -> Result<PlayerMove, String>;
    fn observe(&mut self, before: &GeneralPosition, mv: GeneralMove);
    fn new_game(&mut self);
    fn set_stop(&mut self, stop: Arc<AtomicBool>);
}

/// A player of game `B` at a seat of the page.
struct InGame<B: Board>(SeatedPlayer<'static, B>);

impl<B: Board> PageSeat for InGame<B> {
    fn think(
        &mut self,
        position: &GeneralPosition,
        cap: Option<Duration>,
    ) -> Result<PlayerMove, String> {
        let thought = self
            .0
            .think(&B::of_general(position)?, cap)
            .map_err(|err| err.to_string())?;
        Ok(PlayerMove {
            mv: B::general_move(thought.mv),
            win: thought.outlook.map(|o| o.win + 0.5 * o.draw),
            think: Duration::ZERO,
        })
    }

    fn observe(&mut self, before: &GeneralPosition, mv: GeneralMove) {
        if let (Ok(before), Some(mv)) = (B::of_general(before), B::move_of_general(mv)) {
            self.0.player.observe_move(&before, mv);
        }
    }

    fn new_game(&mut self) {
        self.0.player.new_game();
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.0.player.set_stop(stop);
    }
}

/// A seat player's turn, taken out of the session to think on another
/// thread.
#[derive(Debug)]
pub struct PlayerTurn {
    pub seat: usize,
    pub position: GeneralPosition,
    pub player: SeatPlayer,
    /// The time it aims at (its `think` cap): the deadline, or a share of
    /// it for a model.
    pub cap: Duration,
    /// The longest it may think: its limit, or the clock's share if
    /// tighter. Its search is stopped there.
    pub deadline: Duration,
    /// Whether it needs one of the server's search slots.
    pub searches: bool,
    /// Memory reserved from the server's budget while it searches.
    pub search_mb: u32,
}

impl PlayerTurn {
    /// The turn of `player` at `seat` in `position`, which may think
    /// `deadline` at most. A model plans its timed search from its measured
    /// speed, which a growing tree slows: it aims at
    /// [`MODEL_PLANNED_SHARE`] of its deadline, so that the stop at the
    /// deadline is a last resort. A classical player aims at the deadline.
    pub fn new(
        seat: usize,
        position: GeneralPosition,
        player: SeatPlayer,
        deadline: Duration,
        model: bool,
        searches: bool,
        search_mb: u32,
    ) -> PlayerTurn {
        PlayerTurn {
            seat,
            position,
            player,
            cap: match model {
                true => deadline.mul_f64(MODEL_PLANNED_SHARE),
                false => deadline,
            },
            deadline,
            searches,
            search_mb,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::menu::page_player;
    use sumito_engine::rules_table::RulesTable;

    #[test]
    fn a_classical_player_of_either_game_answers_a_legal_move_and_times_it() {
        let policy = PagePolicy::new(1024, None);
        for (layout, game) in [
            ("standard", GameKind::TwoPlayer),
            ("three-player", GameKind::General),
        ] {
            let layout = sumito_engine::general::GeneralLayout::from_name(layout).unwrap();
            let position = RulesTable::default().start(layout).unwrap();
            for spec in ["random", "greedy", "alphabeta:depth=1"] {
                let chosen = page_player(spec, game.is_two_player()).unwrap();
                let mut player = SeatPlayer::classical(&chosen, game, &policy, 1).unwrap();
                let answer = player
                    .think(&position, Some(Duration::from_secs(5)))
                    .unwrap();
                assert!(position.is_legal(answer.mv), "{spec}");
                assert!(answer.think > Duration::ZERO, "{spec}");
                // It follows the game, and starts another.
                player.observe(&position, answer.mv);
                player.new_game();
            }
        }
    }
}
