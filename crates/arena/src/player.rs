//! The one interface every player implements, and the registry that turns
//! player specs (`alphabeta:depth=3`) into players.
//!
//! A match needs a fresh player per game and per thread, so a spec is first
//! *prepared* once into an [`Entrant`] (parameters checked, files read), and
//! the entrant then builds as many [`Player`]s as the games need, each with
//! its own seed. Crates above this one (the pipeline's network players) add
//! their own kinds by implementing [`PlayerFactory`] and registering it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use sumito_engine::{Move, Position};
use sumito_game::Board;
use thiserror::Error;

use crate::spec::{PlayerSpec, SpecError};

/// How much a player may think about one move. Fields left `None` do not
/// limit; a player with no limit at all uses its own default (documented by
/// its kind). Players that do not search (random, greedy) ignore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SearchLimit {
    /// Maximum search depth in plies.
    pub depth: Option<u32>,
    /// Maximum thinking time per move.
    pub time: Option<Duration>,
    /// Maximum number of search nodes (positions visited) per move.
    pub nodes: Option<u64>,
}

impl SearchLimit {
    pub fn depth(depth: u32) -> SearchLimit {
        SearchLimit {
            depth: Some(depth),
            ..SearchLimit::default()
        }
    }

    pub fn time(time: Duration) -> SearchLimit {
        SearchLimit {
            time: Some(time),
            ..SearchLimit::default()
        }
    }

    /// Whether no field limits anything.
    pub fn is_unlimited(&self) -> bool {
        self.depth.is_none() && self.time.is_none() && self.nodes.is_none()
    }
}

/// The tighter of a player's own time limit and a cap (a clock's, a
/// page's), either of which may be absent: every player obeys both.
pub fn tighter_time(own: Option<Duration>, cap: Option<Duration>) -> Option<Duration> {
    match (own, cap) {
        (Some(own), Some(cap)) => Some(own.min(cap)),
        (own, cap) => own.or(cap),
    }
}

#[derive(Debug, Error)]
pub enum PlayerError {
    #[error("no legal move: the game is over")]
    NoLegalMove,
    /// Anything else, such as a network player's evaluation failing.
    #[error(transparent)]
    Failed(#[from] Box<dyn std::error::Error + Send + Sync>),
}

/// Win, draw and loss probabilities for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinProbability {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
}

/// A player's answer for one position (a move `M` of its game), with what
/// it can say of it: what the terminal shows and the browser's seats use.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought<M = Move> {
    pub mv: M,
    /// The outlook of the side to move, from players that estimate it.
    pub outlook: Option<WinProbability>,
    /// The expected line of play, starting with `mv` (may be just `mv`).
    pub principal_variation: Vec<M>,
    /// How much it searched, e.g. "800 simulations"; empty if nothing to say.
    pub effort: String,
    pub elapsed: Duration,
}

impl<M: Copy> Thought<M> {
    /// A move and nothing else said of it, found in `elapsed`.
    pub fn bare(mv: M, elapsed: Duration) -> Thought<M> {
        Thought {
            mv,
            outlook: None,
            principal_variation: vec![mv],
            effort: String::new(),
            elapsed,
        }
    }
}

/// A player: given a position of the game of the board `B` (the two-player
/// game by default) and what it may spend, a legal move. The one interface
/// through which every move is chosen: in matches, the ladder and the
/// runs' evaluation, at the terminal, and at the browser's seats. The
/// general game's players (`crate::players::general`) are
/// `Player<GeneralPosition>`.
pub trait Player<B: Board = Position>: Send {
    /// A short label for tables and records (normally the spec).
    fn name(&self) -> String;

    /// A legal move in `position`, which is not over. The game's rules
    /// (marbles to win, move limit) are part of the position.
    fn choose_move(&mut self, position: &B, limit: &SearchLimit) -> Result<B::Move, PlayerError>;

    /// [`Player::choose_move`] with what the player can say of it (its
    /// outlook, its expected line): what the terminal shows and hints
    /// with. Players that estimate nothing give the move alone.
    fn think(
        &mut self,
        position: &B,
        limit: &SearchLimit,
    ) -> Result<Thought<B::Move>, PlayerError> {
        let start = Instant::now();
        let mv = self.choose_move(position, limit)?;
        Ok(Thought::bare(mv, start.elapsed()))
    }

    /// Called before the first move of each game, so that state kept from a
    /// previous game (search trees, tables) can be dropped.
    fn new_game(&mut self) {}

    /// Called after every move of the game, by any seat, with the position
    /// before it; a player that keeps a search tree can reuse the subtree.
    fn observe_move(&mut self, _before: &B, _mv: B::Move) {}

    /// Hands the player a flag that, once set, ends a search in progress at
    /// once with the best move found so far (a server's page closed). Players
    /// that do not search answer at once anyway and ignore it.
    fn set_stop(&mut self, _stop: Arc<AtomicBool>) {}
}

/// A player borrowed for a game (its owner keeps it afterwards).
impl<B: Board, P: Player<B> + ?Sized> Player<B> for &mut P {
    fn name(&self) -> String {
        (**self).name()
    }

    fn choose_move(&mut self, position: &B, limit: &SearchLimit) -> Result<B::Move, PlayerError> {
        (**self).choose_move(position, limit)
    }

    fn think(
        &mut self,
        position: &B,
        limit: &SearchLimit,
    ) -> Result<Thought<B::Move>, PlayerError> {
        (**self).think(position, limit)
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

/// A prepared player spec of the game of the board `B`: what a match needs
/// to make players for its games.
pub struct Entrant<B: Board = Position> {
    /// The label in tables, records and the `result:` line.
    pub name: String,
    /// The allowance given to each move.
    pub limit: SearchLimit,
    /// The rules a trained model learned under, which it must play under
    /// (its inputs show the move limit); `None` for players that play any.
    pub trained_rules: Option<B::Rules>,
    builder: Arc<dyn Fn(u64) -> Box<dyn Player<B>> + Send + Sync>,
}

impl<B: Board> Clone for Entrant<B> {
    fn clone(&self) -> Entrant<B> {
        Entrant {
            name: self.name.clone(),
            limit: self.limit,
            trained_rules: self.trained_rules.clone(),
            builder: Arc::clone(&self.builder),
        }
    }
}

impl<B: Board> fmt::Debug for Entrant<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entrant")
            .field("name", &self.name)
            .field("limit", &self.limit)
            .field("trained_rules", &self.trained_rules)
            .finish_non_exhaustive()
    }
}

impl<B: Board> Entrant<B> {
    /// An entrant whose players are made by `builder` from a seed (for the
    /// player's own randomness; deterministic players may ignore it).
    pub fn new(
        name: impl Into<String>,
        limit: SearchLimit,
        builder: impl Fn(u64) -> Box<dyn Player<B>> + Send + Sync + 'static,
    ) -> Entrant<B> {
        Entrant {
            name: name.into(),
            limit,
            trained_rules: None,
            builder: Arc::new(builder),
        }
    }

    /// The same entrant, a model that plays only under `rules`.
    #[must_use]
    pub fn with_trained_rules(mut self, rules: B::Rules) -> Entrant<B> {
        self.trained_rules = Some(rules);
        self
    }

    /// A new player for one game.
    pub fn build(&self, seed: u64) -> Box<dyn Player<B>> {
        (self.builder)(seed)
    }
}

/// Makes entrants of one player kind of the game of the board `B` from
/// specs.
pub trait PlayerFactory<B: Board = Position>: Send + Sync {
    /// The kind's name, as written before `:` in a spec.
    fn kind(&self) -> &str;

    /// One line for help texts: what the player does and its parameters.
    fn help(&self) -> String;

    /// Checks the spec's parameters (through [`PlayerSpec::params`], so that
    /// unknown keys are rejected) and prepares the entrant.
    fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<B>, SpecError>;
}

/// The player kinds a program knows, of the game of the board `B`: its
/// classical players (`ArenaBoard::classical_players` of its game, in
/// `crate::arena_board::ArenaBoard`) and what a program adds.
pub struct PlayerRegistry<B: Board = Position> {
    factories: Vec<Box<dyn PlayerFactory<B>>>,
}

impl<B: Board> fmt::Debug for PlayerRegistry<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.factories.iter().map(|factory| factory.kind()))
            .finish()
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("player kind {0:?} is registered twice")]
pub struct DuplicateKind(pub String);

impl<B: Board> PlayerRegistry<B> {
    /// A registry with no kinds.
    pub fn empty() -> PlayerRegistry<B> {
        PlayerRegistry {
            factories: Vec::new(),
        }
    }

    /// A registry of `kinds`, whose names are distinct.
    pub fn of(kinds: Vec<Box<dyn PlayerFactory<B>>>) -> PlayerRegistry<B> {
        let mut registry = PlayerRegistry::empty();
        for factory in kinds {
            registry
                .register(factory)
                .expect("the kinds of one registry are distinct");
        }
        registry
    }

    /// Adds a kind; its name must be new.
    pub fn register(&mut self, factory: Box<dyn PlayerFactory<B>>) -> Result<(), DuplicateKind> {
        if self.factories.iter().any(|f| f.kind() == factory.kind()) {
            return Err(DuplicateKind(factory.kind().to_string()));
        }
        self.factories.push(factory);
        Ok(())
    }

    /// The names of the registered kinds.
    pub fn kinds(&self) -> Vec<&str> {
        self.factories.iter().map(|f| f.kind()).collect()
    }

    /// One help line per kind.
    pub fn help(&self) -> String {
        self.factories
            .iter()
            .map(|f| format!("  {}", f.help()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The entrant for `spec`.
    pub fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant<B>, SpecError> {
        let factory = self
            .factories
            .iter()
            .find(|f| f.kind() == spec.kind)
            .ok_or_else(|| SpecError::UnknownPlayer {
                name: spec.kind.clone(),
                known: self.kinds().join(", "),
            })?;
        factory.prepare(spec)
    }

    /// Parses and prepares `text`, such as `alphabeta:depth=3`.
    pub fn prepare_str(&self, text: &str) -> Result<Entrant<B>, SpecError> {
        self.prepare(&text.parse()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena_board::ArenaBoard;
    use sumito_engine::Move;

    #[test]
    fn the_tighter_time_limit_wins_and_an_absent_one_does_not_count() {
        let (short, long) = (Duration::from_secs(1), Duration::from_secs(5));
        assert_eq!(tighter_time(Some(long), Some(short)), Some(short));
        assert_eq!(tighter_time(Some(short), Some(long)), Some(short));
        assert_eq!(tighter_time(None, Some(long)), Some(long));
        assert_eq!(tighter_time(Some(long), None), Some(long));
        assert_eq!(tighter_time(None, None), None);
    }

    struct FirstMove;

    impl Player for FirstMove {
        fn name(&self) -> String {
            "first".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            _: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            position
                .legal_moves()
                .first()
                .copied()
                .ok_or(PlayerError::NoLegalMove)
        }
    }

    #[test]
    fn a_player_that_estimates_nothing_thinks_of_its_move_alone() {
        let entrant = Position::classical_players()
            .prepare_str("alphabeta:depth=2")
            .unwrap();
        let mut player = entrant.build(7);
        let start = Position::start(sumito_engine::Layout::Standard, Default::default());
        let thought = player
            .think(&start, &SearchLimit::time(Duration::from_secs(30)))
            .unwrap();
        assert!(start.is_legal(thought.mv));
        assert_eq!(thought.principal_variation, vec![thought.mv]);
        assert!(thought.outlook.is_none());
        assert!(thought.effort.is_empty());
        // Borrowed, it is the same player.
        let mut first = FirstMove;
        let mut borrowed: Box<dyn Player + '_> = Box::new(&mut first);
        assert_eq!(borrowed.name(), "first");
        assert_eq!(
            borrowed.think(&start, &SearchLimit::default()).unwrap().mv,
            start.legal_moves()[0]
        );
    }

    struct FirstMoveFactory;

    impl PlayerFactory for FirstMoveFactory {
        fn kind(&self) -> &str {
            "first"
        }
        fn help(&self) -> String {
            "first: the first legal move".into()
        }
        fn prepare(&self, spec: &PlayerSpec) -> Result<Entrant, SpecError> {
            spec.params().finish()?;
            Ok(Entrant::new(
                spec.to_string(),
                SearchLimit::default(),
                |_| Box::new(FirstMove),
            ))
        }
    }

    #[test]
    fn registry_knows_the_builtin_kinds_and_takes_new_ones() {
        let mut registry = Position::classical_players();
        assert_eq!(registry.kinds(), vec!["random", "greedy", "alphabeta"]);
        let err = registry.prepare_str("minimax").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown player \"minimax\"; known players: random, greedy, alphabeta"
        );
        registry.register(Box::new(FirstMoveFactory)).unwrap();
        assert_eq!(
            registry.register(Box::new(FirstMoveFactory)),
            Err(DuplicateKind("first".into()))
        );
        let entrant = registry.prepare_str("first").unwrap();
        let mut player = entrant.build(0);
        let start = Position::start(sumito_engine::Layout::Standard, Default::default());
        assert!(start.is_legal(player.choose_move(&start, &entrant.limit).unwrap()));
        assert!(matches!(
            registry.prepare_str("first:depth=2"),
            Err(SpecError::UnknownKey { .. })
        ));
    }
}
