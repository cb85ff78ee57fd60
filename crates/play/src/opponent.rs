//! What the terminal session plays against and asks for hints: an engine
//! that, given a position, proposes a move and, when it can, says how good
//! the position is and which line of play it expects.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sumito_arena::player::{Entrant, Player, PlayerError, SearchLimit, tighter_time};
use sumito_engine::{Move, Position};
use sumito_game::Board;

/// Win, draw and loss probabilities for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinProbability {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
}

/// An engine's answer for one position (a move `M` of its game).
#[derive(Clone, Debug, PartialEq)]
pub struct Thought<M = Move> {
    pub mv: M,
    /// The outlook of the side to move, from engines that estimate it.
    pub outlook: Option<WinProbability>,
    /// The expected line of play, starting with `mv` (may be just `mv`).
    pub principal_variation: Vec<M>,
    /// How much it searched, e.g. "800 simulations"; empty if nothing to say.
    pub effort: String,
    pub elapsed: Duration,
}

/// A move chooser for interactive play, in the game of the board `B`.
pub trait Opponent<B: Board = Position> {
    /// Label for the board and the game record.
    fn name(&self) -> String;

    /// A legal move in `position` (not over), thinking at most about `cap`
    /// if given (the clock's budget), otherwise within the engine's own limit.
    fn think(
        &mut self,
        position: &B,
        cap: Option<Duration>,
    ) -> Result<Thought<B::Move>, PlayerError>;

    /// Before a new game, after an undo or a load: forget earlier positions.
    fn new_game(&mut self);

    /// After every move played in the game, by any seat.
    fn observe_move(&mut self, before: &B, mv: B::Move);

    /// Hands the opponent a flag that, once set, ends a search in progress
    /// at once (a server's page closed); see `Player::set_stop`.
    fn set_stop(&mut self, _stop: Arc<AtomicBool>) {}
}

/// An opponent borrowed for a session (its owner keeps it afterwards).
impl<B: Board, O: Opponent<B> + ?Sized> Opponent<B> for &mut O {
    fn name(&self) -> String {
        (**self).name()
    }

    fn think(
        &mut self,
        position: &B,
        cap: Option<Duration>,
    ) -> Result<Thought<B::Move>, PlayerError> {
        (**self).think(position, cap)
    }

    fn new_game(&mut self) {
        (**self).new_game();
    }

    fn observe_move(&mut self, before: &B, mv: B::Move) {
        (**self).observe_move(before, mv);
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        (**self).set_stop(stop);
    }
}

/// A player of the arena (random, greedy, alpha-beta, and the general
/// game's players, networks of the general game included) as an opponent:
/// a move, and nothing else, through the common [`Player`] interface.
pub struct ClassicalOpponent<B: Board = Position> {
    name: String,
    limit: SearchLimit,
    player: Box<dyn Player<B>>,
}

/// Writes an opponent's `Debug` form: its type, its name and how long it
/// thinks (`limit`, a label and value), but not the engine inside, as boxed
/// players and evaluators have no `Debug` form.
pub(crate) fn debug_opponent(
    f: &mut fmt::Formatter<'_>,
    type_name: &str,
    name: &str,
    (limit_label, limit): (&str, &dyn fmt::Debug),
) -> fmt::Result {
    f.debug_struct(type_name)
        .field("name", &name)
        .field(limit_label, limit)
        .finish_non_exhaustive()
}

impl<B: Board> fmt::Debug for ClassicalOpponent<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_opponent(f, "ClassicalOpponent", &self.name, ("limit", &self.limit))
    }
}

impl ClassicalOpponent {
    /// A player of `entrant` with its own limit, seeded with `seed`.
    pub fn new(entrant: &Entrant, seed: u64) -> ClassicalOpponent {
        ClassicalOpponent::of_player(entrant.name.clone(), entrant.build(seed), entrant.limit)
    }
}

impl<B: Board> ClassicalOpponent<B> {
    /// `player`, shown as `name` (its spec, or a model's name), thinking
    /// within `limit` (and the clock's cap).
    pub fn of_player(name: String, player: Box<dyn Player<B>>, limit: SearchLimit) -> Self {
        ClassicalOpponent {
            name,
            limit,
            player,
        }
    }
}

impl<B: Board> Opponent<B> for ClassicalOpponent<B> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn think(
        &mut self,
        position: &B,
        cap: Option<Duration>,
    ) -> Result<Thought<B::Move>, PlayerError> {
        let mut limit = self.limit;
        limit.time = tighter_time(limit.time, cap);
        let start = Instant::now();
        let mv = self.player.choose_move(position, &limit)?;
        Ok(Thought {
            mv,
            outlook: None,
            principal_variation: vec![mv],
            effort: String::new(),
            elapsed: start.elapsed(),
        })
    }

    fn new_game(&mut self) {
        self.player.new_game();
    }

    fn observe_move(&mut self, before: &B, mv: B::Move) {
        self.player.observe_move(before, mv);
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.player.set_stop(stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::player::PlayerRegistry;
    use sumito_engine::{Layout, Rules};

    #[test]
    fn a_classical_opponent_answers_with_a_legal_move_within_the_cap() {
        let entrant = PlayerRegistry::builtin()
            .prepare_str("alphabeta:depth=2")
            .unwrap();
        let mut opponent = ClassicalOpponent::new(&entrant, 7);
        assert_eq!(opponent.name(), "alphabeta:depth=2");
        let start = Position::start(Layout::Standard, Rules::default());
        let thought = opponent
            .think(&start, Some(Duration::from_secs(30)))
            .unwrap();
        assert!(start.is_legal(thought.mv));
        assert_eq!(thought.principal_variation, vec![thought.mv]);
        assert!(thought.outlook.is_none());
    }
}
