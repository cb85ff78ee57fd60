//! Exporting a run's model as a bundle (`sumito export`): the weights as
//! TorchScript, ONNX and safetensors, the run's configuration, and
//! `bundle.json` with the model's provenance, ratings and every file's size
//! and checksum, written into a temporary folder beside the target and
//! renamed into place, so that a folder named like a bundle is always
//! complete.

use std::path::{Path, PathBuf};

use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Position, Rules};
use sumito_game::{Board, GameKind};
use sumito_net::onnx::OnnxDescription;
use sumito_net::{Device, PolicyValueNet, RulesMeta};
use sumito_pipeline::config::Config;
use sumito_pipeline::fsutil::{utc_timestamp, write_atomic};
use sumito_pipeline::models::InitialModel;
use sumito_pipeline::ratings::{EvaluationRecord, fit_table, model_name, read_evaluations};
use sumito_pipeline::run::loop_hours;
use sumito_pipeline::rundir::{Location, RunDir};

use crate::error::{BundleError, io, net};
use crate::meta::{
    BUNDLE_FILE, BUNDLE_FORMAT, BUNDLE_VERSION, BundleFile, BundleMeta, EloRow, ONNX_FILE,
    TORCHSCRIPT_FILE, TRAINING_CONFIG_FILE, TrainingProvenance,
};

/// What `export_bundle` needs besides the run.
#[derive(Clone, Debug)]
pub struct ExportRequest {
    /// The run: a folder, or on an object store.
    pub run_dir: Location,
    /// The generation to export; the run's best model (or, before one is
    /// chosen, its newest) when `None`.
    pub generation: Option<u32>,
    pub out: PathBuf,
    /// Replace an existing bundle at `out`.
    pub force: bool,
    /// The source commit of the exporting program, if known.
    pub git_commit: Option<String>,
    /// The score utility the bundle plays with, in place of the run's
    /// `[selfplay] score_utility` (checked in [0, 1]).
    pub score_utility: Option<f32>,
}

/// Hours the run had trained when `generation` was written: its
/// evaluation record's `run_hours` (`rated`: every rated generation of
/// `sumito train` keeps it), or for the run's newest generation
/// `loop.json`'s `elapsed_seconds`. `None` when neither says: an unrated
/// generation older than the newest, or a run driven by the separate role
/// commands, which keep neither.
fn training_hours(
    run: &RunDir,
    rated: Option<f64>,
    generation: u32,
    newest: u32,
) -> Result<Option<f64>, BundleError> {
    if rated.is_some() || generation != newest {
        return Ok(rated);
    }
    Ok(loop_hours(run)?)
}

/// The Elo rows of `generation` and of every fixed opponent (the players
/// that are not generations of the run), fitted anew from the run's
/// evaluation records, so that they are on today's one Elo scale even for
/// a run rated by an older program.
fn elo_rows(run: &RunDir, game: GameKind, generation: u32) -> Result<Vec<EloRow>, BundleError> {
    let records = read_evaluations(run)?;
    let table = fit_table(game, &records).map_err(|problem| BundleError::Malformed {
        path: run.root().join("evaluations"),
        problem: format!("its games cannot be rated: {problem}"),
    })?;
    let Some(table) = table else {
        return Ok(Vec::new());
    };
    let own = model_name(generation);
    Ok(table
        .into_iter()
        .filter(|entry| entry.player == own || !entry.player.starts_with("gen-"))
        .map(|entry| EloRow {
            player: entry.player,
            elo: entry.elo,
            low: entry.low,
            high: entry.high,
            games: entry.games,
        })
        .collect())
}

/// The score utility the run's self-play searched with (`[selfplay]
/// score_utility`, 0 if absent), which the bundle plays with. Only that key
/// is read, so that a run whose configuration an older sumito wrote (keys
/// since renamed) still exports.
fn play_score_utility(config_text: &str, config_path: &Path) -> Result<f32, BundleError> {
    let invalid = |problem: String| BundleError::Config {
        path: config_path.to_owned(),
        problem,
    };
    let table: toml::Table = toml::from_str(config_text)
        .map_err(|err| invalid(sumito_engine::excerpt(&err.to_string())))?;
    let Some(value) = table
        .get("selfplay")
        .and_then(|selfplay| selfplay.get("score_utility"))
    else {
        return Ok(0.0);
    };
    value
        .as_float()
        .or_else(|| value.as_integer().map(|n| n as f64))
        .and_then(play_weight)
        .ok_or_else(|| {
            invalid(format!(
                "selfplay.score_utility is {value}, must be a weight in [0, 1]"
            ))
        })
}

/// `weight` as a bundle plays with it, if it is a weight in [0, 1].
fn play_weight(weight: f64) -> Option<f32> {
    (0.0..=1.0).contains(&weight).then_some(weight as f32)
}

/// The `[rules]` table of the run's configuration, for a network of the
/// general game (its layouts included).
fn general_rules_of(run: &RunDir, checkpoint: &Path) -> Result<RulesTable, BundleError> {
    let config_path = run.config_path();
    let missing = |problem: String| BundleError::NoGeneralRules {
        checkpoint: checkpoint.to_owned(),
        config: config_path.clone(),
        problem,
    };
    let config = run
        .config_text()
        .map_err(|err| err.to_string())
        .and_then(|text| Config::parse(&text, &config_path).map_err(|err| err.to_string()))
        .map_err(missing)?;
    config
        .general_rules()
        .map(|general| general.table)
        .ok_or_else(|| {
            missing(
                "it is the two-player game's (no variant key, no many-player layout)".to_owned(),
            )
        })
}

/// Exports generation `request.generation` of a run as a bundle at
/// `request.out`; returns its description.
pub fn export_bundle(request: &ExportRequest) -> Result<BundleMeta, BundleError> {
    let run = RunDir::open_at(&request.run_dir)?;
    let run_name = PathBuf::from(request.run_dir.to_string());
    let generations = run.model_generations()?;
    let newest = *generations.last().ok_or_else(|| BundleError::NoModel {
        run: run_name.clone(),
    })?;
    let generation = match request.generation {
        Some(generation) => generation,
        None => run.best()?.map_or(newest, |best| best.generation),
    };
    let no_such_generation = || BundleError::NoSuchGeneration {
        run: run_name.clone(),
        generation,
        available: generations
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    };
    if !generations.contains(&generation) {
        return Err(no_such_generation());
    }
    // The generation's rating record, if it was rated: its scores against
    // the fixed opponents and the run's hours when it was written.
    let evaluation = run.get_json::<EvaluationRecord>(&RunDir::evaluation_key(generation))?;
    let run_hours = evaluation.as_ref().and_then(|record| record.run_hours);
    let run_core_hours = evaluation.as_ref().and_then(|record| record.run_core_hours);
    let init_model = InitialModel::of(&run)?
        .map(|model| format!("{} (trained {} steps)", model.model, model.training_step));
    let opponent_scores = evaluation
        .map(|record| record.opponent_scores)
        .unwrap_or_default();
    // On an object store: a local copy.
    let checkpoint = run.model_dir(generation)?.ok_or_else(no_such_generation)?;
    let (network, checkpoint_meta) =
        PolicyValueNet::load_checkpoint(&checkpoint, None, Device::Cpu)
            .map_err(net(format!("loading {}", checkpoint.display())))?;
    let general = if network.game().is_two_player() {
        None
    } else {
        Some(general_rules_of(&run, &checkpoint)?)
    };
    let rules: RulesMeta = checkpoint_meta
        .rules
        .unwrap_or_else(|| Rules::default().into());
    check_target(&request.out, request.force)?;
    let parent = parent_of(&request.out);
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let name = request
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".to_string());
    let staging = parent.join(format!(".{name}.export-{}.tmp", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(io(&staging))?;
    }
    let written = (|| {
        let step = checkpoint_meta.training_step;
        let config = run.config_text()?;
        let score_utility = match request.score_utility {
            Some(weight) => play_weight(f64::from(weight)).ok_or_else(|| BundleError::Config {
                path: run.config_path(),
                problem: format!(
                    "the score utility asked for, {weight}, is not a weight in [0, 1]"
                ),
            })?,
            None => play_score_utility(&config, &run.config_path())?,
        };
        network
            .save_checkpoint(&staging, step, Some(rules.into()))
            .map_err(net("writing the weights"))?;
        network
            .export_torchscript(&staging.join(TORCHSCRIPT_FILE), step, Some(rules.into()))
            .map_err(net("exporting TorchScript"))?;
        let description = OnnxDescription {
            name: name.clone(),
            training_step: step,
            rules: general
                .clone()
                .unwrap_or_else(|| Position::rules_table(&Rules::from(rules))),
            score_utility,
        };
        network
            .export_onnx(&staging.join(ONNX_FILE), &description)
            .map_err(net("exporting ONNX"))?;
        let config_path = staging.join(TRAINING_CONFIG_FILE);
        write_atomic(&config_path, config.as_bytes()).map_err(io(&config_path))?;
        let mut names: Vec<String> = std::fs::read_dir(&staging)
            .map_err(io(&staging))?
            .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()
            .map_err(io(&staging))?;
        names.sort();
        let files = names
            .iter()
            .map(|name| BundleFile::read(&staging, name).map_err(io(&staging.join(name))))
            .collect::<Result<Vec<_>, _>>()?;
        let meta = BundleMeta {
            format: BUNDLE_FORMAT.to_string(),
            format_version: BUNDLE_VERSION,
            name: name.clone(),
            encoding_version: checkpoint_meta.encoding_version,
            architecture: checkpoint_meta.model,
            parameters: checkpoint_meta.parameters,
            rules,
            general,
            training: TrainingProvenance {
                run_dir: request.run_dir.to_string(),
                generation,
                training_step: step,
                generations: newest,
                hours: training_hours(&run, run_hours, generation, newest)?,
                core_hours: run_core_hours,
                init_model,
            },
            score_utility,
            elo: elo_rows(&run, network.game(), generation)?,
            opponent_scores,
            exported_at: utc_timestamp(),
            exported_by: format!("sumito {}", env!("CARGO_PKG_VERSION")),
            git_commit: request.git_commit.clone(),
            files,
        };
        meta.write_to(&staging)
            .map_err(io(&staging.join(BUNDLE_FILE)))?;
        Ok(meta)
    })();
    match written {
        Ok(meta) => {
            replace_dir(&staging, &request.out)?;
            Ok(meta)
        }
        Err(err) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(err)
        }
    }
}

fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Refuses to overwrite anything but a bundle, and a bundle without `force`.
fn check_target(out: &Path, force: bool) -> Result<(), BundleError> {
    if !out.exists() {
        return Ok(());
    }
    let empty_dir = out.is_dir() && std::fs::read_dir(out).map_err(io(out))?.next().is_none();
    if empty_dir {
        return Ok(());
    }
    if !out.join(BUNDLE_FILE).is_file() {
        return Err(BundleError::ForeignTarget {
            path: out.to_owned(),
        });
    }
    if !force {
        return Err(BundleError::Exists {
            path: out.to_owned(),
        });
    }
    Ok(())
}

/// Moves the finished `staging` folder to `out`, replacing what is there
/// (checked by `check_target`) with two renames.
fn replace_dir(staging: &Path, out: &Path) -> Result<(), BundleError> {
    let old = parent_of(out).join(format!(
        ".{}.old-{}.tmp",
        out.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let had_old = out.exists();
    if had_old {
        std::fs::rename(out, &old).map_err(io(out))?;
    }
    if let Err(source) = std::fs::rename(staging, out) {
        if had_old {
            let _ = std::fs::rename(&old, out);
        }
        let _ = std::fs::remove_dir_all(staging);
        return Err(BundleError::Io {
            path: out.to_owned(),
            cause: source,
        });
    }
    if had_old {
        std::fs::remove_dir_all(&old).map_err(io(&old))?;
    }
    if let Ok(dir) = std::fs::File::open(parent_of(out)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::load::ModelBundle;
    use sumito_arena::players::network::{NetworkSearch, SearchBudget};
    use sumito_engine::{Layout, Position};
    use sumito_net::{DirectEvaluator, ModelConfig, SymmetryMode};
    use sumito_pipeline::rundir::LOOP_STATE;

    pub(crate) use sumito_fsio::testing::Scratch;

    fn tiny() -> ModelConfig {
        ModelConfig {
            blocks: 1,
            channels: 8,
            policy_channels: 4,
            value_channels: 4,
            value_hidden: 8,
            game: sumito_game::GameKind::TwoPlayer,
            push_off_planes: false,
        }
    }

    /// A run directory with freshly initialised generations 0 and 1 (the
    /// best), trained under a 200-ply move limit.
    pub(crate) fn tiny_run(root: &Path) -> RunDir {
        tiny_run_with(root, "")
    }

    /// [`tiny_run`] with `extra` added to its configuration.
    fn tiny_run_with(root: &Path, extra: &str) -> RunDir {
        let config_text = format!(
            "# a test run\n[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\nvalue_channels = 4\nvalue_hidden = 8\n{extra}"
        );
        let run = RunDir::create(root, &config_text).unwrap();
        let rules = Rules {
            max_plies: Some(200),
            ..Rules::default()
        };
        for generation in [0, 1] {
            let network = PolicyValueNet::new(&tiny(), Device::Cpu).unwrap();
            network
                .save_checkpoint(
                    &run.model_path(generation),
                    10 * u64::from(generation),
                    Some(rules),
                )
                .unwrap();
        }
        run.set_best(1).unwrap();
        run
    }

    pub(crate) fn request(run: &Path, out: &Path) -> ExportRequest {
        ExportRequest {
            run_dir: Location::Local(run.to_owned()),
            generation: None,
            out: out.to_owned(),
            force: false,
            git_commit: Some("abc123".into()),
            score_utility: None,
        }
    }

    #[test]
    fn a_network_of_the_general_game_is_bundled_with_its_rules() {
        let net = "[net.model]\nblocks = 1\nchannels = 8\npolicy_channels = 4\n\
                   value_channels = 4\nvalue_hidden = 8\n";
        let two_player = format!("[rules]\nmax_plies = 240\n{net}");
        let general = format!(
            "[rules]\nlayouts = [\"three-player\"]\nmax_plies = 240\n[gating]\nmode = \"off\"\n{net}"
        );
        for (config_text, bundled) in [(two_player, false), (general, true)] {
            let config_text = config_text.as_str();
            let scratch = Scratch::new(if bundled {
                "general-game"
            } else {
                "general-two"
            });
            let run = RunDir::create(&scratch.0.join("run"), config_text).unwrap();
            let config = ModelConfig {
                game: sumito_game::GameKind::General,
                ..tiny()
            };
            PolicyValueNet::new(&config, Device::Cpu)
                .unwrap()
                .save_checkpoint(&run.model_path(0), 0, None)
                .unwrap();
            let out = scratch.0.join("bundle");
            let exported = export_bundle(&request(&scratch.0.join("run"), &out));
            if !bundled {
                // A network of the general game in a run of the two-player
                // game cannot say what it plays: refused, naming the config.
                let message = exported.unwrap_err().to_string();
                assert!(
                    message.contains("general game")
                        && message.contains("config.toml")
                        && message.contains("two-player game's"),
                    "{message}"
                );
                assert!(!out.exists());
                continue;
            }
            let meta = exported.unwrap();
            assert_eq!(meta.general_layouts(), ["three-player"]);
            assert_eq!(meta.general().unwrap().max_plies, Some(240));
            let bundle = ModelBundle::open(&out).unwrap();
            assert_eq!(bundle.meta.kind(), GameKind::General);
            assert!(bundle.summary().contains("learned on three-player"));
            // The two-player search refuses it by name, and says where it plays.
            let message = bundle
                .search::<Position>(SearchBudget::Simulations(4), 0, Device::Cpu, 1)
                .err()
                .unwrap()
                .to_string();
            assert!(
                message.contains("general game (three-player)") && message.contains("--model"),
                "{message}"
            );
            assert!(bundle.require_game(GameKind::General, "").is_ok());
            // A bundle that says two-player rules for a general network is
            // malformed (its description is checked against the weights).
            let text = std::fs::read_to_string(out.join(BUNDLE_FILE)).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let mut stripped = value.clone();
            stripped.as_object_mut().unwrap().remove("general");
            std::fs::write(out.join(BUNDLE_FILE), stripped.to_string()).unwrap();
            let message = ModelBundle::open(&out).unwrap_err().to_string();
            assert!(message.contains("no general-game rules"), "{message}");
        }
    }

    #[test]
    fn a_bundle_gives_the_hours_of_its_own_generation() {
        let scratch = Scratch::new("hours");
        let root = scratch.0.join("run");
        let run = tiny_run(&root);
        // The run went on to 2 hours after generation 0 was written.
        run.put_json(
            LOOP_STATE,
            &serde_json::json!({ "elapsed_seconds": 7200.0 }),
        )
        .unwrap();
        let hours = |generation: u32, name: &str| {
            let request = ExportRequest {
                generation: Some(generation),
                ..request(&root, &scratch.0.join(name))
            };
            export_bundle(&request).unwrap().training.hours
        };
        // An unrated older generation: not the run's hours, which are later.
        assert_eq!(hours(0, "unrated"), None);
        // The newest: the run's hours.
        assert_eq!(hours(1, "newest"), Some(2.0));
        // A rated generation: the hours its evaluation record kept.
        run.put_json(
            &RunDir::evaluation_key(0),
            &serde_json::json!({
                "generation": 0, "promoted": true, "gating": null,
                "opponent_scores": {}, "games": [], "run_hours": 0.5
            }),
        )
        .unwrap();
        assert_eq!(hours(0, "rated"), Some(0.5));
    }

    #[test]
    fn a_bundle_plays_with_the_score_utility_its_run_searched_with() {
        let scratch = Scratch::new("score-utility");
        let run = tiny_run_with(
            &scratch.0.join("run"),
            // A key this sumito does not know (an older run's) is no matter.
            "[selfplay]\nscore_utility = 0.5\n[training]\nmargin_horizon_plies = 12\n[retired]\nkey = 1\n",
        );
        let out = scratch.0.join("model");
        let meta = export_bundle(&request(run.root(), &out)).unwrap();
        assert_eq!(meta.score_utility, 0.5);
        let bundle = ModelBundle::open(&out).unwrap();
        assert_eq!(bundle.meta.score_utility, 0.5);
        // Asked for at export, another weight replaces the run's.
        let other = scratch.0.join("other");
        let asked = ExportRequest {
            score_utility: Some(0.75),
            ..request(run.root(), &other)
        };
        assert_eq!(export_bundle(&asked).unwrap().score_utility, 0.75);
        assert_eq!(ModelBundle::open(&other).unwrap().meta.score_utility, 0.75);
        let refused = ExportRequest {
            score_utility: Some(1.5),
            ..request(run.root(), &scratch.0.join("refused"))
        };
        let err = export_bundle(&refused).unwrap_err().to_string();
        assert!(err.contains("1.5") && err.contains("[0, 1]"), "{err}");
        assert!(
            bundle.summary().contains("score utility 0.5"),
            "{}",
            bundle.summary()
        );
        // Its search is the network's with that weight, on one thread or two.
        let budget = SearchBudget::Simulations(32);
        let weighted = |threads: u32| {
            NetworkSearch::new(
                "weighted",
                Box::new(
                    DirectEvaluator::new(
                        bundle.load_network(Device::Cpu).unwrap(),
                        SymmetryMode::None,
                    )
                    .with_score_utility(0.5),
                ),
                budget,
                5,
            )
            .with_threads(threads)
        };
        let start = Position::start(Layout::BelgianDaisy, meta.rules());
        for threads in [1, 2] {
            let mut exported = bundle.search(budget, 5, Device::Cpu, threads).unwrap();
            let mut expected = weighted(threads);
            for position in sumito_engine::random_playout(&start, 6, 9) {
                if position.is_game_over() {
                    continue;
                }
                let a = exported.analyse(&position, None).unwrap();
                let b = expected.analyse(&position, None).unwrap();
                assert_eq!(a.best, b.best, "{position}");
                assert!((a.wdl.win - b.wdl.win).abs() < 1e-3, "{position}");
            }
        }
        // A bundle written before the field existed plays without it.
        let text = std::fs::read_to_string(out.join(BUNDLE_FILE)).unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value.as_object_mut().unwrap().remove("score_utility");
        std::fs::write(out.join(BUNDLE_FILE), value.to_string()).unwrap();
        assert_eq!(ModelBundle::open(&out).unwrap().meta.score_utility, 0.0);
    }

    #[test]
    fn export_refuses_to_clobber_and_names_missing_generations() {
        let scratch = Scratch::new("clobber");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("model");
        let mut ask = request(run.root(), &out);
        ask.generation = Some(0);
        export_bundle(&ask).unwrap();
        let err = export_bundle(&ask).unwrap_err().to_string();
        assert!(err.contains("give --force"), "{err}");
        ask.force = true;
        ask.generation = Some(1);
        assert_eq!(export_bundle(&ask).unwrap().training.generation, 1);
        assert_eq!(ModelBundle::open(&out).unwrap().meta.training.generation, 1);
        ask.generation = Some(9);
        let err = export_bundle(&ask).unwrap_err().to_string();
        assert!(err.contains("has no generation 9 (it has: 0, 1)"), "{err}");
        let foreign = scratch.0.join("foreign");
        std::fs::create_dir_all(&foreign).unwrap();
        std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
        ask.out = foreign;
        ask.generation = None;
        let err = export_bundle(&ask).unwrap_err().to_string();
        assert!(err.contains("is not a model bundle; refusing"), "{err}");
        let err = export_bundle(&request(&scratch.0.join("nowhere"), &out)).unwrap_err();
        assert!(
            err.to_string().contains("not a sumito run directory"),
            "{err}"
        );
        // Nothing is left behind in the models folder but the bundles.
        let left: Vec<String> = std::fs::read_dir(&scratch.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
