//! The replay store: a sliding window over the newest training positions,
//! whose size grows with the total number of positions ever generated
//! (KataGo's power law), bounded in memory. The trainer samples it uniformly
//! and sees each sample under a random symmetry of the hexagon.
//!
//! The store follows the replay folder incrementally: [`ReplayStore::refresh`]
//! reads only files it has not seen. A file that cannot be read or decoded
//! (or an object its storage reports corrupt) is skipped with a warning that
//! names it, once.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::files::{ReplayFolder, replay_extensions};
use super::format::SelfPlayGame;
use super::reader::{BackgroundReader, Pass, read_unseen};
use super::replay_game::ReplayGame;
use crate::config::{Config, TrainingConfig};

/// The window size for `total` positions generated so far.
pub fn window_size(total: u64, config: &TrainingConfig) -> u64 {
    let min = config.window_min_positions as f64;
    let total_f = total as f64;
    if total_f <= min {
        return total;
    }
    let alpha = config.window_exponent;
    let grown = min * (1.0 + config.window_scale * ((total_f / min).powf(alpha) - 1.0) / alpha);
    (grown as u64).min(config.window_max_positions).min(total)
}

/// What one [`ReplayStore::refresh`] found.
#[derive(Debug, Default, Clone)]
pub struct RefreshReport {
    pub new_games: u64,
    pub new_positions: u64,
    /// Files that were skipped (the object, named with its storage), with
    /// the reason.
    pub skipped: Vec<(String, String)>,
    /// Time spent listing and reading the files (not decoding them).
    pub storage_time: std::time::Duration,
}

/// Loaded games and the window of their training positions (of two-player
/// games unless `G` says otherwise).
#[derive(Debug)]
pub struct ReplayStore<G = SelfPlayGame> {
    folder: ReplayFolder,
    config: TrainingConfig,
    /// The keys of the files read (or skipped) so far, when no background
    /// reader follows the folder (it keeps them then).
    seen: HashSet<String>,
    reader: Option<BackgroundReader>,
    /// (game, position index) of each training position in the window,
    /// oldest first.
    window: VecDeque<(Arc<G>, u32)>,
    total_games: u64,
    total_positions: u64,
}

impl<G: ReplayGame> ReplayStore<G> {
    /// An empty store following `folder`; call [`ReplayStore::refresh`].
    pub fn new(folder: ReplayFolder, config: TrainingConfig) -> ReplayStore<G> {
        ReplayStore {
            folder,
            config,
            seen: HashSet::new(),
            reader: None,
            window: VecDeque::new(),
            total_games: 0,
            total_positions: 0,
        }
    }

    /// Games ever generated (every readable replay file seen).
    pub fn total_games(&self) -> u64 {
        self.total_games
    }

    /// Training positions ever generated.
    pub fn total_positions(&self) -> u64 {
        self.total_positions
    }

    /// Training positions in the window now.
    pub fn len(&self) -> usize {
        self.window.len()
    }

    pub fn is_empty(&self) -> bool {
        self.window.is_empty()
    }

    /// Reads the replay files that appeared since the last call (with a
    /// background reader, takes what it has read, without waiting). Older
    /// files that would fall out of the window at once are only counted
    /// (from their header), not decoded.
    pub fn refresh(&mut self) -> Result<RefreshReport, sumito_store::StoreError> {
        if let Some(reader) = &self.reader {
            let passes = reader.take();
            return self.ingest_passes(passes, std::time::Duration::ZERO);
        }
        let started = std::time::Instant::now();
        // A failed read leaves its key unseen, so it is read again next time.
        let mut seen = self.seen.clone();
        let pass = read_unseen(
            &self.folder,
            &replay_extensions(G::KIND),
            None,
            &mut seen,
            |_| (),
        );
        let storage_time = started.elapsed();
        let report = self.ingest_passes(vec![pass], storage_time)?;
        self.seen = seen;
        Ok(report)
    }

    /// From now on, lists and reads new files in a background thread
    /// ([`BackgroundReader`]): [`ReplayStore::refresh`] takes what it read.
    pub fn read_in_background(&mut self) {
        if self.reader.is_none() {
            let seen = std::mem::take(&mut self.seen);
            self.reader = Some(BackgroundReader::start(
                self.folder.clone(),
                replay_extensions(G::KIND),
                seen,
            ));
        }
    }

    /// Waits until the background reader has read the files there are now
    /// (at once without one: reads them), and takes them. The report's
    /// storage time is the whole wait.
    pub fn catch_up(&mut self) -> Result<RefreshReport, sumito_store::StoreError> {
        let started = std::time::Instant::now();
        let Some(reader) = &self.reader else {
            return self.refresh();
        };
        let mut passes = Vec::new();
        while !reader.listed_once() {
            passes.extend(reader.wait(std::time::Duration::from_millis(100)).0);
        }
        passes.extend(reader.take());
        self.ingest_passes(passes, started.elapsed())
    }

    /// Waits up to `timeout` for new files, then takes them (without a
    /// background reader: sleeps, then reads). The report's storage time is
    /// the part of the wait spent on files already listed, not on games yet
    /// to be played.
    pub fn wait_for_games(
        &mut self,
        timeout: std::time::Duration,
    ) -> Result<RefreshReport, sumito_store::StoreError> {
        match &self.reader {
            Some(reader) => {
                let (passes, on_storage) = reader.wait(timeout);
                self.ingest_passes(passes, on_storage)
            }
            None => {
                std::thread::sleep(timeout);
                self.refresh()
            }
        }
    }

    /// The background reader's files handed over and its time spent
    /// listing and reading; `None` without one.
    pub fn background_work(&self) -> Option<(u64, std::time::Duration)> {
        self.reader.as_ref().map(BackgroundReader::work_done)
    }

    /// Adds the files of `passes` to the window (see [`ReplayStore::refresh`]).
    fn ingest_passes(
        &mut self,
        passes: Vec<Pass>,
        storage_time: std::time::Duration,
    ) -> Result<RefreshReport, sumito_store::StoreError> {
        let mut report = RefreshReport {
            storage_time,
            ..RefreshReport::default()
        };
        let mut new = Vec::new();
        for pass in passes {
            for (key, read) in pass? {
                let name = self.folder.describe_key(&key);
                let bytes = match read {
                    Ok(Some(bytes)) => bytes,
                    // Listed a moment ago: deleted with its run since.
                    Ok(None) => continue,
                    Err(err @ sumito_store::StoreError::Corrupt { .. }) => {
                        report.skipped.push((name, err.to_string()));
                        continue;
                    }
                    // Read again at the next refresh.
                    Err(err) => return Err(err),
                };
                match G::peek_training_positions(&bytes) {
                    Ok(positions) => new.push((name, bytes, positions)),
                    Err(why) => report.skipped.push((name, why)),
                }
            }
        }
        // The window after this refresh; decode the newest files that fill
        // it, only count the older ones (they would be dropped at once).
        let announced: u64 = new.iter().map(|(.., positions)| positions).sum();
        let target = window_size(self.total_positions + announced, &self.config);
        let mut decoded = Vec::new();
        let mut filled = 0u64;
        for (name, bytes, positions) in new.into_iter().rev() {
            if filled >= target {
                report.new_games += 1;
                report.new_positions += positions;
                continue;
            }
            match G::decode(&bytes) {
                Ok(game) => {
                    filled += game.training_indices().len() as u64;
                    decoded.push(game);
                }
                Err(err) => report.skipped.push((name, err)),
            }
        }
        // Oldest first, so that the front of the window stays the oldest.
        for game in decoded.into_iter().rev() {
            let indices = game.training_indices();
            report.new_games += 1;
            report.new_positions += indices.len() as u64;
            let game = Arc::new(game);
            for index in indices {
                self.window.push_back((Arc::clone(&game), index));
            }
        }
        self.total_games += report.new_games;
        self.total_positions += report.new_positions;
        let target = window_size(self.total_positions, &self.config) as usize;
        while self.window.len() > target {
            self.window.pop_front();
        }
        Ok(report)
    }

    /// A uniformly drawn entry of the window: the game and the position's
    /// index; `None` when the window is empty.
    pub(crate) fn draw<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<(&G, usize)> {
        if self.window.is_empty() {
            return None;
        }
        let (game, index) = &self.window[rng.random_range(0..self.window.len())];
        Some((game, *index as usize))
    }

    /// `batch_size` training samples drawn uniformly from the window, each
    /// under a random symmetry its rules keep
    /// ([`ReplayGame::training_batch`]); the window must not be empty.
    pub fn training_batch(
        &self,
        rng: &mut ChaCha8Rng,
        config: &Config,
        batch_size: usize,
    ) -> Vec<G::Sample> {
        G::training_batch(
            |rng| {
                self.draw(rng)
                    .expect("a training batch needs a non-empty store")
            },
            rng,
            config,
            batch_size,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use crate::replay::files::write_replay;
    use crate::replay::format::tests::random_game;
    use rand::SeedableRng;
    use sumito_engine::Rules;

    fn small_window() -> TrainingConfig {
        TrainingConfig {
            window_min_positions: 100,
            window_max_positions: 150,
            ..TrainingConfig::default()
        }
    }

    #[test]
    fn general_game_files_are_followed_and_sampled_under_kept_symmetries() {
        use crate::replay::general_format::{GeneralReplay, tests::scripted_game};
        use sumito_engine::rules_table::RulesTable;
        use sumito_net::{GeneralTrainingSample, Sample as _};

        let dir = TempDir::new("variant-store");
        let replay = ReplayFolder::local(dir.path()).unwrap();
        let folder = replay.join("model-000001");
        let mut expected = 0;
        for (rules, layout) in [
            ("max_plies = 30", "three-player"),
            ("max_plies = 20\nholes = [\"E5\", \"E1\"]", "belgian-daisy"),
        ] {
            let table: RulesTable = toml::from_str(rules).unwrap();
            let game = scripted_game(&table, layout);
            let replay = GeneralReplay {
                rules: table,
                model_generation: 1,
                game,
            };
            expected += replay.training_indices().len();
            write_replay(&folder, &replay).unwrap();
        }
        // A two-player file beside them is not this store's: skipped, and
        // says why.
        let two_player = write_replay(&folder, &random_game(3, Rules::default())).unwrap();
        std::fs::write(
            dir.path().join("model-000001").join("broken.vgame"),
            b"SUMITOV\0 not a game",
        )
        .unwrap();
        let mut store: ReplayStore<GeneralReplay> = ReplayStore::new(replay, small_window());
        let report = store.refresh().unwrap();
        assert_eq!(report.new_games, 2);
        assert_eq!(report.skipped.len(), 2, "{:?}", report.skipped);
        let skipped = |name: &str| {
            report
                .skipped
                .iter()
                .find(|(key, _)| key.ends_with(name))
                .map(|(_, why)| why.clone())
        };
        assert!(skipped("broken.vgame").is_some(), "{:?}", report.skipped);
        let why = skipped(&two_player).unwrap();
        assert!(why.contains("the two-player game"), "{why}");
        assert_eq!(store.len(), expected);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let samples: Vec<GeneralTrainingSample> = (0..40)
            .map(|_| {
                let (replay, index) = store.draw(&mut rng).unwrap();
                replay.training_sample(index, &mut rng)
            })
            .collect();
        // Every sample is a valid training sample (its policy legal in its
        // position under its symmetry).
        GeneralTrainingSample::build_batch(
            &samples,
            sumito_game::GameKind::General.into(),
            tch::Device::Cpu,
        )
        .unwrap();
        // The holes at E5 and E1 keep only the symmetries that map them
        // onto themselves, and the store draws among those only: no marble
        // of a holed sample ever stands on a hole (other symmetries would
        // put some there).
        let holed: Vec<_> = samples
            .iter()
            .filter(|sample| sample.position.rules().seating.seats() == 2)
            .collect();
        assert!(holed.len() > 5, "{}", holed.len());
        let kept = sumito_engine::general::symmetry::kept_symmetries(holed[0].position.rules());
        assert!((1..12).contains(&kept.len()), "{}", kept.len());
        for sample in holed {
            let position = &sample.position;
            let holes = position.rules().holes;
            assert_ne!(holes, 0);
            let marbles = position.bitboard(0) | position.bitboard(1);
            assert_eq!(marbles & holes, 0, "a marble on a hole: {position}");
        }
    }

    #[test]
    fn the_window_grows_sublinearly_and_is_bounded() {
        let config = TrainingConfig {
            window_min_positions: 1000,
            window_max_positions: 5000,
            ..TrainingConfig::default()
        };
        assert_eq!(window_size(500, &config), 500);
        assert_eq!(window_size(1000, &config), 1000);
        let at_2k = window_size(2000, &config);
        let at_4k = window_size(4000, &config);
        assert!(at_2k > 1000 && at_2k < 2000, "{at_2k}");
        assert!(
            at_4k > at_2k && at_4k - at_2k < at_2k - 1000 + 400,
            "{at_4k}"
        );
        assert_eq!(window_size(10_000_000, &config), 5000);
    }

    #[test]
    fn loads_new_files_incrementally_and_keeps_the_window() {
        let dir = TempDir::new("store");
        let rules = Rules {
            max_plies: Some(60),
            ..Rules::default()
        };
        let replay = ReplayFolder::local(dir.path()).unwrap();
        let folder = replay.join("model-000000");
        let mut expected_positions = 0;
        for seed in 0..3 {
            let game = random_game(seed, rules);
            expected_positions += game.training_positions() as u64;
            write_replay(&folder, &game).unwrap();
        }
        let mut store: ReplayStore = ReplayStore::new(replay, small_window());
        let report = store.refresh().unwrap();
        assert_eq!(
            (report.new_games, report.new_positions),
            (3, expected_positions)
        );
        assert_eq!(store.len() as u64, expected_positions.min(100));
        assert_eq!(store.refresh().unwrap().new_games, 0);
        for seed in 3..10 {
            write_replay(&folder, &random_game(seed, rules)).unwrap();
        }
        let report = store.refresh().unwrap();
        assert_eq!(report.new_games, 7);
        assert!(store.total_positions() > 150);
        assert_eq!(
            store.len() as u64,
            window_size(store.total_positions(), &small_window())
        );
    }

    #[test]
    fn corrupted_and_truncated_files_are_skipped_by_name() {
        let dir = TempDir::new("store-corrupt");
        let rules = Rules {
            max_plies: Some(40),
            ..Rules::default()
        };
        let replay = ReplayFolder::local(dir.path()).unwrap();
        let folder = replay.join("model-000001");
        let good = replay.describe_key(&write_replay(&folder, &random_game(1, rules)).unwrap());
        let truncated =
            replay.describe_key(&write_replay(&folder, &random_game(2, rules)).unwrap());
        let flipped = replay.describe_key(&write_replay(&folder, &random_game(3, rules)).unwrap());
        let bytes = std::fs::read(&truncated).unwrap();
        std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
        let mut bytes = std::fs::read(&flipped).unwrap();
        bytes[40] ^= 0x10;
        std::fs::write(&flipped, &bytes).unwrap();
        let mut store: ReplayStore = ReplayStore::new(replay, small_window());
        let report = store.refresh().unwrap();
        let skipped: Vec<&String> = report.skipped.iter().map(|(name, _)| name).collect();
        assert_eq!(report.new_games, 1);
        assert!(
            skipped.contains(&&truncated)
                && skipped.contains(&&flipped)
                && !skipped.contains(&&good)
        );
        assert!(
            report
                .skipped
                .iter()
                .all(|(_, why)| why.contains("truncated") || why.contains("checksum")),
            "{:?}",
            report.skipped
        );
        // Reported once, not on every refresh.
        assert!(store.refresh().unwrap().skipped.is_empty());
    }

    /// Waits (at most 30 s) until `store` has read `games` games; returns
    /// the files it skipped meanwhile.
    fn wait_until_read(store: &mut ReplayStore, games: u64) -> Vec<String> {
        let started = std::time::Instant::now();
        let mut skipped = Vec::new();
        while store.total_games() < games {
            assert!(started.elapsed().as_secs() < 30, "not read in time");
            let report = store
                .wait_for_games(std::time::Duration::from_millis(200))
                .unwrap();
            skipped.extend(report.skipped.into_iter().map(|(name, _)| name));
        }
        skipped
    }

    #[test]
    fn a_background_reader_hands_over_new_files_and_skips_damaged_ones_once() {
        let dir = TempDir::new("store-background");
        let rules = Rules {
            max_plies: Some(40),
            ..Rules::default()
        };
        let replay = ReplayFolder::local(dir.path()).unwrap();
        let folder = replay.join("model-000000");
        for seed in 0..3 {
            write_replay(&folder, &random_game(seed, rules)).unwrap();
        }
        let mut store: ReplayStore = ReplayStore::new(replay.clone(), small_window());
        store.refresh().unwrap();
        store.read_in_background();
        // What the synchronous refresh read is not read again.
        assert_eq!(store.refresh().unwrap().new_games, 0);
        let later = replay.join("model-000001");
        for seed in 3..5 {
            write_replay(&later, &random_game(seed, rules)).unwrap();
        }
        // Damaged before it comes into the folder (a reader may read a file
        // the moment it is there).
        let staging = TempDir::new("store-background-staging");
        let staged = ReplayFolder::local(staging.path()).unwrap();
        let staged = staged.describe_key(&write_replay(&staged, &random_game(5, rules)).unwrap());
        let mut bytes = std::fs::read(&staged).unwrap();
        bytes[40] ^= 0x10;
        std::fs::write(&staged, &bytes).unwrap();
        let damaged = dir
            .path()
            .join("model-000001")
            .join(std::path::Path::new(&staged).file_name().unwrap());
        std::fs::rename(&staged, &damaged).unwrap();
        let damaged = damaged.display().to_string();
        let mut skipped = wait_until_read(&mut store, 5);
        // The damaged file may come in the same pass or the next one.
        let quiet = store
            .wait_for_games(std::time::Duration::from_millis(1500))
            .unwrap();
        skipped.extend(quiet.skipped.into_iter().map(|(name, _)| name));
        assert_eq!(skipped, vec![damaged]);
        assert_eq!((store.total_games(), quiet.new_games), (5, 0));
        let (files, _) = store.background_work().unwrap();
        assert_eq!(files, 3);
        // Waiting for games that are not played yet is not time on storage.
        let idle = store
            .wait_for_games(std::time::Duration::from_millis(300))
            .unwrap();
        assert_eq!(idle.storage_time, std::time::Duration::ZERO);
    }

    #[test]
    fn samples_are_legal_under_their_symmetry() {
        let dir = TempDir::new("store-sample");
        let rules = Rules {
            max_plies: Some(50),
            ..Rules::default()
        };
        let replay = ReplayFolder::local(dir.path()).unwrap();
        write_replay(&replay.join("model-000000"), &random_game(5, rules)).unwrap();
        let mut store: ReplayStore = ReplayStore::new(replay, small_window());
        store.refresh().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for _ in 0..50 {
            let (game, index) = store.draw(&mut rng).unwrap();
            let symmetry = sumito_engine::Symmetry::ALL[rng.random_range(0..12)];
            let sample = game.training_sample(index, symmetry, &small_window());
            let total: f32 = sample.policy.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-4);
            assert!(
                sample
                    .policy
                    .iter()
                    .all(|(mv, _)| sample.position.is_legal(*mv))
            );
            assert_eq!(sample.policy.len(), sample.position.count_legal_moves());
            assert!((sample.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }
}
