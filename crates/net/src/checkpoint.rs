//! Checkpoints: a directory holding
//!
//! * `weights.safetensors`: every variable of the network (trainable weights
//!   and batch-norm running statistics), float32, named by its path in the
//!   network (`blocks.0.first.conv.weight`, ...);
//! * `optimizer.safetensors` (when saved from a [`Trainer`]): the optimiser
//!   state, `first.<variable>` and `second.<variable>` (AdamW moments; SGD
//!   has only `first`, its momentum buffer);
//! * `meta.json`: [`CheckpointMeta`] (architecture, encoding version, training
//!   step, rules, optimiser and its settings);
//! * `manifest.json`, written last: the size and FNV-1a 64 checksum of each
//!   of the files above.
//!
//! Every file is written atomically (temporary file in the same directory,
//! fsync, rename) and the manifest is removed first and written last, so a
//! crash at any point leaves either the old checkpoint, or one that loading
//! reports as incomplete — never a mix that loads. Loading checks the
//! manifest, the checksums, the metadata (format, encoding version,
//! architecture) and then every tensor's name and shape before copying
//! anything, so a mismatch is an error that says what differs, not a shape
//! panic.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};
use serde::{Deserialize, Serialize};
use sumito_engine::Rules;
use tch::{Device, Kind, Tensor};

use crate::NetError;
use crate::config::{ModelConfig, NetTrainingConfig, OptimizerKind};
use crate::fsutil::{fnv1a64, write_atomically};
use crate::model::PolicyValueNet;
use crate::train::{Optimizer, Trainer};

pub use sumito_game::formats::CHECKPOINT_FORMAT;
pub const WEIGHTS_FILE: &str = "weights.safetensors";
pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
/// A moving average of the weights, which trainers with `ema_decay` (a
/// lever since removed) wrote: loading ignores it, a save removes it.
pub const AVERAGE_FILE: &str = "average.safetensors";
pub const META_FILE: &str = "meta.json";
pub const MANIFEST_FILE: &str = "manifest.json";

/// The rules a network was trained under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesMeta {
    pub marbles_to_win: u8,
    pub max_plies: Option<u32>,
    pub no_push_off_plies: Option<u32>,
}

impl From<Rules> for RulesMeta {
    fn from(rules: Rules) -> Self {
        RulesMeta {
            marbles_to_win: rules.marbles_to_win,
            max_plies: rules.max_plies,
            no_push_off_plies: rules.no_push_off_plies,
        }
    }
}

impl From<RulesMeta> for Rules {
    fn from(meta: RulesMeta) -> Self {
        Rules {
            marbles_to_win: meta.marbles_to_win,
            max_plies: meta.max_plies,
            no_push_off_plies: meta.no_push_off_plies,
        }
    }
}

/// The optimiser a checkpoint's `optimizer.safetensors` belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizerMeta {
    pub kind: OptimizerKind,
    pub training: NetTrainingConfig,
}

/// `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    pub format: u32,
    pub encoding_version: u32,
    pub model: ModelConfig,
    /// Optimiser steps the weights have had.
    pub training_step: u64,
    pub rules: Option<RulesMeta>,
    /// Present when the optimiser state was saved.
    pub optimizer: Option<OptimizerMeta>,
    pub parameters: usize,
    /// The program that wrote it.
    pub written_by: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestEntry {
    name: String,
    bytes: u64,
    fnv1a64: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    format: u32,
    files: Vec<ManifestEntry>,
}

fn tensor_bytes(tensor: &Tensor) -> Result<(Vec<usize>, Vec<u8>), NetError> {
    let shape = tensor.size().iter().map(|&d| d as usize).collect();
    let flat = tensor
        .to_device(Device::Cpu)
        .to_kind(Kind::Float)
        .contiguous()
        .view([-1]);
    let values =
        Vec::<f32>::try_from(&flat).map_err(NetError::torch("copying a tensor to save it"))?;
    Ok((shape, values.iter().flat_map(|v| v.to_le_bytes()).collect()))
}

/// Serialises named tensors to the safetensors bytes of `path`.
fn safetensors_bytes(
    path: &Path,
    tensors: &BTreeMap<String, Tensor>,
    metadata: HashMap<String, String>,
) -> Result<Vec<u8>, NetError> {
    let failed = |err: safetensors::SafeTensorError| {
        NetError::checkpoint(path, format!("cannot serialise the tensors: {err}"))
    };
    let raw: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(name, tensor)| {
            tensor_bytes(tensor).map(|(shape, bytes)| (name.clone(), shape, bytes))
        })
        .collect::<Result<_, _>>()?;
    let views = raw
        .iter()
        .map(|(name, shape, bytes)| {
            TensorView::new(Dtype::F32, shape.clone(), bytes).map(|view| (name.as_str(), view))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(failed)?;
    safetensors::serialize(views, Some(metadata)).map_err(failed)
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<ManifestEntry, NetError> {
    write_atomically(&dir.join(name), bytes)?;
    Ok(ManifestEntry {
        name: name.to_owned(),
        bytes: bytes.len() as u64,
        fnv1a64: format!("{:016x}", fnv1a64(bytes)),
    })
}

/// Writes a checkpoint of `net` (and of the optimiser, if given) into `dir`,
/// creating it if needed and replacing a checkpoint already there.
fn save(
    dir: &Path,
    net: &PolicyValueNet,
    optimizer: Option<(&Optimizer, &NetTrainingConfig)>,
    training_step: u64,
    rules: Option<Rules>,
) -> Result<(), NetError> {
    // A folded network's variables are the unfolded ones, but reduced
    // precision would be saved as lost digits: refuse both alike.
    if net.is_folded() {
        return Err(NetError::FoldedNetwork);
    }
    std::fs::create_dir_all(dir).map_err(NetError::io(dir))?;
    let manifest_path = dir.join(MANIFEST_FILE);
    match std::fs::remove_file(&manifest_path) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(NetError::io(&manifest_path)(err)),
    }
    let encoding_version = net.shape().encoding_version();
    let encoding = HashMap::from([("encoding_version".to_owned(), encoding_version.to_string())]);
    let weights: BTreeMap<String, Tensor> = net.vars().variables().into_iter().collect();
    let mut files = vec![write_file(
        dir,
        WEIGHTS_FILE,
        &safetensors_bytes(&dir.join(WEIGHTS_FILE), &weights, encoding.clone())?,
    )?];
    let stale_average = dir.join(AVERAGE_FILE);
    if stale_average.exists() {
        std::fs::remove_file(&stale_average).map_err(NetError::io(&stale_average))?;
    }
    let optimizer_meta = match optimizer {
        Some((optimizer, training)) => {
            files.push(write_file(
                dir,
                OPTIMIZER_FILE,
                &safetensors_bytes(
                    &dir.join(OPTIMIZER_FILE),
                    &optimizer.named_state(),
                    encoding,
                )?,
            )?);
            Some(OptimizerMeta {
                kind: optimizer.kind,
                training: training.clone(),
            })
        }
        None => {
            let stale = dir.join(OPTIMIZER_FILE);
            if stale.exists() {
                std::fs::remove_file(&stale).map_err(NetError::io(&stale))?;
            }
            None
        }
    };
    let meta = CheckpointMeta {
        format: CHECKPOINT_FORMAT,
        encoding_version,
        model: *net.config(),
        training_step,
        rules: rules.map(RulesMeta::from),
        optimizer: optimizer_meta,
        parameters: net.parameter_count(),
        written_by: format!("sumito-net {}", env!("CARGO_PKG_VERSION")),
    };
    let meta_json = serde_json::to_vec_pretty(&meta).expect("checkpoint metadata serialises");
    files.push(write_file(dir, META_FILE, &meta_json)?);
    let manifest = Manifest {
        format: CHECKPOINT_FORMAT,
        files,
    };
    let manifest_json = serde_json::to_vec_pretty(&manifest).expect("manifest serialises");
    write_atomically(&manifest_path, &manifest_json)?;
    crate::fsutil::sync_dir(dir)
}

/// Keys of `meta.json` that older programs wrote for levers since removed:
/// dropped before parsing, so that their checkpoints still load
/// (`optimizer.training.ema_decay` was the moving average of the weights,
/// which training no longer keeps).
const REMOVED_META_KEYS: [[&str; 3]; 1] = [["optimizer", "training", "ema_decay"]];

/// `meta.json`, with the keys of removed levers dropped.
fn parse_meta(bytes: &[u8]) -> serde_json::Result<CheckpointMeta> {
    let mut value: serde_json::Value = serde_json::from_slice(bytes)?;
    for [section, table, key] in REMOVED_META_KEYS {
        if let Some(table) = value
            .get_mut(section)
            .and_then(|section| section.get_mut(table))
            .and_then(|table| table.as_object_mut())
        {
            table.remove(key);
        }
    }
    serde_json::from_value(value)
}

/// A checkpoint's files, read and verified against the manifest.
struct VerifiedFiles {
    dir: PathBuf,
    files: HashMap<String, Vec<u8>>,
}

impl VerifiedFiles {
    /// Whether the checkpoint lists `name`.
    fn has(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    fn read(dir: &Path) -> Result<VerifiedFiles, NetError> {
        if !dir.is_dir() {
            return Err(NetError::checkpoint(dir, "is not a directory"));
        }
        let manifest_path = dir.join(MANIFEST_FILE);
        let manifest_bytes = match std::fs::read(&manifest_path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(NetError::checkpoint(
                    dir,
                    format!(
                        "has no {MANIFEST_FILE}: it is incomplete (its writing was interrupted) or not a checkpoint"
                    ),
                ));
            }
            Err(err) => return Err(NetError::io(&manifest_path)(err)),
        };
        let manifest: Manifest = serde_json::from_slice(&manifest_bytes).map_err(|err| {
            NetError::checkpoint(dir, format!("{MANIFEST_FILE} is damaged: {err}"))
        })?;
        if manifest.format != CHECKPOINT_FORMAT {
            return Err(NetError::checkpoint(
                dir,
                format!(
                    "has checkpoint format {}, this program reads format {CHECKPOINT_FORMAT}",
                    manifest.format
                ),
            ));
        }
        let mut files = HashMap::new();
        for entry in manifest.files {
            let path = dir.join(&entry.name);
            if entry.name.contains(['/', '\\']) {
                return Err(NetError::checkpoint(
                    dir,
                    format!("manifest names a file outside it: {}", entry.name),
                ));
            }
            let bytes = std::fs::read(&path).map_err(NetError::io(&path))?;
            let checksum = format!("{:016x}", fnv1a64(&bytes));
            if bytes.len() as u64 != entry.bytes || checksum != entry.fnv1a64 {
                return Err(NetError::checkpoint(
                    dir,
                    format!(
                        "{} is corrupted: {} bytes with checksum {checksum}, the manifest says {} bytes with checksum {}",
                        entry.name,
                        bytes.len(),
                        entry.bytes,
                        entry.fnv1a64
                    ),
                ));
            }
            files.insert(entry.name, bytes);
        }
        Ok(VerifiedFiles {
            dir: dir.to_owned(),
            files,
        })
    }

    fn get(&self, name: &str) -> Result<&[u8], NetError> {
        self.files
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| NetError::checkpoint(&self.dir, format!("the manifest lists no {name}")))
    }

    fn meta(&self) -> Result<CheckpointMeta, NetError> {
        let meta = parse_meta(self.get(META_FILE)?).map_err(|err| {
            NetError::checkpoint(&self.dir, format!("{META_FILE} is not valid: {err}"))
        })?;
        if meta.format != CHECKPOINT_FORMAT {
            return Err(NetError::checkpoint(
                &self.dir,
                format!(
                    "{META_FILE} has format {}, expected {CHECKPOINT_FORMAT}",
                    meta.format
                ),
            ));
        }
        // The game comes from the metadata (two-player where older
        // checkpoints do not name one), and with it the encoding expected.
        let expected = meta.model.shape().encoding_version();
        if meta.encoding_version != expected {
            return Err(NetError::EncodingMismatch {
                path: self.dir.clone(),
                found: meta.encoding_version,
                expected,
            });
        }
        meta.model.validate().map_err(|err| {
            NetError::checkpoint(
                &self.dir,
                format!("{META_FILE} describes an invalid network: {err}"),
            )
        })?;
        Ok(meta)
    }

    /// Copies the tensors of `file` into `targets` (name → variable), after
    /// checking that the names and shapes match exactly.
    fn load_tensors(&self, file: &str, targets: &BTreeMap<String, Tensor>) -> Result<(), NetError> {
        let bytes = self.get(file)?;
        let tensors = SafeTensors::deserialize(bytes).map_err(|err| {
            NetError::checkpoint(&self.dir, format!("{file} is not valid safetensors: {err}"))
        })?;
        let mismatch =
            |problem: String| NetError::checkpoint(&self.dir, format!("{file}: {problem}"));
        let stored: Vec<String> = tensors.names().into_iter().map(str::to_owned).collect();
        if let Some(extra) = stored.iter().find(|name| !targets.contains_key(*name)) {
            return Err(mismatch(format!(
                "holds tensor `{extra}`, which this network does not have"
            )));
        }
        let mut values = Vec::with_capacity(targets.len());
        for (name, target) in targets {
            let view = tensors
                .tensor(name)
                .map_err(|_| mismatch(format!("lacks tensor `{name}`")))?;
            let expected: Vec<usize> = target.size().iter().map(|&d| d as usize).collect();
            if view.dtype() != Dtype::F32 || view.shape() != expected.as_slice() {
                return Err(mismatch(format!(
                    "tensor `{name}` is {:?} {:?}, the network needs F32 {expected:?}",
                    view.dtype(),
                    view.shape()
                )));
            }
            let floats: Vec<f32> = view
                .data()
                .chunks_exact(4)
                .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
                .collect();
            values.push((target, floats, target.size()));
        }
        tch::no_grad(|| {
            for (target, floats, shape) in values {
                let source = Tensor::from_slice(&floats)
                    .view(shape.as_slice())
                    .to_device(target.device());
                target.shallow_clone().copy_(&source);
            }
        });
        Ok(())
    }
}

fn checked_architecture(
    dir: &Path,
    meta: &CheckpointMeta,
    expected: Option<&ModelConfig>,
) -> Result<(), NetError> {
    match expected {
        Some(expected) if *expected != meta.model => Err(NetError::ArchitectureMismatch {
            path: dir.to_owned(),
            found: meta.model.to_string(),
            expected: expected.to_string(),
        }),
        _ => Ok(()),
    }
}

fn named_variables(net: &PolicyValueNet) -> BTreeMap<String, Tensor> {
    net.vars().variables().into_iter().collect()
}

/// Reads only the metadata of a checkpoint (after verifying its files).
pub fn read_checkpoint_meta(dir: &Path) -> Result<CheckpointMeta, NetError> {
    VerifiedFiles::read(dir)?.meta()
}

/// The stem convolution's weights, `[channels, input planes, 3, 3]`: the
/// one variable whose shape depends on the input planes.
const STEM_WEIGHT: &str = "stem.conv.weight";

/// Gives a checkpoint of a two-player network the push-off input planes
/// (`[net.model] push_off_planes`, encoding version 2), in place: the stem's
/// weights for the two new planes are zero, so the network computes exactly
/// what it computed before and training then learns to use them; their
/// optimiser moments start at zero. Every file is rewritten atomically with
/// the manifest removed first and written last, as [`save`] does. Returns
/// `false`, changing nothing, when the network has them already.
pub fn add_push_off_planes(dir: &Path) -> Result<bool, NetError> {
    let files = VerifiedFiles::read(dir)?;
    let mut meta = files.meta()?;
    if meta.model.push_off_planes {
        return Ok(false);
    }
    if !meta.model.game.is_two_player() {
        return Err(NetError::checkpoint(
            dir,
            "is a network of the general game, which has no push-off planes",
        ));
    }
    let before = meta.model.shape().input_planes();
    meta.model.push_off_planes = true;
    meta.encoding_version = meta.model.shape().encoding_version();
    let after = meta.model.shape().input_planes();
    let encoding = HashMap::from([(
        "encoding_version".to_owned(),
        meta.encoding_version.to_string(),
    )]);
    let mut rewritten = Vec::new();
    for name in [WEIGHTS_FILE, AVERAGE_FILE, OPTIMIZER_FILE] {
        if !files.has(name) {
            continue;
        }
        let path = dir.join(name);
        let tensors = SafeTensors::deserialize(files.get(name)?).map_err(|err| {
            NetError::checkpoint(dir, format!("{name} is not valid safetensors: {err}"))
        })?;
        let mut raw: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
        for (tensor_name, view) in tensors.tensors() {
            let mut shape = view.shape().to_vec();
            let mut bytes = view.data().to_vec();
            // The weights' own name, or an optimiser moment's `first.` /
            // `second.` followed by it.
            let is_stem = tensor_name == STEM_WEIGHT
                || tensor_name
                    .split_once('.')
                    .is_some_and(|(_, rest)| rest == STEM_WEIGHT);
            if is_stem {
                if view.dtype() != Dtype::F32 || shape.len() != 4 || shape[1] != before {
                    return Err(NetError::checkpoint(
                        dir,
                        format!(
                            "{name}: tensor `{tensor_name}` is {:?} {shape:?}, expected F32 [_, {before}, _, _]",
                            view.dtype()
                        ),
                    ));
                }
                // Row-major: each output channel's `before` input planes,
                // then the new planes' zeros.
                let per_plane = shape[2] * shape[3] * 4;
                let mut widened = Vec::with_capacity(shape[0] * after * per_plane);
                for channel in bytes.chunks_exact(before * per_plane) {
                    widened.extend_from_slice(channel);
                    widened.resize(widened.len() + (after - before) * per_plane, 0);
                }
                if name == WEIGHTS_FILE {
                    meta.parameters += shape[0] * (after - before) * shape[2] * shape[3];
                }
                shape[1] = after;
                bytes = widened;
            }
            raw.push((tensor_name, shape, bytes));
        }
        let views = raw
            .iter()
            .map(|(tensor_name, shape, bytes)| {
                TensorView::new(Dtype::F32, shape.clone(), bytes)
                    .map(|view| (tensor_name.as_str(), view))
            })
            .collect::<Result<Vec<_>, _>>()
            .and_then(|views| safetensors::serialize(views, Some(encoding.clone())))
            .map_err(|err| {
                NetError::checkpoint(&path, format!("cannot serialise the tensors: {err}"))
            })?;
        rewritten.push((name, views));
    }
    let manifest_path = dir.join(MANIFEST_FILE);
    std::fs::remove_file(&manifest_path).map_err(NetError::io(&manifest_path))?;
    let mut entries = Vec::new();
    for (name, bytes) in &rewritten {
        entries.push(write_file(dir, name, bytes)?);
    }
    let meta_json = serde_json::to_vec_pretty(&meta).expect("checkpoint metadata serialises");
    entries.push(write_file(dir, META_FILE, &meta_json)?);
    let manifest = Manifest {
        format: CHECKPOINT_FORMAT,
        files: entries,
    };
    let manifest_json = serde_json::to_vec_pretty(&manifest).expect("manifest serialises");
    write_atomically(&manifest_path, &manifest_json)?;
    crate::fsutil::sync_dir(dir)?;
    Ok(true)
}

impl PolicyValueNet {
    /// Saves the weights (no optimiser state) as a checkpoint directory.
    pub fn save_checkpoint(
        &self,
        dir: &Path,
        training_step: u64,
        rules: Option<Rules>,
    ) -> Result<(), NetError> {
        save(dir, self, None, training_step, rules)
    }

    /// Loads a checkpoint onto `device`, building the network its metadata
    /// describes. With `expected`, a checkpoint of another architecture is an
    /// [`NetError::ArchitectureMismatch`].
    pub fn load_checkpoint(
        dir: &Path,
        expected: Option<&ModelConfig>,
        device: Device,
    ) -> Result<(PolicyValueNet, CheckpointMeta), NetError> {
        let files = VerifiedFiles::read(dir)?;
        let meta = files.meta()?;
        checked_architecture(dir, &meta, expected)?;
        let net = PolicyValueNet::new(&meta.model, device)?;
        files.load_tensors(WEIGHTS_FILE, &named_variables(&net))?;
        Ok((net, meta))
    }
}

impl Trainer {
    /// Saves weights, optimiser state and metadata.
    pub fn save_checkpoint(&self, dir: &Path, rules: Option<Rules>) -> Result<(), NetError> {
        save(
            dir,
            self.net(),
            Some((self.optimizer(), self.config())),
            self.step(),
            rules,
        )
    }

    /// Resumes training from a checkpoint: the architecture must be
    /// `model`. The optimiser state is restored if the checkpoint has one for
    /// the optimiser `training` asks for; otherwise the optimiser starts fresh
    /// (the training step count is kept either way). `training` (not the
    /// checkpoint's copy) decides the hyper-parameters from here on.
    pub fn load_checkpoint(
        dir: &Path,
        model: &ModelConfig,
        training: &NetTrainingConfig,
        device: Device,
    ) -> Result<(Trainer, CheckpointMeta), NetError> {
        let files = VerifiedFiles::read(dir)?;
        let meta = files.meta()?;
        checked_architecture(dir, &meta, Some(model))?;
        let net = PolicyValueNet::new(&meta.model, device)?;
        files.load_tensors(WEIGHTS_FILE, &named_variables(&net))?;
        let optimizer = Optimizer::new(&net, training.optimizer);
        if meta
            .optimizer
            .as_ref()
            .is_some_and(|saved| saved.kind == training.optimizer)
        {
            files.load_tensors(OPTIMIZER_FILE, &optimizer.named_state())?;
        }
        let trainer = Trainer::from_parts(net, optimizer, training, meta.training_step);
        Ok((trainer, meta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ModelConfig;
    use crate::encoding::{ENCODING_VERSION, GRID, INPUT_PLANES};
    use crate::model::tests::tiny_config;
    use crate::train::tests::random_samples;
    use sumito_game::GameKind;

    /// A fresh tiny network, saved (weights only) at `training_step`.
    fn saved_tiny_checkpoint(name: &str, training_step: u64) -> (PathBuf, PolicyValueNet) {
        let dir = crate::fsutil::fresh_test_path(name);
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        net.save_checkpoint(&dir, training_step, None).unwrap();
        (dir, net)
    }

    fn probe() -> Tensor {
        tch::manual_seed(3);
        Tensor::rand(
            [4, INPUT_PLANES as i64, GRID as i64, GRID as i64],
            (Kind::Float, Device::Cpu),
        )
    }

    fn trained_trainer() -> Trainer {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let mut trainer = Trainer::new(net, &NetTrainingConfig::default()).unwrap();
        let samples = random_samples(8, 21);
        for _ in 0..3 {
            trainer.train_step(&samples).unwrap();
        }
        trainer
    }

    #[test]
    fn save_and_load_give_identical_outputs_and_resume_training() {
        let dir = crate::fsutil::fresh_test_path("roundtrip");
        let trainer = trained_trainer();
        let rules = Rules {
            max_plies: Some(400),
            ..Rules::default()
        };
        trainer.save_checkpoint(&dir, Some(rules)).unwrap();
        let (net, meta) =
            PolicyValueNet::load_checkpoint(&dir, Some(&tiny_config()), Device::Cpu).unwrap();
        assert_eq!(meta.training_step, 3);
        assert_eq!(meta.rules.map(Rules::from), Some(rules));
        assert_eq!(
            meta.optimizer.as_ref().map(|o| o.kind),
            Some(OptimizerKind::AdamW)
        );
        let input = probe();
        let before = trainer.net().forward_packed(&input);
        assert!(before.equal(&net.forward_packed(&input)));

        // Resumed training continues exactly where the original goes.
        let (mut resumed, _) =
            Trainer::load_checkpoint(&dir, &tiny_config(), trainer.config(), Device::Cpu).unwrap();
        let mut original = trainer;
        let samples = random_samples(8, 22);
        let a = original.train_step(&samples).unwrap();
        let b = resumed.train_step(&samples).unwrap();
        assert_eq!(a.step, b.step);
        assert!((a.loss - b.loss).abs() < 1e-5, "{a:?} vs {b:?}");
        assert!(original.net().forward_packed(&input).allclose(
            &resumed.net().forward_packed(&input),
            1e-5,
            1e-5,
            false
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn push_off_planes_added_to_a_checkpoint_change_no_output_and_train_on() {
        let config = NetTrainingConfig::default();
        let mut trainer = Trainer::new(
            PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap(),
            &config,
        )
        .unwrap();
        let samples = random_samples(8, 24);
        for _ in 0..3 {
            trainer.train_step(&samples).unwrap();
        }
        let dir = crate::fsutil::fresh_test_path("push-off-planes");
        trainer.save_checkpoint(&dir, None).unwrap();
        assert!(add_push_off_planes(&dir).unwrap());
        assert!(
            !add_push_off_planes(&dir).unwrap(),
            "the second time is a no-op"
        );
        let widened = ModelConfig {
            push_off_planes: true,
            ..tiny_config()
        };
        let meta = read_checkpoint_meta(&dir).unwrap();
        assert_eq!(meta.model, widened);
        assert_eq!(
            meta.encoding_version,
            crate::encoding::PUSH_OFF_ENCODING_VERSION
        );
        // The old network is refused under the old config, with the reason.
        let refused = Trainer::load_checkpoint(&dir, &tiny_config(), &config, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("with push-off planes"), "{refused}");
        let (mut resumed, _) =
            Trainer::load_checkpoint(&dir, &widened, &config, Device::Cpu).unwrap();
        assert_eq!(resumed.net().parameter_count(), meta.parameters);
        // Whatever the new planes hold, the outputs are the old network's.
        let basic = probe();
        let extra = Tensor::rand([4, 2, GRID as i64, GRID as i64], (Kind::Float, Device::Cpu));
        let input = Tensor::cat(&[&basic, &extra], 1);
        assert!(trainer.net().forward_packed(&basic).allclose(
            &resumed.net().forward_packed(&input),
            1e-6,
            1e-6,
            false
        ));
        // It trains on with the new planes.
        let before = resumed.net().forward_packed(&input);
        resumed.train_step(&samples).unwrap();
        assert!(!resumed.net().forward_packed(&input).equal(&before));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_checkpoint_of_a_trainer_with_a_moving_average_still_loads() {
        // Older trainers could keep a moving average of the weights
        // (`ema_decay`): their meta.json names the key and the checkpoint
        // holds the average's file. Both are ignored, and a save drops the file.
        let config = NetTrainingConfig::default();
        let mut trainer = Trainer::new(
            PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap(),
            &config,
        )
        .unwrap();
        trainer.train_step(&random_samples(8, 25)).unwrap();
        let dir = crate::fsutil::fresh_test_path("moving-average");
        trainer.save_checkpoint(&dir, None).unwrap();
        let weights = std::fs::read(dir.join(WEIGHTS_FILE)).unwrap();
        let manifest_path = dir.join(MANIFEST_FILE);
        let mut manifest: Manifest =
            serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
        manifest
            .files
            .push(write_file(&dir, AVERAGE_FILE, &weights).unwrap());
        std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
        let mut meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(META_FILE)).unwrap()).unwrap();
        meta["optimizer"]["training"]["ema_decay"] = serde_json::json!(0.99);
        rewrite(&dir, META_FILE, &serde_json::to_vec(&meta).unwrap());

        let (resumed, meta) =
            Trainer::load_checkpoint(&dir, &tiny_config(), &config, Device::Cpu).unwrap();
        assert_eq!(meta.training_step, 1);
        let input = probe();
        assert!(
            resumed
                .net()
                .forward_packed(&input)
                .equal(&trainer.net().forward_packed(&input))
        );
        resumed.save_checkpoint(&dir, None).unwrap();
        assert!(!dir.join(AVERAGE_FILE).exists());
        read_checkpoint_meta(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_general_game_network_saves_and_loads_as_one() {
        let dir = crate::fsutil::fresh_test_path("variant");
        let config = ModelConfig {
            game: GameKind::General,
            ..tiny_config()
        };
        let net = PolicyValueNet::new(&config, Device::Cpu).unwrap();
        net.save_checkpoint(&dir, 0, None).unwrap();
        let meta = read_checkpoint_meta(&dir).unwrap();
        assert_eq!(meta.model.game, GameKind::General);
        assert_eq!(
            meta.encoding_version,
            crate::general_encoding::GENERAL_ENCODING_VERSION
        );
        let (loaded, _) = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu).unwrap();
        assert_eq!(loaded.game(), GameKind::General);
        let input = Tensor::rand(
            [
                2,
                config.shape().input_planes() as i64,
                GRID as i64,
                GRID as i64,
            ],
            (Kind::Float, Device::Cpu),
        );
        assert!(net.forward_packed(&input).allclose(
            &loaded.forward_packed(&input),
            0.0,
            0.0,
            false
        ));
        // Asked for as a two-player network, it is refused by name.
        let message = PolicyValueNet::load_checkpoint(&dir, Some(&tiny_config()), Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("for the general game"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn architecture_mismatch_is_a_clear_error() {
        let (dir, _) = saved_tiny_checkpoint("arch", 0);
        let other = ModelConfig {
            blocks: 3,
            ..tiny_config()
        };
        let message = PolicyValueNet::load_checkpoint(&dir, Some(&other), Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("2 blocks × 16 channels"), "{message}");
        assert!(message.contains("3 blocks × 16 channels"), "{message}");
        let wider = ModelConfig {
            channels: 24,
            ..tiny_config()
        };
        let message =
            Trainer::load_checkpoint(&dir, &wider, &NetTrainingConfig::default(), Device::Cpu)
                .unwrap_err()
                .to_string();
        assert!(message.contains("24 channels"), "{message}");

        // Metadata that lies about the shape: the tensors are checked too.
        let meta_path = dir.join(META_FILE);
        let mut meta: CheckpointMeta =
            serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
        meta.model.channels = 24;
        rewrite(&dir, META_FILE, &serde_json::to_vec(&meta).unwrap());
        let message = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("the network needs F32 [24"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Replaces a file and updates the manifest to match, as a writer of a
    /// different (or lying) checkpoint would.
    fn rewrite(dir: &Path, name: &str, bytes: &[u8]) {
        std::fs::write(dir.join(name), bytes).unwrap();
        let manifest_path = dir.join(MANIFEST_FILE);
        let mut manifest: Manifest =
            serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
        for entry in &mut manifest.files {
            if entry.name == name {
                entry.bytes = bytes.len() as u64;
                entry.fnv1a64 = format!("{:016x}", fnv1a64(bytes));
            }
        }
        std::fs::write(manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    }

    #[test]
    fn encoding_version_mismatch_is_a_clear_error() {
        let (dir, _) = saved_tiny_checkpoint("encoding", 0);
        let meta_path = dir.join(META_FILE);
        let mut meta: CheckpointMeta =
            serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
        meta.encoding_version = ENCODING_VERSION + 1;
        rewrite(&dir, META_FILE, &serde_json::to_vec(&meta).unwrap());
        let err = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu).unwrap_err();
        assert!(
            matches!(err, NetError::EncodingMismatch { found, .. } if found == ENCODING_VERSION + 1)
        );
        assert!(err.to_string().contains("input encoding version"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn corrupted_or_incomplete_checkpoints_are_clear_errors() {
        let (dir, _) = saved_tiny_checkpoint("corrupt", 0);
        let weights = dir.join(WEIGHTS_FILE);
        let mut bytes = std::fs::read(&weights).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        std::fs::write(&weights, &bytes).unwrap();
        let message = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("weights.safetensors is corrupted"),
            "{message}"
        );

        // Garbage that matches its manifest entry is still refused.
        rewrite(&dir, WEIGHTS_FILE, b"not safetensors at all");
        let message = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("is not valid safetensors"), "{message}");

        std::fs::remove_file(dir.join(MANIFEST_FILE)).unwrap();
        let message = PolicyValueNet::load_checkpoint(&dir, None, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("incomplete"), "{message}");
        let message = PolicyValueNet::load_checkpoint(&dir.join("missing"), None, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("is not a directory"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn weights_file_is_plain_safetensors() {
        let (dir, net) = saved_tiny_checkpoint("plain", 7);
        // tch's own reader (libtorch side) accepts the file too.
        let tensors = Tensor::read_safetensors(dir.join(WEIGHTS_FILE)).unwrap();
        assert_eq!(tensors.len(), net.vars().variables().len());
        assert_eq!(read_checkpoint_meta(&dir).unwrap().training_step, 7);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
