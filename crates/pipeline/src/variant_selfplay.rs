//! Self-play of the general game (variants, 3 to 6 players): many games
//! advanced in lockstep by the MCTS multi-game driver over `VariantGame`
//! (max^n values, one per side), every searched position recorded with its
//! search policy, and each finished game turned into training samples for a
//! network of the general game (`sumito_net::VariantTrainingSample`).
//!
//! The two-player self-play (`crate::selfplay`) stays separate: it writes
//! the compact two-player replay files and resigns, which this does not.
//! [`play_variant_worker`] is the run's self-play worker (games written as
//! `.vgame` files, a finished game replaced at once by a new one).

use std::sync::atomic::{AtomicU64, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sumito_game::VariantGame;
use sumito_game::variant::outcome_of;
use sumito_mcts::{Ending, Evaluator, MultiGameDriver, Search, SearchConfig, SearchResult};

use crate::config::GeneralRules;
use crate::replay::files::{ReplayFolder, write_variant_game};
use crate::replay::variant_format::{VariantGameRecord, VariantPositionRecord, VariantReplay};
use crate::selfplay::{SelfPlayError, SelfPlayStats, TimedEvaluator, drop_retired};

/// The record of the move a search chose in `game`'s position.
fn position_record(game: &VariantGame, result: &SearchResult) -> VariantPositionRecord {
    let move_of = |action: usize| {
        game.move_of(action)
            .expect("the search plays the rules' actions")
    };
    let policy = result.full_search.then(|| {
        result
            .policy_target()
            .map(|(action, target)| (move_of(action), target))
            .collect()
    });
    VariantPositionRecord {
        position: *game.position(),
        played: move_of(result.action),
        side_values: result.side_values.clone(),
        policy,
    }
}

/// What a general-game self-play worker plays.
#[derive(Debug, Clone)]
pub struct VariantWorkerSettings<'a> {
    pub general: &'a GeneralRules,
    pub search: SearchConfig,
    /// Games advanced at once (the evaluator's batch).
    pub games_in_parallel: usize,
    /// The generation of the model behind the evaluator (recorded in files).
    pub model_generation: u32,
    pub seed: u64,
}

/// Plays general-game self-play games with `evaluator`, each from a start
/// drawn among the rules' layouts, writing each finished game into
/// `out_dir` as a `.vgame` file, until `quota` (shared by all workers: a
/// game starts only if it can take one) is used up and every started game
/// has finished, or `stop()` returns true (checked between rounds;
/// unfinished games are then dropped). `on_game` runs after each game is on
/// disk.
pub fn play_variant_worker<E: Evaluator<VariantGame> + ?Sized>(
    evaluator: &E,
    settings: &VariantWorkerSettings<'_>,
    out_dir: &ReplayFolder,
    quota: &AtomicU64,
    stop: &(dyn Fn() -> bool + Sync),
    on_game: &(dyn Fn(&VariantGameRecord) + Sync),
) -> Result<SelfPlayStats, SelfPlayError> {
    let timed = TimedEvaluator::new(evaluator);
    let general = settings.general;
    let sides = general.rules.seating.sides();
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let take_quota = || {
        quota
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    };
    let new_game = |rng: &mut ChaCha8Rng| -> Result<Search<VariantGame>, SelfPlayError> {
        let setup = &general.setups[rng.random_range(0..general.setups.len())];
        let start = setup
            .start(&general.rules)
            .map_err(|err| SelfPlayError::Start(err.to_string()))?;
        Ok(Search::new(
            VariantGame(start),
            settings.search.clone(),
            rng.random(),
        )?)
    };
    let mut driver = MultiGameDriver::new();
    // games[i] holds the records of the driver's search i.
    let mut games: Vec<Vec<VariantPositionRecord>> = Vec::new();
    let mut stats = SelfPlayStats::default();
    for _ in 0..settings.games_in_parallel {
        if !take_quota() {
            break;
        }
        driver.push(new_game(&mut rng)?);
        games.push(Vec::new());
    }
    while !games.is_empty() && !stop() {
        let results = driver.step(&timed)?;
        // Slots whose game ended with no new game to take their place.
        let mut retired = Vec::new();
        for (index, result) in results {
            stats.moves += 1;
            let game = *driver.search(index).root();
            games[index].push(position_record(&game, &result));
            driver.search_mut(index).advance(result.action)?;
            let after = *driver.search(index).root().position();
            let Some((outcome, _)) = after.outcome() else {
                continue;
            };
            if !stop() && take_quota() {
                driver.replace(index, new_game(&mut rng)?);
            } else {
                retired.push(index);
            }
            let positions = std::mem::take(&mut games[index]);
            let replay = VariantReplay {
                rules: general.table.clone(),
                model_generation: settings.model_generation,
                game: VariantGameRecord {
                    outcome: outcome_of(outcome, sides),
                    final_scores: after.scores(),
                    positions,
                },
            };
            write_variant_game(out_dir, &replay).map_err(|source| SelfPlayError::Write {
                dir: out_dir.describe(),
                cause: source,
            })?;
            let game = &replay.game;
            stats.games += 1;
            stats.positions += game.positions.len() as u64;
            stats.training_positions +=
                game.positions.iter().filter(|p| p.policy.is_some()).count() as u64;
            stats.decisive += u64::from(matches!(game.outcome, Ending::Win(_)));
            on_game(game);
        }
        drop_retired(&mut driver, &mut games, &retired);
    }
    (stats.evaluations, stats.evaluator_time) = timed.totals();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_net::{
        DirectEvaluator, NetGame, NetTrainingConfig, PolicyValueNet, SymmetryMode, Trainer,
    };

    fn variant_net() -> PolicyValueNet {
        tch::manual_seed(2);
        let model = crate::players::tests::tiny_model(NetGame::Variant);
        PolicyValueNet::new(&model, tch::Device::Cpu).unwrap()
    }

    /// The general rules of a run config with `layouts` (TOML strings) and a
    /// move limit, as the run reads them.
    fn general_rules(layouts: &str, max_plies: u32) -> GeneralRules {
        let text = format!(
            "[rules]\nlayouts = [{layouts}]\nmax_plies = {max_plies}\n[gating]\nmode = \"off\"\n[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n"
        );
        crate::config::Config::parse(&text, std::path::Path::new("run.toml"))
            .unwrap()
            .general_rules()
            .unwrap()
    }

    fn worker_settings(
        general: &GeneralRules,
        simulations: u32,
        games_in_parallel: usize,
        model_generation: u32,
        seed: u64,
    ) -> VariantWorkerSettings<'_> {
        VariantWorkerSettings {
            general,
            search: SearchConfig {
                simulations,
                ..SearchConfig::default()
            },
            games_in_parallel,
            model_generation,
            seed,
        }
    }

    #[test]
    fn a_worker_plays_its_quota_from_the_rules_starts_and_writes_each_game() {
        use crate::fsutil::testing::TempDir;
        use crate::replay::files::{ReplayFolder, VARIANT_EXTENSION};
        use crate::replay::variant_format::decode_variant_game;
        use std::sync::atomic::AtomicUsize;

        let general = general_rules("\"three-player\", \"three-player-trapezoid\"", 9);
        let dir = TempDir::new("variant-worker");
        let replay_folder = ReplayFolder::local(&dir.path().join("replay")).unwrap();
        let out = replay_folder.join("model-000000");
        let evaluator = DirectEvaluator::new(variant_net(), SymmetryMode::None);
        let settings = worker_settings(&general, 4, 3, 7, 11);
        let quota = AtomicU64::new(5);
        let seen = AtomicUsize::new(0);
        let on_game = |_: &VariantGameRecord| {
            seen.fetch_add(1, Ordering::Relaxed);
        };
        let stats =
            play_variant_worker(&evaluator, &settings, &out, &quota, &|| false, &on_game).unwrap();
        // Five games, no more: the quota is shared, and a finished game is
        // replaced only while it lasts.
        assert_eq!((stats.games, seen.load(Ordering::Relaxed)), (5, 5));
        assert_eq!(quota.load(Ordering::Relaxed), 0);
        let files = replay_folder.list(VARIANT_EXTENSION).unwrap();
        assert_eq!(files.len(), 5);
        let mut positions = 0;
        for key in &files {
            let replay = decode_variant_game(&replay_folder.read(key).unwrap().unwrap()).unwrap();
            assert_eq!(replay.model_generation, 7);
            assert_eq!(replay.rules, general.table);
            let first = replay.game.positions[0].position;
            assert!(
                general
                    .setups
                    .iter()
                    .any(|setup| setup.start(&general.rules).unwrap() == first)
            );
            positions += replay.game.positions.len() as u64;
        }
        assert_eq!(stats.positions, positions);
        assert!(stats.evaluations > 0);
        // Asked to stop: no game is finished or written.
        let quota = AtomicU64::new(4);
        let stats =
            play_variant_worker(&evaluator, &settings, &out, &quota, &|| true, &on_game).unwrap();
        assert_eq!((stats.games, stats.moves), (0, 0));
        let after = replay_folder.list(VARIANT_EXTENSION).unwrap();
        assert_eq!(after.len(), 5);
    }

    #[test]
    fn three_and_four_player_games_are_played_out_and_trained_on() {
        use crate::fsutil::testing::TempDir;
        use std::sync::Mutex;

        // Three sides, and four players in two teams (two sides).
        for (layout, sides) in [("three-player", 3), ("four-player", 2)] {
            let general = general_rules(&format!("\"{layout}\""), 12);
            let start = general.setups[0].start(&general.rules).unwrap();
            let dir = TempDir::new("variant-players");
            let out = ReplayFolder::local(dir.path()).unwrap();
            let evaluator = DirectEvaluator::new(variant_net(), SymmetryMode::None);
            let settings = worker_settings(&general, 8, 2, 0, 7);
            let games = Mutex::new(Vec::new());
            let on_game = |game: &VariantGameRecord| games.lock().unwrap().push(game.clone());
            play_variant_worker(
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
                assert!(position.outcome().is_some());
                assert_eq!(game.final_scores, position.scores());
            }
            let samples: Vec<_> = games
                .iter()
                .flat_map(VariantGameRecord::training_samples)
                .collect();
            assert!(!samples.is_empty());
            let mut trainer =
                Trainer::new(evaluator.into_inner(), &NetTrainingConfig::default()).unwrap();
            let metrics = trainer.train_step(&samples).unwrap();
            assert!(metrics.loss.is_finite(), "{layout}: {metrics:?}");
        }
    }
}
