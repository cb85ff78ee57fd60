//! `sumito curve`: the learning curve of a run as SVG (arguments:
//! `sumito_cli::commands::curve`; the picture: `sumito_pipeline::curve`).

use std::path::PathBuf;

use anyhow::Context;
use sumito_cli::commands::curve::{Args, CurveAxis};
use sumito_pipeline::config::Config;
use sumito_pipeline::curve::{Axis, LearningCurve};
use sumito_pipeline::fsutil::write_atomic;
use sumito_pipeline::ratings::read_evaluations;
use sumito_pipeline::rundir::{Location, RunDir};

pub fn run(args: Args) -> anyhow::Result<()> {
    let run = RunDir::open_at(&args.run_dir)?;
    let records = read_evaluations(&run)?;
    // Which game's classical players the opponents are (the one scale is the
    // two-player game's).
    let config = Config::parse(&run.config_text()?, &run.config_path())
        .with_context(|| format!("reading the configuration of {}", args.run_dir))?;
    let curve = LearningCurve::from_records(config.rules.kind(), &records)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("fitting the Elo of {}", args.run_dir))?
        .with_context(|| {
            format!(
                "{} has no evaluated generation yet: nothing to draw",
                args.run_dir
            )
        })?
        .along(match args.axis {
            CurveAxis::Hours => Axis::Hours,
            CurveAxis::CoreHours => Axis::CoreHours,
            CurveAxis::Generations => Axis::Generations,
        });
    let title = args.title.clone().unwrap_or_else(|| {
        let shown = args.run_dir.to_string();
        let name = shown
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(&shown);
        format!("Learning curve of {name}")
    });
    let out = args.out.clone().unwrap_or_else(|| match &args.run_dir {
        Location::Local(dir) => dir.join("curve.svg"),
        _ => PathBuf::from("curve.svg"),
    });
    write_atomic(&out, curve.svg(&title).as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    let last = curve.points.last().expect("a curve has points");
    println!(
        "wrote {} ({} generations against {}; the last, generation {}, at Elo {:.0} [{:.0}, {:.0}])",
        out.display(),
        curve.points.len(),
        curve.axis().label(),
        last.generation,
        last.elo,
        last.low,
        last.high
    );
    Ok(())
}
