//! Matches: every pair of entrants plays the same set of openings, each with
//! both colours, in parallel; results, records, standings, ratings.
//!
//! # Schedule
//!
//! Opening `k` is the layout `layouts[k % layouts.len()]` followed by
//! `opening_plies` random moves (no pushes), drawn from a stream seeded by
//! the match seed and `k`. Every pairing plays openings `0..games/2`, each
//! once with either entrant as Black, so deterministic players meet varied
//! positions and neither gains from the colour. Games are scheduled opening
//! by opening (all pairings of opening 0, then of opening 1, …) and handed to
//! the worker threads in that order.
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
use sumito_engine::{Color, EndReason, Layout, Move, Outcome, Position, Rules};
use thiserror::Error;

use crate::elo::{Anchor, EloError, GameOutcome, GameResult, Ratings, fit_elo};
use crate::play_out::{PlayOutError, play_out};
use crate::player::{Entrant, PlayerError};
use crate::record::{GameRecord, RecordFileError, Start, file_safe};
use crate::sprt::{SprtConfig, SprtStatus, SprtVerdict};

/// The default move limit of arena games, in plies: weak players can
/// shuffle forever, so every game must end.
pub const DEFAULT_MAX_PLIES: u32 = 400;

/// How to play a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Games per pairing of entrants; even, so that both colours play every opening.
    pub games_per_pairing: u32,
    /// Start layouts, used in turn by successive openings.
    pub layouts: Vec<Layout>,
    /// The rules of every game; they must include a move limit.
    pub rules: Rules,
    /// Random plies played from the layout before the players take over.
    pub opening_plies: u32,
    pub seed: u64,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Where to save a record of every game, if anywhere: a folder that
    /// holds no game records yet (records already there are never
    /// overwritten: the match is refused).
    pub record_dir: Option<PathBuf>,
    /// Stop a two-entrant match once this test decides.
    pub sprt: Option<SprtConfig>,
}

impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            games_per_pairing: 20,
            layouts: vec![Layout::BelgianDaisy],
            rules: Rules {
                max_plies: Some(DEFAULT_MAX_PLIES),
                ..Rules::default()
            },
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
        "games per pairing must be even and positive (both colours play every opening), got {0}"
    )]
    OddGames(u32),
    #[error("a match needs at least one layout")]
    NoLayouts,
    #[error(
        "the rules need a move limit (max_plies or no_push_off_plies), or games between \
         cautious players may never end"
    )]
    NoMoveLimit,
    #[error("{opening_plies} opening plies reach the move limit of {max_plies} plies")]
    OpeningTooLong { opening_plies: u32, max_plies: u32 },
    #[error("SPRT needs exactly two players, got {0}")]
    SprtPlayers(usize),
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
        mv: Move,
        position: String,
    },
    #[error(transparent)]
    Record(#[from] RecordFileError),
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Position in the schedule.
    pub index: usize,
    pub black: usize,
    pub white: usize,
    pub opening: usize,
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    pub fixture: Fixture,
    pub outcome: Outcome,
    pub reason: EndReason,
    pub record: GameRecord,
    /// Where the record was saved.
    pub record_path: Option<PathBuf>,
    /// Time each colour (Black, White) spent choosing its moves.
    pub thinking: [Thinking; 2],
    /// The first ply (counted from the start, the opening included) whose
    /// position repeats an earlier one of the game: the same marbles, marbles
    /// off and side to move. Two players that choose deterministically from
    /// the position alone then cycle until the move limit.
    pub first_repetition: Option<u32>,
}

pub use crate::play_out::Thinking;

impl PlayedGame {
    pub fn result(&self) -> GameResult {
        GameResult {
            black: self.fixture.black,
            white: self.fixture.white,
            outcome: match self.outcome {
                Outcome::Win(Color::Black) => GameOutcome::BlackWin,
                Outcome::Win(Color::White) => GameOutcome::WhiteWin,
                Outcome::Draw => GameOutcome::Draw,
            },
        }
    }

    /// Plies played, the opening included.
    pub fn plies(&self) -> usize {
        self.record.moves.len()
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
}

/// The match so far, as shown while it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    pub players: Vec<String>,
    pub total_games: usize,
    pub games_done: usize,
    /// Per player, over all its games.
    pub tallies: Vec<Tally>,
    pub sprt: Option<SprtStatus>,
}

/// Hears about a match's progress; called from the worker threads, one call
/// at a time.
pub trait MatchObserver: Sync {
    fn match_started(&self, _standings: &Standings) {}
    fn game_finished(&self, _game: &PlayedGame, _standings: &Standings) {}
    fn match_finished(&self, _standings: &Standings) {}
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl MatchObserver for Silent {}

/// The outcome of a whole match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResults {
    pub players: Vec<String>,
    /// Finished games in schedule order (an SPRT stop leaves gaps).
    pub games: Vec<PlayedGame>,
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

impl MatchResults {
    pub fn game_results(&self) -> Vec<GameResult> {
        self.games.iter().map(PlayedGame::result).collect()
    }

    /// Every player's wins, draws and losses.
    pub fn tallies(&self) -> Vec<Tally> {
        let mut tallies = vec![Tally::default(); self.players.len()];
        for game in &self.games {
            let result = game.result();
            for player in [result.black, result.white] {
                tallies[player].add(result.score_of(player).expect("a player of the game"));
            }
        }
        tallies
    }

    /// Each pairing `a < b` that played, in order.
    pub fn pairings(&self) -> Vec<PairingResult> {
        let n = self.players.len();
        let mut out = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let mut tally = Tally::default();
                for game in &self.games {
                    let result = game.result();
                    let opponents = (result.black, result.white);
                    if opponents == (a, b) || opponents == (b, a) {
                        tally.add(result.score_of(a).expect("a played"));
                    }
                }
                if tally.games() > 0 {
                    out.push(PairingResult { a, b, tally });
                }
            }
        }
        out
    }

    /// Maximum-likelihood Elo ratings, anchored at the player named
    /// `random` (0) when it takes part, else at a mean of 0.
    pub fn ratings(&self) -> Result<Ratings, EloError> {
        let anchor = self
            .players
            .iter()
            .position(|name| name == "random")
            .map_or(Anchor::Mean, Anchor::Player);
        fit_elo(self.players.len(), &self.game_results(), anchor)
    }
}

/// Mixes numbers into one seed, so that nearby inputs give unrelated streams.
fn mix_seed(parts: &[u64]) -> u64 {
    parts
        .iter()
        .fold(0x5EED, |state, &part| crate::splitmix64(state ^ part))
}

/// A start layout and the random plies played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub layout: Layout,
    pub moves: Vec<Move>,
}

impl Opening {
    /// Opening `index` of a match (see the module docs). Moves are drawn
    /// among those that push nothing, so that no side starts ahead.
    pub fn generate(config: &MatchConfig, index: usize) -> Opening {
        let layout = config.layouts[index % config.layouts.len()];
        let mut rng = ChaCha8Rng::seed_from_u64(mix_seed(&[config.seed, index as u64, 1]));
        let mut position = Position::start(layout, config.rules);
        let mut moves = Vec::new();
        for _ in 0..config.opening_plies {
            let legal = position.legal_moves();
            let quiet: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|&mv| !position.is_push(mv))
                .collect();
            let choices: &[Move] = if quiet.is_empty() { &legal } else { &quiet };
            if choices.is_empty() {
                break;
            }
            let mv = choices[rng.random_range(0..choices.len())];
            position = position.play(mv);
            moves.push(mv);
        }
        Opening { layout, moves }
    }
}

/// The schedule of a match between `players` entrants (see the module docs).
pub fn schedule(players: usize, games_per_pairing: u32) -> Vec<Fixture> {
    let mut fixtures = Vec::new();
    for opening in 0..(games_per_pairing / 2) as usize {
        for a in 0..players {
            for b in a + 1..players {
                for (black, white) in [(a, b), (b, a)] {
                    fixtures.push(Fixture {
                        index: fixtures.len(),
                        black,
                        white,
                        opening,
                    });
                }
            }
        }
    }
    fixtures
}

fn validate(entrants: &[Entrant], config: &MatchConfig) -> Result<(), ArenaError> {
    if entrants.len() < 2 {
        return Err(ArenaError::TooFewPlayers(entrants.len()));
    }
    if config.games_per_pairing == 0 || !config.games_per_pairing.is_multiple_of(2) {
        return Err(ArenaError::OddGames(config.games_per_pairing));
    }
    if config.layouts.is_empty() {
        return Err(ArenaError::NoLayouts);
    }
    if config.rules.max_plies.is_none() && config.rules.no_push_off_plies.is_none() {
        return Err(ArenaError::NoMoveLimit);
    }
    if let Some(max_plies) = config.rules.max_plies
        && config.opening_plies >= max_plies
    {
        return Err(ArenaError::OpeningTooLong {
            opening_plies: config.opening_plies,
            max_plies,
        });
    }
    if config.sprt.is_some() && entrants.len() != 2 {
        return Err(ArenaError::SprtPlayers(entrants.len()));
    }
    Ok(())
}

/// Plays one game from `opening` between fresh players of the two entrants.
pub fn play_game(
    entrants: &[Entrant],
    fixture: Fixture,
    opening: &Opening,
    config: &MatchConfig,
) -> Result<PlayedGame, ArenaError> {
    let sides = [fixture.black, fixture.white];
    let mut players: Vec<Box<dyn crate::Player>> = sides
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
    let limits = sides.map(|who| entrants[who].limit);
    let played = play_out(
        Position::start(opening.layout, config.rules),
        &opening.moves,
        &mut players,
        &limits,
        &|| false,
    )
    .map_err(|err| match err {
        PlayOutError::Player { side, ply, cause } => ArenaError::Player {
            game: fixture.index,
            player: entrants[sides[side]].name.clone(),
            ply,
            cause,
        },
        PlayOutError::IllegalMove { side, mv, position } => ArenaError::IllegalMove {
            game: fixture.index,
            player: entrants[sides[side]].name.clone(),
            mv,
            position,
        },
        PlayOutError::Stopped => unreachable!("a two-player match is not stopped"),
    })?;
    let (outcome, reason) = played.end.outcome().expect("played to its end");
    let moves = played.moves;
    let thinking = [played.thinking[0], played.thinking[1]];
    let first_repetition = played.first_repetition;
    let record = GameRecord {
        start: Start::Layout(opening.layout),
        rules: config.rules,
        black: entrants[fixture.black].name.clone(),
        white: entrants[fixture.white].name.clone(),
        opening_plies: opening.moves.len() as u32,
        moves,
        result: Some((outcome, reason)),
    };
    let record_path = match &config.record_dir {
        Some(dir) => {
            let path = dir.join(format!(
                "game-{:05}-{}-vs-{}.txt",
                fixture.index,
                file_safe(&record.black),
                file_safe(&record.white)
            ));
            record.write(&path)?;
            Some(path)
        }
        None => None,
    };
    Ok(PlayedGame {
        fixture,
        outcome,
        reason,
        record,
        record_path,
        thinking,
        first_repetition,
    })
}

/// Shared state of a running match.
struct Progress {
    standings: Standings,
    games: Vec<Option<PlayedGame>>,
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
pub fn play_match(
    entrants: &[Entrant],
    config: &MatchConfig,
    observer: &dyn MatchObserver,
) -> Result<MatchResults, ArenaError> {
    validate(entrants, config)?;
    if let Some(dir) = &config.record_dir {
        check_record_dir(dir)?;
        std::fs::create_dir_all(dir).map_err(|source| ArenaError::RecordDir {
            path: dir.clone(),
            cause: source,
        })?;
    }
    let fixtures = schedule(entrants.len(), config.games_per_pairing);
    let openings: Vec<Opening> = (0..(config.games_per_pairing / 2) as usize)
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
    let first_error: Mutex<Option<ArenaError>> = Mutex::new(None);
    pool.scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|_| {
                loop {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&fixture) = fixtures.get(index) else {
                        return;
                    };
                    match play_game(entrants, fixture, &openings[fixture.opening], config) {
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
        games: progress.games.into_iter().flatten().collect(),
        scheduled: fixtures.len(),
        sprt: progress.standings.sprt,
    })
}

/// Adds a finished game to the standings and the test. Once the test has
/// decided, its verdict stands: games still running when it decided are
/// counted in the tables but do not reopen the test.
fn record_game(state: &mut Progress, game: &PlayedGame, config: &MatchConfig) {
    let result = game.result();
    state.standings.games_done += 1;
    for player in [result.black, result.white] {
        state.standings.tallies[player].add(result.score_of(player).expect("a player of the game"));
    }
    // The test only runs in two-player matches, where player 0 plays every game.
    if let (Some(test), Some(status), Some(score)) =
        (config.sprt, state.standings.sprt, result.score_of(0))
        && status.verdict == SprtVerdict::Continue
    {
        state.first_player.add(score);
        let t = state.first_player;
        state.standings.sprt = Some(test.status(t.wins, t.draws, t.losses));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{Player, PlayerRegistry, SearchLimit};
    use std::sync::Arc;

    fn entrants(specs: &[&str]) -> Vec<Entrant> {
        let registry = PlayerRegistry::builtin();
        specs
            .iter()
            .map(|s| registry.prepare_str(s).unwrap())
            .collect()
    }

    fn quick_config() -> MatchConfig {
        MatchConfig {
            games_per_pairing: 4,
            rules: Rules {
                max_plies: Some(60),
                ..Rules::default()
            },
            threads: 2,
            ..MatchConfig::default()
        }
    }

    #[test]
    fn schedule_gives_every_pairing_both_colours_of_every_opening() {
        let fixtures = schedule(3, 4);
        assert_eq!(fixtures.len(), 3 * 4);
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            for opening in 0..2 {
                for (black, white) in [(a, b), (b, a)] {
                    assert_eq!(
                        fixtures
                            .iter()
                            .filter(|f| (f.black, f.white, f.opening) == (black, white, opening))
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
        let config = MatchConfig {
            layouts: vec![Layout::Standard, Layout::BelgianDaisy],
            ..MatchConfig::default()
        };
        let openings: Vec<Opening> = (0..6).map(|k| Opening::generate(&config, k)).collect();
        assert_eq!(openings[0], Opening::generate(&config, 0));
        assert_eq!(openings[0].layout, Layout::Standard);
        assert_eq!(openings[1].layout, Layout::BelgianDaisy);
        for opening in &openings {
            assert_eq!(opening.moves.len(), 4);
            let mut position = Position::start(opening.layout, config.rules);
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
            assert_eq!(replayed.result, Some((game.outcome, game.reason)));
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
        assert_eq!(ratings.anchor, crate::elo::Anchor::Player(0));
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
        let plies: usize = results.games.iter().map(PlayedGame::plies).sum();
        assert_eq!(seen.load(Ordering::SeqCst), plies);
    }

    #[test]
    fn sprt_stops_a_lopsided_match_early() {
        let config = MatchConfig {
            games_per_pairing: 200,
            sprt: Some(SprtConfig::new(0.0, 100.0).unwrap()),
            rules: Rules {
                max_plies: Some(200),
                ..Rules::default()
            },
            ..quick_config()
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
        assert!(refuse(&two, odd).contains("even"));
        let endless = MatchConfig {
            rules: Rules::default(),
            ..quick_config()
        };
        assert!(refuse(&two, endless).contains("move limit"));
        let sprt_three = MatchConfig {
            sprt: Some(SprtConfig::new(0.0, 10.0).unwrap()),
            ..quick_config()
        };
        let three = entrants(&["random", "random", "greedy"]);
        assert!(refuse(&three, sprt_three).contains("exactly two"));
    }
}
