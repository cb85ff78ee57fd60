//! `sumito ladder`: the strength ladder of one player (by default the shipped
//! model at 400 simulations a move) against `greedy` and `alphabeta` at
//! depths 1 to 4, at fixed openings, move limit and seeds
//! (`sumito_arena::ladder`), or in the equal-time mode against
//! `alphabeta:time=T`. Prints the table and writes it as `ladder.md` and
//! `ladder.json` beside the game records, so that READMEs quote the file,
//! not hand-copied numbers. A network player is played by `sumito-torch`
//! (`network/ladder.rs`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args as ClapArgs;
use sumito_arena::PlayerSpec;
use sumito_arena::ladder::LadderConfig;
use sumito_arena::levels::{LevelsReport, play_levels};
use sumito_arena::player::Entrant;
use sumito_arena::record::write_atomic;
use sumito_game::{FULL_STRENGTH, GameKind, Level, with_board};

use sumito_engine::rules_table::RulesTable;

use super::arena::stamped_dir;
use super::command_board::{CommandBoard, NETWORK_PLAYER_KINDS, PlayerKinds, prepare_players};
use super::match_observer::CommandObserver;
use super::play::parse_seconds;
use sumito_arena::arena_board::ArenaBoard;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The player to measure: a model bundle's name or folder (quick,
    /// models/quick), or any player spec (`bundle:model=quick`,
    /// `net:model=runs/quick/models/gen-000040`, `alphabeta:depth=2`).
    #[arg(default_value = "bundle")]
    pub player: String,
    /// Simulations per move of a network player whose spec does not set
    /// `simulations=` (ignored with --time-per-move; `--sims` is the same).
    #[arg(long, alias = "sims", default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub simulations: u32,
    /// The equal-time mode: the player gets this many seconds per move (a
    /// network plans its simulations from its measured speed), and the
    /// opponent is `alphabeta:time=` the same, unless --opponent is given.
    #[arg(long, value_parser = parse_seconds)]
    pub time_per_move: Option<Duration>,
    /// An opponent spec (repeat for several), in place of the ladder's:
    /// greedy and alphabeta at depths 1, 2, 3 and 4 (for a model of the
    /// general game: random, greedy and its alphabeta at depths 1 and 2,
    /// each taking every side but the model's).
    #[arg(long = "opponent", value_name = "SPEC")]
    pub opponents: Vec<String>,
    /// Games against each opponent (even: every opening with both colours;
    /// for a model of the general game rounded up to a multiple of its
    /// sides on each layout it learned, so that seats rotate evenly).
    #[arg(long, default_value_t = 200)]
    pub games: u32,
    /// Games played at once; default 16 (a network batches the searches of
    /// all its games), or in the equal-time mode as many as leave each
    /// search its cores: one game per core, or one per N cores for a
    /// network whose spec sets `threads=N`.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Folder for ladder.md, ladder.json and the game records
    /// [default: runs/ladder/<UTC date-time>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Rate the model's strength levels instead (`level=N`, 1 beginner to 10
    /// full strength; all ten, or those listed, e.g. `--levels 1,5,10`):
    /// each plays the same opponents (default: random, greedy and
    /// alphabeta at depths 1 to 3), and all are rated on the one Elo scale
    /// (the classical players held at their fixed ratings); writes levels.md and levels.json (copy levels.json into
    /// the model's folder for `sumito serve` to show the levels' Elo).
    #[arg(long, value_delimiter = ',', num_args = 0.., value_name = "LEVELS", conflicts_with_all = ["time_per_move", "simulations"])]
    pub levels: Option<Vec<u32>>,
    /// Play nothing: fit a levels report (a `levels.json`, e.g. a model's)
    /// again from its games on today's one Elo scale, and write it back in
    /// place (after the scale's fixed ratings change).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["levels", "time_per_move", "opponents"])]
    pub rescale: Option<PathBuf>,
    /// Do not draw progress bars (`--quiet` is the same).
    #[arg(long = "no-progress", alias = "quiet")]
    pub quiet: bool,
}

impl Args {
    /// The player's spec as the ladder plays it: a bare name that is no kind
    /// of player is a bundle, and a network player gets --simulations unless
    /// its spec sets them.
    pub fn player_spec(&self) -> anyhow::Result<PlayerSpec> {
        let known = sumito_engine::Position::classical_players();
        let is_kind =
            |kind: &str| known.kinds().contains(&kind) || NETWORK_PLAYER_KINDS.contains(&kind);
        // A spec has a colon or names a kind; anything else is a bundle's
        // name or folder.
        let mut spec: PlayerSpec = if self.player.contains(':') || is_kind(&self.player) {
            self.player
                .parse()
                .with_context(|| format!("reading the player {:?}", self.player))?
        } else {
            PlayerSpec {
                kind: "bundle".to_string(),
                params: vec![("model".to_string(), self.player.clone())],
            }
        };
        let network = NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str());
        let has = |spec: &PlayerSpec, key: &str| spec.params.iter().any(|(k, _)| k == key);
        if network
            && self.time_per_move.is_none()
            && self.levels.is_none()
            && !has(&spec, "simulations")
        {
            spec.params
                .push(("simulations".to_string(), self.simulations.to_string()));
        }
        Ok(spec)
    }

    /// Games at once unless --threads says: 16 at fixed simulations (a
    /// network batches the searches of all its games); at equal time as many
    /// as leave each search its cores (one per core for a player on one).
    fn games_at_once(&self, spec: &PlayerSpec) -> usize {
        match (self.threads, self.time_per_move) {
            (Some(threads), _) => threads,
            (None, Some(_)) => {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                let search_threads = spec
                    .params
                    .iter()
                    .find(|(key, _)| key == "threads")
                    .and_then(|(_, value)| value.parse::<usize>().ok())
                    .unwrap_or(1);
                (cores / search_threads.max(1)).max(1)
            }
            (None, None) => 16,
        }
    }

    /// Whether the player is a network, so that `sumito-torch` plays the ladder.
    pub fn needs_network(&self) -> bool {
        // --rescale plays nothing.
        self.rescale.is_none()
            && self
                .player_spec()
                .is_ok_and(|spec| NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str()))
    }

    /// The opponents' specs: --opponent, else at equal time
    /// `alphabeta:time=` the same, else the game's own (`defaults`).
    fn opponent_specs(&self, defaults: &[&str]) -> Vec<String> {
        if !self.opponents.is_empty() {
            return self.opponents.clone();
        }
        match self.time_per_move {
            Some(time) => vec![format!("alphabeta:time={}ms", time.as_millis().max(1))],
            None => defaults.iter().map(|spec| spec.to_string()).collect(),
        }
    }
}

/// The levels `numbers` (all if empty) of the network `spec`, each with
/// the spec that plays it (`level=N` added); refuses a spec that is no
/// model or sets what each level sets.
fn level_specs(spec: &PlayerSpec, numbers: &[u32]) -> anyhow::Result<Vec<(Level, PlayerSpec)>> {
    if !NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str()) {
        anyhow::bail!(
            "--levels: {spec} is no model; levels are those of a network (a bundle's name, or bundle:/net: specs)"
        );
    }
    if let Some((key, _)) = spec
        .params
        .iter()
        .find(|(key, _)| ["simulations", "time", "level"].contains(&key.as_str()))
    {
        anyhow::bail!("--levels: {spec} sets {key}=, which each level sets itself; leave it out");
    }
    let numbers: Vec<u32> = if numbers.is_empty() {
        (1..=FULL_STRENGTH).collect()
    } else {
        numbers.to_vec()
    };
    numbers
        .into_iter()
        .map(|number| {
            let level = sumito_game::level::level(number)
                .map_err(anyhow::Error::msg)
                .context("--levels")?;
            let mut at = spec.clone();
            at.params.push(("level".to_owned(), number.to_string()));
            Ok((level, at))
        })
        .collect()
}

/// The ladder of `spec` in game `B` (or its levels, with `--levels`),
/// against the game's opponents or `--opponent`.
fn climb<B: CommandBoard>(
    args: &Args,
    spec: PlayerSpec,
    kinds: &PlayerKinds,
) -> anyhow::Result<()> {
    let levels = match &args.levels {
        Some(numbers) => level_specs(&spec, numbers)?,
        None => Vec::new(),
    };
    let opponents = args.opponent_specs(B::ladder_opponents(args.levels.is_some()));
    let player = spec.to_string();
    let mut specs = vec![player.clone()];
    specs.extend(levels.iter().map(|(_, at)| at.to_string()));
    specs.extend(opponents.iter().cloned());
    let mut entrants = prepare_players(&B::registry(kinds)?, &specs)?;
    if let Some(time) = args.time_per_move {
        entrants[0].limit.time = Some(time);
    }
    let (player_entrant, rest) = entrants.split_first().expect("the player's spec is first");
    let (level_entrants, opponent_entrants) = rest.split_at(levels.len());
    let kind = if levels.is_empty() {
        "ladder"
    } else {
        "levels"
    };
    let out = args.out.clone().unwrap_or_else(|| stamped_dir(kind));
    let mut config = LadderConfig {
        games_per_opponent: args.games,
        threads: args.games_at_once(&spec),
        record_dir: Some(out.join("records")),
        time_per_move: args.time_per_move.map(|time| time.as_secs_f64()),
    };
    let ladder = B::ladder(player_entrant, &config).map_err(anyhow::Error::msg)?;
    if ladder.games != args.games {
        println!(
            "{} games per opponent rather than {}: a multiple of the {} sides on each of the {} layouts, so that every seat is played equally often",
            ladder.games,
            args.games,
            ladder.sides(),
            ladder.starts.len()
        );
        config.games_per_opponent = ladder.games;
    }
    let observer = &CommandObserver::new(args.quiet)?;
    if levels.is_empty() {
        let report = ladder
            .run(player_entrant, opponent_entrants, &config, observer)
            .context("playing the ladder")?;
        return write_report(&out, "ladder", &report.markdown(), &report);
    }
    // Each level climbs the same ladder; all are rated together.
    let leveled: Vec<(Level, Entrant<B>)> = levels
        .iter()
        .zip(level_entrants)
        .map(|((level, at), entrant)| {
            let mut entrant = entrant.clone();
            entrant.name = at.to_string();
            (*level, entrant)
        })
        .collect();
    let report = play_levels(
        &player,
        &leveled,
        opponent_entrants,
        ladder.settings.clone(),
        &config,
        |entrant, opponents, rung| {
            if !args.quiet {
                eprintln!("{}:", entrant.name);
            }
            ladder
                .play_rungs(entrant, opponents, rung, observer)
                .with_context(|| format!("playing {}", entrant.name))
        },
    )
    .context("rating the levels")?;
    write_report(&out, "levels", &report.markdown(), &report)
}

/// Writes a report as `NAME.md` (`markdown`) and `NAME.json` into `out`,
/// and prints it.
fn write_report(
    out: &std::path::Path,
    name: &str,
    markdown: &str,
    report: &impl serde::Serialize,
) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report).context("writing the report as JSON")?;
    let (md_path, json_path) = (
        out.join(format!("{name}.md")),
        out.join(format!("{name}.json")),
    );
    for (path, bytes) in [
        (&md_path, markdown.as_bytes()),
        (&json_path, json.as_bytes()),
    ] {
        write_atomic(path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    print!("{markdown}");
    println!(
        "wrote {} and {} (game records in {})",
        md_path.display(),
        json_path.display(),
        out.join("records").display()
    );
    Ok(())
}

/// `--rescale FILE`: the levels report in FILE fitted again on today's
/// scale, written back atomically, and printed.
fn rescale(path: &std::path::Path) -> anyhow::Result<()> {
    // A levels report is tens of kilobytes; refused before reading past this.
    const MAX_REPORT_BYTES: u64 = 16 << 20;
    let size = std::fs::metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .len();
    anyhow::ensure!(
        size <= MAX_REPORT_BYTES,
        "{} is {size} bytes, more than a levels report's limit of {MAX_REPORT_BYTES}",
        path.display()
    );
    let text = sumito_fsio::read_text_capped(path, sumito_fsio::MAX_TEXT_FILE_BYTES)
        .with_context(|| format!("reading {}", path.display()))?;
    let report: LevelsReport = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a levels report", path.display()))?;
    let rescaled = report
        .rescaled()
        .with_context(|| format!("rating the games of {}", path.display()))?;
    let mut json = serde_json::to_string_pretty(&rescaled).context("writing the report as JSON")?;
    json.push('\n');
    write_atomic(path, json.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    print!("{}", rescaled.markdown());
    println!("wrote {} on today's scale", path.display());
    Ok(())
}

/// Plays the ladder of `args` with the players `kinds` knows: in the
/// general game for a model of it, else in the two-player game.
pub fn run(args: Args, kinds: &PlayerKinds) -> anyhow::Result<()> {
    if let Some(path) = &args.rescale {
        return rescale(path);
    }
    let spec = args.player_spec()?;
    // The ladder's rules and layouts are the model's: only its game counts.
    let general_models = !(kinds.general_models)(&[spec.to_string()])?.is_empty();
    let game = GameKind::of(&RulesTable::default(), &[], general_models);
    with_board!(game, climb(&args, spec, kinds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::command_board::CLASSICAL_PLAYERS;
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_arena::ladder::DEFAULT_OPPONENTS;
    use sumito_engine::Position;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &[&str]) -> Args {
        use clap::Parser;
        Cli::try_parse_from(std::iter::once("ladder").chain(line.iter().copied()))
            .unwrap()
            .args
    }

    #[test]
    fn the_player_is_a_bundle_unless_it_names_a_kind() {
        let spec = |line: &[&str]| parse(line).player_spec().unwrap().to_string();
        assert_eq!(spec(&[]), "bundle:simulations=400");
        assert_eq!(spec(&["quick"]), "bundle:model=quick,simulations=400");
        assert_eq!(
            spec(&["models/quick", "--simulations", "64"]),
            "bundle:model=models/quick,simulations=64"
        );
        assert_eq!(
            spec(&["net:model=runs/q/models/gen-000003,simulations=8"]),
            "net:model=runs/q/models/gen-000003,simulations=8"
        );
        assert_eq!(spec(&["alphabeta:depth=2"]), "alphabeta:depth=2");
        // Rescaling a report plays nothing, so needs no network.
        assert!(parse(&[]).needs_network());
        assert!(!parse(&["--rescale", "models/quick/levels.json"]).needs_network());
        // At equal time the player searches on one core unless its spec
        // says `threads=`, and the games share the cores accordingly.
        assert_eq!(
            spec(&["quick", "--time-per-move", "1"]),
            "bundle:model=quick"
        );
        assert_eq!(
            spec(&["bundle:threads=2", "--time-per-move", "1"]),
            "bundle:threads=2"
        );
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let at_once = |line: &[&str]| {
            let args = parse(line);
            args.games_at_once(&args.player_spec().unwrap())
        };
        assert_eq!(at_once(&["quick", "--time-per-move", "1"]), cores);
        assert_eq!(
            at_once(&["bundle:threads=2", "--time-per-move", "1"]),
            (cores / 2).max(1)
        );
        assert_eq!(
            at_once(&["bundle:threads=1", "--time-per-move", "1"]),
            cores
        );
        assert_eq!(at_once(&["greedy", "--time-per-move", "1"]), cores);
        assert_eq!(at_once(&["quick"]), 16);
        assert_eq!(
            at_once(&["quick", "--time-per-move", "1", "--threads", "3"]),
            3
        );
        assert!(parse(&[]).needs_network());
        assert!(!parse(&["greedy"]).needs_network());
    }

    #[test]
    fn the_opponents_follow_the_mode() {
        assert_eq!(
            parse(&[]).opponent_specs(Position::ladder_opponents(false)),
            DEFAULT_OPPONENTS.map(String::from)
        );
        assert_eq!(
            parse(&["--time-per-move", "0.5"]).opponent_specs(Position::ladder_opponents(false)),
            ["alphabeta:time=500ms"]
        );
        assert_eq!(
            parse(&["--opponent", "random"]).opponent_specs(Position::ladder_opponents(false)),
            ["random"]
        );
    }

    #[test]
    fn a_classical_ladder_writes_its_table_as_markdown_and_json() {
        let dir = std::env::temp_dir().join(format!("sumito-cli-ladder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let args = parse(&[
            "greedy",
            "--opponent",
            "random",
            "--opponent",
            "alphabeta:depth=1",
            "--games",
            "2",
            "--threads",
            "2",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        run(args, &CLASSICAL_PLAYERS).unwrap();
        let markdown = std::fs::read_to_string(dir.join("ladder.md")).unwrap();
        assert!(markdown.contains("| `random` |") && markdown.contains("| `alphabeta:depth=1` |"));
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("ladder.json")).unwrap()).unwrap();
        assert_eq!(json["player"], "greedy");
        assert_eq!(json["rows"].as_array().unwrap().len(), 2);
        let records = std::fs::read_dir(dir.join("records/opponent-1"))
            .unwrap()
            .count();
        assert_eq!(records, 2);
        let odd = parse(&["greedy", "--games", "3"]);
        assert!(
            run(odd, &CLASSICAL_PLAYERS)
                .unwrap_err()
                .to_string()
                .contains("even")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A stand-in for a model: `random`, trained under a 100-ply limit.
    struct Trained;

    impl sumito_arena::player::PlayerFactory for Trained {
        fn kind(&self) -> &str {
            "trained"
        }

        fn help(&self) -> String {
            "trained: random, as if trained under a 100-ply limit".into()
        }

        fn prepare(
            &self,
            _: &sumito_arena::PlayerSpec,
        ) -> Result<sumito_arena::player::Entrant, sumito_arena::spec::SpecError> {
            let random = Position::classical_players().prepare_str("random").unwrap();
            Ok(random.with_trained_rules(sumito_engine::Rules {
                max_plies: Some(100),
                ..sumito_engine::Rules::default()
            }))
        }
    }

    #[test]
    fn a_model_trained_under_other_rules_is_refused() {
        let kinds = PlayerKinds {
            two_player: || {
                let mut registry = Position::classical_players();
                registry.register(Box::new(Trained))?;
                Ok(registry)
            },
            ..CLASSICAL_PLAYERS
        };
        let out = std::env::temp_dir().join(format!("sumito-ladder-rules-{}", std::process::id()));
        let args = parse(&[
            "trained:model=x",
            "--opponent",
            "greedy",
            "--games",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = run(args, &kinds).unwrap_err().to_string();
        assert!(
            err.contains("after 100 plies") && err.contains("after 200 plies"),
            "{err}"
        );
        assert!(!out.exists());
    }
}
