//! The models of a run: generation 0 (random, or a trained model given),
//! candidates written atomically as checkpoint directories, and loading one
//! for inference.

use std::path::Path;

use sumito_net::{ModelConfig, PolicyValueNet};
use tch::Device;

use crate::config::Config;
use crate::error::{PipelineError, Result};
use crate::fsutil::temporary_path;
use crate::rundir::{INITIAL_MODEL, MODEL_MANIFEST, MODEL_PREFIX, Removed, RunDir, RunDirError};

/// The device of the run's network.
pub fn device(config: &Config) -> Result<Device> {
    config
        .net
        .inference
        .device
        .resolve()
        .map_err(PipelineError::net("choosing the network's device"))
}

/// Gives every checkpoint of a run in a folder (the trainer's and every
/// generation's model) the push-off input planes, for a run whose
/// configuration turns on `[net.model] push_off_planes`
/// ([`sumito_net::checkpoint::add_push_off_planes`]: the networks compute
/// what they computed, and training learns to use the new planes). Safe to
/// repeat after an interruption: a checkpoint that has them already is left
/// as it is. Returns how many checkpoints changed. The caller holds the
/// trainer's role.
pub fn add_push_off_planes(run: &RunDir) -> Result<usize> {
    if run.is_remote() {
        return Err(RunDirError::Incompatible {
            path: run.root().to_owned(),
            reason: "turning on [net.model] push_off_planes in a run on an object store is not \
                     supported: start a new run with it, or turn it on in a copy of the run in a folder"
                .to_owned(),
        }
        .into());
    }
    let mut folders = Vec::new();
    for parent in [run.models_dir(), run.trainer_dir()] {
        let entries = match std::fs::read_dir(&parent) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => return Err(PipelineError::io(&parent)(err)),
        };
        for entry in entries {
            let entry = entry.map_err(PipelineError::io(&parent))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if (name.starts_with("gen-") || name.starts_with("ckpt-"))
                && path.join(MODEL_MANIFEST).is_file()
            {
                folders.push(path);
            }
        }
    }
    folders.sort();
    let mut changed = 0;
    for folder in folders {
        let added =
            sumito_net::checkpoint::add_push_off_planes(&folder).map_err(PipelineError::net(
                format!("adding the push-off planes to {}", folder.display()),
            ))?;
        changed += usize::from(added);
    }
    Ok(changed)
}

/// Writes `net` as the checkpoint directory `path`, atomically: it is saved
/// under a temporary name beside it and renamed into place, so `path` is
/// either absent or complete.
pub fn save_model(
    net: &PolicyValueNet,
    path: &Path,
    training_step: u64,
    config: &Config,
) -> Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(PipelineError::io(parent))?;
    // Named with this process's host and id: a killed writer's folder is
    // removed by the next start (`RunDir::remove_leftovers`).
    let temp = temporary_path(path).map_err(PipelineError::io(path))?;
    net.save_checkpoint(&temp, training_step, Some(config.rules.rules()))
        .map_err(PipelineError::net(format!(
            "saving the model {}",
            path.display()
        )))?;
    if path.exists() {
        // Only a re-export of the same weights after a crash gets here.
        std::fs::remove_dir_all(path).map_err(PipelineError::io(path))?;
    }
    std::fs::rename(&temp, path).map_err(PipelineError::io(path))?;
    if let Ok(dir) = std::fs::File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Writes `net` as generation `generation`'s model of `run` (atomically,
/// see [`save_model`]) and shares it.
pub fn save_run_model(
    run: &RunDir,
    generation: u32,
    net: &PolicyValueNet,
    training_step: u64,
    config: &Config,
) -> Result<()> {
    save_model(net, &run.model_path(generation), training_step, config)?;
    run.publish_model(generation)?;
    Ok(())
}

/// Loads generation `generation`'s model, checking it has the configured
/// architecture.
pub fn load_model(
    run: &RunDir,
    generation: u32,
    config: &Config,
    device: Device,
) -> Result<PolicyValueNet> {
    let path = run
        .model_dir(generation)?
        .ok_or_else(|| RunDirError::Malformed {
            path: run.object_path(&RunDir::model_key(generation)),
            problem: "there is no such model".to_owned(),
        })?;
    let (net, _) =
        PolicyValueNet::load_checkpoint(&path, Some(&config.net.model), device).map_err(
            PipelineError::net(format!("loading the model {}", path.display())),
        )?;
    Ok(net)
}

/// Creates the random generation-0 model and makes it the best, unless the
/// run already has them.
pub fn ensure_initial_model(run: &RunDir, config: &Config, seed: u64) -> Result<()> {
    if !run.has_model(0)? {
        tch::manual_seed(seed as i64);
        let net = PolicyValueNet::new(&config.net.model, device(config)?)
            .map_err(PipelineError::net("building the initial network"))?;
        save_run_model(run, 0, &net, 0, config)?;
        run.log("trainer", "generation 0: a randomly initialised network")?;
    }
    if run.best()?.is_none() {
        run.set_best(0)?;
    }
    Ok(())
}

/// What [`seed_initial_model`] did: for the run's log and the command's
/// notes.
#[derive(Clone, Debug)]
pub struct SeededModel {
    /// Optimiser steps the network had had.
    pub training_step: u64,
    /// The network it was, where the configuration's is that network grown
    /// (more blocks or channels, or the push-off planes added:
    /// [`PolicyValueNet::grown`]).
    pub grown_from: Option<ModelConfig>,
    /// The rules it was trained under, where they differ from the run's.
    pub other_rules: Option<String>,
}

/// `initial-model.json`: the trained model a run started from, which a
/// bundle exported from the run names (`training.init_model`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialModel {
    /// As given to `--init-model`, resolved to its folder.
    pub model: String,
    /// The optimiser steps it had trained.
    pub training_step: u64,
}

impl InitialModel {
    /// The model a run started from; `None` for a random network.
    pub fn of(run: &RunDir) -> std::result::Result<Option<InitialModel>, RunDirError> {
        run.get_json(INITIAL_MODEL)
    }
}

/// Makes the trained network in the checkpoint folder `from` (a model
/// bundle, or a run's `models/gen-*`) generation 0 and the best model of a
/// run that has no generation 0 yet, in place of a random network: a run
/// that fine-tunes or continues a model under a new configuration
/// (`sumito train --init-model`). Its `[net.model]` must be the
/// configuration's, or the configuration's must be that network grown
/// (more blocks or trunk channels, or the push-off planes added, the same
/// heads): the network is then grown into it, computing what it computed
/// ([`PolicyValueNet::grown`]), and training teaches the new parts. The
/// trainer starts from it with a fresh optimiser and an empty replay. A
/// network trained under other rules is taken, and said so.
pub fn seed_initial_model(run: &RunDir, config: &Config, from: &Path) -> Result<SeededModel> {
    if run.has_model(0)? {
        return Err(RunDirError::Incompatible {
            path: run.root().to_owned(),
            reason: "the run already has its generation 0, and a model can only start a new run: \
                     resume it without --init-model, or add --fresh to start it over"
                .to_owned(),
        }
        .into());
    }
    let device = device(config)?;
    let loading = || format!("loading the initial model {}", from.display());
    let (net, meta) = PolicyValueNet::load_checkpoint(from, None, device)
        .map_err(PipelineError::net(loading()))?;
    let wanted = &config.net.model;
    let grown_from = (meta.model != *wanted).then_some(meta.model);
    let net = match grown_from {
        None => net,
        Some(model) if model.grows_into(wanted) => net
            .grown(wanted)
            .map_err(PipelineError::net(format!("growing {}", from.display())))?,
        Some(model) => {
            return Err(RunDirError::Incompatible {
                path: run.root().to_owned(),
                reason: format!(
                    "the initial model {} is the network {model}, but the configuration's \
                     [net.model] asks for {wanted}, which is not that network grown: give the \
                     run the model's [net.model], or one with more blocks or channels (or \
                     push_off_planes added) and the same heads",
                    from.display(),
                ),
            }
            .into());
        }
    };
    // Recorded before generation 0 is written: a run killed in between has
    // no generation 0, and the next --init-model writes both again.
    run.put_json(
        INITIAL_MODEL,
        &InitialModel {
            model: from.display().to_string(),
            training_step: meta.training_step,
        },
    )?;
    let run_rules = sumito_net::checkpoint::RulesMeta::from(config.rules.rules());
    let other_rules = meta
        .rules
        .filter(|rules| *rules != run_rules)
        .map(|rules| format!("{rules:?}"));
    save_run_model(run, 0, &net, 0, config)?;
    run.set_best(0)?;
    let mut line = format!(
        "generation 0: the network of {} (trained {} steps)",
        from.display(),
        meta.training_step
    );
    if let Some(model) = &grown_from {
        line.push_str(&format!(", {}", model.growth_into(wanted)));
    }
    if let Some(rules) = &other_rules {
        line.push_str(&format!(
            ", trained under other rules ({rules}) than the run's"
        ));
    }
    run.log("trainer", &line)?;
    Ok(SeededModel {
        training_step: meta.training_step,
        grown_from,
        other_rules,
    })
}

/// Removes the model folders (`models/gen-*`) that lack their manifest,
/// which is written last: they can never load. (Models are written under a
/// temporary name and renamed when complete, so only damage outside Sumito
/// leaves one.) Call it holding the trainer role, which re-exports the
/// current candidate if it was among them; returns what it removed.
///
/// It checks before it removes anything: an incomplete best model that the
/// trainer does not make again (its current candidate) is refused, naming
/// it, and nothing is removed: the run cannot go on without it, and its
/// files may be the rest of a restore or sync still under way.
/// `trainer_generation`: the trainer's newest candidate, which it exports
/// again when missing (`trainer::trainer_generation`).
pub fn prune_incomplete(run: &RunDir, trainer_generation: u32) -> Result<Vec<Removed>> {
    // (key, local path) of each incomplete model folder.
    let incomplete: Vec<(String, Option<std::path::PathBuf>)> = if run.is_remote() {
        // Objects of model folders whose manifest never came (a killed
        // upload): the trainer uploads its candidates, and holds the role.
        run.checkpoint_folders(MODEL_PREFIX)?
            .into_iter()
            .filter(|(_, complete)| !complete)
            .map(|(key, _)| (key, None))
            .collect()
    } else {
        let mut found = Vec::new();
        for generation in run.model_generations()? {
            let path = run.model_path(generation);
            if path.is_dir() && !path.join(sumito_net::checkpoint::MANIFEST_FILE).is_file() {
                found.push((RunDir::model_key(generation), Some(path)));
            }
        }
        found
    };
    if let Some(best) = run.best()? {
        let key = RunDir::model_key(best.generation);
        let remade = trainer_generation == best.generation;
        if !remade && incomplete.iter().any(|(found, _)| *found == key) {
            return Err(RunDirError::Malformed {
                path: run.object_path(&key),
                problem: format!(
                    "it is the best model (gen-{}), but incomplete (it has no {MODEL_MANIFEST}), and the trainer cannot make it again; nothing was removed: restore it whole",
                    best.generation
                ),
            }
            .into());
        }
    }
    let mut removed = Vec::new();
    for (key, local) in incomplete {
        let path = match local {
            Some(path) => {
                std::fs::remove_dir_all(&path).map_err(PipelineError::io(&path))?;
                path
            }
            None => {
                run.delete_folder(&key, MODEL_MANIFEST)?;
                run.object_path(&key)
            }
        };
        removed.push(Removed {
            path,
            what: "an incomplete model",
        });
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;
    use crate::trainer::trainer_generation;

    /// Model folders as files only (nothing loads them).
    fn model(run: &RunDir, generation: u32, complete: bool) {
        let key = RunDir::model_key(generation);
        run.store()
            .put(&format!("{key}/weights.safetensors"), b"weights")
            .unwrap();
        if complete {
            run.store()
                .put(&format!("{key}/{MODEL_MANIFEST}"), b"{}")
                .unwrap();
        }
    }

    fn trainer_at(run: &RunDir, generation: u32) {
        let state = crate::trainer::TrainerState {
            generation,
            trained_samples: 0,
            games_at_candidate: 0,
            checkpoint: None,
            holder: None,
        };
        run.put_json("trainer/state.json", &state).unwrap();
    }

    #[test]
    fn an_incomplete_best_model_the_trainer_cannot_remake_is_refused_and_kept() {
        let dir = TempDir::new("incomplete-best");
        let run = RunDir::create(dir.path(), "").unwrap();
        model(&run, 0, true);
        model(&run, 3, false);
        model(&run, 4, false);
        run.set_best(3).unwrap();
        trainer_at(&run, 5);
        let err = prune_incomplete(&run, trainer_generation(&run).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("gen-000003")
                && err.contains("best model")
                && err.contains("nothing was removed"),
            "{err}"
        );
        assert!(run.model_path(3).is_dir() && run.model_path(4).is_dir());

        // The trainer's own candidate it exports again: removed, with the
        // other incomplete one.
        trainer_at(&run, 3);
        let removed = prune_incomplete(&run, trainer_generation(&run).unwrap()).unwrap();
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(!run.model_path(3).exists() && !run.model_path(4).exists());
        assert!(run.model_path(0).is_dir());
    }
}
