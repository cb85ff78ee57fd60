//! The ONNX file of a bundle that lacks it (`sumito export --bundle DIR`):
//! a bundle exported before `model.onnx` was written gets it from its own
//! weights (`weights.safetensors`, checked against `bundle.json` first), with
//! the metadata its description gives, and `bundle.json` lists it with its
//! size and checksum, as an export today does. Every other file is left as
//! it is, byte for byte, so that the bundle keeps its provenance.

use std::path::Path;

use sumito_net::Device;
use sumito_net::onnx::OnnxDescription;
use sumito_pipeline::fsutil::write_atomic;

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
    let meta_path = dir.join(BUNDLE_FILE);
    let text = std::fs::read_to_string(&meta_path).map_err(io(&meta_path))?;
    write_atomic(&meta_path, with_files(&text, &meta).as_bytes()).map_err(io(&meta_path))?;
    Ok(written)
}

/// The top-level key of the list of files, as an export writes it (last,
/// indented by two spaces).
const FILES_KEY: &str = "\n  \"files\": ";

/// The description `text` (a `bundle.json`) with its list of files that of
/// `meta`, which is `text`'s description but for that list. Where the list
/// is the last key, as an export writes it, the rest of the text is kept
/// byte for byte: keys an older sumito did not write stay absent, numbers
/// keep their digits. Otherwise `meta` is written anew.
fn with_files(text: &str, meta: &BundleMeta) -> String {
    let spliced = text.rfind(FILES_KEY).and_then(|start| {
        let rest = &text[start + FILES_KEY.len()..];
        let mut old = serde_json::Deserializer::from_str(rest).into_iter::<Vec<BundleFile>>();
        old.next()?.ok()?;
        let tail = &rest[old.byte_offset()..];
        let list = serde_json::to_string_pretty(&meta.files)
            .expect("a list of files serialises")
            .replace('\n', "\n  ");
        let spliced = format!("{}{FILES_KEY}{list}{tail}", &text[..start]);
        // Only if it reads back as the description meant.
        let read: BundleMeta = serde_json::from_str(&spliced).ok()?;
        (read == *meta).then_some(spliced)
    });
    spliced.unwrap_or_else(|| {
        let mut json = serde_json::to_string_pretty(meta).expect("bundle metadata serialises");
        json.push('\n');
        json
    })
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
        let exported_meta = std::fs::read(out.join(BUNDLE_FILE)).unwrap();

        as_exported_before_onnx(&out);
        let before = files_but_onnx(&out);
        assert!(ModelBundle::open(&out).is_ok());
        let added = add_onnx(&out, false).unwrap();
        // The same file an export writes from the same weights, listed
        // where an export lists it: bundle.json as the export wrote it.
        assert_eq!(std::fs::read(out.join(ONNX_FILE)).unwrap(), exported_onnx);
        assert_eq!(std::fs::read(out.join(BUNDLE_FILE)).unwrap(), exported_meta);
        assert_eq!(added.bytes, exported_onnx.len() as u64);
        let opened = ModelBundle::open(&out).unwrap();
        assert!(opened.meta.files.contains(&added));
        // Every other file is as it was, but for bundle.json's new line.
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
        assert_eq!(std::fs::read(out.join(BUNDLE_FILE)).unwrap(), exported_meta);

        // A model.onnx that bundle.json does not list (an interrupted run)
        // is replaced without force.
        as_exported_before_onnx(&out);
        std::fs::write(out.join(ONNX_FILE), b"half").unwrap();
        assert_eq!(add_onnx(&out, false).unwrap(), added);
        assert_eq!(std::fs::read(out.join(ONNX_FILE)).unwrap(), exported_onnx);
    }

    #[test]
    fn only_the_list_of_files_changes_in_the_text_of_an_older_description() {
        let scratch = Scratch::new("add-onnx-text");
        let run = tiny_run(&scratch.0.join("run"));
        let out = scratch.0.join("model");
        export_bundle(&request(run.root(), &out)).unwrap();
        as_exported_before_onnx(&out);
        // As an older sumito wrote it: without a key written today, and a
        // number with more digits than it is written with today.
        let path = out.join(BUNDLE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let older = text
            .replace(",\n    \"init_model\": null", "")
            .replace("\"hours\": null", "\"hours\": 0.10000000000000000555");
        assert!(
            !older.contains("init_model") && older.contains("0.1000"),
            "{text}"
        );
        std::fs::write(&path, &older).unwrap();
        ModelBundle::open(&out).unwrap();
        add_onnx(&out, false).unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        let start = after.find(FILES_KEY).unwrap();
        assert_eq!(after[..start], older[..older.find(FILES_KEY).unwrap()]);
        assert!(after[start..].contains(ONNX_FILE));
        assert!(ModelBundle::open(&out).is_ok());
        // A description laid out otherwise is written anew.
        as_exported_before_onnx(&out);
        let compact: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        std::fs::write(&path, compact.to_string()).unwrap();
        add_onnx(&out, false).unwrap();
        let opened = ModelBundle::open(&out).unwrap();
        assert!(opened.meta.files.iter().any(|file| file.name == ONNX_FILE));
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
