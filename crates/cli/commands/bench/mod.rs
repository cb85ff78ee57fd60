//! `sumito bench <part>`: measurements printed as `name: value unit` lines, so
//! that scripts and closing notes can quote them (`tactics` prints a table of
//! solve rates). Each part has its own module: the engine and search parts
//! here, the network parts (`net`, `selfplay`) in `sumito-torch`
//! (`network/bench/`).

use clap::{Args as ClapArgs, ValueEnum};

mod alphabeta;
mod mcts;
mod movegen;
pub mod selfplay;
pub mod serve;
pub mod soak;
pub mod soak_pressure;
pub mod tactics;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Which part of the system to measure.
    #[arg(value_enum)]
    pub part: Part,
    /// Device of the `net` measurements: cpu, cuda or cuda:N.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
    /// Number format of the `selfplay` network (auto, f32 or bf16), in place
    /// of the quick config's (auto).
    #[arg(long, value_name = "PRECISION")]
    pub precision: Option<String>,
    /// `serve` also measures the model's analysis through the server with
    /// this model bundle (a name under models/ or a folder); `tactics`
    /// measures this model.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<std::path::PathBuf>,
    /// `serve`: a soak instead: that many minutes of pages playing,
    /// analysing, sending hostile messages and dropping connections, with
    /// the server's memory sampled (fails if a message goes unanswered).
    #[arg(long, value_name = "MINUTES")]
    pub soak: Option<f64>,
    /// `serve --soak`: pages at work at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "soak")]
    pub pages: usize,
    #[command(flatten)]
    pub tactics: tactics::Args,
    #[command(flatten)]
    pub selfplay: selfplay::Args,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Part {
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
    /// The web server: its time around a seat player's reply, beyond the
    /// player's own thinking.
    Serve,
    /// Self-play with the quick config: first its CPU side alone (the network
    /// replaced by an instant answer): positions/s, the shares of encoding,
    /// move generation, search and bookkeeping, the scaling from 1 to N
    /// threads; then with the network: positions/s and evaluations/s
    /// against the raw forward throughput of the same network and batch.
    Selfplay,
    /// The tactics suite: solve rate per kind (capture, defence,
    /// combination) of `--player`s or `--model`; `--generate` makes a suite.
    Tactics,
}

impl Args {
    /// Whether the part measures a network (run by `sumito-torch`).
    pub fn needs_network(&self) -> bool {
        matches!(self.part, Part::Net | Part::Selfplay)
            || (self.part == Part::Serve && self.model.is_some())
            || (self.part == Part::Tactics && self.tactics.needs_network(self.model.as_deref()))
    }

    /// Refuses the options of one part given to another.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.device.is_some() && self.part != Part::Net {
            anyhow::bail!("--device applies only to `sumito bench net`");
        }
        if self.model.is_some() && !matches!(self.part, Part::Serve | Part::Tactics) {
            anyhow::bail!(
                "--model applies only to `sumito bench serve` and `sumito bench tactics`"
            );
        }
        if self.tactics.any_given() && self.part != Part::Tactics {
            anyhow::bail!(
                "--player, --suite, --generate and the other tactics options apply only to `sumito bench tactics`"
            );
        }
        if self.soak.is_some() && self.part != Part::Serve {
            anyhow::bail!("--soak applies only to `sumito bench serve`");
        }
        if self.precision.is_some() && self.part != Part::Selfplay {
            anyhow::bail!(
                "--precision applies only to `sumito bench selfplay` (`bench net` measures both)"
            );
        }
        if self.selfplay.any_given() && self.part != Part::Selfplay {
            anyhow::bail!(
                "--instant, --scale-to and --games apply only to `sumito bench selfplay`"
            );
        }
        if self.precision.is_some() && self.selfplay.instant {
            anyhow::bail!(
                "--precision is the network's, which `sumito bench selfplay --instant` does not measure"
            );
        }
        Ok(())
    }
}

/// Runs a part that needs no network.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.check()?;
    match args.part {
        Part::Alphabeta => alphabeta::run(),
        Part::Mcts => mcts::run(),
        Part::Movegen => movegen::run(),
        Part::Serve => {
            let model = std::sync::Arc::new(sumito_serve::NoModel);
            match args.soak {
                Some(minutes) => soak::run(model, false, minutes, args.pages),
                None => serve::run(model, false),
            }
        }
        Part::Tactics => tactics::run(
            &args.tactics,
            args.model.as_deref(),
            &<sumito_engine::Position as sumito_arena::arena_board::ArenaBoard>::classical_players(
            ),
        ),
        Part::Net | Part::Selfplay => {
            anyhow::bail!("`sumito bench {:?}` needs sumito-torch", args.part)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_of_one_part_are_refused_for_another() {
        let args = |part, device: Option<&str>, precision: Option<&str>| Args {
            part,
            device: device.map(String::from),
            precision: precision.map(String::from),
            model: None,
            soak: None,
            pages: 8,
            tactics: tactics::Args::default(),
            selfplay: selfplay::Args::default(),
        };
        let refused = args(Part::Net, None, Some("bf16")).check();
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("--precision applies only to `sumito bench selfplay`")
        );
        let refused = args(Part::Selfplay, Some("cpu"), None).check();
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("--device applies only")
        );
        assert!(args(Part::Net, Some("cuda"), None).check().is_ok());
        let mut serve = args(Part::Serve, None, None);
        assert!(!serve.needs_network(), "replies alone need no network");
        serve.model = Some("quick".into());
        assert!(serve.needs_network() && serve.check().is_ok());
        serve.soak = Some(1.0);
        assert!(serve.check().is_ok());
        let mut movegen = args(Part::Movegen, None, None);
        movegen.soak = Some(1.0);
        assert!(
            movegen
                .check()
                .unwrap_err()
                .to_string()
                .contains("--soak applies only")
        );
        movegen.soak = None;
        movegen.selfplay.games = Some(4);
        assert!(
            movegen
                .check()
                .unwrap_err()
                .to_string()
                .contains("--games apply only to `sumito bench selfplay`")
        );
        let mut instant = args(Part::Selfplay, None, None);
        instant.selfplay.instant = true;
        assert!(instant.check().is_ok());
        instant.precision = Some("bf16".into());
        assert!(
            instant
                .check()
                .unwrap_err()
                .to_string()
                .contains("--precision is the network's")
        );
        movegen.selfplay.games = None;
        movegen.model = Some("quick".into());
        assert!(
            movegen
                .check()
                .unwrap_err()
                .to_string()
                .contains("--model applies only")
        );
    }
}
