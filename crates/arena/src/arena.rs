//! Matches of either game (any [`Board`]): every group of entrants
//! plays the same set of openings, each once with every rotation of the
//! group over the sides, in parallel; results, records, standings, ratings.
//!
//! # Schedule
//!
//! With two sides, every pair of entrants is a group (a round robin); with
//! more, the match has one group of exactly one entrant per side (a
//! ladder of the general game gives the opponent several). Opening `k` is
//! the start `starts[k % starts.len()]` followed by `opening_plies` random
//! moves that push nothing, drawn from a stream seeded by the match seed
//! and `k`. Every group plays openings `0..games/sides`, each once with
//! each rotation of its entrants over the sides (with two: once with
//! either entrant as Black), so deterministic players meet varied
//! positions and no entrant gains from its seat. Games are scheduled
//! opening by opening and handed to the worker threads in that order.
//!
//! # Determinism
//!
//! A game depends only on its opening, its players and their seeds (derived
//! from the match seed and the game's index), never on timing or on the
//! thread that plays it. Without SPRT and with players limited by depth or
//! nodes, the same command gives the same games and records. With `--sprt`
//! the set of games played can depend on which games finish first; with
//! time-limited players, on the machine's speed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_engine::{Ending, Layout, Position, Rules};
use sumito_game::Board;
use thiserror::Error;

use crate::elo::{EloError, PairOutcome, PairResult, Ratings, fit_elo};
pub use crate::match_start::MatchStart;
use crate::play_out::{PlayOutError, play_out};
use crate::player::{Entrant, PlayerError};
use crate::record::{GameRecord, file_safe};
use crate::record_format::RecordFileError;
use crate::sprt::{SprtConfig, SprtStatus, SprtVerdict};

/// The default move limit of arena games, in plies: weak players can
/// shuffle forever, so every game must end.
pub const DEFAULT_MAX_PLIES: u32 = 400;

/// How to play a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig<B: Board = Position> {
    /// Games per group of entrants (see the module docs): a multiple of the
    /// sides, so that every opening is played with every rotation.
    pub games_per_pairing: u32,
    /// Where games start, used in turn by successive openings; every start
    /// is under the match's rules.
    pub starts: Vec<MatchStart<B>>,
    /// The rules as the records state them (the two-player rules; the
    /// general game's `[rules]` table); the rules of every start, which
    /// must end every game (a move limit).
    pub rules: B::Rules,
    /// Random plies played from the start before the players take over.
    pub opening_plies: u32,
    pub seed: u64,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Where to save a record of every game, if anywhere: a folder that
    /// holds no game records yet (records already there are never
    /// overwritten: the match is refused).
    pub record_dir: Option<PathBuf>,
    /// Stop a two-entrant match of two sides once this test decides.
    pub sprt: Option<SprtConfig>,
}

impl MatchConfig<Position> {
    /// A two-player match on `layouts` in turn under `rules`, with the
    /// other settings as [`Default`] gives them.
    pub fn two_player(layouts: &[Layout], rules: Rules) -> MatchConfig<Position> {
        MatchConfig {
            starts: layouts
                .iter()
                .map(|&layout| MatchStart::two_player(layout, rules))
                .collect(),
            rules,
            ..MatchConfig::default()
        }
    }
}

impl Default for MatchConfig<Position> {
    fn default() -> MatchConfig<Position> {
        let rules = Rules {
            max_plies: Some(DEFAULT_MAX_PLIES),
            ..Rules::default()
        };
        MatchConfig {
            games_per_pairing: 20,
            starts: vec![MatchStart::two_player(Layout::BelgianDaisy, rules)],
            rules,
            opening_plies: 4,
            seed: 1,
            threads: 0,
            record_dir: None,
            sprt: None,
        }
    }
}

#[derive(Debug, Error)]
pub enum ArenaError {
    #[error("a match needs at least two players, got {0}")]
    TooFewPlayers(usize),
    #[error(
        "{players} players for {sides} sides: give one player per side ({sides}), in turn order; \
         their seats are rotated from game to game"
    )]
    PlayersForSides { players: usize, sides: usize },
    #[error(
        "games per pairing must be a positive multiple of the {sides} sides (every opening is \
         played with each player on each side), got {games}"
    )]
    GamesForSides { games: u32, sides: usize },
    #[error("a match needs at least one start")]
    NoStarts,
    #[error("the starts of a match must have the same number of sides")]
    MixedSides,
    #[error(
        "the rules need a move limit (max_plies or no_push_off_plies), or games between \
         cautious players may never end"
    )]
    NoMoveLimit,
    #[error("{opening_plies} opening plies reach the move limit of {max_plies} plies")]
    OpeningTooLong { opening_plies: u32, max_plies: u32 },
    #[error("SPRT needs exactly two players of two sides, got {players} players of {sides} sides")]
    SprtPlayers { players: usize, sides: usize },
    #[error("cannot create the record folder {path}: {cause}")]
    RecordDir {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "the record folder {path} already holds {count} game record(s) of an earlier match; \
         refusing to overwrite them: choose a new or empty folder"
    )]
    RecordsExist { path: PathBuf, count: usize },
    #[error("cannot build the worker threads: {0}")]
    Threads(String),
    #[error("game {game}: player {player} failed at ply {ply}: {cause}")]
    Player {
        game: usize,
        player: String,
        ply: u32,
        cause: PlayerError,
    },
    #[error("game {game}: player {player} chose the illegal move {mv} in position {position}")]
    IllegalMove {
        game: usize,
        player: String,
        mv: String,
        position: String,
    },
    #[error(
        "stopped on request before the match ended (the games finished keep their records; the match is not scored)"
    )]
    Stopped,
    #[error(transparent)]
    Record(#[from] RecordFileError),
}

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Position in the schedule.
    pub index: usize,
    /// The entrant playing each side, by side (with two: Black, White).
    pub sides: Vec<usize>,
    pub opening: usize,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame<B: Board = Position> {
    pub fixture: Fixture,
    /// The last position: the game is over there.
    pub end: B,
    pub record: GameRecord<B>,
    /// Where the record was saved.
    pub record_path: Option<PathBuf>,
    /// Plies played, the opening included.
    pub plies: usize,
    /// Time each side spent choosing its moves, by side.
    pub thinking: Vec<Thinking>,
    /// The first ply (counted from the start, the opening included) whose
    /// position repeats an earlier one of the game: the same marbles, marbles
    /// off and side to move. Two players that choose deterministically from
    /// the position alone then cycle until the move limit.
    pub first_repetition: Option<u32>,
}

pub use crate::play_out::Thinking;

impl<B: Board> PlayedGame<B> {
    /// The side entrant `entrant` played, if it played.
    pub fn side_of(&self, entrant: usize) -> Option<usize> {
        self.fixture.sides.iter().position(|&e| e == entrant)
    }

    /// Entrant `entrant`'s result: 1 a win, 0 a draw it shares, -1 a loss
    /// (with more sides, a draw among others is a loss); `None` when it did
    /// not play.
    pub fn result_for(&self, entrant: usize) -> Option<f32> {
        self.end.result_for(self.side_of(entrant)?)
    }

    /// Entrant `entrant`'s points: 1 for a win, 1/k for a draw shared by
    /// k sides, 0 otherwise (the points of a game add up to 1).
    pub fn points_of(&self, entrant: usize) -> f64 {
        match self.result_for(entrant) {
            Some(result) if result > 0.0 => 1.0,
            Some(0.0) => {
                let sharing = (0..self.fixture.sides.len())
                    .filter(|&side| self.end.result_for(side) == Some(0.0))
                    .count();
                1.0 / sharing.max(1) as f64
            }
            _ => 0.0,
        }
    }

    /// How the game ended (who, and why); `None` if it did not finish.
    pub fn ending(&self) -> Option<Ending> {
        self.end.ending()
    }

    /// The finishing rank of each side (0 first; equal ranks are ties):
    /// the winner (or the sides of a draw) first, then the others by
    /// marbles pushed off.
    fn ranks(&self) -> Vec<u32> {
        let sides = self.fixture.sides.len();
        let first = |side: usize| self.end.result_for(side).is_some_and(|r| r >= 0.0);
        (0..sides)
            .map(|side| {
                if first(side) {
                    0
                } else {
                    1 + (0..sides)
                        .filter(|&other| {
                            !first(other) && self.end.side_score(other) > self.end.side_score(side)
                        })
                        .count() as u32
                }
            })
            .collect()
    }

    /// The result of every pair of sides by finishing order, the first
    /// side of each pair as `first`, by entrant: what the match's Elo
    /// fits. With two sides, the game's one result.
    pub fn side_pairs(&self) -> Vec<PairResult> {
        let ranks = self.ranks();
        let sides = ranks.len();
        (0..sides)
            .flat_map(|a| (a + 1..sides).map(move |b| (a, b)))
            .map(|(a, b)| PairResult {
                first: self.fixture.sides[a],
                second: self.fixture.sides[b],
                outcome: outcome_by_rank(ranks[a], ranks[b]),
            })
            .collect()
    }

    /// Entrant `entrant`'s results against the other entrants' sides by
    /// finishing order, from its point of view (`FirstWins`: it finished
    /// ahead, `Draw`: level, `SecondWins`: behind); empty when it had no
    /// side.
    pub fn pair_outcomes_of(&self, entrant: usize) -> Vec<PairOutcome> {
        let Some(own) = self.side_of(entrant) else {
            return Vec::new();
        };
        let ranks = self.ranks();
        (0..ranks.len())
            .filter(|&side| self.fixture.sides[side] != entrant)
            .map(|side| outcome_by_rank(ranks[own], ranks[side]))
            .collect()
    }

    /// Entrant `entrant`'s pairwise score against the other entrants' sides
    /// by finishing order (1 ahead, ½ level, 0 behind; the mean over those
    /// sides), so that par is ½ whatever the number of sides (with two
    /// sides, its points); `None` when it had no side or played alone.
    pub fn pair_score_of(&self, entrant: usize) -> Option<f64> {
        let outcomes = self.pair_outcomes_of(entrant);
        let points = |outcome: &PairOutcome| outcome.first_score();
        (!outcomes.is_empty())
            .then(|| outcomes.iter().map(points).sum::<f64>() / outcomes.len() as f64)
    }
}

impl PlayedGame<Position> {
    /// The game's one result (Black the first entrant of the fixture).
    pub fn result(&self) -> PairResult {
        self.side_pairs()[0]
    }
}

/// One side's result against another from their finishing ranks (0
/// first): `FirstWins` when the first finished ahead.
fn outcome_by_rank(first: u32, second: u32) -> PairOutcome {
    match first.cmp(&second) {
        std::cmp::Ordering::Less => PairOutcome::FirstWins,
        std::cmp::Ordering::Equal => PairOutcome::Draw,
        std::cmp::Ordering::Greater => PairOutcome::SecondWins,
    }
}

/// Wins, draws and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is half a point).
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Points per game, or `None` before any game.
    pub fn score(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / f64::from(self.games()))
    }

    /// Counts a game in which this side scored `score` (1, ½ or 0).
    pub fn add(&mut self, score: f64) {
        if score == 1.0 {
            self.wins += 1;
        } else if score == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Counts a game of result `result` (1 a win, 0 a draw, -1 a loss).
    pub fn add_result(&mut self, result: f32) {
        self.add(f64::from(result + 1.0) / 2.0);
    }
}

/// The match so far, as shown while it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    pub players: Vec<String>,
    pub total_games: usize,
    pub games_done: usize,
    /// Per player, over all its games: its side's wins, draws (shared) and
    /// losses.
    pub tallies: Vec<Tally>,
    pub sprt: Option<SprtStatus>,
}

/// Hears about a match's progress; called from the worker threads, one call
/// at a time.
pub trait MatchObserver<B: Board = Position>: Sync {
    fn match_started(&self, _standings: &Standings) {}
    fn game_finished(&self, _game: &PlayedGame<B>, _standings: &Standings) {}
    fn match_finished(&self, _standings: &Standings) {}
    /// Asked before every move of every game: `true` ends the match at once
    /// with [`ArenaError::Stopped`] (a stopped match is played again, not
    /// half counted).
    fn stop_requested(&self) -> bool {
        false
    }
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl<B: Board> MatchObserver<B> for Silent {}

/// The outcome of a whole match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResults<B: Board = Position> {
    pub players: Vec<String>,
    /// Sides of every game.
    pub sides: usize,
    /// Finished games in schedule order (an SPRT stop leaves gaps).
    pub games: Vec<PlayedGame<B>>,
    /// Games in the full schedule.
    pub scheduled: usize,
    /// The test's state when the match ended (its verdict, if it stopped the match).
    pub sprt: Option<SprtStatus>,
}

/// One pairing's results, from `a`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairingResult {
    pub a: usize,
    pub b: usize,
    pub tally: Tally,
}

impl<B: Board> MatchResults<B> {
    /// Every pair of sides of every game by finishing order: what the Elo
    /// ratings fit (with two sides, each game's result).
    pub fn game_results(&self) -> Vec<PairResult> {
        self.games.iter().flat_map(PlayedGame::side_pairs).collect()
    }

    /// Every player's wins, draws and losses.
    pub fn tallies(&self) -> Vec<Tally> {
        let mut tallies = vec![Tally::default(); self.players.len()];
        for game in &self.games {
            for &entrant in &game.fixture.sides {
                if let Some(result) = game.result_for(entrant) {
                    tallies[entrant].add_result(result);
                }
            }
        }
        tallies
    }

    /// Every player's points per game (1 a win, 1/k a draw shared by k
    /// sides; with two sides, its score), or `None` before its first game.
    pub fn scores(&self) -> Vec<Option<f64>> {
        (0..self.players.len())
            .map(|entrant| {
                let played: Vec<&PlayedGame<B>> = self
                    .games
                    .iter()
                    .filter(|game| game.side_of(entrant).is_some())
                    .collect();
                (!played.is_empty()).then(|| {
                    played
                        .iter()
                        .map(|game| game.points_of(entrant))
                        .sum::<f64>()
                        / played.len() as f64
                })
            })
            .collect()
    }

    /// Each pairing `a < b` that met in games of two sides, in order.
    pub fn pairings(&self) -> Vec<PairingResult> {
        let n = self.players.len();
        let mut out = Vec::new();
        if self.sides != 2 {
            return out;
        }
        for a in 0..n {
            for b in a + 1..n {
                let mut tally = Tally::default();
                for game in &self.games {
                    let sides = &game.fixture.sides;
                    if sides.contains(&a)
                        && sides.contains(&b)
                        && let Some(result) = game.result_for(a)
                    {
                        tally.add_result(result);
                    }
                }
                if tally.games() > 0 {
                    out.push(PairingResult { a, b, tally });
                }
            }
        }
        out
    }

    /// Maximum-likelihood Elo ratings on the one scale (`crate::scale`): the
    /// classical players that took part held at their ratings, else a mean
    /// of 0.
    pub fn ratings(&self) -> Result<Ratings, EloError> {
        let anchor = crate::scale::anchor_of(B::KIND, &self.players);
        fit_elo(self.players.len(), &self.game_results(), anchor)
    }
}

/// Mixes numbers into one seed, so that nearby inputs give unrelated streams.
fn mix_seed(parts: &[u64]) -> u64 {
    parts
        .iter()
        .fold(0x5EED, |state, &part| crate::splitmix64(state ^ part))
}

/// A start and the random plies played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening<M> {
    /// The index of the start among the match's.
    pub start: usize,
    pub moves: Vec<M>,
}

impl<M: Copy> Opening<M> {
    /// Opening `index` of a match (see the module docs). Moves are drawn
    /// among those that push nothing, so that no side starts ahead.
    pub fn generate<B: Board<Move = M>>(config: &MatchConfig<B>, index: usize) -> Opening<M> {
        let start = index % config.starts.len();
        let mut rng = ChaCha8Rng::seed_from_u64(mix_seed(&[config.seed, index as u64, 1]));
        let mut position = config.starts[start].position;
        let mut moves = Vec::new();
        for _ in 0..config.opening_plies {
            if position.is_over() {
                break;
            }
            let legal = position.legal_moves();
            let quiet: Vec<M> = legal
                .iter()
                .copied()
                .filter(|&mv| position.is_quiet(mv))
                .collect();
            let choices: &[M] = if quiet.is_empty() { &legal } else { &quiet };
            if choices.is_empty() {
                break;
            }
            let mv = choices[rng.random_range(0..choices.len())];
            position = position.play(mv);
            moves.push(mv);
        }
        Opening { start, moves }
    }
}

/// The groups of a match between `players` entrants of `sides` sides:
/// every pair with two sides, else the one group of all (see the module
/// docs).
fn groups(players: usize, sides: usize) -> Vec<Vec<usize>> {
    if sides == 2 {
        (0..players)
            .flat_map(|a| (a + 1..players).map(move |b| vec![a, b]))
            .collect()
    } else {
        vec![(0..players).collect()]
    }
}

/// The schedule of a match between `players` entrants of `sides` sides (see
/// the module docs).
pub fn schedule(players: usize, sides: usize, games_per_pairing: u32) -> Vec<Fixture> {
    let groups = groups(players, sides);
    let mut fixtures = Vec::new();
    for opening in 0..games_per_pairing as usize / sides.max(1) {
        for group in &groups {
            for rotation in 0..sides {
                let sides = (0..sides)
                    .map(|side| group[(side + sides - rotation) % sides])
                    .collect();
                fixtures.push(Fixture {
                    index: fixtures.len(),
                    sides,
                    opening,
                });
            }
        }
    }
    fixtures
}

/// The sides of the match's games (those of its first start).
fn sides_of<B: Board>(config: &MatchConfig<B>) -> Result<usize, ArenaError> {
    let first = config.starts.first().ok_or(ArenaError::NoStarts)?;
    let sides = first.position.sides();
    if config.starts.iter().any(|s| s.position.sides() != sides) {
        return Err(ArenaError::MixedSides);
    }
    Ok(sides)
}

fn validate<B: Board>(
    entrants: &[Entrant<B>],
    config: &MatchConfig<B>,
) -> Result<usize, ArenaError> {
    let sides = sides_of(config)?;
    if entrants.len() < 2 {
        return Err(ArenaError::TooFewPlayers(entrants.len()));
    }
    if sides != 2 && entrants.len() != sides {
        return Err(ArenaError::PlayersForSides {
            players: entrants.len(),
            sides,
        });
    }
    if config.games_per_pairing == 0 || !config.games_per_pairing.is_multiple_of(sides as u32) {
        return Err(ArenaError::GamesForSides {
            games: config.games_per_pairing,
            sides,
        });
    }
    for start in &config.starts {
        if !start.position.ends_surely() {
            return Err(ArenaError::NoMoveLimit);
        }
        if let Some(max_plies) = start.position.max_plies()
            && config.opening_plies >= max_plies
        {
            return Err(ArenaError::OpeningTooLong {
                opening_plies: config.opening_plies,
                max_plies,
            });
        }
    }
    if config.sprt.is_some() && (entrants.len() != 2 || sides != 2) {
        return Err(ArenaError::SprtPlayers {
            players: entrants.len(),
            sides,
        });
    }
    Ok(sides)
}

/// The file name of a game's record: its index and its players by side.
fn record_name(index: usize, players: &[&str]) -> String {
    let names: Vec<String> = players.iter().map(|name| file_safe(name)).collect();
    format!("game-{index:05}-{}.txt", names.join("-vs-"))
}

/// Plays one game from `opening` between fresh players of the fixture's
/// entrants; `stop()` is asked before every move.
pub fn play_game<B: Board>(
    entrants: &[Entrant<B>],
    fixture: &Fixture,
    opening: &Opening<B::Move>,
    config: &MatchConfig<B>,
    stop: &dyn Fn() -> bool,
) -> Result<PlayedGame<B>, ArenaError> {
    let sides = &fixture.sides;
    let mut players: Vec<Box<dyn crate::Player<B>>> = sides
        .iter()
        .map(|&who| {
            entrants[who].build(mix_seed(&[
                config.seed,
                fixture.index as u64,
                who as u64,
                2,
            ]))
        })
        .collect();
    let limits: Vec<_> = sides.iter().map(|&who| entrants[who].limit).collect();
    let start = &config.starts[opening.start];
    let played =
        play_out(start.position, &opening.moves, &mut players, &limits, stop).map_err(|err| {
            match err {
                PlayOutError::Player { side, ply, cause } => ArenaError::Player {
                    game: fixture.index,
                    player: entrants[sides[side]].name.clone(),
                    ply,
                    cause,
                },
                PlayOutError::IllegalMove { side, mv, position } => ArenaError::IllegalMove {
                    game: fixture.index,
                    player: entrants[sides[side]].name.clone(),
                    mv: B::move_text(mv),
                    position,
                },
                PlayOutError::Stopped => ArenaError::Stopped,
            }
        })?;
    let names: Vec<String> = sides
        .iter()
        .map(|&who| entrants[who].name.clone())
        .collect();
    let record = GameRecord::of_match(
        start.start,
        &config.rules,
        &names,
        opening.moves.len() as u32,
        &played.moves,
        &played.end,
    );
    let record_path = match &config.record_dir {
        Some(dir) => {
            let players: Vec<&str> = names.iter().map(String::as_str).collect();
            let path = dir.join(record_name(fixture.index, &players));
            record.write(&path)?;
            Some(path)
        }
        None => None,
    };
    Ok(PlayedGame {
        fixture: fixture.clone(),
        end: played.end,
        record,
        record_path,
        plies: played.moves.len(),
        thinking: played.thinking,
        first_repetition: played.first_repetition,
    })
}

/// Shared state of a running match.
struct Progress<B: Board> {
    standings: Standings,
    games: Vec<Option<PlayedGame<B>>>,
    /// Player 0's results against player 1, for the SPRT.
    first_player: Tally,
}

/// Whether a match's game records may go into `dir`: refuses a folder that
/// already holds game records (`game-*.txt`), which the match's records
/// would overwrite or mix with, naming how many it holds. A missing folder,
/// or one holding only other files, is fine.
pub fn check_record_dir(dir: &Path) -> Result<(), ArenaError> {
    let io = |source| ArenaError::RecordDir {
        path: dir.to_owned(),
        cause: source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(io(err)),
    };
    let mut count = 0;
    for entry in entries {
        let name = entry.map_err(io)?.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("game-") && name.ends_with(".txt") {
            count += 1;
        }
    }
    if count > 0 {
        return Err(ArenaError::RecordsExist {
            path: dir.to_owned(),
            count,
        });
    }
    Ok(())
}

/// `threads`, or one per core where it is 0 (the matches' and ladders'
/// `--threads` default).
pub fn threads_or_cores(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Plays a match between `entrants` (see the module docs), reporting to
/// `observer` as games finish.
pub fn play_match<B: Board>(
    entrants: &[Entrant<B>],
    config: &MatchConfig<B>,
    observer: &dyn MatchObserver<B>,
) -> Result<MatchResults<B>, ArenaError> {
    let sides = validate(entrants, config)?;
    if let Some(dir) = &config.record_dir {
        check_record_dir(dir)?;
        std::fs::create_dir_all(dir).map_err(|source| ArenaError::RecordDir {
            path: dir.clone(),
            cause: source,
        })?;
    }
    let fixtures = schedule(entrants.len(), sides, config.games_per_pairing);
    let openings: Vec<Opening<B::Move>> = (0..config.games_per_pairing as usize / sides)
        .map(|k| Opening::generate(config, k))
        .collect();
    let players: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    let progress = Mutex::new(Progress {
        standings: Standings {
            players: players.clone(),
            total_games: fixtures.len(),
            games_done: 0,
            tallies: vec![Tally::default(); entrants.len()],
            sprt: config.sprt.map(|test| test.status(0, 0, 0)),
        },
        games: vec![None; fixtures.len()],
        first_player: Tally::default(),
    });
    observer.match_started(&progress.lock().expect("not poisoned").standings);

    let threads = threads_or_cores(config.threads).min(fixtures.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("arena-{i}"))
        .build()
        .map_err(|e| ArenaError::Threads(e.to_string()))?;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Games under way when the test decides are played to their end (and
    // counted); only the observer stops them.
    let stop_game = || observer.stop_requested();
    let first_error: Mutex<Option<ArenaError>> = Mutex::new(None);
    pool.scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|_| {
                loop {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(fixture) = fixtures.get(index) else {
                        return;
                    };
                    let opening = &openings[fixture.opening];
                    match play_game(entrants, fixture, opening, config, &stop_game) {
                        Ok(game) => {
                            let mut state = progress.lock().expect("not poisoned");
                            record_game(&mut state, &game, config);
                            if state
                                .standings
                                .sprt
                                .is_some_and(|s| s.verdict != SprtVerdict::Continue)
                            {
                                stop.store(true, Ordering::SeqCst);
                            }
                            observer.game_finished(&game, &state.standings);
                            state.games[fixture.index] = Some(game);
                        }
                        Err(err) => {
                            stop.store(true, Ordering::SeqCst);
                            first_error.lock().expect("not poisoned").get_or_insert(err);
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(err) = first_error.into_inner().expect("not poisoned") {
        return Err(err);
    }
    let progress = progress.into_inner().expect("not poisoned");
    observer.match_finished(&progress.standings);
    Ok(MatchResults {
        players,
        sides,
        games: progress.games.into_iter().flatten().collect(),
        scheduled: fixtures.len(),
        sprt: progress.standings.sprt,
    })
}

/// Adds a finished game to the standings and the test. Once the test has
/// decided, its verdict stands: games still running when it decided are
/// counted in the tables but do not reopen the test.
fn record_game<B: Board>(state: &mut Progress<B>, game: &PlayedGame<B>, config: &MatchConfig<B>) {
    state.standings.games_done += 1;
    for &entrant in &game.fixture.sides {
        if let Some(result) = game.result_for(entrant) {
            state.standings.tallies[entrant].add_result(result);
        }
    }
    // The test only runs in two-player matches, where player 0 plays every game.
    if let (Some(test), Some(status), Some(result)) =
        (config.sprt, state.standings.sprt, game.result_for(0))
        && status.verdict == SprtVerdict::Continue
    {
        state.first_player.add_result(result);
        let t = state.first_player;
        state.standings.sprt = Some(test.status(t.wins, t.draws, t.losses));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena_board::ArenaBoard;
    use crate::player::{Player, SearchLimit};
    use crate::record::{GameRecord, Start};
    use std::sync::Arc;
    use sumito_engine::Move;
    use sumito_engine::general::{GeneralLayout, GeneralPosition};
    use sumito_engine::rules_table::RulesTable;
    use sumito_game::Board;

    fn entrants(specs: &[&str]) -> Vec<Entrant> {
        let registry = Position::classical_players();
        specs
            .iter()
            .map(|s| registry.prepare_str(s).unwrap())
            .collect()
    }

    fn quick_config() -> MatchConfig {
        let rules = Rules {
            max_plies: Some(60),
            ..Rules::default()
        };
        MatchConfig {
            games_per_pairing: 4,
            threads: 2,
            ..MatchConfig::two_player(&[Layout::BelgianDaisy], rules)
        }
    }

    #[test]
    fn schedule_gives_every_pairing_both_colours_of_every_opening() {
        let fixtures = schedule(3, 2, 4);
        assert_eq!(fixtures.len(), 3 * 4);
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            for opening in 0..2 {
                for (black, white) in [(a, b), (b, a)] {
                    assert_eq!(
                        fixtures
                            .iter()
                            .filter(|f| f.sides == [black, white] && f.opening == opening)
                            .count(),
                        1
                    );
                }
            }
        }
        assert!(fixtures.iter().enumerate().all(|(i, f)| f.index == i));
    }

    #[test]
    fn openings_are_varied_quiet_and_reproducible() {
        let config = MatchConfig::two_player(
            &[Layout::Standard, Layout::BelgianDaisy],
            MatchConfig::default().rules,
        );
        let openings: Vec<Opening<Move>> = (0..6).map(|k| Opening::generate(&config, k)).collect();
        assert_eq!(openings[0], Opening::generate(&config, 0));
        assert_eq!(
            config.starts[openings[0].start].start,
            Start::Layout(Layout::Standard)
        );
        assert_eq!(
            config.starts[openings[1].start].start,
            Start::Layout(Layout::BelgianDaisy)
        );
        for opening in &openings {
            assert_eq!(opening.moves.len(), 4);
            let mut position = config.starts[opening.start].position;
            for &mv in &opening.moves {
                assert!(!position.is_push(mv));
                position = position.play(mv);
            }
        }
        let distinct: std::collections::HashSet<_> = openings.iter().map(|o| &o.moves).collect();
        assert_eq!(distinct.len(), 6);
    }

    #[test]
    fn a_match_is_reproducible_and_records_replay() {
        let dir = std::env::temp_dir().join(format!("sumito-arena-{}", std::process::id()));
        let config = MatchConfig {
            record_dir: Some(dir.clone()),
            ..quick_config()
        };
        let players = entrants(&["random", "greedy"]);
        let first = play_match(&players, &config, &Silent).unwrap();
        let again = play_match(
            &players,
            &MatchConfig {
                threads: 1,
                record_dir: None,
                ..config.clone()
            },
            &Silent,
        )
        .unwrap();
        assert_eq!(first.games.len(), 4);
        for (a, b) in first.games.iter().zip(&again.games) {
            assert_eq!(a.record, b.record);
        }
        for game in &first.games {
            let path = game.record_path.as_ref().unwrap();
            let replayed = GameRecord::read(path).unwrap();
            assert_eq!(replayed, game.record);
            assert_eq!(replayed.result, game.ending());
        }
        let tallies = first.tallies();
        assert_eq!(tallies[0].games() + tallies[1].games(), 8);
        assert_eq!(tallies[0].wins, tallies[1].losses);
        // A second match into the same folder is refused: the records stay.
        let before: Vec<String> = first
            .games
            .iter()
            .map(|game| std::fs::read_to_string(game.record_path.as_ref().unwrap()).unwrap())
            .collect();
        let refused = play_match(&players, &MatchConfig { seed: 9, ..config }, &Silent);
        let Err(err @ ArenaError::RecordsExist { count: 4, .. }) = &refused else {
            panic!("{refused:?}");
        };
        assert!(
            err.to_string().contains(&dir.display().to_string()),
            "{err}"
        );
        for (game, text) in first.games.iter().zip(&before) {
            let path = game.record_path.as_ref().unwrap();
            assert_eq!(&std::fs::read_to_string(path).unwrap(), text);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A player that fails on its third move.
    struct Failing(u32);

    impl Player for Failing {
        fn name(&self) -> String {
            "failing".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            _: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            self.0 += 1;
            if self.0 == 3 {
                return Err(PlayerError::Failed("out of coffee".into()));
            }
            Ok(position.legal_moves()[0])
        }
    }

    #[test]
    fn three_players_play_a_round_robin() {
        let players = entrants(&["random", "greedy", "alphabeta:depth=1"]);
        let results = play_match(&players, &quick_config(), &Silent).unwrap();
        assert_eq!(results.games.len(), 12);
        let pairings = results.pairings();
        assert_eq!(pairings.len(), 3);
        assert!(pairings.iter().all(|p| p.tally.games() == 4));
        assert!(results.tallies().iter().all(|t| t.games() == 8));
        let ratings = results.ratings().unwrap();
        // All three are classical players of the one scale: held at theirs.
        assert_eq!(
            ratings.anchor,
            crate::scale::anchor_of(sumito_game::GameKind::TwoPlayer, &results.players)
        );
        assert_eq!(ratings.elo[1], 722.0);
    }

    #[test]
    fn player_failures_stop_the_match_with_the_reason() {
        let mut players = entrants(&["random"]);
        players.push(Entrant::new("failing", SearchLimit::default(), |_| {
            Box::new(Failing(0))
        }));
        let err = play_match(&players, &quick_config(), &Silent).unwrap_err();
        assert!(err.to_string().contains("out of coffee"), "{err}");
        assert!(err.to_string().contains("failing"), "{err}");
    }

    /// Counts the moves it is told about.
    struct Observing(Arc<AtomicUsize>);

    impl Player for Observing {
        fn name(&self) -> String {
            "observing".into()
        }
        fn choose_move(
            &mut self,
            position: &Position,
            _: &SearchLimit,
        ) -> Result<Move, PlayerError> {
            Ok(position.legal_moves()[0])
        }
        fn observe_move(&mut self, before: &Position, mv: Move) {
            assert!(before.is_legal(mv));
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn players_observe_every_move() {
        let seen = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&seen);
        let mut players = entrants(&["random"]);
        players.push(Entrant::new(
            "observing",
            SearchLimit::default(),
            move |_| Box::new(Observing(Arc::clone(&counter))),
        ));
        let results = play_match(&players, &quick_config(), &Silent).unwrap();
        let plies: usize = results.games.iter().map(|game| game.plies).sum();
        assert_eq!(seen.load(Ordering::SeqCst), plies);
    }

    #[test]
    fn sprt_stops_a_lopsided_match_early() {
        let rules = Rules {
            max_plies: Some(200),
            ..Rules::default()
        };
        let config = MatchConfig {
            games_per_pairing: 200,
            sprt: Some(SprtConfig::new(0.0, 100.0).unwrap()),
            threads: 2,
            ..MatchConfig::two_player(&[Layout::BelgianDaisy], rules)
        };
        let results = play_match(&entrants(&["greedy", "random"]), &config, &Silent).unwrap();
        let status = results.sprt.unwrap();
        assert_eq!(status.verdict, SprtVerdict::AcceptH1);
        assert!(results.games.len() < 100, "{} games", results.games.len());
    }

    #[test]
    fn bad_configurations_are_refused() {
        let two = entrants(&["random", "random"]);
        let refuse = |players: &[Entrant], config: MatchConfig| {
            play_match(players, &config, &Silent)
                .unwrap_err()
                .to_string()
        };
        assert!(refuse(&two[..1], quick_config()).contains("at least two"));
        let odd = MatchConfig {
            games_per_pairing: 3,
            ..quick_config()
        };
        assert!(refuse(&two, odd).contains("multiple of the 2 sides"));
        let endless = MatchConfig {
            games_per_pairing: 4,
            ..MatchConfig::two_player(&[Layout::BelgianDaisy], Rules::default())
        };
        assert!(refuse(&two, endless).contains("move limit"));
        let sprt_three = MatchConfig {
            sprt: Some(SprtConfig::new(0.0, 10.0).unwrap()),
            ..quick_config()
        };
        let three = entrants(&["random", "random", "greedy"]);
        assert!(refuse(&three, sprt_three).contains("exactly two"));
    }

    #[test]
    fn games_from_a_given_position_start_there_and_their_records_say_so() {
        let dir = std::env::temp_dir().join(format!("sumito-arena-at-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = quick_config().rules;
        // Black can push a white marble off at once (F6F5, one of the suite's
        // captures); ply 28 of a 60-ply game.
        let position =
            Position::from_fen("5/2b3/wbbb3/wwbbb3/4w4/5w2/ww1w3/bbbww1/bb1w1 b 2 3 28 0")
                .unwrap()
                .with_rules(rules);
        let config = MatchConfig {
            games_per_pairing: 2,
            starts: vec![MatchStart::at(position)],
            opening_plies: 0,
            record_dir: Some(dir.clone()),
            ..quick_config()
        };
        let results = play_match(&entrants(&["greedy", "random"]), &config, &Silent).unwrap();
        assert_eq!(results.games.len(), 2);
        for game in &results.games {
            assert_eq!(game.record.start, Start::Position(position));
            assert_eq!(game.record.start_position().unwrap(), position);
            let read = GameRecord::<Position>::read(game.record_path.as_ref().unwrap()).unwrap();
            assert_eq!(read, game.record);
            // The move limit counts from the position's own ply.
            assert!(game.plies <= 32, "{} plies", game.plies);
        }
        assert_eq!(config.starts[0].to_string(), position.to_string());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A match of the general game on `layout`, ending at `max_plies`.
    fn general_config(layout: &str, max_plies: u32, games: u32) -> MatchConfig<GeneralPosition> {
        let table = RulesTable::from_toml(&format!("[rules]\nmax_plies = {max_plies}\n")).unwrap();
        let layout = GeneralLayout::from_name(layout).unwrap();
        MatchConfig {
            games_per_pairing: games,
            starts: vec![MatchStart::general(layout, &table).unwrap()],
            rules: table,
            opening_plies: 2,
            seed: 7,
            threads: 2,
            record_dir: None,
            sprt: None,
        }
    }

    fn general_entrants(specs: &[&str]) -> Vec<Entrant<GeneralPosition>> {
        let registry = GeneralPosition::classical_players();
        specs
            .iter()
            .map(|spec| registry.prepare_str(spec).unwrap())
            .collect()
    }

    #[test]
    fn greedy_outscores_random_in_a_three_player_match_with_seats_rotated() {
        let dir = std::env::temp_dir().join(format!("sumito-arena-three-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = MatchConfig {
            record_dir: Some(dir.clone()),
            ..general_config("three-player", 120, 6)
        };
        let entrants = general_entrants(&["greedy", "random", "random"]);
        let results = play_match(&entrants, &config, &Silent).unwrap();
        assert_eq!((results.games.len(), results.sides), (6, 3));
        // Every entrant sat at every side twice, each opening once a rotation.
        for e in 0..3 {
            for side in 0..3 {
                let times = results
                    .games
                    .iter()
                    .filter(|g| g.side_of(e) == Some(side))
                    .count();
                assert_eq!(times, 2);
            }
        }
        // Every game gives out one point; the pairwise scores average ½.
        for game in &results.games {
            let points: f64 = (0..3).map(|e| game.points_of(e)).sum();
            assert!((points - 1.0).abs() < 1e-9);
            let pairs: f64 = (0..3).map(|e| game.pair_score_of(e).unwrap()).sum();
            assert!((pairs - 1.5).abs() < 1e-9);
            assert_eq!(game.side_pairs().len(), 3);
        }
        let scores = results.scores();
        assert!(
            scores[0].unwrap() > scores[1].unwrap() + scores[2].unwrap(),
            "{scores:?}"
        );
        assert!(results.ratings().is_ok());
        // Every record replays to the game's end, the players by seat.
        for game in &results.games {
            let path = game.record_path.as_ref().unwrap();
            let record = GameRecord::<GeneralPosition>::read(path).unwrap();
            assert_eq!(record, game.record);
            assert_eq!(record.positions().unwrap().last(), Some(&game.end));
            let seat = game.side_of(0).unwrap();
            assert_eq!(record.player(seat), "greedy");
        }
        std::fs::remove_dir_all(&dir).unwrap();
        // One player per side, and whole rotations.
        let err = play_match(&entrants[..2], &config, &Silent).unwrap_err();
        assert!(err.to_string().contains("one player per side"), "{err}");
        let five = MatchConfig {
            games_per_pairing: 5,
            record_dir: None,
            ..config
        };
        let err = play_match(&entrants, &five, &Silent).unwrap_err();
        assert!(err.to_string().contains("multiple of the 3 sides"), "{err}");
    }

    #[test]
    fn the_pairwise_score_counts_the_finishing_order_against_the_other_entrants() {
        let config = general_config("three-player", 120, 3);
        let start = config.starts[0].position;
        // Entrant 0 plays side 1.
        let game = |scores: [u8; 3], ply: u32| {
            let mut seat_scores = [0; sumito_engine::general::MAX_SEATS];
            seat_scores[..3].copy_from_slice(&scores);
            let end = GeneralPosition::new(
                *start.rules(),
                std::array::from_fn(|seat| start.bitboard(seat)),
                start.neutral_bitboard(),
                0,
                seat_scores,
            )
            .unwrap()
            .with_ply_counters(ply, 0);
            let names = ["b", "a", "c"].map(String::from);
            PlayedGame {
                fixture: Fixture {
                    index: 0,
                    sides: vec![1, 0, 2],
                    opening: 0,
                },
                end,
                record: GameRecord::of_match(
                    config.starts[0].start,
                    &config.rules,
                    &names,
                    0,
                    &[],
                    &end,
                ),
                record_path: None,
                plies: 0,
                thinking: vec![Thinking::default(); 3],
                first_repetition: None,
            }
        };
        // Side 1 pushed off six: it won.
        let won = game([2, 6, 1], 10);
        assert_eq!(won.pair_score_of(0), Some(1.0));
        assert_eq!(won.points_of(0), 1.0);
        // Side 0 won; side 1 (entrant 0) level with side 2 on marbles.
        let second = game([6, 3, 3], 10);
        assert_eq!(second.pair_score_of(0), Some(0.25));
        assert_eq!(second.points_of(0), 0.0);
        // At the move limit sides 1 and 2 share the lead: a draw they share.
        let shared = game([1, 4, 4], 120);
        assert_eq!(
            shared.ending().map(|ending| ending.reason),
            Some(sumito_engine::EndReason::MoveLimit)
        );
        assert_eq!(shared.pair_score_of(0), Some(0.75));
        assert_eq!(shared.points_of(0), 0.5);
        assert_eq!(shared.points_of(1), 0.0);
        assert_eq!(shared.pair_score_of(5), None);
    }

    /// Stops the match once it has been asked `after` times.
    struct StopAfter {
        asked: AtomicUsize,
        after: usize,
    }

    impl MatchObserver<GeneralPosition> for StopAfter {
        fn stop_requested(&self) -> bool {
            self.asked.fetch_add(1, Ordering::SeqCst) >= self.after
        }
    }

    #[test]
    fn a_stopped_match_ends_at_once_without_results() {
        let config = general_config("three-player", 10_000, 6);
        let stop = StopAfter {
            asked: AtomicUsize::new(0),
            after: 50,
        };
        let entrants = general_entrants(&["random", "random", "random"]);
        let err = play_match(&entrants, &config, &stop).unwrap_err();
        assert!(matches!(err, ArenaError::Stopped), "{err}");
        // Each game under way stopped within one more question.
        assert!(stop.asked.load(Ordering::SeqCst) <= 50 + 2 * 2);
    }

    #[test]
    fn a_team_game_is_a_match_of_two_sides() {
        let config = general_config("four-player", 40, 2);
        let entrants = general_entrants(&["alphabeta:depth=1", "random"]);
        let results = play_match(&entrants, &config, &Silent).unwrap();
        assert_eq!((results.games.len(), results.sides), (2, 2));
        assert!(results.games.iter().all(|game| game.end.is_over()));
        assert_eq!(results.pairings().len(), 1);
        let tallies = results.tallies();
        assert_eq!(tallies[0].wins, tallies[1].losses);
    }
}
