//! `sumito play`: a game in the terminal against a trained model or a
//! classical opponent. Moves and commands are read line by line from
//! standard input, so a script can play through a pipe. A classical game is
//! played here; a model is loaded by `sumito-torch` (`network/play.rs`),
//! which then plays the same session.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::Context;
use clap::{Args as ClapArgs, ValueEnum};
use sumito_arena::player::PlayerRegistry;
use sumito_engine::{Color, Layout, Rules};
use sumito_play::board_text::BoardStyle;
use sumito_play::clock::TimeControl;
use sumito_play::network::SearchBudget;
use sumito_play::opponent::{ClassicalOpponent, Opponent};
use sumito_play::record::Start;
use sumito_play::session::{SessionConfig, run_session};

/// Simulations per move of the model when neither --sims nor
/// --time-per-move is given.
const DEFAULT_SIMULATIONS: u32 = 400;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Side {
    Black,
    White,
}

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The model bundle to play: a folder, or a name under models/ (or
    /// under $SUMITO_MODELS if set); default: the shipped model, quick. The game is played under
    /// the rules the model was trained with.
    #[arg(long, conflicts_with = "opponent")]
    pub model: Option<std::path::PathBuf>,
    /// Play a classical opponent instead of a network: random, greedy,
    /// or alphabeta (e.g. alphabeta:depth=3, alphabeta:time=2s). The game
    /// is played under the rule sheets' rules (no move limit).
    #[arg(long)]
    opponent: Option<String>,
    /// Simulations per move of the model's search (default 400).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000), conflicts_with_all = ["time_per_move", "opponent"])]
    sims: Option<u32>,
    /// The longest the opponent may think per move, in seconds: the model
    /// searches for that long; a classical opponent takes it as a cap on its
    /// own limit. With --clock the clock may allow less.
    #[arg(long, value_parser = parse_seconds)]
    time_per_move: Option<Duration>,
    /// Torch device of the model: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu", conflicts_with = "opponent")]
    pub device: String,
    /// The colour you play; Black moves first.
    #[arg(long, value_enum, default_value = "black")]
    color: Side,
    /// Start layout: standard, belgian-daisy, german-daisy, dutch-daisy,
    /// swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED or
    /// partly-random:SEED.
    #[arg(long, default_value = "standard", value_parser = Layout::from_name)]
    layout: Layout,
    /// Time control MINUTES[+SECONDS]: minutes per player for the game,
    /// plus seconds earned per opposing marble pushed off (e.g. 10 or
    /// 15+90). Whoever runs out of time loses.
    #[arg(long, value_parser = parse_clock)]
    clock: Option<TimeControl>,
    /// Seed of the opponent's own randomness (random and greedy players,
    /// the search's tie-breaks).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

fn parse_clock(text: &str) -> Result<TimeControl, String> {
    text.parse()
        .map_err(|err: sumito_play::clock::TimeControlError| err.to_string())
}

/// A positive number of seconds, at most a day.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 86_400.0 => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(format!(
            "{text:?} is not a number of seconds between 0 (exclusive) and 86400"
        )),
    }
}

/// A classical opponent from its spec, with --time-per-move as a cap.
fn classical_opponent(
    spec: &str,
    time_per_move: Option<Duration>,
    seed: u64,
) -> anyhow::Result<ClassicalOpponent> {
    let registry = PlayerRegistry::builtin();
    let mut entrant = registry
        .prepare_str(spec)
        .with_context(|| format!("--opponent {spec:?} (known players:\n{})", registry.help()))?;
    if let Some(cap) = time_per_move {
        entrant.limit.time = Some(entrant.limit.time.map_or(cap, |own| own.min(cap)));
    }
    Ok(ClassicalOpponent::new(&entrant, seed))
}

impl Args {
    /// Whether the opponent is a network (no --opponent), which
    /// `sumito-torch` plays.
    pub fn needs_network(&self) -> bool {
        self.opponent.is_none()
    }

    /// The model's search budget: --time-per-move, else --sims (default 400).
    pub fn model_budget(&self) -> SearchBudget {
        match (self.sims, self.time_per_move) {
            (_, Some(time)) => SearchBudget::Time(time),
            (sims, None) => SearchBudget::Simulations(sims.unwrap_or(DEFAULT_SIMULATIONS)),
        }
    }
}

/// `sumito play --opponent SPEC`: a game against a classical opponent, under
/// the rule sheets' rules.
pub fn run_classical(args: Args) -> anyhow::Result<()> {
    let Some(spec) = &args.opponent else {
        anyhow::bail!("no --opponent given: playing a model needs sumito-torch");
    };
    let mut opponent = classical_opponent(spec, args.time_per_move, args.seed)?;
    play_session(&args, &mut opponent, Rules::default())
}

/// Plays the session of `args` against `opponent` under `rules`, on the
/// terminal (or a pipe).
pub fn play_session(args: &Args, opponent: &mut dyn Opponent, rules: Rules) -> anyhow::Result<()> {
    let human = match args.color {
        Side::Black => Color::Black,
        Side::White => Color::White,
    };
    let stdout = std::io::stdout();
    let stdin = std::io::stdin();
    let no_color = std::env::var("NO_COLOR").ok();
    let config = SessionConfig {
        human,
        start: Start::Layout(args.layout),
        rules,
        time_control: args.clock,
        style: BoardStyle::detect(stdout.is_terminal(), no_color.as_deref()),
        echo_input: !stdin.is_terminal(),
        human_name: "human".to_string(),
    };
    run_session(config, opponent, stdin.lock(), stdout.lock())?;
    Ok(())
}
