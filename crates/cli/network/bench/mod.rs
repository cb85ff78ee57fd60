//! `sumito bench net` and `sumito bench selfplay`, the parts that measure a
//! network, and `bench serve` and `bench tactics` with a model (arguments:
//! `sumito_cli::commands::bench`).

use sumito_cli::commands::bench::{Args, Part, ServeArgs};
use sumito_net::{DeviceSpec, Precision};

mod net;
mod selfplay;
mod selfplay_instant;

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.part {
        Part::Net(net) => {
            let device = match &net.device {
                Some(text) => text
                    .parse::<DeviceSpec>()
                    .map_err(|err| anyhow::anyhow!("--device {text:?}: {err}"))?,
                None => DeviceSpec::default(),
            };
            net::run(device)
        }
        Part::Selfplay(selfplay) => {
            let precision = match &selfplay.precision {
                Some(text) => Some(
                    text.parse::<Precision>()
                        .map_err(|err| anyhow::anyhow!("--precision {text:?}: {err}"))?,
                ),
                None => None,
            };
            selfplay_instant::run(&selfplay)?;
            if selfplay.instant {
                return Ok(());
            }
            selfplay::run(precision)
        }
        Part::Serve(ServeArgs {
            model: Some(model),
            soak,
            pages,
        }) => {
            let model = crate::network::serve::bundle_model(Some(&model), "cpu")?;
            let model = std::sync::Arc::new(model);
            match soak {
                Some(minutes) => {
                    sumito_cli::commands::bench::soak::run(model, true, minutes, pages as usize)
                }
                None => sumito_cli::commands::bench::serve::run(model, true),
            }
        }
        Part::Tactics(tactics) => {
            sumito_cli::commands::bench::tactics::run(&tactics, &crate::network::arena::registry()?)
        }
        part @ (Part::Alphabeta | Part::Mcts | Part::Movegen | Part::Serve(_)) => {
            sumito_cli::commands::bench::run(Args { part })
        }
    }
}
