//! Model bundles: one self-contained folder per trained model, what
//! `sumito export` writes and `sumito play` / `sumito analyse` load.
//!
//! ```text
//! models/NAME/
//!   bundle.json            what the model is (BundleMeta): architecture, input encoding
//!                          version, rules, training provenance, Elo and scores against
//!                          the fixed opponents, and the size and CRC-32C of every file below
//!   model.pt               the network as TorchScript (sumito_net::TorchScriptModel)
//!   model.pt.json          its description (input/output layout, encoding version)
//!   weights.safetensors    the same weights as safetensors (a sumito-net checkpoint,
//!   meta.json              with these two files: loadable for further training)
//!   manifest.json
//!   training-config.toml   the configuration of the run the model came from
//! ```
//!
//! The bundle is written into a temporary folder beside the target and
//! renamed into place, so a folder named like a bundle is always complete.
//! Opening one checks, in this order, that `bundle.json` exists and is ours,
//! that its format version and the network's input encoding version are
//! the ones this program reads, and that every listed file is present with
//! its recorded size and checksum; each failure says what is wrong and how
//! to get a good bundle.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sumito_arena::levels::LevelsReport;
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Position, Rules};
use sumito_game::{Board, GameKind};
use sumito_mcts::Evaluator;
use sumito_net::{
    Device, DirectEvaluator, ModelConfig, NetBoard, NetError, PolicyValueNet, RulesMeta,
    ServiceEvaluator, SymmetryMode, TorchScriptModel, read_checkpoint_meta,
};
use sumito_pipeline::config::Config;
use sumito_pipeline::crc::crc32c;

use sumito_arena::players::network::{NetworkSearch, SearchBudget};
use sumito_pipeline::fsutil::{utc_timestamp, write_atomic};
use sumito_pipeline::models::InitialModel;
use sumito_pipeline::ratings::{EvaluationRecord, fit_table, model_name, read_evaluations};
use sumito_pipeline::run::loop_hours;
use sumito_pipeline::rundir::{Location, RunDir, RunDirError};

pub use sumito_game::formats::{BUNDLE_FORMAT, BUNDLE_VERSION};
pub const BUNDLE_FILE: &str = "bundle.json";
pub const TORCHSCRIPT_FILE: &str = "model.pt";
pub const TRAINING_CONFIG_FILE: &str = "training-config.toml";
/// The shipped model's folder name under `models/`, used when no model is named.
pub const DEFAULT_MODEL: &str = "quick";

/// Where the model came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingProvenance {
    /// The run directory it was exported from, as given to `sumito export`.
    pub run_dir: String,
    /// The generation (checkpoint) exported.
    pub generation: u32,
    /// Optimiser steps of its weights.
    pub training_step: u64,
    /// The newest generation the run had when exported.
    pub generations: u32,
    /// Wall-clock hours the run's training loop had run when the exported
    /// generation was written, if the run recorded them.
    pub hours: Option<f64>,
    /// The CPU time of the run's training loop by then, in core-hours, if
    /// the run recorded it (absent from older bundles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_hours: Option<f64>,
    /// The trained model the run started from (`sumito train
    /// --init-model`): its folder and steps; `null` for a run from a random
    /// network. Bundles exported before this was recorded lack the key.
    #[serde(default)]
    pub init_model: Option<String>,
}

/// One row of the run's Elo table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EloRow {
    pub player: String,
    pub elo: f64,
    /// 95 % interval.
    pub low: f64,
    pub high: f64,
    pub games: u32,
}

/// A file of the bundle with its size and CRC-32C.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundleFile {
    pub name: String,
    pub bytes: u64,
    pub crc32c: String,
}

/// `bundle.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundleMeta {
    pub format: String,
    pub format_version: u32,
    pub name: String,
    /// Input encoding of the network (`sumito_net::ENCODING_VERSION`, or
    /// `GENERAL_ENCODING_VERSION` for a model of the general game).
    pub encoding_version: u32,
    pub architecture: ModelConfig,
    pub parameters: usize,
    /// The rules the model was trained under; play uses them. For a model
    /// of the general game, the two-player summary of its rules (target and
    /// limits); `general` holds the whole.
    pub rules: RulesMeta,
    /// A model of the general game (variants, 3 to 6 players): the `[rules]`
    /// table it was trained under, with the layouts it learned from (the
    /// first is where `sumito play` and `sumito analyse` start). Absent for
    /// two-player models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general: Option<RulesTable>,
    pub training: TrainingProvenance,
    /// The weight of the predicted marble difference in the search's values
    /// that the model was trained with (`[selfplay] score_utility` of its
    /// run) and plays with: `sumito play`, `analyse`, `serve` and `bundle:`
    /// players use it unless told otherwise (`score=`). Absent: 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub score_utility: f32,
    /// The exported generation and the fixed opponents in the run's Elo
    /// table (empty if the run had rated nothing yet).
    pub elo: Vec<EloRow>,
    /// The exported generation's score share against each fixed opponent
    /// in its evaluation games.
    pub opponent_scores: BTreeMap<String, f64>,
    /// When, by what and from which source commit it was exported.
    pub exported_at: String,
    pub exported_by: String,
    pub git_commit: Option<String>,
    pub files: Vec<BundleFile>,
}

fn is_zero(weight: &f32) -> bool {
    *weight == 0.0
}

impl BundleMeta {
    pub fn rules(&self) -> Rules {
        self.rules.into()
    }

    /// Which game the model plays.
    pub fn kind(&self) -> GameKind {
        if self.general.is_some() {
            GameKind::General
        } else {
            GameKind::TwoPlayer
        }
    }

    /// The rules the model learned as a `[rules]` table, whatever its game
    /// (a two-player model's holds its two-player rules).
    pub fn rules_table(&self) -> RulesTable {
        match &self.general {
            Some(table) => table.clone(),
            None => Position::rules_table(&self.rules()),
        }
    }

    /// The rules table of a model of the general game, `None` for a
    /// two-player model.
    pub fn general(&self) -> Option<&RulesTable> {
        self.general.as_ref()
    }

    /// The layouts a model of the general game learned from, by name (empty
    /// for a two-player model).
    pub fn general_layouts(&self) -> Vec<String> {
        self.general
            .as_ref()
            .and_then(|table| table.layouts.clone())
            .unwrap_or_default()
    }

    /// The exported generation's Elo row, if rated.
    pub fn own_elo(&self) -> Option<&EloRow> {
        let own = model_name(self.training.generation);
        self.elo.iter().find(|row| row.player == own)
    }
}

/// What can go wrong exporting or opening a bundle.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("no model bundle at {}: the folder does not exist", dir.display())]
    NotFound { dir: PathBuf },
    #[error(
        "the bundle {} holds a model of the general game ({}); {wanted}",
        dir.display(), layouts.join(", ")
    )]
    GeneralGame {
        dir: PathBuf,
        layouts: Vec<String>,
        wanted: &'static str,
    },
    #[error(
        "the bundle {} holds a two-player model; {wanted}",
        dir.display()
    )]
    TwoPlayerGame { dir: PathBuf, wanted: &'static str },
    #[error(
        "{} is a network of the general game, but the run's configuration ({}) has no general-game [rules]: {problem}",
        checkpoint.display(), config.display()
    )]
    NoGeneralRules {
        checkpoint: PathBuf,
        config: PathBuf,
        problem: String,
    },
    #[error(
        "{} is not a model bundle: it has no {BUNDLE_FILE} (make one with `sumito export --run-dir RUN --out {}`)",
        dir.display(), dir.display()
    )]
    NotABundle { dir: PathBuf },
    #[error("{} is not a valid bundle description: {problem}", path.display())]
    Malformed { path: PathBuf, problem: String },
    #[error("the run's configuration {} cannot be read: {problem}", path.display())]
    Config { path: PathBuf, problem: String },
    #[error(
        "{} is not a sumito model bundle (its format is {found:?}, expected {BUNDLE_FORMAT:?})",
        path.display()
    )]
    Foreign { path: PathBuf, found: String },
    #[error(
        "{} has bundle format version {found}, but this sumito reads version {BUNDLE_VERSION}; use the sumito that exported it, or export the model again with this one",
        path.display()
    )]
    FormatVersion { path: PathBuf, found: u32 },
    #[error(
        "the model in {} was trained on input encoding version {found}, but this sumito encodes positions {game} with version {expected}; it cannot play here (export a model trained with this version)",
        dir.display()
    )]
    EncodingMismatch {
        dir: PathBuf,
        found: u32,
        expected: u32,
        game: &'static str,
    },
    #[error("the bundle {} is incomplete: {name} is missing (export it again)", dir.display())]
    MissingFile { dir: PathBuf, name: String },
    #[error("the bundle {} is corrupt: {name} {problem} (export it again)", dir.display())]
    Corrupt {
        dir: PathBuf,
        name: String,
        problem: String,
    },
    #[error(
        "{} already exists; give --force to replace it",
        path.display()
    )]
    Exists { path: PathBuf },
    #[error(
        "{} exists and is not a model bundle; refusing to replace it",
        path.display()
    )]
    ForeignTarget { path: PathBuf },
    #[error(
        "the run {} has no generation {generation} (it has: {available})",
        run.display()
    )]
    NoSuchGeneration {
        run: PathBuf,
        generation: u32,
        available: String,
    },
    #[error("the run {} has no model yet", run.display())]
    NoModel { run: PathBuf },
    #[error(
        "no --model given and no shipped model found (looked for {}). Train one and export it:\n  \
         sumito train --config configs/quick.toml --run-dir runs/quick\n  \
         sumito export --run-dir runs/quick --out models/{DEFAULT_MODEL}\n\
         or play a classical opponent instead: sumito play --opponent alphabeta:depth=3",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoDefaultModel { searched: Vec<PathBuf> },
    // The cause is part of the message and not also a `source()`, so that
    // an error chain printed whole (`{:#}`) names it once.
    #[error("{context}: {cause}")]
    Net { context: String, cause: NetError },
    #[error(transparent)]
    Run(#[from] RunDirError),
    #[error("{}: {cause}", path.display())]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "{} is a file, not a model bundle: give the bundle's folder{}",
        path.display(),
        path.parent().filter(|dir| dir.join(BUNDLE_FILE).is_file())
            .map(|dir| format!(" ({})", dir.display())).unwrap_or_default()
    )]
    NotAFolder { path: PathBuf },
    #[error(
        "{} does not match the weights of its bundle: it says {declared}, the weights (meta.json) are {weights} (export the model again)",
        path.display()
    )]
    ArchitectureMismatch {
        path: PathBuf,
        declared: String,
        weights: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError + '_ {
    move |cause| BundleError::Io {
        path: path.to_owned(),
        cause,
    }
}

fn net(context: impl Into<String>) -> impl FnOnce(NetError) -> BundleError {
    let context = context.into();
    move |cause| BundleError::Net { context, cause }
}

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

fn describe_file(dir: &Path, name: &str) -> Result<BundleFile, BundleError> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(io(&path))?;
    Ok(BundleFile {
        name: name.to_string(),
        bytes: bytes.len() as u64,
        crc32c: format!("{:08x}", crc32c(&bytes)),
    })
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
        network
            .save_checkpoint(&staging, step, Some(rules.into()))
            .map_err(net("writing the weights"))?;
        network
            .export_torchscript(&staging.join(TORCHSCRIPT_FILE), step, Some(rules.into()))
            .map_err(net("exporting TorchScript"))?;
        let config = run.config_text()?;
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
            .map(|name| describe_file(&staging, name))
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
            score_utility: match request.score_utility {
                Some(weight) => {
                    play_weight(f64::from(weight)).ok_or_else(|| BundleError::Config {
                        path: run.config_path(),
                        problem: format!(
                            "the score utility asked for, {weight}, is not a weight in [0, 1]"
                        ),
                    })?
                }
                None => play_score_utility(&config, &run.config_path())?,
            },
            elo: elo_rows(&run, network.game(), generation)?,
            opponent_scores,
            exported_at: utc_timestamp(),
            exported_by: format!("sumito {}", env!("CARGO_PKG_VERSION")),
            git_commit: request.git_commit.clone(),
            files,
        };
        let mut json = serde_json::to_string_pretty(&meta).expect("bundle metadata serialises");
        json.push('\n');
        let meta_path = staging.join(BUNDLE_FILE);
        write_atomic(&meta_path, json.as_bytes()).map_err(io(&meta_path))?;
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

/// The file of a bundle that holds its levels' Elo (optional; not among
/// the files `bundle.json` checks, since it is measured after export).
pub const LEVELS_FILE: &str = "levels.json";

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
            let actual = describe_file(dir, &file.name)?;
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

    /// Whether the model plays the general game (variants, 3 to 6 players).
    pub fn is_general(&self) -> bool {
        self.meta.general.is_some()
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
        if self.is_general() {
            text.push_str(&format!(
                "; the general game, learned on {}",
                meta.general_layouts().join(", ")
            ));
        }
        // One number for its strength: the full-strength level's where the
        // levels were measured (the level table's), else its run's rating
        // with the settings it was measured at. Both are on the one scale.
        let full = sumito_game::level::level(sumito_game::level::FULL_STRENGTH)
            .ok()
            .and_then(|level| Some((level.simulations, self.level_elo(level.number)?)));
        if let Some((simulations, elo)) = full {
            text.push_str(&format!(
                ", Elo {elo:.0} at full strength ({simulations} simulations)"
            ));
        } else if let Some(row) = meta.own_elo() {
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
pub(crate) mod tests {
    use super::*;
    use sumito_engine::{Layout, Position};
    use sumito_net::ENCODING_VERSION;
    use sumito_net::SymmetryMode;
    use sumito_pipeline::rundir::LOOP_STATE;

    pub(crate) use sumito_fsio::testing::Scratch;

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
            assert!(bundle.is_general());
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
