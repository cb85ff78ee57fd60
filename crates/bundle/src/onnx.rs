//! The ONNX file of a bundle that lacks it (`sumito export --bundle DIR`):
//! a bundle exported before `model.onnx` was written gets it from its own
//! weights (`weights.safetensors`, checked against `bundle.json` first), with
//! the metadata its description gives, and `bundle.json` lists it with its
//! size and checksum, as an export today does: its description is written
//! anew ([`BundleMeta::write_to`]), every value in it kept. Every other
//! file is left as it is, byte for byte, so that the bundle keeps its
//! provenance.

use std::path::Path;

use sumito_net::Device;
use sumito_net::onnx::OnnxDescription;

use crate::error::{BundleError, io, net};
use crate::load::ModelBundle;
use crate::meta::{BUNDLE_FILE, BundleFile, BundleMeta, ONNX_FILE};

impl BundleMeta {
    /// What the ONNX file of this bundle's network says of it in its
    /// metadata properties.
    pub fn onnx_description(&self) -> OnnxDescription {
        OnnxDescription {
            name: self.name.clone(),
            training_step: self.training.training_step,
            rules: self.rules_table(),
            score_utility: self.score_utility,
        }
    }
}

/// Writes `model.onnx` of the bundle `dir` from its weights and lists it in
/// its `bundle.json`; returns the file as listed. The bundle is verified
/// first (every listed file's size and checksum). One that lists a
/// `model.onnx` already is refused unless `force`; a `model.onnx` it does
/// not list (left by an interrupted run of this) is replaced. Each of the
/// two files is written atomically, `model.onnx` first, so that
/// `bundle.json` never lists a file that is not there.
pub fn add_onnx(dir: &Path, force: bool) -> Result<BundleFile, BundleError> {
    let bundle = ModelBundle::open(dir)?;
    if !force && bundle.meta.files.iter().any(|file| file.name == ONNX_FILE) {
        return Err(BundleError::HasOnnx {
            dir: dir.to_owned(),
        });
    }
    let network = bundle.load_network(Device::Cpu)?;
    let path = dir.join(ONNX_FILE);
    network
        .export_onnx(&path, &bundle.meta.onnx_description())
        .map_err(net(format!("writing {}", path.display())))?;
    let written = BundleFile::read(dir, ONNX_FILE).map_err(io(&path))?;
    let mut meta = bundle.meta;
    meta.files.retain(|file| file.name != ONNX_FILE);
    meta.files.push(written.clone());
    meta.files.sort_by(|a, b| a.name.cmp(&b.name));
    meta.write_to(dir).map_err(io(&dir.join(BUNDLE_FILE)))?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::export_bundle;
    use crate::export::tests::{Scratch, request, tiny_run};

    /// The bundle's files other than `model.onnx`, with their bytes.
    fn files_but_onnx(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.file_name().unwrap() != ONNX_FILE)
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    /// The bundle at `dir` as an export before `model.onnx` wrote it:
    /// without the file, and without its line in `bundle.json`.
    fn as_exported_before_onnx(dir: &Path) {
        std::fs::remove_file(dir.join(ONNX_FILE)).unwrap();
        let text = std::fs::read(dir.join(BUNDLE_FILE)).unwrap();
        let mut meta: BundleMeta = serde_json::from_slice(&text).unwrap();
        meta.files.retain(|file| file.name != ONNX_FILE);
        let mut json = serde_json::to_string_pretty(&meta).unwrap();
        json.push('\n');
        std::fs::write(dir.join(BUNDLE_FILE), json).unwrap();
    }

    #[test]
    fn an_older_bundle_gets_the_onnx_file_an_export_writes_and_nothing_else_changes() {
        let scratch = Scratch::new("add-onnx");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("model");
        export_bundle(&request(run.root(), &out)).unwrap();
        let exported_onnx = std::fs::read(out.join(ONNX_FILE)).unwrap();
        let exported_meta = description(&out);

        as_exported_before_onnx(&out);
        let before = files_but_onnx(&out);
        assert!(ModelBundle::open(&out).is_ok());
        let added = add_onnx(&out, false).unwrap();
        // The same file an export writes from the same weights, listed
        // as an export lists it: the description the export wrote.
        assert_eq!(std::fs::read(out.join(ONNX_FILE)).unwrap(), exported_onnx);
        assert_eq!(description(&out), exported_meta);
        assert_eq!(added.bytes, exported_onnx.len() as u64);
        let opened = ModelBundle::open(&out).unwrap();
        assert!(opened.meta.files.contains(&added));
        // Every other file is as it was, byte for byte.
        let after = files_but_onnx(&out);
        for ((name, old), (_, new)) in before.iter().zip(&after) {
            if name != BUNDLE_FILE {
                assert_eq!(old, new, "{name}");
            }
        }
        assert_eq!(
            before.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            after.iter().map(|(name, _)| name).collect::<Vec<_>>()
        );

        // Listed already: refused without force, written again with it.
        let err = add_onnx(&out, false).unwrap_err().to_string();
        assert!(
            err.contains("already has model.onnx") && err.contains("--force"),
            "{err}"
        );
        assert_eq!(add_onnx(&out, true).unwrap(), added);
        assert_eq!(description(&out), exported_meta);

        // A model.onnx that bundle.json does not list (an interrupted run)
        // is replaced without force.
        as_exported_before_onnx(&out);
        std::fs::write(out.join(ONNX_FILE), b"half").unwrap();
        assert_eq!(add_onnx(&out, false).unwrap(), added);
        assert_eq!(std::fs::read(out.join(ONNX_FILE)).unwrap(), exported_onnx);
    }

    /// `dir`'s description as read.
    fn description(dir: &Path) -> BundleMeta {
        serde_json::from_slice(&std::fs::read(dir.join(BUNDLE_FILE)).unwrap()).unwrap()
    }

    #[test]
    fn an_older_description_keeps_every_value_and_gains_only_the_onnx_file() {
        let scratch = Scratch::new("add-onnx-text");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("model");
        export_bundle(&request(run.root(), &out)).unwrap();
        let path = out.join(BUNDLE_FILE);
        // As older sumitos wrote it: without a key written today, with a
        // number of more digits than it is written with today, and laid
        // out on one line.
        for older in [
            |text: &str| {
                text.replace(",\n    \"init_model\": null", "")
                    .replace("\"hours\": null", "\"hours\": 0.10000000000000000555")
            },
            |text: &str| {
                serde_json::from_str::<serde_json::Value>(text)
                    .unwrap()
                    .to_string()
            },
        ] {
            as_exported_before_onnx(&out);
            let today = std::fs::read_to_string(&path).unwrap();
            let text = older(&today);
            assert_ne!(text, today);
            std::fs::write(&path, &text).unwrap();
            let before = description(&out);
            let added = add_onnx(&out, false).unwrap();
            let mut expected = before;
            expected.files.push(added);
            expected.files.sort_by(|a, b| a.name.cmp(&b.name));
            assert_eq!(description(&out), expected, "{text}");
            assert!(ModelBundle::open(&out).is_ok());
        }
    }

    #[test]
    fn a_corrupt_bundle_or_a_folder_that_is_none_gets_no_onnx_file() {
        let scratch = Scratch::new("add-onnx-refused");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("model");
        export_bundle(&request(run.root(), &out)).unwrap();
        as_exported_before_onnx(&out);
        // Weights that are not the ones bundle.json lists.
        let weights = out.join("weights.safetensors");
        let mut bytes = std::fs::read(&weights).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&weights, bytes).unwrap();
        let err = add_onnx(&out, false).unwrap_err().to_string();
        assert!(
            err.contains("is corrupt") && err.contains("weights.safetensors"),
            "{err}"
        );
        assert!(!out.join(ONNX_FILE).exists());
        let err = add_onnx(&run.root().join("models"), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a model bundle"), "{err}");
    }
}
