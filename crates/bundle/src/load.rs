//! Finding, opening and loading a bundle for play: where models are
//! looked up by name ([`model_folders`], [`locate_bundle`]), and
//! [`ModelBundle::open`], which checks, in this order, that `bundle.json`
//! exists and is ours, that its format version and the network's input
//! encoding version are the ones this program reads, and that every listed
//! file is present with its recorded size and checksum; then the model's
//! networks, searches and summary.

use std::path::{Path, PathBuf};

use sumito_arena::levels::LevelsReport;
use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_game::{Board, GameKind};
use sumito_mcts::Evaluator;
use sumito_net::{
    Device, DirectEvaluator, ModelConfig, NetBoard, PolicyValueNet, RulesMeta, ServiceEvaluator,
    SymmetryMode, TorchScriptModel, read_checkpoint_meta,
};

use crate::error::{BundleError, io, net};
use crate::meta::{
    BUNDLE_FILE, BUNDLE_FORMAT, BUNDLE_VERSION, BundleFile, BundleMeta, DEFAULT_MODEL, LEVELS_FILE,
    TORCHSCRIPT_FILE,
};

/// Where models are looked up by name: the folder in `SUMITO_MODELS` if
/// set; otherwise `models/` in the current folder, then `models/` of the
/// repository the program was built in (found from `target/*/sumito`).
pub fn model_folders(program: Option<&Path>, env_models: Option<PathBuf>) -> Vec<PathBuf> {
    if let Some(folder) = env_models {
        return vec![folder];
    }
    let mut folders = vec![PathBuf::from("models")];
    if let Some(repo) = program.and_then(|exe| {
        exe.ancestors()
            .find(|dir| dir.file_name().is_some_and(|name| name == "target"))
            .and_then(Path::parent)
    }) {
        folders.push(repo.join("models"));
    }
    folders
}

/// The folder of the bundle `given` (a path, or a name looked up in
/// `folders`), or without one the shipped model [`DEFAULT_MODEL`]. A
/// relative path that is not there from here, such as `models/quick` from
/// another folder than the repository's, is looked up in `folders` too
/// (without its `models/`).
pub fn locate_bundle(given: Option<&Path>, folders: &[PathBuf]) -> Result<PathBuf, BundleError> {
    if let Some(given) = given {
        let tail = given.strip_prefix("models").unwrap_or(given);
        if !given.exists()
            && given.is_relative()
            && !tail.as_os_str().is_empty()
            && let Some(found) = folders
                .iter()
                .map(|folder| folder.join(tail))
                .find(|dir| dir.exists())
        {
            return Ok(found);
        }
        return Ok(given.to_owned());
    }
    let searched: Vec<PathBuf> = folders
        .iter()
        .map(|folder| folder.join(DEFAULT_MODEL))
        .collect();
    searched
        .iter()
        .find(|dir| dir.join(BUNDLE_FILE).is_file())
        .cloned()
        .ok_or(BundleError::NoDefaultModel { searched })
}

/// `bundle.json` is not covered by the checksums it lists, so what it says of
/// the network (shape, size, rules) is checked against the weights' own
/// description, `meta.json`, which is.
fn check_architecture(path: &Path, meta: &BundleMeta, dir: &Path) -> Result<(), BundleError> {
    let weights = read_checkpoint_meta(dir).map_err(net(format!(
        "reading the description of the weights in {}",
        dir.display()
    )))?;
    let describe = |model: &ModelConfig, parameters: usize, rules: Option<RulesMeta>| {
        let rules = rules.map_or_else(|| "no rules".to_string(), |rules| format!("{rules:?}"));
        format!("{model:?} with {parameters} parameters, rules {rules}")
    };
    if weights.model != meta.architecture
        || weights.parameters != meta.parameters
        || weights.rules.is_some_and(|rules| rules != meta.rules)
    {
        return Err(BundleError::ArchitectureMismatch {
            path: path.to_owned(),
            declared: describe(&meta.architecture, meta.parameters, Some(meta.rules)),
            weights: describe(&weights.model, weights.parameters, weights.rules),
        });
    }
    Ok(())
}

/// An opened, verified bundle.
#[derive(Clone, Debug)]
pub struct ModelBundle {
    pub dir: PathBuf,
    pub meta: BundleMeta,
    /// The measured Elo of its strength levels ([`LEVELS_FILE`], written by
    /// `sumito ladder --levels` and copied beside the model), if any.
    pub levels: Option<LevelsReport>,
}

impl ModelBundle {
    /// Reads `bundle.json` and verifies the bundle (see the module docs).
    pub fn open(dir: &Path) -> Result<ModelBundle, BundleError> {
        if dir.is_file() {
            return Err(BundleError::NotAFolder {
                path: dir.to_owned(),
            });
        }
        if !dir.is_dir() {
            return Err(BundleError::NotFound {
                dir: dir.to_owned(),
            });
        }
        let path = dir.join(BUNDLE_FILE);
        if !path.is_file() {
            return Err(BundleError::NotABundle {
                dir: dir.to_owned(),
            });
        }
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|err| BundleError::Malformed {
                path: path.clone(),
                problem: err.to_string(),
            })?;
        // Identify the file before reading it whole, so that a foreign or
        // newer file gets that message rather than a field-level one.
        let found = value.get("format").and_then(|v| v.as_str()).unwrap_or("");
        if found != BUNDLE_FORMAT {
            return Err(BundleError::Foreign {
                path,
                found: found.to_string(),
            });
        }
        let version = value.get("format_version").and_then(|v| v.as_u64());
        if version != Some(u64::from(BUNDLE_VERSION)) {
            return Err(BundleError::FormatVersion {
                path,
                found: version.map_or(0, |v| v as u32),
            });
        }
        let meta: BundleMeta =
            serde_json::from_value(value).map_err(|err| BundleError::Malformed {
                path: path.clone(),
                problem: err.to_string(),
            })?;
        let game = meta.architecture.game;
        let expected = meta.architecture.shape().encoding_version();
        if meta.encoding_version != expected {
            return Err(BundleError::EncodingMismatch {
                dir: dir.to_owned(),
                found: meta.encoding_version,
                expected,
                game: if game.is_two_player() {
                    "of the two-player game"
                } else {
                    "of the general game"
                },
            });
        }
        if game.is_two_player() != meta.general.is_none() {
            return Err(BundleError::Malformed {
                path: path.clone(),
                problem: if game.is_two_player() {
                    "it gives general-game rules for a two-player network".to_owned()
                } else {
                    "it gives no general-game rules for a network of the general game".to_owned()
                },
            });
        }
        // The rules it plays under pass the one check every game makes.
        let rules_problem = match &meta.general {
            Some(table) => table.validate().err().map(|err| err.to_string()),
            None => meta
                .rules()
                .validate()
                .err()
                .map(|err| format!("rules.{}: {}", err.key, err.problem())),
        };
        if let Some(problem) = rules_problem {
            return Err(BundleError::Malformed {
                path: path.clone(),
                problem,
            });
        }
        for file in &meta.files {
            if file.name.contains(['/', '\\']) || file.name == ".." {
                return Err(BundleError::Malformed {
                    path: path.clone(),
                    problem: format!("it lists a file outside the bundle: {:?}", file.name),
                });
            }
            let file_path = dir.join(&file.name);
            if !file_path.is_file() {
                return Err(BundleError::MissingFile {
                    dir: dir.to_owned(),
                    name: file.name.clone(),
                });
            }
            let actual = BundleFile::read(dir, &file.name).map_err(io(&file_path))?;
            let corrupt = |problem: String| BundleError::Corrupt {
                dir: dir.to_owned(),
                name: file.name.clone(),
                problem,
            };
            if actual.bytes != file.bytes {
                return Err(corrupt(format!(
                    "has {} bytes, {} expected",
                    actual.bytes, file.bytes
                )));
            }
            if actual.crc32c != file.crc32c {
                return Err(corrupt(format!(
                    "has checksum {}, {} expected",
                    actual.crc32c, file.crc32c
                )));
            }
        }
        for required in [TORCHSCRIPT_FILE, "weights.safetensors", "meta.json"] {
            if !meta.files.iter().any(|file| file.name == required) {
                return Err(BundleError::MissingFile {
                    dir: dir.to_owned(),
                    name: required.to_string(),
                });
            }
        }
        check_architecture(&path, &meta, dir)?;
        let levels_path = dir.join(LEVELS_FILE);
        let levels = if levels_path.is_file() {
            let bytes = std::fs::read(&levels_path).map_err(io(&levels_path))?;
            let report: LevelsReport =
                serde_json::from_slice(&bytes).map_err(|err| BundleError::Malformed {
                    path: levels_path.clone(),
                    problem: err.to_string(),
                })?;
            Some(report)
        } else {
            None
        };
        Ok(ModelBundle {
            dir: dir.to_owned(),
            meta,
            levels,
        })
    }

    /// The measured Elo of strength level `number` (on the one Elo scale), if its
    /// levels were measured as they are defined now.
    pub fn level_elo(&self, number: u32) -> Option<f64> {
        // A rating of the level as it was defined before is not its Elo now.
        let level = sumito_game::level::level(number).ok()?;
        self.levels
            .as_ref()?
            .levels
            .iter()
            .find(|rating| rating.measures(&level))
            .map(|rating| rating.elo)
    }

    /// The TorchScript network, for play and analysis.
    pub fn load_torchscript(&self, device: Device) -> Result<TorchScriptModel, BundleError> {
        let path = self.dir.join(TORCHSCRIPT_FILE);
        TorchScriptModel::load(&path, device).map_err(net(format!("loading {}", path.display())))
    }

    /// The network from its safetensors weights (for further training or
    /// comparison with the TorchScript module).
    pub fn load_network(&self, device: Device) -> Result<PolicyValueNet, BundleError> {
        PolicyValueNet::load_checkpoint(&self.dir, Some(&self.meta.architecture), device)
            .map(|(network, _)| network)
            .map_err(net(format!(
                "loading the weights of {}",
                self.dir.display()
            )))
    }

    /// The network as every front end plays and analyses with it (terminal,
    /// browser, arena): the TorchScript module, its values shifted by the
    /// score utility the model was trained with.
    pub fn play_evaluator(
        &self,
        device: Device,
    ) -> Result<DirectEvaluator<TorchScriptModel>, BundleError> {
        Ok(
            DirectEvaluator::new(self.load_torchscript(device)?, SymmetryMode::None)
                .with_score_utility(self.meta.score_utility),
        )
    }

    /// An error naming the bundle's game, saying `wanted`, unless its model
    /// plays `game`.
    pub fn require_game(&self, game: GameKind, wanted: &'static str) -> Result<(), BundleError> {
        let dir = self.dir.clone();
        match (self.meta.kind(), game) {
            (found, game) if found == game => Ok(()),
            (GameKind::General, _) => Err(BundleError::GeneralGame {
                dir,
                layouts: self.meta.general_layouts(),
                wanted,
            }),
            (GameKind::TwoPlayer, _) => Err(BundleError::TwoPlayerGame { dir, wanted }),
        }
    }

    /// The rules the model learned, as rules of game `B`; unless it plays
    /// `B`, an error naming its game and saying where it plays.
    pub fn trained_rules<B: Board>(&self) -> Result<B::Rules, BundleError> {
        self.require_game(
            B::KIND,
            match B::KIND {
                GameKind::TwoPlayer => {
                    "seat it in a match of its game: sumito arena --layout LAYOUT --player bundle:model=..."
                }
                GameKind::General => {
                    "the many-player games and the variants need a model trained on them"
                }
            },
        )?;
        B::rules_of_table(&self.meta.rules_table()).map_err(|problem| BundleError::Malformed {
            path: self.dir.join(BUNDLE_FILE),
            problem: format!("its rules: {problem}"),
        })
    }

    /// The model as a player and analyst of its game `B`: a search of
    /// `budget` on the TorchScript network, on `device`, using `threads`
    /// cores: with more than one, that many copies of the network evaluate
    /// the parts of each batch of leaves side by side (and the search
    /// gathers that many times the leaves). An error when the model plays
    /// another game.
    pub fn search<B: NetBoard>(
        &self,
        budget: SearchBudget,
        seed: u64,
        device: Device,
        threads: u32,
    ) -> Result<NetworkSearch<B>, BundleError> {
        self.require_game(
            B::KIND,
            match B::KIND {
                GameKind::TwoPlayer => {
                    "this search plays the two-player game: play it with `sumito play --model` (which seats it) or `sumito arena --layout LAYOUT --player bundle:model=...`"
                }
                GameKind::General => {
                    "this search plays the general game: play the two-player game with `sumito play --model`"
                }
            },
        )?;
        let name = format!("{} (gen {})", self.meta.name, self.meta.training.generation);
        let evaluator: Box<dyn Evaluator<B::Searched>> = if threads <= 1 {
            Box::new(self.play_evaluator(device)?)
        } else {
            let replicas = (0..threads)
                .map(|_| self.load_torchscript(device))
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(
                ServiceEvaluator::start(replicas, SymmetryMode::None)
                    .map_err(net(format!(
                        "starting the search threads of {}",
                        self.dir.display()
                    )))?
                    .with_score_utility(self.meta.score_utility),
            )
        };
        Ok(NetworkSearch::new(name, evaluator, budget, seed).with_threads(threads.max(1)))
    }

    /// A few lines for people: what the model is and how strong.
    pub fn summary(&self) -> String {
        let meta = &self.meta;
        let arch = meta.architecture;
        let mut text = format!(
            "model {}: {} blocks x {} channels ({} parameters), generation {} of {} (training step {})",
            meta.name,
            arch.blocks,
            arch.channels,
            meta.parameters,
            meta.training.generation,
            meta.training.generations,
            meta.training.training_step
        );
        if let Some(hours) = meta.training.hours {
            text.push_str(&format!(", {hours:.1} h of training"));
        }
        if meta.score_utility > 0.0 {
            text.push_str(&format!(
                ", plays for marbles (score utility {})",
                meta.score_utility
            ));
        }
        if meta.kind() == GameKind::General {
            text.push_str(&format!(
                "; the general game, learned on {}",
                meta.general_layouts().join(", ")
            ));
        }
        // One number for its strength: the full-strength level's where the
        // levels were measured (the level table's), else its run's rating
        // with the settings it was measured at where that run's table is on
        // the same scale; nothing else.
        let full = sumito_game::level::level(sumito_game::level::FULL_STRENGTH)
            .ok()
            .and_then(|level| Some((level.simulations, self.level_elo(level.number)?)));
        if let Some((simulations, elo)) = full {
            text.push_str(&format!(
                ", Elo {elo:.0} at full strength ({simulations} simulations)"
            ));
        } else if let Some(row) = meta.own_elo_on_scale() {
            text.push_str(&format!(
                ", Elo {:.0} [{:.0}, {:.0}] in its run's rating games",
                row.elo, row.low, row.high
            ));
        }
        if !meta.opponent_scores.is_empty() {
            let scores: Vec<String> = meta
                .opponent_scores
                .iter()
                .map(|(opponent, score)| format!("{opponent} {:.0}%", 100.0 * score))
                .collect();
            text.push_str(&format!("; scores: {}", scores.join(", ")));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::export_bundle;
    use crate::export::tests::{Scratch, request, tiny_run};
    use crate::meta::TRAINING_CONFIG_FILE;
    use sumito_engine::{Layout, Position};
    use sumito_net::ENCODING_VERSION;

    /// Every shipped model's `levels.json` rates the levels as they are
    /// defined now: a level redefined without measuring the shipped models
    /// again would show the browser a stale Elo (which the bundle hides).
    #[test]
    fn the_shipped_levels_measure_the_levels_as_defined_now() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
        for name in ["quick", "three-player", "four-player", "holes"] {
            let bundle = ModelBundle::open(&models.join(name)).unwrap();
            let report = bundle.levels.as_ref().expect("levels.json");
            assert_eq!(report.levels.len(), 10, "{name}");
            for rating in &report.levels {
                let level = sumito_game::level::level(rating.level).unwrap();
                assert!(
                    rating.temperature.is_some() && rating.measures(&level),
                    "{name}: level {} was measured as {rating:?}, defined as {level:?}",
                    rating.level
                );
                assert_eq!(bundle.level_elo(rating.level), Some(rating.elo));
            }
            // On today's one Elo scale: fitted again from its games, the
            // report says what it says (`sumito ladder --rescale FILE`
            // brings it there after the scale changes).
            let again = report.rescaled().unwrap();
            for (refit, rating) in again.levels.iter().zip(&report.levels) {
                assert!(
                    (refit.elo - rating.elo).abs() < 0.01,
                    "{name}: level {} is {} on today's scale, {} in levels.json",
                    rating.level,
                    refit.elo,
                    rating.elo
                );
            }
            // The banner gives the one Elo of the level table, not the run's.
            let full = bundle.level_elo(10).unwrap();
            let summary = bundle.summary();
            assert!(
                summary.contains(&format!("Elo {full:.0} at full strength"))
                    && !summary.contains("rating games"),
                "{summary}"
            );
        }
    }

    /// Without measured levels the banner shows the run's rating only
    /// where the run's table is on the one scale: the shipped model's run
    /// rated it on an older one (greedy 178, not 722), which shows nothing.
    #[test]
    fn the_banner_shows_no_elo_of_another_scale() {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
        let mut bundle = ModelBundle::open(&models.join("quick")).unwrap();
        bundle.levels = None;
        assert!(bundle.meta.own_elo().is_some());
        assert_eq!(bundle.meta.own_elo_on_scale(), None);
        assert!(!bundle.summary().contains("Elo"), "{}", bundle.summary());
        // The same table moved onto the scale (every classical player at
        // its fixed rating) is shown.
        for row in &mut bundle.meta.elo {
            if let Some(fixed) = sumito_arena::scale::anchor_elo(&row.player) {
                row.elo = fixed;
            }
        }
        let own = bundle.meta.own_elo_on_scale().unwrap().elo;
        assert!(
            bundle.summary().contains(&format!("Elo {own:.0} [")),
            "{}",
            bundle.summary()
        );
    }

    #[test]
    fn an_exported_bundle_plays_the_same_moves_as_its_checkpoint() {
        let scratch = Scratch::new("same-moves");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("models").join("tiny");
        let meta = export_bundle(&request(run.root(), &out)).unwrap();
        assert_eq!(meta.training.generation, 1);
        assert_eq!(meta.training.training_step, 10);
        assert_eq!(meta.training.generations, 1);
        assert_eq!(meta.encoding_version, ENCODING_VERSION);
        assert_eq!(meta.rules().max_plies, Some(200));
        assert_eq!(meta.git_commit.as_deref(), Some("abc123"));
        let names: Vec<&str> = meta.files.iter().map(|f| f.name.as_str()).collect();
        for name in [
            TORCHSCRIPT_FILE,
            "model.pt.json",
            crate::meta::ONNX_FILE,
            "weights.safetensors",
            "meta.json",
            TRAINING_CONFIG_FILE,
        ] {
            assert!(names.contains(&name), "{names:?}");
        }
        let bundle = ModelBundle::open(&out).unwrap();
        assert_eq!(bundle.meta, meta);
        assert!(
            bundle.summary().contains("generation 1 of 1"),
            "{}",
            bundle.summary()
        );

        let (checkpoint, _) =
            PolicyValueNet::load_checkpoint(&run.model_path(1), None, Device::Cpu).unwrap();
        let budget = SearchBudget::Simulations(48);
        let mut original = NetworkSearch::new(
            "checkpoint",
            Box::new(DirectEvaluator::new(checkpoint, SymmetryMode::None)),
            budget,
            5,
        );
        let mut exported = bundle.search(budget, 5, Device::Cpu, 1).unwrap();
        let mut from_weights = NetworkSearch::new(
            "weights",
            Box::new(DirectEvaluator::new(
                bundle.load_network(Device::Cpu).unwrap(),
                SymmetryMode::None,
            )),
            budget,
            5,
        );
        // On two threads: the search of 16 leaves a batch, evaluated in two
        // halves side by side, finds what one thread finds with 16 leaves.
        let mut threaded = bundle.search(budget, 5, Device::Cpu, 2).unwrap();
        let mut sixteen_leaves = NetworkSearch::new(
            "checkpoint",
            Box::new(DirectEvaluator::new(
                bundle.load_network(Device::Cpu).unwrap(),
                SymmetryMode::None,
            )),
            budget,
            5,
        )
        .with_threads(2);
        let start = Position::start(Layout::BelgianDaisy, meta.rules());
        let positions = sumito_engine::random_playout(&start, 8, 3);
        for position in positions.iter().filter(|p| !p.is_game_over()) {
            let a = original.analyse(position, None).unwrap();
            let b = exported.analyse(position, None).unwrap();
            let c = from_weights.analyse(position, None).unwrap();
            assert_eq!(a.best, b.best, "{position}");
            assert_eq!(a.best, c.best, "{position}");
            assert!((a.wdl.win - b.wdl.win).abs() < 1e-3, "{position}");
            let d = threaded.analyse(position, None).unwrap();
            let e = sixteen_leaves.analyse(position, None).unwrap();
            assert_eq!(d.best, e.best, "{position}");
            assert_eq!(d.visits, e.visits, "{position}");
            assert!((d.wdl.win - e.wdl.win).abs() < 1e-3, "{position}");
        }
    }

    #[test]
    fn damaged_or_foreign_bundles_say_what_is_wrong() {
        let scratch = Scratch::new("damaged");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("model");
        export_bundle(&request(run.root(), &out)).unwrap();
        let message = |dir: &Path| ModelBundle::open(dir).unwrap_err().to_string();

        assert!(message(&scratch.0.join("nothing")).contains("does not exist"));
        assert!(message(run.root()).contains("has no bundle.json"));

        let original = std::fs::read(out.join(BUNDLE_FILE)).unwrap();
        let edit = |from: &str, to: &str| {
            let text = String::from_utf8(original.clone())
                .unwrap()
                .replacen(from, to, 1);
            std::fs::write(out.join(BUNDLE_FILE), text).unwrap();
        };
        edit("sumito-model-bundle", "some-other-format");
        assert!(
            message(&out).contains("not a sumito model bundle"),
            "{}",
            message(&out)
        );
        edit("\"format_version\": 1", "\"format_version\": 7");
        assert!(
            message(&out).contains("bundle format version 7"),
            "{}",
            message(&out)
        );
        edit(
            &format!("\"encoding_version\": {ENCODING_VERSION}"),
            &format!("\"encoding_version\": {}", ENCODING_VERSION + 1),
        );
        let text = message(&out);
        assert!(text.contains("input encoding version"), "{text}");
        std::fs::write(out.join(BUNDLE_FILE), b"{ not json").unwrap();
        assert!(
            message(&out).contains("not a valid bundle description"),
            "{}",
            message(&out)
        );
        // What bundle.json says of the network must be what the weights are.
        edit("\"blocks\": 1", "\"blocks\": 10");
        let text = message(&out);
        assert!(
            text.contains("does not match the weights") && text.contains("blocks: 10"),
            "{text}"
        );
        edit("\"max_plies\": 200", "\"max_plies\": 300");
        let text = message(&out);
        assert!(text.contains("does not match the weights"), "{text}");
        // Rules out of range are refused as in every game.
        edit("\"max_plies\": 200", "\"max_plies\": 0");
        let text = message(&out);
        assert!(
            text.contains("rules.max_plies: is 0, must be at least 1"),
            "{text}"
        );
        std::fs::write(out.join(BUNDLE_FILE), &original).unwrap();
        ModelBundle::open(&out).unwrap();
        // A file of the bundle given in its place names the folder to give.
        let text = message(&out.join(TORCHSCRIPT_FILE));
        assert!(
            text.contains("is a file, not a model bundle")
                && text.contains(&format!("({})", out.display())),
            "{text}"
        );

        let module = std::fs::read(out.join(TORCHSCRIPT_FILE)).unwrap();
        let mut damaged = module.clone();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x55;
        std::fs::write(out.join(TORCHSCRIPT_FILE), &damaged).unwrap();
        let text = message(&out);
        assert!(text.contains("is corrupt: model.pt has checksum"), "{text}");
        std::fs::write(out.join(TORCHSCRIPT_FILE), &module[..100]).unwrap();
        assert!(
            message(&out).contains("model.pt has 100 bytes"),
            "{}",
            message(&out)
        );
        std::fs::remove_file(out.join(TORCHSCRIPT_FILE)).unwrap();
        assert!(
            message(&out).contains("incomplete: model.pt is missing"),
            "{}",
            message(&out)
        );
    }

    #[test]
    fn models_are_found_by_path_by_name_or_as_the_shipped_default() {
        let scratch = Scratch::new("locate");
        let folders = vec![scratch.0.clone()];
        let err = locate_bundle(None, &folders).unwrap_err().to_string();
        assert!(
            err.contains("sumito export --run-dir runs/quick --out models/quick"),
            "{err}"
        );
        assert!(
            err.contains("sumito play --opponent alphabeta:depth=3"),
            "{err}"
        );
        let shipped = scratch.0.join(DEFAULT_MODEL);
        std::fs::create_dir_all(&shipped).unwrap();
        std::fs::write(shipped.join(BUNDLE_FILE), "{}").unwrap();
        assert_eq!(locate_bundle(None, &folders).unwrap(), shipped);
        assert_eq!(
            locate_bundle(Some(Path::new("quick")), &folders).unwrap(),
            shipped
        );
        // `models/quick` typed in another folder than the repository's.
        assert_eq!(
            locate_bundle(Some(Path::new("models/quick")), &folders).unwrap(),
            shipped
        );
        let elsewhere = Path::new("/no/such/model");
        assert_eq!(locate_bundle(Some(elsewhere), &folders).unwrap(), elsewhere);
        let exe = Path::new("/repo/target/release/sumito");
        assert_eq!(
            model_folders(Some(exe), None),
            [PathBuf::from("models"), PathBuf::from("/repo/models")]
        );
        assert_eq!(
            model_folders(Some(exe), Some("/m".into())),
            [PathBuf::from("/m")]
        );
    }
}
