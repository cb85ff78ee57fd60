//! `sumito bench <part>`: measurements printed as `name: value unit` lines, so
//! that scripts and closing notes can quote them (`tactics` prints a table of
//! solve rates). Each part has its own module: the engine and search parts
//! here, the network parts (`net`, `selfplay`) in `sumito-torch`
//! (`network/bench/`).

use clap::{Args as ClapArgs, Subcommand};

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
    /// Which part of the system to measure, with its own options
    /// (`sumito bench <part> --help`).
    #[command(subcommand)]
    pub part: Part,
}

#[derive(Debug, Subcommand)]
pub enum Part {
    /// The alpha-beta player: nodes per second, time to depth 4 from Belgian Daisy.
    Alphabeta,
    /// The tree search with a free evaluator: simulations/s of PUCT, Gumbel,
    /// virtual-loss batching and the 64-game self-play driver.
    Mcts,
    /// Move generation: perft, legal moves, play.
    Movegen,
    /// The network: forward passes per preset and batch size, the inference
    /// service against a raw forward pass, training samples/s.
    Net(NetArgs),
    /// The web server: its time around a seat player's reply, beyond the
    /// player's own thinking; `--soak`: a soak.
    Serve(ServeArgs),
    /// Self-play with the quick config: first its CPU side alone (the network
    /// replaced by an instant answer): positions/s, the shares of encoding,
    /// move generation, search and bookkeeping, the scaling from 1 to N
    /// threads; then with the network: positions/s and evaluations/s
    /// against the raw forward throughput of the same network and batch.
    Selfplay(selfplay::Args),
    /// The tactics suite: solve rate per kind (capture, defence,
    /// combination) of `--player`s or `--model`; `--generate` makes a suite.
    Tactics(tactics::Args),
}

/// The options of `sumito bench net`.
#[derive(Debug, Default, ClapArgs)]
pub struct NetArgs {
    /// Device of the measurements: cpu, cuda or cuda:N.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
}

/// The options of `sumito bench serve`.
#[derive(Debug, Default, ClapArgs)]
pub struct ServeArgs {
    /// Also measure the model's analysis through the server, with this
    /// model bundle (a name under models/ or a folder).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<std::path::PathBuf>,
    /// A soak instead: that many minutes of pages playing, analysing,
    /// sending hostile messages and dropping connections, with the server's
    /// memory sampled (fails if a message goes unanswered).
    #[arg(long, value_name = "MINUTES", value_parser = soak_minutes)]
    pub soak: Option<f64>,
    /// `--soak`: pages at work at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "soak",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub pages: u64,
}

/// A soak's length: a positive number of minutes.
fn soak_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(minutes) if minutes.is_finite() && minutes > 0.0 => Ok(minutes),
        _ => Err(format!("{text:?} is no number of minutes above 0")),
    }
}

impl Args {
    /// Whether the part measures a network (run by `sumito-torch`).
    pub fn needs_network(&self) -> bool {
        match &self.part {
            Part::Net(_) | Part::Selfplay(_) => true,
            Part::Serve(serve) => serve.model.is_some(),
            Part::Tactics(tactics) => tactics.needs_network(),
            Part::Alphabeta | Part::Mcts | Part::Movegen => false,
        }
    }
}

/// Runs a part that needs no network.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.part {
        Part::Alphabeta => alphabeta::run(),
        Part::Mcts => mcts::run(),
        Part::Movegen => movegen::run(),
        Part::Serve(serve) => {
            let model = std::sync::Arc::new(sumito_serve::NoModel);
            match serve.soak {
                Some(minutes) => soak::run(model, false, minutes, serve.pages as usize),
                None => serve::run(model, false),
            }
        }
        Part::Tactics(tactics) => tactics::run(
            &tactics,
            &<sumito_engine::Position as sumito_arena::arena_board::ArenaBoard>::classical_players(
            ),
        ),
        Part::Net(_) => anyhow::bail!("`sumito bench net` needs sumito-torch"),
        Part::Selfplay(_) => anyhow::bail!("`sumito bench selfplay` needs sumito-torch"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Bench {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &str) -> Result<Args, String> {
        Bench::try_parse_from(std::iter::once("bench").chain(line.split_whitespace()))
            .map(|bench| bench.args)
            .map_err(|err| err.to_string())
    }

    #[test]
    fn each_part_takes_its_own_options() {
        assert!(matches!(parse("movegen").unwrap().part, Part::Movegen));
        match parse("net --device cuda:1").unwrap().part {
            Part::Net(net) => assert_eq!(net.device.as_deref(), Some("cuda:1")),
            other => panic!("{other:?}"),
        }
        match parse("selfplay --instant --scale-to 4 --games 2")
            .unwrap()
            .part
        {
            Part::Selfplay(selfplay) => {
                assert!(selfplay.instant);
                assert_eq!((selfplay.scale_to, selfplay.games), (Some(4), Some(2)));
            }
            other => panic!("{other:?}"),
        }
        match parse("serve --model quick --soak 0.5 --pages 3")
            .unwrap()
            .part
        {
            Part::Serve(serve) => {
                assert_eq!(serve.model.as_deref(), Some(std::path::Path::new("quick")));
                assert_eq!((serve.soak, serve.pages), (Some(0.5), 3));
            }
            other => panic!("{other:?}"),
        }
        match parse("tactics --player greedy --model quick --simulations 8")
            .unwrap()
            .part
        {
            Part::Tactics(tactics) => {
                assert_eq!(tactics.players, ["greedy"]);
                assert_eq!(tactics.simulations, Some(8));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_option_of_another_part_or_out_of_range_is_refused_by_name() {
        for (line, expected) in [
            ("net --precision bf16", "unexpected argument '--precision'"),
            ("selfplay --device cpu", "unexpected argument '--device'"),
            ("movegen --soak 1", "unexpected argument '--soak'"),
            ("movegen --games 4", "unexpected argument '--games'"),
            ("alphabeta --model quick", "unexpected argument '--model'"),
            ("net --soak 1", "unexpected argument '--soak'"),
            ("serve --pages 3", "--soak"),
            ("serve --soak 0", "is no number of minutes above 0"),
            ("serve --soak 1 --pages 0", "--pages"),
            ("selfplay --scale-to 0", "--scale-to"),
            (
                "selfplay --instant --precision bf16",
                "'--instant' cannot be used with '--precision <PRECISION>'",
            ),
            ("gpu", "unrecognized subcommand 'gpu'"),
        ] {
            let err = parse(line).unwrap_err();
            assert!(err.contains(expected), "{line}: {err}");
        }
    }

    #[test]
    fn the_parts_that_measure_a_network_go_to_sumito_torch() {
        let needs = |line: &str| parse(line).unwrap().needs_network();
        assert!(needs("net") && needs("selfplay --instant"));
        assert!(!needs("serve") && needs("serve --model quick"));
        assert!(!needs("tactics --player greedy"));
        assert!(needs("tactics --player bundle:model=quick") && needs("tactics --model quick"));
        assert!(!needs("mcts") && !needs("alphabeta") && !needs("movegen"));
    }
}
