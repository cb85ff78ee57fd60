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
//!   model.onnx             the network as ONNX (opset 17), its description in the
//!                          metadata properties (sumito_net::onnx, docs/onnx.md)
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
//!
//! The parts, each in its file, all named here as well:
//! - [`crate::meta`]: the files' names and the description `bundle.json`
//!   ([`BundleMeta`]), which both sides use;
//! - [`crate::export`]: a run's model exported as a bundle
//!   ([`export_bundle`]);
//! - [`crate::load`]: a bundle found by name ([`locate_bundle`]), opened
//!   and verified ([`ModelBundle::open`]), and its networks and searches;
//! - [`crate::onnx`]: the ONNX file of a bundle exported before it was
//!   written, from the bundle's own weights ([`add_onnx`]);
//! - [`crate::error`]: what can go wrong in any of them ([`BundleError`]).

pub use crate::error::BundleError;
pub use crate::export::{ExportRequest, export_bundle};
pub use crate::load::{ModelBundle, locate_bundle, model_folders};
pub use crate::meta::{
    BUNDLE_FILE, BUNDLE_FORMAT, BUNDLE_VERSION, BundleFile, BundleMeta, DEFAULT_MODEL, EloRow,
    LEVELS_FILE, ONNX_FILE, TORCHSCRIPT_FILE, TRAINING_CONFIG_FILE, TrainingProvenance,
};
pub use crate::onnx::add_onnx;
