//! `sumito bench <part>`: measurements printed as `name: value unit` lines, so
//! that scripts and closing notes can quote them. Each part has its own module.

use clap::{Args as ClapArgs, ValueEnum};

mod alphabeta;
mod mcts;
mod movegen;
mod net;
mod selfplay;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Which part of the system to measure.
    #[arg(value_enum)]
    part: Part,
    /// Device of the `net` measurements: cpu, cuda or cuda:N.
    #[arg(long, value_name = "DEVICE")]
    device: Option<sumito_net::DeviceSpec>,
    /// Number format of the `selfplay` network (auto, f32 or bf16), in place
    /// of the quick config's (auto).
    #[arg(long, value_name = "PRECISION")]
    precision: Option<sumito_net::Precision>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Part {
    /// The alpha-beta player: nodes per second, time to depth 4 from Belgian Daisy.
    Alphabeta,
    /// The tree search with a free evaluator: simulations/s of PUCT, Gumbel,
    /// virtual-loss batching and the 64-game self-play driver.
    Mcts,
    /// Move generation: perft, legal moves, play.
    Movegen,
    /// The network: forward passes per preset and batch size, the inference
    /// service against a raw forward pass, training samples/s (`--device`).
    Net,
    /// Self-play with the quick config: positions/s and network evaluations/s
    /// against the raw forward throughput of the same network and batch.
    Selfplay,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.device.is_some() && !matches!(args.part, Part::Net) {
        anyhow::bail!("--device applies only to `sumito bench net`");
    }
    if args.precision.is_some() && !matches!(args.part, Part::Selfplay) {
        anyhow::bail!(
            "--precision applies only to `sumito bench selfplay` (`bench net` measures both)"
        );
    }
    match args.part {
        Part::Alphabeta => alphabeta::run(),
        Part::Mcts => mcts::run(),
        Part::Movegen => movegen::run(),
        Part::Net => net::run(args.device.unwrap_or_default()),
        Part::Selfplay => selfplay::run(args.precision),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_of_one_part_are_refused_for_another() {
        let args = |part, device, precision| Args {
            part,
            device,
            precision,
        };
        let refused = run(args(Part::Net, None, Some(sumito_net::Precision::Bf16)));
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("--precision applies only to `sumito bench selfplay`")
        );
        let refused = run(args(
            Part::Selfplay,
            Some(sumito_net::DeviceSpec::Cpu),
            None,
        ));
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("--device applies only")
        );
    }
}
