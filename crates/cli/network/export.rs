//! `sumito export`: a trained model of a run as a self-contained bundle
//! (TorchScript, ONNX, safetensors weights, metadata) that `sumito play` and
//! `sumito analyse` load (layout: `sumito_bundle::bundle`); or, from any
//! checkpoint folder, just the TorchScript module and its JSON sidecar, for
//! Python (`torch.jit.load`) or other programs; or the ONNX file of a bundle
//! exported before bundles held one.

use std::process::Command;

use anyhow::Context;
use sumito_bundle::bundle::{ExportRequest, ModelBundle, ONNX_FILE, add_onnx, export_bundle};
use sumito_cli::commands::export::Args;
use sumito_net::{Device, PolicyValueNet, export::sidecar_path};

/// The commit of the source tree in the current folder (with `-dirty` if it
/// has uncommitted changes), when git is available and this is a checkout.
fn git_commit() -> Option<String> {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let commit = run(&["rev-parse", "HEAD"]).filter(|commit| !commit.is_empty())?;
    let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|status| !status.is_empty());
    Some(if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    })
}

/// The TorchScript module of a checkpoint folder, with its sidecar.
fn export_torchscript(checkpoint: &std::path::Path, out: &std::path::Path) -> anyhow::Result<()> {
    let (network, meta) = PolicyValueNet::load_checkpoint(checkpoint, None, Device::Cpu)
        .with_context(|| format!("loading the checkpoint {}", checkpoint.display()))?;
    let rules = meta.rules.map(Into::into);
    network
        .export_torchscript(out, meta.training_step, rules)
        .with_context(|| format!("exporting TorchScript to {}", out.display()))?;
    println!(
        "wrote {} and {}",
        out.display(),
        sidecar_path(out).display()
    );
    Ok(())
}

/// The ONNX file of a bundle exported before bundles held one.
fn export_onnx_of_bundle(dir: &std::path::Path, force: bool) -> anyhow::Result<()> {
    let file = add_onnx(dir, force)
        .with_context(|| format!("writing the ONNX file of the bundle {}", dir.display()))?;
    println!(
        "wrote {} ({} bytes, from the bundle's weights) and listed it in its bundle.json",
        dir.join(ONNX_FILE).display(),
        file.bytes
    );
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(bundle) = &args.bundle {
        return export_onnx_of_bundle(bundle, args.force);
    }
    let out = args
        .out
        .as_ref()
        .expect("clap requires --out without --bundle");
    let Some(run_dir) = &args.run_dir else {
        let checkpoint = args
            .checkpoint_dir
            .as_ref()
            .expect("clap requires --run-dir, --checkpoint-dir or --bundle");
        return export_torchscript(checkpoint, out);
    };
    let request = ExportRequest {
        run_dir: run_dir.clone(),
        generation: args.checkpoint,
        out: out.clone(),
        force: args.force,
        git_commit: git_commit(),
        score_utility: args.score_utility,
    };
    export_bundle(&request).with_context(|| format!("exporting {run_dir} to {}", out.display()))?;
    // Read back what was written: the same checks `play` makes.
    let bundle =
        ModelBundle::open(out).with_context(|| format!("checking the bundle {}", out.display()))?;
    println!("wrote {}", out.display());
    println!("{}", bundle.summary());
    for file in &bundle.meta.files {
        println!("  {:<24} {:>10} bytes", file.name, file.bytes);
    }
    Ok(())
}
