//! The arguments of `sumito export`: a trained model of a run as a
//! self-contained bundle, a checkpoint as TorchScript, or the ONNX file of a
//! bundle exported before it was written. `sumito-torch` runs it
//! (`network/export.rs`).

use std::path::PathBuf;

use clap::Args as ClapArgs;

#[derive(Debug, ClapArgs)]
#[command(group = clap::ArgGroup::new("source").required(true))]
pub struct Args {
    /// The run directory the model was trained in (`sumito train --run-dir`,
    /// a folder or s3://BUCKET/PREFIX): writes a model bundle folder at --out.
    #[arg(long, group = "source", value_parser = super::run_location)]
    pub run_dir: Option<sumito_store::Location>,
    /// With --run-dir: the generation (checkpoint) to export; default: the
    /// run's best model.
    #[arg(long, requires = "run_dir")]
    pub checkpoint: Option<u32>,
    /// A checkpoint folder (weights.safetensors, meta.json, manifest.json):
    /// writes only the TorchScript module at --out (e.g. model.pt) and its
    /// description next to it (model.pt.json).
    #[arg(long, group = "source")]
    pub checkpoint_dir: Option<PathBuf>,
    /// A bundle folder exported before bundles held ONNX (e.g. models/NAME):
    /// writes its model.onnx from the bundle's weights and lists it in its
    /// bundle.json, leaving every other file as it is.
    #[arg(long, group = "source")]
    pub bundle: Option<PathBuf>,
    /// The bundle folder (e.g. models/NAME), or with --checkpoint-dir the
    /// TorchScript file, to write.
    #[arg(long, required_unless_present = "bundle", conflicts_with = "bundle")]
    pub out: Option<PathBuf>,
    /// Replace an existing bundle at --out; with --bundle, write model.onnx
    /// again where bundle.json lists one already.
    #[arg(long, conflicts_with = "checkpoint_dir")]
    pub force: bool,
    /// With --run-dir: the weight of the predicted marble difference the
    /// bundle plays with (its `score_utility`, in [0, 1]; `score=` in a
    /// player spec still overrides it); default: the run's `[selfplay]
    /// score_utility`.
    #[arg(long, requires = "run_dir", value_parser = score_weight)]
    pub score_utility: Option<f32>,
}

/// A weight in [0, 1].
fn score_weight(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(weight) if (0.0..=1.0).contains(&weight) => Ok(weight),
        _ => Err(format!("{text} is not a weight in [0, 1]")),
    }
}
