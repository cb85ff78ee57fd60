//! A bigger network grown from a trained smaller one, computing exactly
//! what the smaller one computed (the function-preserving growth of
//! Net2Net, Chen, Goodfellow and Shlens 2016, in its simplest form): more
//! residual blocks, more trunk channels, the push-off planes added. The
//! new blocks start as identities, since their second batch norm's scale is
//! zero as in any fresh network; the new channels and planes are read by
//! nothing old (their weights into the old channels and the heads are zero)
//! while the weights into them are random, so training starts using them
//! at the first step. `sumito train --init-model` grows a shipped model into
//! a configuration's bigger network this way: the bigger network plays as
//! well as the model from its first game instead of from scratch.

use tch::Tensor;

use crate::config::ModelConfig;
use crate::error::NetError;
use crate::model::PolicyValueNet;

impl ModelConfig {
    /// Whether `wanted` is this network grown: the same game and heads, at
    /// least as many blocks and trunk channels, the push-off planes kept or
    /// added, and something bigger.
    pub fn grows_into(&self, wanted: &ModelConfig) -> bool {
        wanted != self
            && wanted.game == self.game
            && wanted.blocks >= self.blocks
            && wanted.channels >= self.channels
            && (wanted.push_off_planes || !self.push_off_planes)
            && wanted.policy_channels == self.policy_channels
            && wanted.value_channels == self.value_channels
            && wanted.value_hidden == self.value_hidden
    }

    /// What growing this network into `wanted` changes, in words: "grown
    /// from 5 blocks × 32 channels into 6 blocks × 48 channels", "given the
    /// push-off planes", or both.
    pub fn growth_into(&self, wanted: &ModelConfig) -> String {
        let mut parts = Vec::new();
        if (wanted.blocks, wanted.channels) != (self.blocks, self.channels) {
            parts.push(format!(
                "grown from {} blocks × {} channels into {} blocks × {} channels",
                self.blocks, self.channels, wanted.blocks, wanted.channels
            ));
        }
        if wanted.push_off_planes && !self.push_off_planes {
            parts.push("given the push-off planes".to_owned());
        }
        parts.join(" and ")
    }
}

impl PolicyValueNet {
    /// This network grown into `wanted` ([`ModelConfig::grows_into`]), on
    /// the same device, its outputs this network's for any input (with the
    /// push-off planes added, for any values of them).
    pub fn grown(&self, wanted: &ModelConfig) -> Result<PolicyValueNet, NetError> {
        if !self.config().grows_into(wanted) {
            return Err(NetError::Config {
                key: "model",
                problem: format!(
                    "is {wanted}, which is not the network {} grown (more blocks or channels, or the push-off planes added, with the same heads)",
                    self.config()
                ),
            });
        }
        if self.is_folded() || self.kind() != tch::Kind::Float {
            return Err(NetError::FoldedNetwork);
        }
        let grown = PolicyValueNet::new(wanted, self.device())?;
        let mut targets = grown.vars().variables();
        tch::no_grad(|| {
            for (name, source) in self.vars().variables() {
                let target = targets
                    .get_mut(&name)
                    .expect("a grown network has every variable of the smaller one");
                place(&source, target);
            }
        });
        Ok(grown)
    }
}

/// Writes `source` into the leading corner of `target` (each dimension at
/// least as long). A weight's first dimension is its outputs and its second
/// its inputs: the old outputs' weights from the new inputs are zeroed, so
/// that the old outputs are what they were.
fn place(source: &Tensor, target: &mut Tensor) {
    let small = source.size();
    let big = target.size();
    if small.len() >= 2 && big[1] > small[1] {
        let _ = target
            .narrow(0, 0, small[0])
            .narrow(1, small[1], big[1] - small[1])
            .zero_();
    }
    let mut corner = target.shallow_clone();
    for (dim, &len) in small.iter().enumerate() {
        corner = corner.narrow(dim as i64, 0, len);
    }
    corner.copy_(source);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetTrainingConfig;
    use crate::encoding::GRID;
    use crate::encoding::INPUT_PLANES;
    use crate::model::tests::tiny_config;
    use crate::train::Trainer;
    use crate::train::tests::random_samples;
    use tch::{Device, Kind};

    fn trained_tiny() -> Trainer {
        let mut trainer = Trainer::new(
            PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap(),
            &NetTrainingConfig::default(),
        )
        .unwrap();
        let samples = random_samples(8, 5);
        for _ in 0..4 {
            trainer.train_step(&samples).unwrap();
        }
        trainer
    }

    fn close(a: &Tensor, b: &Tensor) -> bool {
        a.allclose(b, 1e-5, 1e-5, false)
    }

    #[test]
    fn a_grown_network_computes_what_it_grew_from_and_trains_on() {
        let trainer = trained_tiny();
        let small = trainer.net();
        let wanted = ModelConfig {
            blocks: 3,
            channels: 24,
            push_off_planes: true,
            ..tiny_config()
        };
        assert!(tiny_config().grows_into(&wanted));
        assert_eq!(
            tiny_config().growth_into(&wanted),
            "grown from 2 blocks × 16 channels into 3 blocks × 24 channels and given the push-off planes"
        );
        let grown = small.grown(&wanted).unwrap();
        assert_eq!(*grown.config(), wanted);
        assert!(grown.parameter_count() > small.parameter_count());
        tch::manual_seed(11);
        let input = Tensor::rand(
            [6, INPUT_PLANES as i64, GRID as i64, GRID as i64],
            (Kind::Float, Device::Cpu),
        );
        let planes = Tensor::rand([6, 2, GRID as i64, GRID as i64], (Kind::Float, Device::Cpu));
        let widened = Tensor::cat(&[&input, &planes], 1);
        // Inference (batch norm folded) and training (batch statistics):
        // the same outputs, whatever the new planes hold.
        assert!(close(
            &small.forward_packed(&input),
            &grown.forward_packed(&widened)
        ));
        let (p, v, a) = small.forward_heads(&input, true);
        let (gp, gv, ga) = grown.forward_heads(&widened, true);
        assert!(close(&p, &gp) && close(&v, &gv) && close(&a, &ga));
        let folded = grown.replica().unwrap().fold_batch_norm();
        assert!(close(
            &small.forward_packed(&input),
            &folded.forward_packed(&widened)
        ));
        // The new weights learn: after one step the outputs move, and the
        // weights into the new channels are no longer where they started.
        let mut trainer = Trainer::new(grown, &NetTrainingConfig::default()).unwrap();
        let before = trainer.net().forward_packed(&widened);
        let new_channel = |net: &PolicyValueNet| {
            net.vars().variables()["policy.main.conv.weight"]
                .narrow(1, 16, 8)
                .abs()
                .sum(Kind::Float)
                .double_value(&[])
        };
        assert_eq!(new_channel(trainer.net()), 0.0);
        trainer.train_step(&random_samples(8, 6)).unwrap();
        assert!(!trainer.net().forward_packed(&widened).equal(&before));
        assert!(new_channel(trainer.net()) > 0.0);
    }

    #[test]
    fn a_network_of_the_general_game_grows_too() {
        let config = ModelConfig {
            game: sumito_game::GameKind::General,
            ..tiny_config()
        };
        let small = PolicyValueNet::new(&config, Device::Cpu).unwrap();
        // Statistics and scales away from a fresh network's 0 and 1.
        tch::no_grad(|| {
            for (_, mut variable) in small.vars().variables() {
                let noise = Tensor::rand_like(&variable) + 0.5;
                variable.copy_(&noise);
            }
        });
        let wanted = ModelConfig {
            blocks: 4,
            channels: 20,
            ..config
        };
        let grown = small.grown(&wanted).unwrap();
        let planes = config.shape().input_planes() as i64;
        let input = Tensor::rand(
            [5, planes, GRID as i64, GRID as i64],
            (Kind::Float, Device::Cpu),
        );
        assert!(close(
            &small.forward_packed(&input),
            &grown.forward_packed(&input)
        ));
    }

    #[test]
    fn only_a_bigger_network_of_the_same_heads_is_grown() {
        let small = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let refused = [
            tiny_config(),
            ModelConfig {
                blocks: 1,
                channels: 32,
                ..tiny_config()
            },
            ModelConfig {
                channels: 32,
                value_hidden: 32,
                ..tiny_config()
            },
        ];
        for wanted in refused {
            assert!(!tiny_config().grows_into(&wanted), "{wanted}");
            let err = small.grown(&wanted).unwrap_err().to_string();
            assert!(err.contains("which is not the network"), "{err}");
        }
        let planes = ModelConfig {
            push_off_planes: true,
            ..tiny_config()
        };
        assert!(!planes.grows_into(&ModelConfig {
            channels: 32,
            ..tiny_config()
        }));
    }
}
