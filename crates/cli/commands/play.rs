//! `sumito play`: a game in the terminal against a trained model or a
//! classical opponent. Moves and commands are read line by line from
//! standard input, so a script can play through a pipe. A classical game is
//! played here; a model is loaded by `sumito-torch` (`network/play.rs`),
//! which then plays the same session.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::Context;
use clap::{Args as ClapArgs, ValueEnum};
use sumito_arena::PlayerSpec;
use sumito_arena::player::{Entrant, Player};
use sumito_arena::players::network::SearchBudget;
use sumito_engine::general::GeneralLayout;
use sumito_engine::rules_table::RulesTable;
use sumito_game::Level;
use sumito_game::{GameKind, with_board};
use sumito_play::board_text::BoardStyle;
use sumito_play::clock::TimeControl;
use sumito_play::record::GameRecord;
use sumito_play::session::{SeatControl, SeatedPlayer, SessionConfig, run_session};

use super::command_board::{
    CommandBoard, NETWORK_PLAYER_KINDS, PlayerKinds, RuleFlags, match_start, model_rules,
    prepare_players, rules_of,
};

/// Simulations per move of the model when neither --simulations nor
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
    /// the rules the model was trained with. A model of the general game
    /// (variants, 3-6 players) takes every seat but yours, or the seats
    /// given as `--seat model`.
    #[arg(long, conflicts_with = "opponent")]
    pub model: Option<std::path::PathBuf>,
    /// Play a classical opponent instead of a network: random, greedy,
    /// or alphabeta (e.g. alphabeta:depth=3, alphabeta:time=2s). The game
    /// is played under the rule sheets' rules (no move limit).
    #[arg(long)]
    opponent: Option<String>,
    /// Simulations per move of the model's search (default 400; `--sims` is
    /// the same).
    #[arg(long, alias = "sims", value_parser = clap::value_parser!(u32).range(1..=10_000_000), conflicts_with_all = ["time_per_move", "opponent"])]
    simulations: Option<u32>,
    /// The model's strength level, 1 (beginner) to 10 (full strength): its
    /// simulations a move, and its moves drawn from its search's policy
    /// with some chance (the README gives each level's Elo).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10), conflicts_with_all = ["simulations", "time_per_move", "opponent"])]
    pub level: Option<u32>,
    /// The longest the opponent may think per move, in seconds: the model
    /// searches for that long; a classical opponent takes it as a cap on its
    /// own limit. With --clock the clock may allow less.
    #[arg(long, value_parser = parse_seconds)]
    time_per_move: Option<Duration>,
    /// Torch device of the model: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu", conflicts_with = "opponent")]
    pub device: String,
    /// Cores the model's search uses: that many copies of the network
    /// evaluate its leaves side by side (8 leaves a thread) [default: 1; on
    /// the 2-core machine two threads were faster but not stronger, see the
    /// README].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64), conflicts_with = "opponent")]
    pub threads: Option<u32>,
    /// The colour you play in a game of two seats; Black moves first
    /// [default: black]. (With more seats, or to seat models or classical
    /// players yourself, give --seat for each player.)
    #[arg(long, value_enum)]
    color: Option<Side>,
    /// Start layout: standard, belgian-daisy, german-daisy, dutch-daisy,
    /// swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED or
    /// partly-random:SEED; for more players three-player,
    /// three-player-trapezoid, four-player, five-player, six-player
    /// [default: standard; with a model of the general game, the first
    /// layout it learned on].
    #[arg(long, value_parser = GeneralLayout::from_name)]
    layout: Option<GeneralLayout>,
    /// A TOML file whose [rules] table gives the rules (holes, obstacles,
    /// neutral marbles, shield and rotation moves, one colour, handicaps,
    /// partners in a row; see `sumito perft --help`).
    #[arg(long, value_name = "FILE")]
    rules: Option<std::path::PathBuf>,
    /// Who plays each seat, in turn order (give one per player): `human`,
    /// `human:names=Ann/Cid` (people taking the seat's turns in order, e.g.
    /// four people at two colours), a classical player (random, greedy,
    /// alphabeta:depth=N, alphabeta:time=DURATION), a network of the game
    /// (net:model=CHECKPOINT_DIR, bundle:model=NAME), or `model` (the
    /// --model, searching --simulations). Without --seat you play the first
    /// seat (or --color's) and the model, --opponent or greedy the others.
    #[arg(long = "seat", value_name = "SPEC")]
    seats: Vec<String>,
    /// Time control MINUTES[+SECONDS]: minutes per player for the game,
    /// plus seconds earned per opposing marble pushed off (e.g. 10 or
    /// 15+90). Whoever runs out of time loses.
    #[arg(long, value_parser = parse_clock)]
    clock: Option<TimeControl>,
    /// Seed of the opponent's own randomness (random and greedy players,
    /// the search's tie-breaks).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Save the game to FILE when it ends, however it ends (finished,
    /// resigned, quit): the record `sumito review FILE` reads.
    #[arg(long, value_name = "FILE")]
    save: Option<std::path::PathBuf>,
    /// Keep Black at the bottom when you play White (by default the board
    /// is turned half round so that your marbles are at the bottom).
    #[arg(long)]
    no_flip: bool,
}

fn parse_clock(text: &str) -> Result<TimeControl, String> {
    text.parse()
        .map_err(|err: sumito_play::clock::TimeControlError| err.to_string())
}

/// A positive number of seconds, at most a day.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    // A bare number is seconds; a duration as players write it (`1s`,
    // `250ms`, `1m`) is accepted too.
    let parsed = match text.trim().parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 86_400.0 => {
            Some(Duration::from_secs_f64(seconds))
        }
        Ok(_) => None,
        Err(_) => sumito_arena::spec::parse_duration(text.trim())
            .filter(|time| !time.is_zero() && *time <= Duration::from_secs(86_400)),
    };
    parsed.ok_or_else(|| {
        format!(
            "{text:?} is not a time per move: seconds between 0 (exclusive) and 86400, or a duration such as 250ms or 2s"
        )
    })
}

impl Args {
    /// Whether the shipped model plays: no --model, and either nothing else
    /// is asked for (no --opponent, --seat or --rules) or a `--seat model`,
    /// on a two-player layout.
    pub fn plays_shipped_model(&self) -> bool {
        self.model.is_none()
            && self.opponent.is_none()
            && (self.seats.is_empty() || self.seats.iter().any(|spec| spec == MODEL_SEAT))
            && self.rules.is_none()
            && matches!(self.layout(), GeneralLayout::Two(_))
    }

    /// Whether a network plays (a model, or a `net:`/`bundle:` seat), so
    /// that `sumito-torch` runs the game.
    pub fn needs_network(&self) -> bool {
        self.model.is_some()
            || self.plays_shipped_model()
            || self.seats.iter().any(|spec| {
                spec.parse::<PlayerSpec>()
                    .is_ok_and(|spec| NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str()))
            })
    }

    /// Whether the layout or --rules asks for the general game (variants,
    /// more players).
    pub fn wants_general_game(&self) -> bool {
        GameKind::of(
            &self.given_rules().unwrap_or_default(),
            &[self.layout()],
            false,
        ) == GameKind::General
    }

    /// The start layout given, or Standard.
    fn layout(&self) -> GeneralLayout {
        self.layout
            .unwrap_or(GeneralLayout::Two(sumito_engine::Layout::Standard))
    }

    /// The `[rules]` table of --rules, or the rule sheets' (no move limit).
    fn given_rules(&self) -> anyhow::Result<RulesTable> {
        Ok(match &self.rules {
            Some(path) => RulesTable::read(path)?,
            None => RulesTable::default(),
        })
    }

    /// The model's strength level (`--level`), if given.
    pub fn model_level(&self) -> anyhow::Result<Option<Level>> {
        self.level
            .map(|number| sumito_game::level::level(number).map_err(anyhow::Error::msg))
            .transpose()
    }

    /// The model's search budget: --time-per-move, else --level's
    /// simulations, else --simulations (default 400).
    pub fn model_budget(&self) -> SearchBudget {
        if let Some(level) = self.model_level().ok().flatten() {
            return SearchBudget::Simulations(level.simulations);
        }
        match (self.simulations, self.time_per_move) {
            (_, Some(time)) => SearchBudget::Time(time),
            (simulations, None) => {
                SearchBudget::Simulations(simulations.unwrap_or(DEFAULT_SIMULATIONS))
            }
        }
    }
}

/// `sumito play` without a model: the seats' players (classical players,
/// `net:`/`bundle:` networks) in the game the rules, layout and seats
/// choose ([`GameKind::of`]), under the rules given (by default the rule
/// sheets', with no move limit) or those a seated model learned.
pub fn run_classical(args: Args, kinds: &PlayerKinds) -> anyhow::Result<()> {
    let given = args.given_rules()?;
    let general_models = !(kinds.general_models)(&args.seats)?.is_empty();
    let game = GameKind::of(&given, &[args.layout()], general_models);
    with_board!(game, run_game(&args, kinds, None))
}

/// Makes the search of a model for one seat (its seed).
pub type ModelSeatMaker<'a, B> = dyn Fn(u64) -> anyhow::Result<Box<dyn Player<B>>> + 'a;

/// A model as `sumito play` seats it: how records name its seats, the
/// rules it was trained under, and its search.
pub struct Model<'a, B> {
    /// How saved games name its seats: `bundle:model=DIR`.
    pub spec: String,
    /// How the board names its seats, e.g. `quick (400 simulations)`.
    pub label: String,
    /// The rules it learned as a `[rules]` table, layouts included.
    pub table: RulesTable,
    /// Its search for a seat, with the budget, device and threads asked for.
    pub make: &'a ModelSeatMaker<'a, B>,
}

impl<B> std::fmt::Debug for Model<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("spec", &self.spec)
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

/// The seat keyword that stands for `--model`.
const MODEL_SEAT: &str = "model";

/// A game of `B` in the terminal, with `model` at the seats it takes (by
/// default every seat but yours): under the model's rules if one plays (a
/// loaded game too), else under the rules given.
pub fn run_game<B: CommandBoard>(
    args: &Args,
    kinds: &PlayerKinds,
    model: Option<&Model<'_, B>>,
) -> anyhow::Result<()> {
    if model.is_some() && args.rules.is_some() {
        anyhow::bail!(
            "--rules with --model: a model plays under the rules it was trained with (leave --rules out)"
        );
    }
    let given = args.given_rules()?;
    // The rules of the models at the seats (--model, `--seat bundle:`
    // models of the general game), which play only under them.
    let trained = match model {
        Some(model) => vec![(model.spec.clone(), model.table.clone())],
        None => (kinds.general_models)(&args.seats)?,
    };
    let (table, layout) = match model_rules(&given, RuleFlags::default(), args.layout, &trained)? {
        Some(chosen) => chosen,
        None => (given, args.layout()),
    };
    let start = match_start::<B>(layout, &table)?;
    let seats = start.position.seats();
    let specs: Vec<String> = if args.seats.is_empty() {
        let other = match (model, &args.opponent) {
            (Some(model), _) => model.spec.clone(),
            (None, Some(opponent)) => opponent.clone(),
            (None, None) => "greedy".to_string(),
        };
        let yours = match args.color {
            None | Some(Side::Black) => 0,
            Some(Side::White) if seats == 2 => 1,
            Some(Side::White) => anyhow::bail!(
                "--color: the layout {layout} seats {seats} players; give --seat for each player in turn order to choose yours"
            ),
        };
        (0..seats)
            .map(|seat| {
                if seat == yours {
                    "human".to_string()
                } else {
                    other.clone()
                }
            })
            .collect()
    } else {
        if args.color.is_some() {
            anyhow::bail!("--color with --seat: give your seat as `--seat human` in turn order");
        }
        args.seats
            .iter()
            .map(|spec| match model {
                Some(model) if spec == MODEL_SEAT => Ok(model.spec.clone()),
                None if spec == MODEL_SEAT => anyhow::bail!(
                    "--seat model: the shipped model plays only the two-player game; give a model of this game with --model NAME_OR_DIR"
                ),
                _ => Ok(spec.clone()),
            })
            .collect::<anyhow::Result<_>>()?
    };
    if specs.len() != seats {
        anyhow::bail!(
            "{} --seat given, but the layout {layout} seats {seats} players: give one per player in turn order",
            specs.len(),
        );
    }
    let is_model = |spec: &String| model.is_some_and(|model| *spec == model.spec);
    let players: Vec<String> = specs
        .iter()
        .filter(|spec| {
            !is_model(spec)
                && spec
                    .parse::<PlayerSpec>()
                    .is_ok_and(|spec| spec.kind != "human")
        })
        .cloned()
        .collect();
    // Each player prepared once, as a match prepares them.
    let registry = B::registry(kinds)?;
    let entrants = prepare_players(&registry, &players).with_context(|| {
        format!(
            "--seat or --opponent (human, model, or a player; known players:\n{})",
            registry.help()
        )
    })?;
    let controls = specs
        .iter()
        .enumerate()
        .map(|(seat, spec)| {
            let seed = args.seed ^ seat as u64;
            match model {
                // The model's seats: its own search (budget, device, threads).
                Some(model) if *spec == model.spec => (model.make)(seed)
                    .map(|player| {
                        SeatControl::Player(SeatedPlayer::searching(model.label.clone(), player))
                    })
                    .with_context(|| format!("seating {}", model.label)),
                _ => {
                    let entrant = players
                        .iter()
                        .position(|player| player == spec)
                        .map(|index| &entrants[index]);
                    seat_control(spec, entrant, args.time_per_move, seed)
                }
            }
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let stdout = std::io::stdout();
    let no_color = std::env::var("NO_COLOR").ok();
    let style = BoardStyle::detect(stdout.is_terminal(), no_color.as_deref());
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let is_person = |spec: &String| {
        spec.parse::<PlayerSpec>()
            .is_ok_and(|spec| spec.kind == "human")
    };
    // Your side at the bottom: turned for one person at White's seat.
    let flipped = !args.no_flip && seats == 2 && is_person(&specs[1]) && !is_person(&specs[0]);
    let config = SessionConfig {
        record: GameRecord {
            players: specs,
            ..GameRecord::unplayed(start.start, rules_of::<B>(&table)?)
        },
        // A model plays under the rules it was trained with only.
        keep_rules: model.is_some(),
        time_control: args.clock,
        style,
        echo_input: echo,
        flipped,
        save_to: args.save.clone(),
    };
    run_session(config, controls, stdin.lock(), stdout.lock())?;
    Ok(())
}

/// Who plays a seat, from `--seat SPEC` (`entrant`: its prepared player,
/// none for people), thinking at most `time_per_move` a move.
fn seat_control<B: CommandBoard>(
    spec: &str,
    entrant: Option<&Entrant<B>>,
    time_per_move: Option<Duration>,
    seed: u64,
) -> anyhow::Result<SeatControl<'static, B>> {
    let Some(entrant) = entrant else {
        let parsed: PlayerSpec = spec.parse().with_context(|| format!("--seat {spec:?}"))?;
        let mut params = parsed.params();
        let names = params
            .get_parsed::<String>("names", "names separated by '/', e.g. Ann/Cid")
            .with_context(|| format!("--seat {spec:?}"))?;
        params
            .finish()
            .with_context(|| format!("--seat {spec:?}"))?;
        let names = names
            .map(|list| {
                list.split('/')
                    .map(str::to_string)
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        return Ok(SeatControl::People(names));
    };
    // --time-per-move caps the player's own limit.
    let mut limit = entrant.limit;
    if let Some(cap) = time_per_move {
        limit.time = Some(limit.time.map_or(cap, |own| own.min(cap)));
    }
    Ok(SeatControl::Player(SeatedPlayer::new(
        entrant.name.clone(),
        entrant.build(seed),
        limit,
    )))
}

#[cfg(test)]
mod tests {
    use super::parse_seconds;
    use std::time::Duration;

    #[test]
    fn times_per_move_read_as_seconds_or_durations() {
        assert_eq!(parse_seconds("1"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_seconds("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_seconds("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_seconds("250ms"), Ok(Duration::from_millis(250)));
        for bad in ["0", "-1", "0s", "soon", "100000"] {
            let message = parse_seconds(bad).unwrap_err();
            assert!(message.contains("not a time per move"), "{bad}: {message}");
        }
    }
}
