//! What a bundle is: the names of its files and its description,
//! `bundle.json` ([`BundleMeta`]), which export writes and loading reads
//! and checks (the folder's layout is in [`crate::bundle`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{Position, Rules};
use sumito_game::{Board, GameKind};
use sumito_net::{ModelConfig, RulesMeta};
use sumito_pipeline::crc::crc32c;
use sumito_pipeline::fsutil::write_atomic;
use sumito_pipeline::ratings::model_name;

pub use sumito_game::formats::{BUNDLE_FORMAT, BUNDLE_VERSION};
pub const BUNDLE_FILE: &str = "bundle.json";
pub const TORCHSCRIPT_FILE: &str = "model.pt";
/// The network as ONNX, for runtimes without libtorch (`sumito_net::onnx`;
/// bundles exported before it was written lack it).
pub const ONNX_FILE: &str = "model.onnx";
pub const TRAINING_CONFIG_FILE: &str = "training-config.toml";
/// The shipped model's folder name under `models/`, used when no model is named.
pub const DEFAULT_MODEL: &str = "quick";
/// The file of a bundle that holds its levels' Elo (optional; not among
/// the files `bundle.json` checks, since it is measured after export).
pub const LEVELS_FILE: &str = "levels.json";

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

impl BundleFile {
    /// The file `name` of the folder `dir` as `bundle.json` lists it: its
    /// name, size and CRC-32C.
    pub fn read(dir: &Path, name: &str) -> std::io::Result<BundleFile> {
        let bytes = std::fs::read(dir.join(name))?;
        Ok(BundleFile {
            name: name.to_string(),
            bytes: bytes.len() as u64,
            crc32c: format!("{:08x}", crc32c(&bytes)),
        })
    }
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
    /// Writes this description as `dir`'s `bundle.json`: pretty JSON,
    /// atomically (a reader sees the old file or the new one, never a
    /// part). Export and `sumito export --bundle` both write it so.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        let mut json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        json.push('\n');
        write_atomic(&dir.join(BUNDLE_FILE), json.as_bytes())
    }

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

    /// The exported generation's Elo row where its run's table is on the
    /// one Elo scale (`sumito_arena::scale`), the level table's: every
    /// classical player of the scale in it at its fixed rating. A table of
    /// an older scale (a run before the scale, `greedy` not at 722) gives
    /// none, so that no number of another scale is shown beside the level
    /// table's.
    pub fn own_elo_on_scale(&self) -> Option<&EloRow> {
        let anchor = match self.kind() {
            GameKind::TwoPlayer => sumito_arena::scale::anchor_elo,
            GameKind::General => |name: &str| (name == "random").then_some(0.0),
        };
        let mut anchors = self
            .elo
            .iter()
            .filter_map(|row| Some((row.elo, anchor(&row.player)?)))
            .peekable();
        anchors.peek()?;
        if anchors.any(|(elo, fixed)| (elo - fixed).abs() > 0.5) {
            return None;
        }
        self.own_elo()
    }
}
