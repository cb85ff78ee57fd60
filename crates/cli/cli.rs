//! The command line of `sumito`, shared by its two binaries: the light
//! `sumito` parses it (so help and argument errors come in milliseconds) and
//! `sumito-torch` parses the same words again when `sumito` hands a network
//! verb to it. [`Command::needs_network`] is the one place that decides which
//! binary runs a command.

use clap::{Parser, Subcommand};

use crate::commands;

#[derive(Debug, Parser)]
#[command(
    name = "sumito",
    bin_name = "sumito",
    version,
    about = "Teach a neural network to play Abalone by self-play, then play against it."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print `name: value unit` lines measuring one part of the system.
    Bench(commands::bench::Args),
    /// Play a round-robin match between players and rate them (Elo).
    Arena(commands::arena::Args),
    /// Measure a player (by default the shipped model) against greedy and alpha-beta depths 1-4.
    Ladder(commands::ladder::Args),
    /// Train a network from scratch: self-play, training, evaluation, promotion, again.
    Train(commands::train::Args),
    /// Self-play worker on a shared run directory (any number, any machine).
    Selfplay(commands::selfplay::Args),
    /// Trainer of a shared run directory: trains as games arrive, writes candidates.
    Trainer(commands::selfplay::Args),
    /// Evaluator of a shared run directory: gates and rates every new candidate.
    Evaluate(commands::selfplay::Args),
    /// Export a trained model as a bundle for play, or a checkpoint as TorchScript.
    Export(commands::export::Args),
    /// Count the leaves of the game tree to a depth (move generator check).
    Perft(commands::perft::Args),
    /// List the legal moves of a position in Aba-Pro notation.
    Moves(commands::moves::Args),
    /// Draw a position, or each position of a game record, as SVG.
    Render(commands::render::Args),
    /// Play a game in the terminal against a model or a classical opponent.
    Play(commands::play::Args),
    /// Show what a model's search thinks of a position or of each move of a game.
    // `analyze`: the American spelling, accepted but not listed (an alias).
    #[command(alias = "analyze")]
    Analyse(commands::analyse::Args),
    /// Analysis for programs: JSON queries on standard input, JSON answers on standard output.
    // `analysis`: its old name, accepted but not listed (an alias).
    #[command(name = "json-analysis", alias = "analysis")]
    JsonAnalysis(commands::json_analysis::Args),
    /// Review a game: each move's loss in expected score, its inaccuracies, mistakes and blunders, the better moves.
    Review(commands::review::Args),
    /// Draw a run's learning curve (Elo of every generation against hours) as SVG.
    Curve(commands::curve::Args),
    /// Play and analyse in the browser: a local web server and its page.
    Serve(commands::serve::Args),
}

impl Command {
    /// Whether the command uses a network, so that `sumito-torch` (which
    /// links libtorch) must run it; everything else runs in `sumito` itself.
    pub fn needs_network(&self) -> bool {
        match self {
            Command::Train(_)
            | Command::Selfplay(_)
            | Command::Trainer(_)
            | Command::Evaluate(_)
            | Command::Export(_)
            | Command::Analyse(_)
            | Command::JsonAnalysis(_)
            | Command::Review(_)
            | Command::Curve(_) => true,
            Command::Bench(args) => args.needs_network(),
            Command::Arena(args) => args.needs_network(),
            Command::Ladder(args) => args.needs_network(),
            Command::Play(args) => args.needs_network(),
            Command::Serve(args) => args.needs_network(),
            Command::Perft(_) | Command::Moves(_) | Command::Render(_) => false,
        }
    }

    /// Runs a command that needs no network; a network command is an error
    /// here (the caller hands those to `sumito-torch`).
    pub fn run_light(self) -> anyhow::Result<()> {
        match self {
            Command::Bench(args) => commands::bench::run(args),
            Command::Arena(args) => {
                commands::arena::run(args, &commands::command_board::CLASSICAL_PLAYERS)
            }
            Command::Ladder(args) => {
                commands::ladder::run(args, &commands::command_board::CLASSICAL_PLAYERS)
            }
            Command::Perft(args) => commands::perft::run(args),
            Command::Moves(args) => commands::moves::run(args),
            Command::Render(args) => commands::render::run(args),
            Command::Play(args) => {
                commands::play::run_classical(args, &commands::command_board::CLASSICAL_PLAYERS)
            }
            Command::Serve(args) => commands::serve::run(args),
            // The network verbs (`needs_network` lists them all).
            _ => anyhow::bail!("this command needs the network binary, sumito-torch"),
        }
    }
}

/// Prints a command's error the way both binaries do; the exit status.
pub fn report(result: anyhow::Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// A closed standard output (`sumito perft --divide | head`) ends the
/// command quietly with the shell's status for SIGPIPE (141), as C programs
/// end, instead of a panic message: Rust ignores SIGPIPE, so `println!`
/// panics when the reader has gone. Every other panic is reported as usual.
pub fn quiet_on_closed_stdout() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Command {
        Cli::try_parse_from(std::iter::once("sumito").chain(line.split_whitespace()))
            .unwrap_or_else(|err| panic!("{line}: {err}"))
            .command
    }

    #[test]
    fn only_network_commands_go_to_the_network_binary() {
        for light in [
            "perft --depth 2",
            "moves --layout standard",
            "render --record game.txt --out x.svg",
            "play --opponent alphabeta:depth=2",
            "arena --player random --player alphabeta:depth=1",
            "bench movegen",
            "bench mcts",
            "bench alphabeta",
            "bench tactics --player alphabeta:depth=3 --player greedy",
            "ladder alphabeta:depth=1",
            "play --layout three-player --seat human --seat greedy --seat random",
        ] {
            assert!(!parse(light).needs_network(), "{light}");
        }
        for network in [
            "train --config configs/tiny.toml",
            "selfplay --run-dir runs/x",
            "trainer --run-dir runs/x",
            "evaluate --run-dir runs/x",
            "export --run-dir runs/x --out models/x",
            "analyse --sims 1",
            "json-analysis --sims 1",
            "curve --run-dir runs/x",
            "play",
            "play --model quick",
            "arena --player bundle --player greedy",
            "arena --player random --player net:model=runs/q/models/gen-000001",
            "bench net",
            "bench selfplay",
            "bench tactics --model quick",
            "bench tactics --player greedy --player bundle:simulations=8",
            "ladder",
            "ladder quick --time-per-move 1",
            "play --layout three-player --seat human --seat net:model=x --seat greedy",
        ] {
            assert!(parse(network).needs_network(), "{network}");
        }
    }

    /// The `sumito` command lines of `deploy/`: Kubernetes `args: [...]` and
    /// `exec sumito ...` in job scripts (with `$SUMITO_RUN` as env.sh sets it).
    fn deploy_command_lines() -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
        let mut lines = Vec::new();
        for folder in ["kubernetes", "slurm"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                for line in text.lines().map(str::trim) {
                    let command = if let Some(list) = line.strip_prefix("args: [") {
                        list.trim_end_matches(']')
                            .split(", ")
                            .map(|word| word.trim_matches('"'))
                            .collect::<Vec<_>>()
                            .join(" ")
                    } else if let Some(rest) = line.strip_prefix("exec sumito ") {
                        rest.replace("\"$SUMITO_RUN\"", "s3://sumito/runs/std")
                    } else {
                        continue;
                    };
                    lines.push((path.display().to_string(), command));
                }
            }
        }
        lines
    }

    #[test]
    fn every_command_line_of_the_deploy_examples_is_one_sumito_accepts() {
        let lines = deploy_command_lines();
        // Three roles in each of the two examples.
        assert_eq!(lines.len(), 6, "{lines:?}");
        for (file, line) in lines {
            let parsed =
                Cli::try_parse_from(std::iter::once("sumito").chain(line.split_whitespace()))
                    .unwrap_or_else(|err| panic!("{file}: {line}: {err}"));
            assert!(parsed.command.needs_network(), "{file}: {line}");
            assert!(line.contains("--run-dir s3://"), "{file}: {line}");
        }
    }

    #[test]
    fn one_spelling_per_option_and_the_old_ones_as_aliases() {
        let same = |a: &str, b: &str| {
            assert_eq!(
                format!("{:?}", parse(a)),
                format!("{:?}", parse(b)),
                "{a} / {b}"
            );
        };
        for (new, old) in [
            ("ladder quick --simulations 64", "ladder quick --sims 64"),
            ("review g.txt --simulations 7", "review g.txt --sims 7"),
            ("json-analysis --simulations 7", "json-analysis --sims 7"),
            ("analyse --simulations 7", "analyse --sims 7"),
            (
                "play --model quick --simulations 7",
                "play --model quick --sims 7",
            ),
            (
                "train --config c.toml --no-progress",
                "train --config c.toml --quiet",
            ),
            (
                "selfplay --run-dir r --no-progress",
                "selfplay --run-dir r --quiet",
            ),
            (
                "evaluate --run-dir r --no-progress",
                "evaluate --run-dir r --quiet",
            ),
            (
                "arena --player random --player greedy --no-progress",
                "arena --player random --player greedy --quiet",
            ),
            ("ladder --no-progress", "ladder --quiet"),
        ] {
            same(new, old);
        }
        // And the spellings differ from leaving the option out.
        assert_ne!(
            format!("{:?}", parse("ladder --no-progress")),
            format!("{:?}", parse("ladder"))
        );
    }

    #[test]
    fn analyse_and_json_analysis_take_their_old_names_as_hidden_aliases() {
        for (new, old) in [
            ("analyse --sims 7 --top 3", "analyze --sims 7 --top 3"),
            ("json-analysis --sims 7", "analysis --sims 7"),
        ] {
            // The old name parses to the very command of the new one, so
            // `sumito-torch`, which parses the same words again, runs it.
            assert_eq!(format!("{:?}", parse(new)), format!("{:?}", parse(old)));
            assert!(parse(old).needs_network(), "{old}");
        }
        assert!(matches!(parse("analyse"), Command::Analyse(_)));
        // The alias `analyze`, the American spelling.
        assert!(matches!(parse("analyze"), Command::Analyse(_)));
        assert!(matches!(parse("json-analysis"), Command::JsonAnalysis(_)));
        assert!(matches!(parse("analysis"), Command::JsonAnalysis(_)));
        // The spelling with an underscore is no name of it.
        assert!(Cli::try_parse_from(["sumito", "json_analysis"]).is_err());
    }

    #[test]
    fn help_lists_the_new_names_and_not_the_aliases() {
        use clap::CommandFactory;
        let help = Cli::command().render_help().to_string();
        let names: Vec<&str> = help
            .lines()
            .filter_map(|line| line.strip_prefix("  "))
            .filter_map(|line| line.split_whitespace().next())
            .collect();
        for listed in ["analyse", "json-analysis"] {
            assert!(names.contains(&listed), "{listed} missing from:\n{help}");
        }
        for hidden in ["analyze", "analysis"] {
            assert!(!names.contains(&hidden), "{hidden} listed in:\n{help}");
        }
        // The alias `analyze` is nowhere in the help.
        assert!(!help.contains("analyze"), "{help}");
        assert!(!help.contains("aliases"), "{help}");
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
