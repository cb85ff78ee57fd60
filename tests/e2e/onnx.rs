//! `sumito export` writes `model.onnx` beside the TorchScript module, and a
//! runtime without libtorch computes with it what the TorchScript module
//! does: ONNX Runtime from PyPI (the virtual environment that
//! `scripts/setup-onnx-check.sh` makes, found through `SUMITO_ONNX_PYTHON`,
//! which `scripts/test.sh` sets) loads the model, reads its metadata and
//! evaluates real positions (a game of random legal moves from the model's
//! layout), for a shipped two-player model and a shipped model of the
//! general game (three players), exported from runs that hold their trained
//! weights; for a bundle exported before bundles held ONNX, given its file
//! by `sumito export --bundle`; and for every shipped bundle's own
//! `model.onnx`.
//!
//! Agreement, position by position, between ONNX Runtime and the
//! TorchScript module (both float32 on the CPU; they differ only in the
//! order of float operations, batch norm being folded by ONNX Runtime):
//! every policy logit within [`LOGIT_TOLERANCE`], and the priors over the
//! legal moves, the value's probabilities and the marble predictions within
//! [`PROBABILITY_TOLERANCE`].

use std::path::{Path, PathBuf};
use std::process::Command;

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use serde_json::Value;
use sumito_bundle::bundle::{BUNDLE_FILE, BundleMeta, ModelBundle, ONNX_FILE};
use sumito_engine::Position;
use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_game::{Board, GameKind};
use sumito_net::encoding::{encode_position, policy_index};
use sumito_net::general_encoding::{encode_general_position, general_policy_index};
use sumito_net::model::OutputColumns;
use sumito_net::{Device, run_packed};
use sumito_pipeline::rundir::RunDir;

use crate::common::Scratch;
use crate::training::{SUMITO, failed_saying, repo, succeeded_saying};

/// Largest difference allowed between the two runtimes' logits.
const LOGIT_TOLERANCE: f32 = 1e-3;
/// Largest difference allowed between their probabilities (priors over the
/// legal moves, the value's) and marble predictions.
const PROBABILITY_TOLERANCE: f32 = 1e-4;
/// Positions compared per model: every ply of a game of random moves.
const PLIES: usize = 40;

/// The interpreter of the virtual environment with ONNX Runtime.
fn python() -> PathBuf {
    let given = std::env::var_os("SUMITO_ONNX_PYTHON").map(PathBuf::from);
    match given {
        Some(path) if path.is_file() => path,
        _ => panic!(
            "this test runs ONNX Runtime with the Python interpreter named by SUMITO_ONNX_PYTHON \
             ({given:?}): `bash scripts/setup-onnx-check.sh` installs it into .venv-onnx/ and \
             prints its path; run `SUMITO_ONNX_PYTHON=$(bash scripts/setup-onnx-check.sh) cargo \
             test --test e2e onnx` (scripts/test.sh does both)"
        ),
    }
}

/// A run in `root` whose generation 0, its best, holds the weights of the
/// shipped bundle `model`, under the configuration it was trained with.
fn run_of_shipped(model: &str, root: &Path) {
    let shipped = repo().join("models").join(model);
    let config = std::fs::read_to_string(shipped.join("training-config.toml")).unwrap();
    let run = RunDir::create(root, &config).unwrap();
    let generation = run.model_path(0);
    std::fs::create_dir_all(&generation).unwrap();
    for file in ["weights.safetensors", "meta.json", "manifest.json"] {
        std::fs::copy(shipped.join(file), generation.join(file)).unwrap();
    }
    run.set_best(0).unwrap();
}

/// Exports the shipped `model` through a run as the bundle
/// `scratch/models/NAME`, as a person would.
fn export(scratch: &Path, model: &str, name: &str) -> PathBuf {
    let run = scratch.join("run");
    run_of_shipped(model, &run);
    let out = scratch.join("models").join(name);
    let output = Command::new(SUMITO)
        .args(["export", "--run-dir"])
        .arg(&run)
        .arg("--out")
        .arg(&out)
        .env("OMP_WAIT_POLICY", "PASSIVE")
        .output()
        .unwrap();
    succeeded_saying(&output, &[ONNX_FILE]);
    out
}

/// Positions of one game, encoded, with what the comparison needs of each.
struct Positions {
    inputs: Vec<f32>,
    /// The policy index of every legal move.
    legal: Vec<Vec<usize>>,
    /// The game's sides (the value entries in use).
    sides: Vec<usize>,
}

/// Every position of a game of random legal moves from `first`, up to
/// [`PLIES`] of them.
fn random_game<B: Board>(
    first: B,
    input_len: usize,
    encode: impl Fn(&B, &mut [f32]),
    index: impl Fn(&B, B::Move) -> usize,
) -> Positions {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(66);
    let mut positions = Positions {
        inputs: Vec::new(),
        legal: Vec::new(),
        sides: Vec::new(),
    };
    let mut position = first;
    for _ in 0..PLIES {
        let moves = position.legal_moves();
        if position.is_over() || moves.is_empty() {
            break;
        }
        let start = positions.inputs.len();
        positions.inputs.resize(start + input_len, 0.0);
        encode(&position, &mut positions.inputs[start..]);
        positions
            .legal
            .push(moves.iter().map(|&mv| index(&position, mv)).collect());
        positions.sides.push(position.sides());
        position = position.play(*moves.choose(&mut rng).unwrap());
    }
    assert!(positions.legal.len() >= PLIES / 2, "the game went on");
    positions
}

/// The positions of a game of random legal moves from `bundle`'s first
/// layout (the two-player model's: the standard layout), under the rules it
/// was trained with, encoded for its network.
fn game_of(bundle: &ModelBundle) -> Positions {
    let input_len = bundle.meta.architecture.shape().input_len();
    if bundle.meta.kind().is_two_player() {
        let push_off_planes = bundle.meta.architecture.push_off_planes;
        let first = Position::first_position(
            sumito_engine::Layout::Standard,
            &bundle.trained_rules::<Position>().unwrap(),
        )
        .unwrap();
        return random_game(
            first,
            input_len,
            |position, out| encode_position(position, push_off_planes, out),
            |position, mv| policy_index(position, position.action_of(mv)),
        );
    }
    let layout = bundle.meta.general_layouts()[0].clone();
    let first = GeneralPosition::first_position(
        GeneralLayout::from_name(&layout).unwrap(),
        &bundle.trained_rules::<GeneralPosition>().unwrap(),
    )
    .unwrap();
    random_game(first, input_len, encode_general_position, |position, mv| {
        general_policy_index(position, position.action_of(mv)).unwrap()
    })
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|&x| (x - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|x| x / sum).collect()
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn read_floats(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(4)
        .map(|bytes| f32::from_le_bytes(bytes.try_into().unwrap()))
        .collect()
}

/// Runs `bundle`'s model.onnx in ONNX Runtime and its TorchScript module
/// in libtorch on the positions of a game of its own ([`game_of`]),
/// compares them, and returns the model's metadata.
fn compare(bundle: &Path, scratch: &Path) -> Value {
    let opened = ModelBundle::open(bundle).unwrap();
    let positions = game_of(&opened);
    let game = opened.meta.kind();
    let rows = positions.legal.len();
    let torchscript = opened.load_torchscript(Device::Cpu).unwrap();
    let packed = run_packed(&torchscript, &positions.inputs, rows).unwrap();

    let inputs = scratch.join("inputs.bin");
    let bytes: Vec<u8> = positions
        .inputs
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(&inputs, bytes).unwrap();
    let output = Command::new(python())
        .arg(repo().join("tests/e2e/onnx_run.py"))
        .arg(bundle.join(ONNX_FILE))
        .arg(&inputs)
        .arg(rows.to_string())
        .arg(scratch)
        .output()
        .unwrap();
    succeeded_saying(&output, &[]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let policy = read_floats(&scratch.join("policy.bin"));
    let value = read_floats(&scratch.join("value.bin"));
    let marbles = read_floats(&scratch.join("marbles.bin"));
    let (policy_len, value_len, aux_len) = (game.policy_len(), game.value_len(), game.aux_len());
    assert_eq!(policy.len(), rows * policy_len);
    assert_eq!(value.len(), rows * value_len);
    assert_eq!(marbles.len(), rows * aux_len);
    let (mut logits, mut priors, mut values, mut aux) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for row in 0..rows {
        let torch = &packed[row * game.packed_len()..(row + 1) * game.packed_len()];
        let onnx_policy = &policy[row * policy_len..(row + 1) * policy_len];
        logits = logits.max(max_difference(&torch[..policy_len], onnx_policy));
        let legal = |all: &[f32]| {
            softmax(
                &positions.legal[row]
                    .iter()
                    .map(|&i| all[i])
                    .collect::<Vec<_>>(),
            )
        };
        priors = priors.max(max_difference(
            &legal(&torch[..policy_len]),
            &legal(onnx_policy),
        ));
        // The value entries in use: each side's win, then the draw.
        let sides = positions.sides[row];
        let used = |all: &[f32]| {
            let mut entries: Vec<f32> = all[..value_len - 1].iter().take(sides).copied().collect();
            entries.push(all[value_len - 1]);
            softmax(&entries)
        };
        let torch_value = &torch[policy_len..policy_len + value_len];
        let onnx_value = &value[row * value_len..(row + 1) * value_len];
        values = values.max(max_difference(&used(torch_value), &used(onnx_value)));
        aux = aux.max(max_difference(
            &torch[policy_len + value_len..],
            &marbles[row * aux_len..(row + 1) * aux_len],
        ));
    }
    eprintln!(
        "{}: {rows} positions, largest differences: logits {logits:e}, priors {priors:e}, \
         values {values:e}, marbles {aux:e} (onnxruntime {})",
        bundle.display(),
        report["onnxruntime"]
    );
    assert!(
        logits <= LOGIT_TOLERANCE,
        "policy logits differ by {logits}"
    );
    for (what, difference) in [("priors", priors), ("values", values), ("marbles", aux)] {
        assert!(
            difference <= PROBABILITY_TOLERANCE,
            "{what} differ by {difference}"
        );
    }
    // The outputs as the metadata names them, batch first.
    let outputs = serde_json::json!([
        ["policy", ["batch", policy_len]],
        ["value", ["batch", value_len]],
        ["marbles", ["batch", aux_len]],
    ]);
    assert_eq!(report["outputs"], outputs);
    let metadata = report["metadata"].clone();
    assert_eq!(metadata["sumito.format"], "sumito-onnx-1");
    assert_eq!(
        metadata["sumito.encoding_version"],
        opened.meta.encoding_version.to_string()
    );
    assert_eq!(metadata["sumito.name"], opened.meta.name);
    let rules: Value = serde_json::from_str(metadata["sumito.rules"].as_str().unwrap()).unwrap();
    assert_eq!(
        rules,
        serde_json::to_value(opened.meta.rules_table()).unwrap()
    );
    // model.onnx is one of the files bundle.json checks.
    assert!(
        opened.meta.files.iter().any(|file| file.name == ONNX_FILE),
        "{:?}",
        opened.meta.files
    );
    metadata
}

#[test]
fn the_two_player_model_computes_in_onnx_runtime_what_it_does_in_torchscript() {
    let python = python();
    let scratch = Scratch::new("onnx-two-player");
    let bundle = export(&scratch.0, "quick", "mine");
    let metadata = compare(&bundle, &scratch.0);
    assert_eq!(metadata["sumito.game"], "two-player");
    assert_eq!(metadata["sumito.input.planes"], "13");
    assert_eq!(metadata["sumito.marbles.range"], "[-1, 1]");
    assert_eq!(metadata["sumito.score_utility"], "0.5");

    // The example of docs/onnx.md, as written there, loads it (a bundle
    // exported at models/mine).
    let doc = std::fs::read_to_string(repo().join("docs/onnx.md")).unwrap();
    let example = doc
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/onnx.md has a Python example");
    assert!(example.lines().count() <= 5, "{example}");
    let output = Command::new(python)
        .arg("-c")
        .arg(example)
        .current_dir(&scratch.0)
        .output()
        .unwrap();
    succeeded_saying(&output, &["sumito-onnx-1"]);
}

#[test]
fn a_three_player_model_computes_in_onnx_runtime_what_it_does_in_torchscript() {
    python();
    let scratch = Scratch::new("onnx-three-player");
    let bundle = export(&scratch.0, "three-player", "three-player");
    let metadata = compare(&bundle, &scratch.0);
    assert_eq!(metadata["sumito.game"], "general");
    assert_eq!(metadata["sumito.marbles.range"], "[0, 1]");
}

/// The shipped bundles: every folder of `models/` with a `bundle.json`.
fn shipped_bundles() -> Vec<PathBuf> {
    let mut bundles: Vec<PathBuf> = std::fs::read_dir(repo().join("models"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| dir.join(BUNDLE_FILE).is_file())
        .collect();
    bundles.sort();
    bundles
}

#[test]
fn every_shipped_bundle_has_a_model_onnx_that_computes_what_its_torchscript_does() {
    python();
    let scratch = Scratch::new("onnx-shipped");
    let bundles = shipped_bundles();
    assert!(bundles.len() >= 4, "{bundles:?}");
    let mut games = Vec::new();
    for bundle in &bundles {
        // Opening checks model.onnx against the size and checksum that
        // bundle.json lists (compare requires it listed).
        games.push(ModelBundle::open(bundle).unwrap().meta.kind());
        compare(bundle, &scratch.0);
    }
    assert!(games.contains(&GameKind::TwoPlayer) && games.contains(&GameKind::General));
}

/// `bundle.json` of `dir` without its line for model.onnx, as an export
/// before bundles held ONNX wrote it.
fn description_without_onnx(dir: &Path) -> String {
    let mut meta: BundleMeta =
        serde_json::from_slice(&std::fs::read(dir.join(BUNDLE_FILE)).unwrap()).unwrap();
    meta.files.retain(|file| file.name != ONNX_FILE);
    let mut json = serde_json::to_string_pretty(&meta).unwrap();
    json.push('\n');
    json
}

#[test]
fn a_bundle_exported_before_onnx_gets_its_file_from_its_weights() {
    python();
    let scratch = Scratch::new("onnx-older-bundle");
    let shipped = repo().join("models/quick");
    // The shipped bundle as it was before it had model.onnx.
    let older = scratch.0.join("models/quick");
    std::fs::create_dir_all(&older).unwrap();
    let mut kept = Vec::new();
    for entry in std::fs::read_dir(&shipped).unwrap() {
        let name = entry.unwrap().file_name();
        if name != ONNX_FILE && name != BUNDLE_FILE {
            std::fs::copy(shipped.join(&name), older.join(&name)).unwrap();
            kept.push(name);
        }
    }
    let before = description_without_onnx(&shipped);
    std::fs::write(older.join(BUNDLE_FILE), &before).unwrap();
    ModelBundle::open(&older).unwrap();

    let run = |force: bool| {
        let mut command = Command::new(SUMITO);
        command.args(["export", "--bundle"]).arg(&older);
        if force {
            command.arg("--force");
        }
        command.env("OMP_WAIT_POLICY", "PASSIVE").output().unwrap()
    };
    succeeded_saying(&run(false), &[ONNX_FILE]);
    // It computes what the bundle's TorchScript module does.
    compare(&older, &scratch.0);
    // No other file changed, and bundle.json only gained model.onnx.
    for name in &kept {
        assert_eq!(
            std::fs::read(older.join(name)).unwrap(),
            std::fs::read(shipped.join(name)).unwrap(),
            "{name:?}"
        );
    }
    assert_eq!(description_without_onnx(&older), before);

    // Once listed, it is written again only when asked to.
    failed_saying(&run(false), &["already has model.onnx", "--force"]);
    succeeded_saying(&run(true), &[]);
    ModelBundle::open(&older).unwrap();
}
