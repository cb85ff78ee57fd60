//! Self-play workers, one for both games: each advances many games in
//! lockstep through the MCTS multi-game driver (one evaluator call per round
//! for all of them), records every position with its search policy, and
//! hands each finished game at once to a thread that writes it as a replay
//! file, so that a killed worker loses only unfinished games and the few
//! still waiting for the disk. The starts are every game's
//! ([`RunStarts`]); what differs between the games (what a position's
//! record keeps, the replay file) is the game's replay's
//! ([`ReplayGame`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_engine::{EndReason, Ending, Outcome};
use sumito_game::Board;
use sumito_mcts::{
    EvalBatch, EvalError, Evaluator, Game, MultiGameDriver, Search, SearchConfig, SearchError,
    SearchResult,
};

use crate::config::{ConfigError, RunRules, SelfPlayConfig};
use crate::replay::files::{ReplayFolder, write_replay};
use crate::replay::replay_game::{FinishedGame, ReplayGame};
use crate::starts::RunStarts;

/// Why self-play stopped.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    #[error("self-play search failed")]
    Search(#[from] SearchError),
    #[error("cannot write a replay file into {dir}: {cause}")]
    Write {
        dir: String,
        cause: sumito_store::StoreError,
    },
}

/// Counters of finished self-play games.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct SelfPlayStats {
    /// Moves played (searches finished), in finished and unfinished games.
    pub moves: u64,
    pub games: u64,
    pub positions: u64,
    pub training_positions: u64,
    /// Games with a winner.
    pub decisive: u64,
    pub resigned: u64,
    /// Games played out with resignation disabled in which some side would
    /// have resigned, and those of them that this side did not lose.
    pub resign_checks: u64,
    pub false_resignations: u64,
    /// Policy surprise (`KL(target ‖ prior)`, nats,
    /// [`SearchResult::policy_surprise`]) summed over the full searches
    /// (those that give a policy target), and their count: how much the
    /// search still teaches the network.
    pub policy_surprise_sum: f64,
    pub surprise_positions: u64,
    /// States sent to the evaluator, and time spent inside it.
    pub evaluations: u64,
    pub evaluator_time: Duration,
    /// Time spent in the driver's rounds (the search, the evaluator
    /// included); the rest of a worker's time is its bookkeeping: the
    /// records, new games, replay files.
    pub search_time: Duration,
}

impl SelfPlayStats {
    pub fn add(&mut self, other: &SelfPlayStats) {
        self.moves += other.moves;
        self.games += other.games;
        self.positions += other.positions;
        self.training_positions += other.training_positions;
        self.decisive += other.decisive;
        self.resigned += other.resigned;
        self.resign_checks += other.resign_checks;
        self.false_resignations += other.false_resignations;
        self.policy_surprise_sum += other.policy_surprise_sum;
        self.surprise_positions += other.surprise_positions;
        self.evaluations += other.evaluations;
        self.evaluator_time += other.evaluator_time;
        self.search_time += other.search_time;
    }

    /// Counts a finished game.
    fn count<R: ReplayGame>(&mut self, game: &R) {
        let tally = game.tally();
        self.games += 1;
        self.positions += tally.positions;
        self.training_positions += tally.training_positions;
        self.decisive += u64::from(tally.decisive);
        self.resigned += u64::from(tally.resigned);
        if let Some(false_resignation) = tally.resign_check {
            self.resign_checks += 1;
            self.false_resignations += u64::from(false_resignation);
        }
    }
}

/// Measures the time and the states an evaluator gets.
#[derive(Debug)]
pub struct TimedEvaluator<E> {
    inner: E,
    nanos: AtomicU64,
    states: AtomicU64,
}

impl<E> TimedEvaluator<E> {
    pub fn new(inner: E) -> TimedEvaluator<E> {
        TimedEvaluator {
            inner,
            nanos: AtomicU64::new(0),
            states: AtomicU64::new(0),
        }
    }

    /// (states evaluated, time spent evaluating) so far.
    pub fn totals(&self) -> (u64, Duration) {
        (
            self.states.load(Ordering::Relaxed),
            Duration::from_nanos(self.nanos.load(Ordering::Relaxed)),
        )
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for TimedEvaluator<E> {
    fn evaluate(&self, batch: &mut EvalBatch<G>) -> Result<(), EvalError> {
        let start = Instant::now();
        let result = self.inner.evaluate(batch);
        self.nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.states.fetch_add(batch.len() as u64, Ordering::Relaxed);
        result
    }
}

/// What a worker needs to play (the game's own part is its replay's,
/// [`ReplayGame`]).
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    pub selfplay: SelfPlayConfig,
    pub search: SearchConfig,
    /// The generation of the model behind the evaluator (recorded in files).
    pub model_generation: u32,
    pub seed: u64,
}

/// The starts of a run's self-play under `rules` (validated): its `[rules]
/// layouts`.
pub fn run_starts<B: Board>(rules: &RunRules) -> Result<RunStarts<B>, ConfigError> {
    RunStarts::of(rules.table(), rules.layouts()).map_err(|problem| ConfigError::Invalid {
        path: "the run's configuration".into(),
        key: "rules.layouts".to_owned(),
        problem,
    })
}

/// A game in progress: its records so far and resignation bookkeeping.
#[derive(Debug)]
struct GameInProgress<R> {
    positions: Vec<R>,
    resignation_disabled: bool,
    /// Consecutive own moves below the resignation threshold, per side.
    low_streak: Vec<u32>,
    /// The side the game would have been conceded to first, if any.
    would_concede_to: Option<usize>,
}

impl<R> Default for GameInProgress<R> {
    fn default() -> Self {
        GameInProgress {
            positions: Vec::new(),
            resignation_disabled: false,
            low_streak: Vec::new(),
            would_concede_to: None,
        }
    }
}

/// Plays self-play games from `starts` with `evaluator`, writing each finished
/// game into `out_dir`, until `quota` (shared by all workers: a game starts
/// only if it can take one) is used up and every started game has
/// finished, or `stop()` returns true (checked between rounds; unfinished
/// games are then dropped). `on_game` runs after each game is on disk.
///
/// A thread of its own writes the finished games, one by one as they end,
/// so that the search does not wait for the disk (a replay file is synced
/// before it is renamed into place: with a fast evaluator that wait was 40 %
/// of self-play's time, `sumito bench selfplay`). Every game finished is on
/// disk when this returns; a write that fails stops the games and is the
/// error returned.
pub fn play_games<R, E>(
    starts: &RunStarts<R::Board>,
    evaluator: &E,
    settings: &WorkerSettings,
    out_dir: &ReplayFolder,
    quota: &AtomicU64,
    stop: &(dyn Fn() -> bool + Sync),
    on_game: &(dyn Fn(&R) + Sync),
) -> Result<SelfPlayStats, SelfPlayError>
where
    R: ReplayGame,
    E: Evaluator<<R::Board as Board>::Searched> + ?Sized,
{
    // The search runs ahead of the disk by at most a round of games: games
    // started together often end together (at the move limit), and a
    // smaller queue would stop the search until their files are synced.
    let queue = settings.selfplay.games_in_parallel.max(1);
    let (sender, receiver) = std::sync::mpsc::sync_channel::<R>(queue);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> Result<(), SelfPlayError> {
            for game in receiver {
                write_replay(out_dir, &game).map_err(|source| SelfPlayError::Write {
                    dir: out_dir.describe(),
                    cause: source,
                })?;
                on_game(&game);
            }
            Ok(())
        });
        // A send fails only once the writer has stopped on an error.
        let played = play_rounds(starts, evaluator, settings, quota, stop, &mut |game| {
            sender.send(game).is_ok()
        });
        drop(sender);
        let written = writer.join().expect("the replay writer panicked");
        written?;
        played
    })
}

/// The games of [`play_games`], each finished one handed to `write`, which
/// says whether to go on.
fn play_rounds<R, E>(
    starts: &RunStarts<R::Board>,
    evaluator: &E,
    settings: &WorkerSettings,
    quota: &AtomicU64,
    stop: &(dyn Fn() -> bool + Sync),
    write: &mut dyn FnMut(R) -> bool,
) -> Result<SelfPlayStats, SelfPlayError>
where
    R: ReplayGame,
    E: Evaluator<<R::Board as Board>::Searched> + ?Sized,
{
    let timed = TimedEvaluator::new(evaluator);
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let take_quota = || {
        quota
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    };
    type Slot<R> = (
        Search<<<R as ReplayGame>::Board as Board>::Searched>,
        GameInProgress<<R as ReplayGame>::PositionRecord>,
    );
    let mut driver = MultiGameDriver::new();
    // games[i] is the game of the driver's search i.
    let mut games: Vec<GameInProgress<R::PositionRecord>> = Vec::new();
    let mut stats = SelfPlayStats::default();
    let mut branches = BranchPool::<R::Board>::default();
    let new_game =
        |rng: &mut ChaCha8Rng, branches: &BranchPool<R::Board>| -> Result<Slot<R>, SelfPlayError> {
            // (No draw at all without branching: seeded games stay as they were.)
            let share = settings.selfplay.branch_share;
            let branched = (share > 0.0 && rng.random_bool(share))
                .then(|| branches.start(rng, settings.selfplay.branch_random_plies))
                .flatten();
            let position = match branched {
                Some(position) => position,
                None => starts.draw(rng),
            };
            let search = Search::new(position.searched(), settings.search.clone(), rng.random())?;
            let game = GameInProgress {
                positions: Vec::new(),
                resignation_disabled: rng.random_bool(settings.selfplay.resign_playout_share),
                low_streak: vec![0; position.sides()],
                would_concede_to: None,
            };
            Ok((search, game))
        };
    for _ in 0..settings.selfplay.games_in_parallel {
        if !take_quota() {
            break;
        }
        let (search, game) = new_game(&mut rng, &branches)?;
        driver.push(search);
        games.push(game);
    }
    while !games.is_empty() && !stop() {
        let round_started = Instant::now();
        let results = driver.step(&timed)?;
        stats.search_time += round_started.elapsed();
        // Slots whose game ended with no new game to take their place.
        let mut retired = Vec::new();
        for (index, result) in results {
            stats.moves += 1;
            if result.full_search {
                stats.policy_surprise_sum += f64::from(result.policy_surprise());
                stats.surprise_positions += 1;
            }
            let position = R::Board::of_searched(driver.search(index).root());
            let conceded = record_move::<R>(&mut games[index], &position, &result, settings);
            driver.search_mut(index).advance(result.action)?;
            let after = R::Board::of_searched(driver.search(index).root());
            let ending = match conceded {
                Some(winner) => Ending::new(Outcome::Win(winner), EndReason::Resignation),
                None if after.is_over() => after.ending().expect("a game over has an ending"),
                None => continue,
            };
            let replacement = if !stop() && take_quota() {
                Some(new_game(&mut rng, &branches)?)
            } else {
                None
            };
            let finished = match replacement {
                Some((search, game)) => {
                    driver.replace(index, search);
                    std::mem::replace(&mut games[index], game)
                }
                None => {
                    retired.push(index);
                    std::mem::take(&mut games[index])
                }
            };
            let game = R::finish(
                FinishedGame {
                    positions: finished.positions,
                    ending,
                    resignation_disabled: finished.resignation_disabled,
                    would_concede_to: finished.would_concede_to,
                },
                &after,
                &starts.rules,
                settings.model_generation,
            );
            if settings.selfplay.branch_share > 0.0 {
                branches.add(&mut rng, game.positions(), R::position_of);
            }
            stats.count(&game);
            if !write(game) {
                (stats.evaluations, stats.evaluator_time) = timed.totals();
                return Ok(stats);
            }
        }
        // The driver would keep searching a resigned game's position.
        drop_retired(&mut driver, &mut games, &retired);
    }
    (stats.evaluations, stats.evaluator_time) = timed.totals();
    Ok(stats)
}

/// Positions of a worker's finished games that later games may start from
/// (`[selfplay] branch_share`): a few of each game, the oldest replaced
/// once full.
#[derive(Debug)]
pub(crate) struct BranchPool<B> {
    positions: Vec<B>,
    /// The slot the next position replaces once the pool is full.
    next: usize,
}

impl<B> Default for BranchPool<B> {
    fn default() -> Self {
        BranchPool {
            positions: Vec::new(),
            next: 0,
        }
    }
}

impl<B: Board> BranchPool<B> {
    /// Positions kept: enough for variety, little memory (about 200 KB for
    /// the two-player game).
    const CAPACITY: usize = 4096;
    /// Positions taken from each finished game.
    const PER_GAME: usize = 8;

    /// Keeps a few of a game's positions (`records`), drawn at random.
    pub(crate) fn add<R>(&mut self, rng: &mut ChaCha8Rng, records: &[R], position_of: fn(&R) -> B) {
        if records.is_empty() {
            return;
        }
        for _ in 0..Self::PER_GAME.min(records.len()) {
            let position = position_of(&records[rng.random_range(0..records.len())]);
            if self.positions.len() < Self::CAPACITY {
                self.positions.push(position);
            } else {
                self.positions[self.next] = position;
                self.next = (self.next + 1) % Self::CAPACITY;
            }
        }
    }

    /// A start: a kept position after 1 to `random_plies` random legal
    /// moves; `None` while the pool is empty or when those moves end the
    /// game.
    pub(crate) fn start(&self, rng: &mut ChaCha8Rng, random_plies: u32) -> Option<B> {
        if self.positions.is_empty() {
            return None;
        }
        let mut position = self.positions[rng.random_range(0..self.positions.len())];
        for _ in 0..rng.random_range(1..=random_plies.max(1)) {
            let moves = position.legal_moves();
            if moves.is_empty() {
                return None;
            }
            position = position.play(moves[rng.random_range(0..moves.len())]);
            if position.is_over() {
                return None;
            }
        }
        Some(position)
    }
}

/// Rebuilds `driver` and `games` (the game of each of its searches) without
/// the slots in `retired`: games that ended with no new game to take their
/// place.
pub(crate) fn drop_retired<G: Game, T>(
    driver: &mut MultiGameDriver<G>,
    games: &mut Vec<T>,
    retired: &[usize],
) {
    if retired.is_empty() {
        return;
    }
    let searches = std::mem::take(driver).into_searches();
    let kept: Vec<(Search<G>, T)> = searches
        .into_iter()
        .zip(std::mem::take(games))
        .enumerate()
        .filter(|(index, _)| !retired.contains(index))
        .map(|(_, pair)| pair)
        .collect();
    for (search, game) in kept {
        driver.push(search);
        games.push(game);
    }
}

/// Records the searched position and updates resignation; returns the side
/// the game is conceded to now, if any. A side resigns after
/// `resign_consecutive_plies` of its own moves in a row whose search value
/// was below the threshold; the game ends when every side but one has (with
/// two sides, when one has): a side giving up alone would leave the others
/// playing on, so the losers concede together, as a KataGo game of two
/// ends when one resigns.
fn record_move<R: ReplayGame>(
    game: &mut GameInProgress<R::PositionRecord>,
    position: &R::Board,
    result: &SearchResult,
    settings: &WorkerSettings,
) -> Option<usize> {
    game.positions.push(R::position_record(position, result));
    let threshold = settings.selfplay.resign_threshold?;
    let side = position.mover_side();
    let streak = &mut game.low_streak[side];
    *streak = if result.value < threshold {
        *streak + 1
    } else {
        0
    };
    let enough = settings.selfplay.resign_consecutive_plies;
    let mut standing = (0..game.low_streak.len()).filter(|&side| game.low_streak[side] < enough);
    let winner = standing.next()?;
    if standing.next().is_some() {
        return None;
    }
    game.would_concede_to.get_or_insert(winner);
    (!game.resignation_disabled).then_some(winner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use crate::replay::files::EXTENSION;
    use crate::replay::format::{PositionRecord, SelfPlayGame, decode_game};
    use crate::replay::general_format::{GeneralGameRecord, GeneralReplay};
    use sumito_engine::general::GeneralPosition;
    use sumito_engine::{EndReason, Ending, Layout, Outcome, Position, Rules};
    use sumito_mcts::UniformEvaluator;

    fn two_player() -> RunStarts<Position> {
        run_starts(&RunRules::from(sumito_engine::rules_table::RulesTable {
            max_plies: Some(24),
            layouts: Some(vec!["standard".into()]),
            ..Default::default()
        }))
        .unwrap()
    }

    fn settings(branch_share: f64) -> WorkerSettings {
        WorkerSettings {
            selfplay: SelfPlayConfig {
                games_in_parallel: 2,
                branch_share,
                branch_random_plies: 3,
                ..SelfPlayConfig::default()
            },
            search: SearchConfig {
                simulations: 2,
                ..SearchConfig::default()
            },
            model_generation: 0,
            seed: 5,
        }
    }

    /// The first position of every game written by a worker with `settings`.
    fn starts(name: &str, settings: &WorkerSettings, games: u64) -> Vec<Position> {
        let dir = TempDir::new(name);
        let folder = ReplayFolder::local(&dir.path().join("replay")).unwrap();
        let quota = AtomicU64::new(games);
        play_games(
            &two_player(),
            &UniformEvaluator,
            settings,
            &folder,
            &quota,
            &|| false,
            &|_: &SelfPlayGame| {},
        )
        .unwrap();
        let keys = folder.list(&[EXTENSION]).unwrap();
        assert_eq!(keys.len() as u64, games);
        keys.iter()
            .map(|key| {
                decode_game(&folder.read(key).unwrap().unwrap())
                    .unwrap()
                    .positions[0]
                    .position
            })
            .collect()
    }

    #[test]
    fn every_finished_game_is_on_disk_when_play_returns_and_seen_once() {
        let dir = TempDir::new("selfplay-written");
        let folder = ReplayFolder::local(&dir.path().join("replay")).unwrap();
        let quota = AtomicU64::new(9);
        let seen = std::sync::Mutex::new(Vec::new());
        let stats = play_games(
            &two_player(),
            &UniformEvaluator,
            &settings(0.0),
            &folder,
            &quota,
            &|| false,
            &|game: &SelfPlayGame| {
                // Called after the file is written: it is there already.
                let files = folder.list(&[EXTENSION]).unwrap().len();
                seen.lock().unwrap().push((game.positions.len(), files));
            },
        )
        .unwrap();
        assert_eq!(stats.games, 9);
        assert_eq!(folder.list(&[EXTENSION]).unwrap().len(), 9);
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 9);
        for (index, &(_, files)) in seen.iter().enumerate() {
            assert!(files > index, "game {index} seen before its file");
        }
        let positions: usize = seen.iter().map(|&(positions, _)| positions).sum();
        assert_eq!(positions as u64, stats.positions);
    }

    #[test]
    fn a_replay_that_cannot_be_written_stops_the_games_with_its_error() {
        let dir = TempDir::new("selfplay-unwritable");
        let path = dir.path().join("replay");
        let folder = ReplayFolder::local(&path).unwrap();
        let _ = std::fs::remove_dir_all(&path);
        std::fs::write(&path, b"a file where the folder should be").unwrap();
        let quota = AtomicU64::new(1000);
        let err = play_games(
            &two_player(),
            &UniformEvaluator,
            &settings(0.0),
            &folder,
            &quota,
            &|| false,
            &|_: &SelfPlayGame| {},
        )
        .unwrap_err();
        assert!(matches!(err, SelfPlayError::Write { .. }), "{err}");
        // Stopped at the failure, not after the whole quota.
        assert!(quota.load(Ordering::SeqCst) > 900);
    }

    #[test]
    fn branching_starts_games_from_earlier_games_positions() {
        let layout = Position::start(Layout::Standard, two_player().rules);
        // Without branching every game starts from the layout.
        assert!(
            starts("branch-off", &settings(0.0), 6)
                .iter()
                .all(|p| *p == layout)
        );
        // With every game branched once positions are kept: the first
        // games (the pool still empty) start from the layout, later ones
        // from positions of earlier games, a few random moves on.
        let branched = starts("branch-on", &settings(1.0), 10);
        assert!(branched.contains(&layout));
        let later: Vec<&Position> = branched.iter().filter(|p| **p != layout).collect();
        assert!(!later.is_empty());
        for position in later {
            assert!(position.ply() >= 1 && position.ending().is_none());
        }
    }

    #[test]
    fn the_pool_starts_a_few_random_moves_from_a_kept_position() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut pool = BranchPool::<Position>::default();
        assert_eq!(pool.start(&mut rng, 4), None);
        let start = Position::start(Layout::BelgianDaisy, Rules::default());
        let game = SelfPlayGame {
            rules: Rules::default(),
            model_generation: 0,
            ending: Ending::new(Outcome::draw_of_all(2), EndReason::MoveLimit),
            resignation_disabled: false,
            would_resign: None,
            final_off: [0, 0],
            positions: vec![PositionRecord {
                position: start,
                played: start.legal_moves()[0],
                root_value: 0.0,
                policy: None,
            }],
        };
        pool.add(&mut rng, &game.positions, SelfPlayGame::position_of);
        for _ in 0..20 {
            let branched = pool.start(&mut rng, 4).unwrap();
            assert!((1..=4).contains(&branched.ply()), "{branched}");
        }
    }

    // The general game (variants, 3 to 6 players).

    use sumito_game::GameKind;
    use sumito_net::{DirectEvaluator, NetTrainingConfig, PolicyValueNet, SymmetryMode, Trainer};

    fn general_net() -> PolicyValueNet {
        tch::manual_seed(2);
        let model = crate::players::tests::tiny_model(GameKind::General);
        PolicyValueNet::new(&model, tch::Device::Cpu).unwrap()
    }

    /// The general game's self-play of a run config with `layouts` (TOML
    /// strings) and a move limit, as the run reads it.
    fn general_rules(layouts: &str, max_plies: u32) -> RunStarts<GeneralPosition> {
        let text = format!(
            "[rules]\nlayouts = [{layouts}]\nmax_plies = {max_plies}\n[gating]\nmode = \"off\"\n[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n"
        );
        let config = crate::config::Config::parse(&text, std::path::Path::new("run.toml")).unwrap();
        run_starts(&config.rules).unwrap()
    }

    fn worker_settings(
        simulations: u32,
        games_in_parallel: usize,
        model_generation: u32,
        seed: u64,
    ) -> WorkerSettings {
        WorkerSettings {
            selfplay: SelfPlayConfig {
                games_in_parallel,
                ..SelfPlayConfig::default()
            },
            search: SearchConfig {
                simulations,
                ..SearchConfig::default()
            },
            model_generation,
            seed,
        }
    }

    /// Self-play of `layout` where every value is below the resignation
    /// threshold, so that each side resigns after `consecutive` of its
    /// moves: the games resigned (their files read back), then games played
    /// out with resignation off, each checking the threshold.
    fn resigning_games(layout: &str, consecutive: u32) -> (Vec<GeneralGameRecord>, SelfPlayStats) {
        use crate::fsutil::testing::TempDir;
        use crate::replay::files::{EXTENSION, ReplayFolder};
        use crate::replay::general_format::decode_general_game;

        let general = general_rules(&format!("\"{layout}\""), 60);
        let dir = TempDir::new(&format!("general-resign-{layout}"));
        let replay_folder = ReplayFolder::local(&dir.path().join("replay")).unwrap();
        let evaluator = DirectEvaluator::new(general_net(), SymmetryMode::None);
        let mut settings = worker_settings(4, 2, 0, 3);
        settings.selfplay.resign_threshold = Some(1.5);
        settings.selfplay.resign_consecutive_plies = consecutive;
        settings.selfplay.resign_playout_share = 0.0;
        let kind = general.clone();
        let play = |settings: &WorkerSettings, folder: &str, games: u64| {
            play_games(
                &kind,
                &evaluator,
                settings,
                &replay_folder.join(folder),
                &AtomicU64::new(games),
                &|| false,
                &|_: &GeneralReplay| {},
            )
            .unwrap()
        };
        let stats = play(&settings, "model-000000", 3);
        assert_eq!(
            (stats.games, stats.resigned, stats.resign_checks),
            (3, 3, 0)
        );
        let resigned = replay_folder
            .list(&[EXTENSION])
            .unwrap()
            .iter()
            .map(|key| {
                decode_general_game(&replay_folder.read(key).unwrap().unwrap())
                    .unwrap()
                    .game
            })
            .collect();
        settings.selfplay.resign_playout_share = 1.0;
        let played_out = play(&settings, "model-000001", 2);
        assert_eq!(
            (
                played_out.games,
                played_out.resigned,
                played_out.resign_checks
            ),
            (2, 0, 2)
        );
        assert!(played_out.false_resignations <= 2);
        (resigned, played_out)
    }

    #[test]
    fn a_general_game_of_two_sides_resigns_and_its_file_says_so() {
        // Four players in two teams: two sides; each resigns at its first
        // move.
        let (games, _) = resigning_games("four-player", 1);
        for game in games {
            assert!(game.resigned);
            // The first side to move gave up; the other won.
            assert_eq!(game.positions.len(), 1);
            let loser = game.positions[0].position.mover_side();
            assert_eq!(game.outcome, Outcome::Win(1 - loser));
        }
    }

    #[test]
    fn a_game_of_three_sides_ends_when_two_have_resigned() {
        // Each side resigns at its second move.
        let (games, _) = resigning_games("three-player", 2);
        for game in games {
            assert!(game.resigned);
            // One side alone giving up ends nothing: the first two movers
            // resigned at their second moves (plies 4 and 5), and the game
            // went to the third.
            assert_eq!(game.positions.len(), 5);
            let movers: Vec<usize> = game
                .positions
                .iter()
                .map(|p| p.position.mover_side())
                .collect();
            let winner = (0..3)
                .find(|side| *side != movers[0] && *side != movers[1])
                .unwrap();
            assert_eq!(movers[2], winner);
            assert_eq!(game.outcome, Outcome::Win(winner));
        }
    }

    #[test]
    fn a_worker_plays_its_quota_from_the_rules_starts_and_writes_each_game() {
        use crate::fsutil::testing::TempDir;
        use crate::replay::files::{EXTENSION, ReplayFolder};
        use crate::replay::general_format::decode_general_game;
        use std::sync::atomic::AtomicUsize;

        let general = general_rules("\"three-player\", \"three-player-trapezoid\"", 9);
        let dir = TempDir::new("variant-worker");
        let replay_folder = ReplayFolder::local(&dir.path().join("replay")).unwrap();
        let out = replay_folder.join("model-000000");
        let evaluator = DirectEvaluator::new(general_net(), SymmetryMode::None);
        let settings = worker_settings(4, 3, 7, 11);
        let kind = general.clone();
        let quota = AtomicU64::new(5);
        let seen = AtomicUsize::new(0);
        let on_game = |_: &GeneralReplay| {
            seen.fetch_add(1, Ordering::Relaxed);
        };
        let stats = play_games(
            &kind,
            &evaluator,
            &settings,
            &out,
            &quota,
            &|| false,
            &on_game,
        )
        .unwrap();
        // Five games, no more: the quota is shared, and a finished game is
        // replaced only while it lasts.
        assert_eq!((stats.games, seen.load(Ordering::Relaxed)), (5, 5));
        assert_eq!(quota.load(Ordering::Relaxed), 0);
        let files = replay_folder.list(&[EXTENSION]).unwrap();
        assert_eq!(files.len(), 5);
        let mut positions = 0;
        for key in &files {
            let replay = decode_general_game(&replay_folder.read(key).unwrap().unwrap()).unwrap();
            assert_eq!(replay.model_generation, 7);
            assert_eq!(replay.rules, general.rules);
            let first = replay.game.positions[0].position;
            assert!(general.starts.iter().any(|(_, start)| *start == first));
            positions += replay.game.positions.len() as u64;
        }
        assert_eq!(stats.positions, positions);
        assert!(stats.evaluations > 0);
        // Asked to stop: no game is finished or written.
        let quota = AtomicU64::new(4);
        let stats = play_games(
            &kind,
            &evaluator,
            &settings,
            &out,
            &quota,
            &|| true,
            &on_game,
        )
        .unwrap();
        assert_eq!((stats.games, stats.moves), (0, 0));
        let after = replay_folder.list(&[EXTENSION]).unwrap();
        assert_eq!(after.len(), 5);
    }

    #[test]
    fn three_and_four_player_games_are_played_out_and_trained_on() {
        use crate::fsutil::testing::TempDir;
        use std::sync::Mutex;

        // Three sides, and four players in two teams (two sides).
        for (layout, sides) in [("three-player", 3), ("four-player", 2)] {
            let general = general_rules(&format!("\"{layout}\""), 12);
            let start = general.starts[0].1;
            let dir = TempDir::new("variant-players");
            let out = ReplayFolder::local(dir.path()).unwrap();
            let evaluator = DirectEvaluator::new(general_net(), SymmetryMode::None);
            let settings = worker_settings(8, 2, 0, 7);
            let games = Mutex::new(Vec::new());
            let on_game = |replay: &GeneralReplay| games.lock().unwrap().push(replay.game.clone());
            play_games(
                &general.clone(),
                &evaluator,
                &settings,
                &out,
                &AtomicU64::new(2),
                &|| false,
                &on_game,
            )
            .unwrap();
            let games = games.into_inner().unwrap();
            assert_eq!(games.len(), 2);
            for game in &games {
                // The move limit ends the game after 12 plies at the latest.
                assert!(!game.positions.is_empty() && game.positions.len() <= 12);
                let mut position = start;
                for record in &game.positions {
                    assert_eq!(record.position, position, "{layout}: the records replay");
                    assert_eq!(record.side_values.len(), sides);
                    position = position.play(record.played);
                }
                assert!(position.ending().is_some());
                assert_eq!(game.final_scores, position.scores());
            }
            let samples: Vec<_> = games
                .iter()
                .flat_map(GeneralGameRecord::training_samples)
                .collect();
            assert!(!samples.is_empty());
            let mut trainer =
                Trainer::new(evaluator.into_inner(), &NetTrainingConfig::default()).unwrap();
            let metrics = trainer.train_step(&samples).unwrap();
            assert!(metrics.loss.is_finite(), "{layout}: {metrics:?}");
        }
    }

    #[test]
    fn the_general_game_branches_from_earlier_games_positions() {
        use crate::fsutil::testing::TempDir;
        use crate::replay::files::EXTENSION;
        use crate::replay::general_format::decode_general_game;

        let general = general_rules("\"three-player\"", 20);
        let layout = general.starts[0].1;
        let dir = TempDir::new("variant-branching");
        let folder = ReplayFolder::local(dir.path()).unwrap();
        let mut settings = worker_settings(2, 2, 0, 3);
        settings.selfplay.branch_share = 1.0;
        settings.selfplay.branch_random_plies = 3;
        play_games(
            &general.clone(),
            &UniformEvaluator,
            &settings,
            &folder,
            &AtomicU64::new(10),
            &|| false,
            &|_: &GeneralReplay| {},
        )
        .unwrap();
        let starts: Vec<GeneralPosition> = folder
            .list(&[EXTENSION])
            .unwrap()
            .iter()
            .map(|key| {
                decode_general_game(&folder.read(key).unwrap().unwrap())
                    .unwrap()
                    .game
                    .positions[0]
                    .position
            })
            .collect();
        assert_eq!(starts.len(), 10);
        // The first games start from the layout, later ones from positions
        // of earlier games a few random moves on.
        assert!(starts.contains(&layout));
        let later: Vec<&GeneralPosition> = starts.iter().filter(|p| **p != layout).collect();
        assert!(!later.is_empty());
        for position in later {
            assert!(position.ply() >= 1 && !position.is_game_over());
        }
    }
}
