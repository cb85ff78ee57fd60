//! Export for play: a TorchScript module traced from the network, loadable by
//! Rust ([`TorchScriptModel`]) and by Python (`torch.jit.load`), with a JSON
//! sidecar (`<file>.json`) that records what it expects.
//!
//! The module takes one float32 tensor `[batch, 11, 9, 9]` (the planes of
//! [`crate::encoding`], version [`ENCODING_VERSION`]) and returns one tensor
//! `[batch, 1738]`: columns `0..1734` policy logits (network frame: apply
//! [`crate::policy_index`] to engine actions, then softmax over the legal
//! ones), `1734..1737` win/draw/loss logits for the side to move, `1737` the
//! predicted marble difference / 6 (already `tanh`-ed). Any batch size works:
//! the trace takes no size from its example input. Batch norm is in
//! evaluation mode; the weights are frozen float32 on the CPU
//! (`load` moves them to the device asked for).
//!
//! A network of the general game ([`GameKind::General`]) exports the same
//! way with its own sizes (`crate::general_encoding`); the sidecar's `model`
//! names the game and its `input` and `output` the layout.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tch::{CModule, Device, Kind, Tensor};

use crate::NetError;
use crate::checkpoint::RulesMeta;
use crate::config::{ModelConfig, NetShape};
use crate::encoding::GRID;
use crate::evaluate::PackedModel;
use crate::fsutil::write_atomically;
use crate::model::OutputColumns;
use crate::model::PolicyValueNet;
use sumito_game::GameKind;

pub use sumito_game::formats::EXPORT_FORMAT;

/// The sidecar `<file>.json` of an exported module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportMeta {
    pub format: String,
    pub encoding_version: u32,
    pub model: ModelConfig,
    pub training_step: u64,
    pub rules: Option<RulesMeta>,
    /// Human-readable: input and output layout.
    pub input: String,
    pub output: String,
}

/// Where the sidecar of `module_path` lives: the same name with `.json`
/// appended (`best.pt` → `best.pt.json`).
pub fn sidecar_path(module_path: &Path) -> PathBuf {
    let mut name = module_path.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

impl PolicyValueNet {
    /// Writes the TorchScript module to `path` and its sidecar next to it,
    /// both atomically.
    pub fn export_torchscript(
        &self,
        path: &Path,
        training_step: u64,
        rules: Option<sumito_engine::Rules>,
    ) -> Result<(), NetError> {
        // A frozen CPU copy: the trace records no autograd and loads anywhere.
        let mut copy = PolicyValueNet::new(self.config(), Device::Cpu)?;
        copy.vars_mut()
            .copy(self.vars())
            .map_err(NetError::torch("copying the weights for export"))?;
        copy.vars_mut().freeze();
        let game = self.game();
        let planes = self.shape().input_planes();
        let example = Tensor::zeros(
            [2, planes as i64, GRID as i64, GRID as i64],
            (Kind::Float, Device::Cpu),
        );
        let module = tch::no_grad(|| {
            CModule::create_by_tracing("SumitoNet", "forward", &[example], &mut |inputs| {
                vec![copy.forward_packed_traceable(&inputs[0])]
            })
        })
        .map_err(NetError::torch("tracing the network"))?;
        let dir = path
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(NetError::io(dir))?;
        // CModule::save writes in place; write next to the target, then move
        // the finished bytes atomically.
        let staging = dir.join(format!(".export.{}.staging", std::process::id()));
        module
            .save(&staging)
            .map_err(NetError::torch(format!("saving {}", path.display())))?;
        let bytes = std::fs::read(&staging).map_err(NetError::io(&staging));
        let _ = std::fs::remove_file(&staging);
        write_atomically(path, &bytes?)?;
        let encoding_version = self.shape().encoding_version();
        let (policy, value, aux, columns) = (
            game.packed_value(),
            game.packed_aux(),
            game.packed_len() - 1,
            game.packed_len(),
        );
        let output = match game {
            GameKind::TwoPlayer => format!(
                "float32 [batch, {columns}]: policy logits 0..{policy} (network frame) | \
                 win/draw/loss logits {policy}..{value} | marble difference / 6 at {aux}"
            ),
            GameKind::General => format!(
                "float32 [batch, {columns}]: policy logits 0..{policy} (network frame, every move kind) | \
                 value logits {policy}..{value} (a win per side from the mover's, then a draw) | \
                 marbles pushed off / 6 per seat from the mover's {value}..{columns}"
            ),
        };
        let meta = ExportMeta {
            format: EXPORT_FORMAT.to_owned(),
            encoding_version,
            model: *self.config(),
            training_step,
            rules: rules.map(RulesMeta::from),
            input: format!(
                "float32 [batch, {planes}, {GRID}, {GRID}], encoding version {encoding_version}"
            ),
            output,
        };
        let json = serde_json::to_vec_pretty(&meta).expect("export metadata serialises");
        write_atomically(&sidecar_path(path), &json)
    }
}

/// An exported module, loaded for play. Evaluates like the network it came
/// from ([`PackedModel`]; wrap it in a [`crate::DirectEvaluator`] or an
/// [`crate::InferenceService`]).
#[derive(Debug)]
pub struct TorchScriptModel {
    module: CModule,
    device: Device,
    meta: ExportMeta,
}

impl TorchScriptModel {
    /// Loads `path` onto `device`, after checking its sidecar: a module
    /// made for another input encoding is refused.
    pub fn load(path: &Path, device: Device) -> Result<TorchScriptModel, NetError> {
        let sidecar = sidecar_path(path);
        let text = std::fs::read(&sidecar).map_err(NetError::io(&sidecar))?;
        let meta: ExportMeta =
            serde_json::from_slice(&text).map_err(|err| NetError::Checkpoint {
                path: sidecar.clone(),
                problem: format!("is not a valid export description: {err}"),
            })?;
        if meta.format != EXPORT_FORMAT {
            return Err(NetError::Checkpoint {
                path: sidecar,
                problem: format!("has format '{}', expected '{EXPORT_FORMAT}'", meta.format),
            });
        }
        let expected = meta.model.shape().encoding_version();
        if meta.encoding_version != expected {
            return Err(NetError::EncodingMismatch {
                path: path.to_owned(),
                found: meta.encoding_version,
                expected,
            });
        }
        let mut module = CModule::load_on_device(path, device).map_err(NetError::torch(
            format!("loading TorchScript module {}", path.display()),
        ))?;
        module.set_eval();
        Ok(TorchScriptModel {
            module,
            device,
            meta,
        })
    }

    pub fn meta(&self) -> &ExportMeta {
        &self.meta
    }
}

impl PackedModel for TorchScriptModel {
    fn device(&self) -> Device {
        self.device
    }

    fn shape(&self) -> NetShape {
        self.meta.model.shape()
    }

    fn forward_packed(&self, input: &Tensor) -> Result<Tensor, NetError> {
        tch::no_grad(|| self.module.forward_ts(&[input]))
            .map_err(NetError::torch("forward pass of the TorchScript module"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetTrainingConfig;
    use crate::encoding::INPUT_PLANES;
    use crate::model::PACKED_LEN;
    use crate::model::tests::tiny_config;
    use crate::train::Trainer;
    use crate::train::tests::random_samples;

    #[test]
    fn a_general_game_network_exports_with_its_sizes() {
        let dir = crate::fsutil::fresh_test_path("export-variant");
        let config = ModelConfig {
            game: GameKind::General,
            ..tiny_config()
        };
        let net = PolicyValueNet::new(&config, Device::Cpu).unwrap();
        let path = dir.join("model.pt");
        net.export_torchscript(&path, 0, None).unwrap();
        let model = TorchScriptModel::load(&path, Device::Cpu).unwrap();
        assert_eq!(PackedModel::game(&model), GameKind::General);
        assert_eq!(
            model.meta().encoding_version,
            crate::general_encoding::GENERAL_ENCODING_VERSION
        );
        let input = Tensor::rand(
            [
                3,
                config.shape().input_planes() as i64,
                GRID as i64,
                GRID as i64,
            ],
            (Kind::Float, Device::Cpu),
        );
        let exported = model.forward_packed(&input).unwrap();
        assert_eq!(exported.size(), [3, config.game.packed_len() as i64]);
        assert!(
            net.forward_packed(&input)
                .allclose(&exported, 1e-5, 1e-6, false)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn exported_module_matches_the_network_at_any_batch_size() {
        let dir = crate::fsutil::fresh_test_path("export");
        // Trained a little, so that batch-norm statistics are not the defaults.
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let mut trainer = Trainer::new(net, &NetTrainingConfig::default()).unwrap();
        trainer.train_step(&random_samples(8, 31)).unwrap();
        let net = trainer.into_net();
        let path = dir.join("model.pt");
        net.export_torchscript(&path, 1, None).unwrap();
        let model = TorchScriptModel::load(&path, Device::Cpu).unwrap();
        assert_eq!(model.meta().model, tiny_config());
        for batch in [1, 3, 7] {
            let input = Tensor::rand(
                [batch, INPUT_PLANES as i64, GRID as i64, GRID as i64],
                (Kind::Float, Device::Cpu),
            );
            let direct = net.forward_packed(&input);
            let exported = model.forward_packed(&input).unwrap();
            assert_eq!(exported.size(), [batch, PACKED_LEN as i64]);
            assert!(
                direct.allclose(&exported, 1e-5, 1e-6, false),
                "batch {batch}"
            );
        }

        let mut meta = model.meta().clone();
        meta.encoding_version += 1;
        std::fs::write(sidecar_path(&path), serde_json::to_vec(&meta).unwrap()).unwrap();
        let err = TorchScriptModel::load(&path, Device::Cpu).unwrap_err();
        assert!(matches!(err, NetError::EncodingMismatch { .. }), "{err}");
        std::fs::remove_file(sidecar_path(&path)).unwrap();
        let message = TorchScriptModel::load(&path, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(message.contains("model.pt.json"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
