//! `sumito bench net` and `sumito bench selfplay`, the parts that measure a
//! network, and `bench serve` and `bench tactics` with a model (arguments:
//! `sumito_cli::commands::bench`).

use sumito_cli::commands::bench::{Args, Part};
use sumito_net::{DeviceSpec, Precision};

mod net;
mod selfplay;
mod selfplay_instant;

pub fn run(args: Args) -> anyhow::Result<()> {
    args.check()?;
    match args.part {
        Part::Net => {
            let device = match &args.device {
                Some(text) => text
                    .parse::<DeviceSpec>()
                    .map_err(|err| anyhow::anyhow!("--device {text:?}: {err}"))?,
                None => DeviceSpec::default(),
            };
            net::run(device)
        }
        Part::Selfplay => {
            let precision = match &args.precision {
                Some(text) => Some(
                    text.parse::<Precision>()
                        .map_err(|err| anyhow::anyhow!("--precision {text:?}: {err}"))?,
                ),
                None => None,
            };
            selfplay_instant::run(&args.selfplay)?;
            if args.selfplay.instant {
                return Ok(());
            }
            selfplay::run(precision)
        }
        Part::Serve => match &args.model {
            Some(model) => {
                let model = crate::network::serve::bundle_model(Some(model), "cpu")?;
                let model = std::sync::Arc::new(model);
                match args.soak {
                    Some(minutes) => {
                        sumito_cli::commands::bench::soak::run(model, true, minutes, args.pages)
                    }
                    None => sumito_cli::commands::bench::serve::run(model, true),
                }
            }
            None => sumito_cli::commands::bench::run(args),
        },
        Part::Tactics => sumito_cli::commands::bench::tactics::run(
            &args.tactics,
            args.model.as_deref(),
            &crate::network::arena::registry()?,
        ),
        Part::Alphabeta | Part::Mcts | Part::Movegen => sumito_cli::commands::bench::run(args),
    }
}
