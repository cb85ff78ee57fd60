//! The commands that use a network, one module per command (their arguments
//! are in `sumito_cli::commands`, shared with `sumito`, which parses them
//! first). Only `sumito-torch` compiles these, so only it links libtorch.

use sumito_cli::cli::Command;

pub mod analyse;
pub mod arena;
pub mod bench;
pub mod curve;
pub mod evaluate;
pub mod export;
/// Not a command: Ctrl-C handling of the long-running commands.
pub mod interrupt;
pub mod json_analysis;
pub mod ladder;
/// Not a subcommand: a model's game and rules, and a record taken under them.
pub mod model_game;
pub mod play;
pub mod review;
pub mod selfplay;
pub mod serve;
pub mod train;
pub mod trainer;

/// Runs a command that [`Command::needs_network`].
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Train(args) => train::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Trainer(args) => trainer::run(args),
        Command::Evaluate(args) => evaluate::run(args),
        Command::Export(args) => export::run(args),
        Command::Analyse(args) => analyse::run(args),
        Command::JsonAnalysis(args) => json_analysis::run(args),
        Command::Review(args) => review::run(args),
        Command::Curve(args) => curve::run(args),
        Command::Play(args) => play::run(args),
        Command::Arena(args) => arena::run(args),
        Command::Ladder(args) => ladder::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Serve(args) => serve::run(args),
        light @ (Command::Perft(_) | Command::Moves(_) | Command::Render(_)) => light.run_light(),
    }
}
