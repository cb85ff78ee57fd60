//! Self-play workers: each advances many games in lockstep through the MCTS
//! multi-game driver (one evaluator call per round for all of them), records
//! every position with its search policy, and writes each finished game as a
//! replay file at once, so that a killed worker loses only unfinished games.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_engine::{Color, Layout, Outcome, Position};
use sumito_game::AbaloneGame;
use sumito_mcts::{
    EvalBatch, EvalError, Evaluator, Game, MultiGameDriver, Search, SearchConfig, SearchError,
    SearchResult,
};

use crate::config::{RulesConfig, SelfPlayConfig};
use crate::replay::files::{ReplayFolder, write_game};
use crate::replay::format::{GameEnd, PositionRecord, SelfPlayGame, quantize_policy};

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
    #[error("cannot set up a start position: {0}")]
    Start(String),
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
    /// States sent to the evaluator, and time spent inside it.
    pub evaluations: u64,
    pub evaluator_time: Duration,
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
        self.evaluations += other.evaluations;
        self.evaluator_time += other.evaluator_time;
    }

    fn count_game(&mut self, game: &SelfPlayGame) {
        self.games += 1;
        self.positions += game.positions.len() as u64;
        self.training_positions += game.training_positions() as u64;
        self.decisive += u64::from(game.outcome != Outcome::Draw);
        self.resigned += u64::from(game.end == GameEnd::Resignation);
        if game.resignation_disabled
            && let Some(side) = game.would_resign
        {
            self.resign_checks += 1;
            self.false_resignations += u64::from(game.result_for(side) >= 0);
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

/// What a worker needs to play.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    pub rules: RulesConfig,
    pub selfplay: SelfPlayConfig,
    pub search: SearchConfig,
    /// The generation of the model behind the evaluator (recorded in files).
    pub model_generation: u32,
    pub seed: u64,
}

/// A game in progress: its records so far and resignation bookkeeping.
#[derive(Debug, Default)]
struct GameInProgress {
    positions: Vec<PositionRecord>,
    resignation_disabled: bool,
    /// Consecutive own moves below the resignation threshold, per colour.
    low_streak: [u32; 2],
    would_resign: Option<Color>,
}

/// Plays self-play games with `evaluator`, writing each finished game into
/// `out_dir`, until `quota` (shared by all workers: a game starts only if it
/// can take one) is used up and every started game has finished, or
/// `stop()` returns true (checked between rounds; unfinished games are then
/// dropped). `on_game` runs after each game is on disk.
pub fn play_games<E: Evaluator<AbaloneGame> + ?Sized>(
    evaluator: &E,
    settings: &WorkerSettings,
    out_dir: &ReplayFolder,
    quota: &AtomicU64,
    stop: &(dyn Fn() -> bool + Sync),
    on_game: &(dyn Fn(&SelfPlayGame) + Sync),
) -> Result<SelfPlayStats, SelfPlayError> {
    let timed = TimedEvaluator::new(evaluator);
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let layouts = settings.rules.parsed_layouts();
    let rules = settings.rules.rules();
    let take_quota = || {
        quota
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    };
    let mut driver = MultiGameDriver::new();
    // games[i] is the game of the driver's search i.
    let mut games: Vec<GameInProgress> = Vec::new();
    let mut stats = SelfPlayStats::default();
    let mut branches = BranchPool::default();
    let new_game = |rng: &mut ChaCha8Rng,
                    branches: &BranchPool|
     -> Result<(Search<AbaloneGame>, GameInProgress), SearchError> {
        // (No draw at all without branching: seeded games stay as they were.)
        let share = settings.selfplay.branch_share;
        let branched = (share > 0.0 && rng.random_bool(share))
            .then(|| branches.start(rng, settings.selfplay.branch_random_plies))
            .flatten();
        let position = branched.unwrap_or_else(|| {
            let layout: Layout = layouts[rng.random_range(0..layouts.len())];
            Position::start(layout, rules)
        });
        let search = Search::new(AbaloneGame(position), settings.search.clone(), rng.random())?;
        let game = GameInProgress {
            positions: Vec::new(),
            resignation_disabled: rng.random_bool(settings.selfplay.resign_playout_share),
            low_streak: [0; 2],
            would_resign: None,
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
        let results = driver.step(&timed)?;
        // Slots whose game ended with no new game to take their place.
        let mut retired = Vec::new();
        for (index, result) in results {
            stats.moves += 1;
            let position = *driver.search(index).root().position();
            let resigned = record_move(&mut games[index], position, &result, settings);
            driver.search_mut(index).advance(result.action)?;
            let after = *driver.search(index).root().position();
            let end = match (resigned, after.outcome()) {
                (Some(loser), _) => (Outcome::Win(loser.opponent()), GameEnd::Resignation),
                (None, Some((outcome, reason))) => (outcome, GameEnd::Rules(reason)),
                (None, None) => continue,
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
            let record = SelfPlayGame {
                rules,
                model_generation: settings.model_generation,
                outcome: end.0,
                end: end.1,
                resignation_disabled: finished.resignation_disabled,
                would_resign: finished.would_resign,
                final_off: [
                    after.marbles_off(Color::Black),
                    after.marbles_off(Color::White),
                ],
                positions: finished.positions,
            };
            if settings.selfplay.branch_share > 0.0 {
                branches.add(&mut rng, &record);
            }
            write_game(out_dir, &record).map_err(|source| SelfPlayError::Write {
                dir: out_dir.describe(),
                cause: source,
            })?;
            stats.count_game(&record);
            on_game(&record);
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
#[derive(Debug, Default)]
pub(crate) struct BranchPool {
    positions: Vec<Position>,
    /// The slot the next position replaces once the pool is full.
    next: usize,
}

impl BranchPool {
    /// Positions kept: enough for variety, little memory (about 200 KB).
    const CAPACITY: usize = 4096;
    /// Positions taken from each finished game.
    const PER_GAME: usize = 8;

    /// Keeps a few positions of `game`, drawn at random.
    pub(crate) fn add(&mut self, rng: &mut ChaCha8Rng, game: &SelfPlayGame) {
        if game.positions.is_empty() {
            return;
        }
        for _ in 0..Self::PER_GAME.min(game.positions.len()) {
            let position = game.positions[rng.random_range(0..game.positions.len())].position;
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
    pub(crate) fn start(&self, rng: &mut ChaCha8Rng, random_plies: u32) -> Option<Position> {
        if self.positions.is_empty() {
            return None;
        }
        let mut position = self.positions[rng.random_range(0..self.positions.len())];
        for _ in 0..rng.random_range(1..=random_plies.max(1)) {
            let moves = position.legal_moves_unordered();
            if moves.is_empty() {
                return None;
            }
            position = position.play(moves[rng.random_range(0..moves.len())]);
            if position.outcome().is_some() {
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
/// that resigns now, if any.
fn record_move(
    game: &mut GameInProgress,
    position: Position,
    result: &SearchResult,
    settings: &WorkerSettings,
) -> Option<Color> {
    let policy = result.full_search.then(|| {
        let moves = position.legal_moves();
        let mut target = vec![0.0f32; moves.len()];
        for root in &result.root_actions {
            if let Some(slot) = moves.iter().position(|mv| mv.action() == root.action) {
                target[slot] = root.policy_target;
            }
        }
        quantize_policy(target)
    });
    let played =
        sumito_engine::Move::from_action(result.action).expect("the search plays legal actions");
    game.positions.push(PositionRecord {
        position,
        played,
        root_value: result.value,
        policy,
    });
    let threshold = settings.selfplay.resign_threshold?;
    let side = position.side_to_move();
    let streak = &mut game.low_streak[side.index()];
    *streak = if result.value < threshold {
        *streak + 1
    } else {
        0
    };
    if *streak < settings.selfplay.resign_consecutive_plies {
        return None;
    }
    game.would_resign.get_or_insert(side);
    (!game.resignation_disabled).then_some(side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RulesConfig, SelfPlayConfig};
    use crate::fsutil::testing::TempDir;
    use crate::replay::files::EXTENSION;
    use crate::replay::format::decode_game;
    use sumito_engine::Rules;
    use sumito_mcts::UniformEvaluator;

    fn settings(branch_share: f64) -> WorkerSettings {
        WorkerSettings {
            rules: RulesConfig {
                max_plies: Some(24),
                layouts: vec!["standard".into()],
                ..RulesConfig::default()
            },
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
            &UniformEvaluator,
            settings,
            &folder,
            &quota,
            &|| false,
            &|_| {},
        )
        .unwrap();
        let keys = folder.list(EXTENSION).unwrap();
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
    fn branching_starts_games_from_earlier_games_positions() {
        let layout = Position::start(Layout::Standard, settings(0.0).rules.rules());
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
            assert!(position.ply() >= 1 && position.outcome().is_none());
        }
    }

    #[test]
    fn the_pool_starts_a_few_random_moves_from_a_kept_position() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut pool = BranchPool::default();
        assert_eq!(pool.start(&mut rng, 4), None);
        let start = Position::start(Layout::BelgianDaisy, Rules::default());
        let game = SelfPlayGame {
            rules: Rules::default(),
            model_generation: 0,
            outcome: Outcome::Draw,
            end: GameEnd::Rules(sumito_engine::EndReason::MoveLimit),
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
        pool.add(&mut rng, &game);
        for _ in 0..20 {
            let branched = pool.start(&mut rng, 4).unwrap();
            assert!((1..=4).contains(&branched.ply()), "{branched}");
        }
    }
}
