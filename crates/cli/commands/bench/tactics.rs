//! `sumito bench tactics`: the solve rate of players on the tactics suite
//! (`sumito_arena::tactics`: capture, defence, combination), per kind with
//! 95 % intervals, over the whole suite and by phase of the game
//! (`sumito_arena::tactics::PHASES`); `--generate` makes a suite. Classical players are measured
//! here; a network player (`--model`, or a `net:`/`bundle:` spec) by
//! `sumito-torch` with the same code and its registry, so that a model
//! chooses its move as in `sumito arena` and `sumito ladder` (the search
//! without noise, then `sumito_game::choose_move`, as `sumito play`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use sumito_arena::PlayerSpec;
use sumito_arena::player::PlayerRegistry;
use sumito_arena::tactics::{
    CAPTURE_DEPTH, COMBINATION_DEPTH, CONFIRM_DEPTH, DEFENCE_DEPTH, GAME_PLAYERS, GenerateConfig,
    Kind, LAST_PLY, LAYOUTS, MAX_SOLUTIONS, NOISE, OPENING_PLIES, PER_GAME_AND_KIND, SHIPPED_SUITE,
    SolveReport, Suite, generate, solve,
};

use crate::commands::command_board::NETWORK_PLAYER_KINDS;

/// Simulations a move of `--model` unless `--simulations` says: the ladder's.
const DEFAULT_SIMULATIONS: u32 = 400;
/// Games the generator gives up after, per position wanted of each kind.
const GAMES_PER_POSITION: usize = 50;

/// The options of `sumito bench tactics`.
#[derive(Debug, Default, ClapArgs)]
pub struct Args {
    /// A player to measure (repeat for several), any spec of `sumito arena`
    /// (`greedy`, `alphabeta:depth=3`, `bundle:model=quick`).
    #[arg(long = "player", value_name = "SPEC")]
    pub players: Vec<String>,
    /// A model bundle to measure (a name under models/ or a folder), as a
    /// `bundle:` player with `--simulations`.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<PathBuf>,
    /// `--model`: simulations a move of the model [default: 400].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub simulations: Option<u32>,
    /// The suite to measure on [default: the shipped one,
    /// crates/arena/tactics/suite.txt, built into the binary].
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
    /// Measure every position as if N plies had been played
    /// (its board and solving moves unchanged; 0 to 199): how a network's
    /// price of a marble depends on how near the move limit is.
    #[arg(long, value_name = "N")]
    pub at_ply: Option<u32>,
    /// Print the reports as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Positions searched (or, with --generate, games played) at
    /// once [default: 16 for a network, which batches them; else one per core].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Make a suite from games of classical players instead of
    /// measuring one (with --out, --per-kind, --seed).
    #[arg(long)]
    pub generate: bool,
    /// `--generate`: the suite file to write.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// `--generate`: positions of each kind [default: 200].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub per_kind: Option<u64>,
    /// `--generate`: the seed of the games [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
}

impl Args {
    /// The specs of the players to measure: `--player`s, then `--model` as a
    /// `bundle:` player with `--simulations`.
    pub fn player_specs(&self) -> anyhow::Result<Vec<PlayerSpec>> {
        let mut specs = self
            .players
            .iter()
            .map(|text| {
                text.parse::<PlayerSpec>()
                    .with_context(|| format!("reading --player {text:?}"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        if let Some(model) = &self.model {
            let simulations = self.simulations.unwrap_or(DEFAULT_SIMULATIONS);
            specs.push(PlayerSpec {
                kind: "bundle".to_string(),
                params: vec![
                    ("model".to_string(), model.display().to_string()),
                    ("simulations".to_string(), simulations.to_string()),
                ],
            });
        }
        Ok(specs)
    }

    /// Whether a player is a network, so that `sumito-torch` runs the part.
    pub fn needs_network(&self) -> bool {
        self.model.is_some()
            || self.players.iter().any(|text| {
                text.parse::<PlayerSpec>()
                    .is_ok_and(|spec| NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str()))
            })
    }

    /// Refuses options that do not go together.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.generate {
            if self.out.is_none() {
                bail!("`sumito bench tactics --generate` needs --out FILE, the suite to write");
            }
            if !self.players.is_empty() || self.model.is_some() || self.simulations.is_some() {
                bail!(
                    "--generate makes a suite and measures no player: drop --player, --model and --simulations"
                );
            }
            if self.suite.is_some() || self.json || self.at_ply.is_some() {
                bail!("--suite, --at-ply and --json apply to measuring, not to --generate");
            }
        } else {
            if self.out.is_some() || self.per_kind.is_some() || self.seed.is_some() {
                bail!("--out, --per-kind and --seed apply only with --generate");
            }
            if self.players.is_empty() && self.model.is_none() {
                bail!(
                    "`sumito bench tactics` needs a player: --player SPEC (e.g. alphabeta:depth=3) or --model MODEL"
                );
            }
            if self.simulations.is_some() && self.model.is_none() {
                bail!(
                    "--simulations applies to --model; a --player spec sets its own (bundle:simulations=N)"
                );
            }
        }
        Ok(())
    }
}

/// Runs the part with the players `registry` knows.
pub fn run(args: &Args, registry: &PlayerRegistry) -> anyhow::Result<()> {
    args.check()?;
    if args.generate {
        return run_generate(args);
    }
    let suite = match &args.suite {
        Some(path) => {
            let text = sumito_fsio::read_text_capped(path, sumito_fsio::MAX_TEXT_FILE_BYTES)
                .with_context(|| format!("reading the suite {}", path.display()))?;
            Suite::parse(&text).with_context(|| format!("in the suite {}", path.display()))?
        }
        None => Suite::parse(SHIPPED_SUITE).context("in the shipped suite")?,
    };
    if suite.tactics.is_empty() {
        bail!("the suite has no positions");
    }
    let suite = match args.at_ply {
        Some(ply) => suite
            .at_ply(ply)
            .map_err(|err| anyhow::anyhow!("--at-ply {ply}: {err}"))?,
        None => suite,
    };
    // A stop (Ctrl-C, SIGTERM) ends the measurement after the positions
    // under way: a partial solve rate is not reported.
    let stop = crate::commands::match_observer::stop_on_signal()?;
    let mut reports = Vec::new();
    for spec in args.player_specs()? {
        let entrant = registry
            .prepare(&spec)
            .with_context(|| format!("preparing the player {spec}"))?;
        let network = NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str());
        let threads = args
            .threads
            .map_or_else(|| if network { 16 } else { cores() }, |n| n as usize);
        let started = Instant::now();
        let done = AtomicUsize::new(0);
        let total = suite.tactics.len();
        let terminal = std::io::stderr().is_terminal();
        let report = solve(&entrant, &suite, threads, &|| {
            if stop.load(Ordering::Relaxed) {
                eprintln!("stopped on request: nothing is reported");
                std::process::exit(1);
            }
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            if terminal {
                eprint!("\r{}: {done}/{total} positions", entrant.name);
                let _ = std::io::stderr().flush();
            }
        })
        .with_context(|| format!("solving with {}", entrant.name))?;
        if terminal {
            eprintln!();
        }
        let seconds = started.elapsed().as_secs_f64();
        if args.json {
            reports.push(serde_json::json!({
                "report": report,
                "seconds": seconds,
                "threads": threads,
            }));
        } else {
            print_report(&report, seconds, threads);
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(())
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn print_report(report: &SolveReport, seconds: f64, threads: usize) {
    print!("{}", report.markdown());
    println!(
        "({} positions in {seconds:.1} s, {threads} at once)\n",
        report.total.positions
    );
}

/// `--generate`: plays games, writes the suite with a header that says how
/// it was made.
fn run_generate(args: &Args) -> anyhow::Result<()> {
    let out = args.out.as_ref().expect("checked: --generate has --out");
    let per_kind = args.per_kind.unwrap_or(200) as usize;
    let seed = args.seed.unwrap_or(1);
    let config = GenerateConfig {
        per_kind,
        seed,
        threads: args.threads.map_or_else(cores, |n| n as usize),
        max_games: per_kind.saturating_mul(GAMES_PER_POSITION),
    };
    let started = Instant::now();
    let generated = generate(&config, &|so_far| {
        let counts: Vec<String> = Kind::ALL
            .iter()
            .map(|&kind| format!("{kind} {}", so_far.suite.count(kind)))
            .collect();
        eprintln!(
            "{} games, {} positions: {} ({:.0} s)",
            so_far.games,
            so_far.positions,
            counts.join(", "),
            started.elapsed().as_secs_f64()
        );
    })
    .context("playing the games")?;
    let seconds = started.elapsed().as_secs_f64();
    let counts: Vec<String> = Kind::ALL
        .iter()
        .map(|&kind| format!("{kind} {}", generated.suite.count(kind)))
        .collect();
    let short: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|&kind| generated.suite.count(kind) < per_kind)
        .collect();
    let layouts: Vec<String> = LAYOUTS.iter().map(|layout| layout.to_string()).collect();
    let mut text = format!(
        "# Sumito tactics suite: positions where an exhaustive search of material\n\
         # proves the right moves for the side to move (the checks and this format:\n\
         # crates/arena/src/tactics.rs; read under the ladder's rules).\n\
         # kind | position text | the solving moves (Aba-Pro notation)\n\
         #\n\
         # made by: sumito bench tactics --generate --out {} --per-kind {per_kind} --seed {seed}\n\
         # on {} UTC, git {}, in {seconds:.0} s ({} threads; the result does not depend on them)\n\
         # games: {} ({} positions looked at), from {} in turn, {OPENING_PLIES} random quiet plies,\n\
         #   then one of {} per side, {:.0} % of moves random; positions up to ply {LAST_PLY},\n\
         #   at most {PER_GAME_AND_KIND} of each kind a game\n\
         # material depths: capture {CAPTURE_DEPTH}, combination {COMBINATION_DEPTH}, defence {DEFENCE_DEPTH}, each confirmed at {CONFIRM_DEPTH};\n\
         #   at most {MAX_SOLUTIONS} solving moves for a combination or a defence\n\
         # positions: {}\n",
        out.display(),
        sumito_arena::record::utc_timestamp(),
        git_commit(),
        config.threads,
        generated.games,
        generated.positions,
        layouts.join(", "),
        GAME_PLAYERS.join(", "),
        NOISE * 100.0,
        counts.join(", "),
    );
    for kind in Kind::ALL {
        for tactic in generated.suite.tactics.iter().filter(|t| t.kind == kind) {
            text += &tactic.line();
            text.push('\n');
        }
    }
    sumito_arena::record::write_atomic(out, text.as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    println!(
        "wrote {}: {} in {} games, {seconds:.0} s",
        out.display(),
        counts.join(", "),
        generated.games
    );
    if !short.is_empty() {
        bail!(
            "after {} games (the most for --per-kind {per_kind}) the suite is short of {}: written as it is",
            generated.games,
            short
                .iter()
                .map(|kind| kind.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// The commit of the working tree the command runs in (`-dirty` if it has
/// changes), for the suite's header; `unknown` outside a git checkout.
fn git_commit() -> String {
    std::process::Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::arena_board::ArenaBoard;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &[&str]) -> Args {
        use clap::Parser;
        Cli::try_parse_from(std::iter::once("tactics").chain(line.iter().copied()))
            .unwrap()
            .args
    }

    fn check(line: &[&str]) -> Result<(), String> {
        parse(line).check().map_err(|err| err.to_string())
    }

    #[test]
    fn options_that_do_not_go_together_are_refused() {
        assert!(check(&["--player", "greedy"]).is_ok());
        assert!(check(&["--model", "quick", "--simulations", "64"]).is_ok());
        assert!(check(&["--generate", "--out", "x.txt", "--per-kind", "3"]).is_ok());
        for (line, expected) in [
            (&[][..], "needs a player"),
            (&["--generate"][..], "needs --out"),
            (
                &["--generate", "--out", "x", "--player", "greedy"][..],
                "measures no player",
            ),
            (
                &["--player", "greedy", "--seed", "3"][..],
                "only with --generate",
            ),
            (
                &["--generate", "--out", "x", "--at-ply", "5"][..],
                "apply to measuring",
            ),
            (
                &["--player", "greedy", "--simulations", "8"][..],
                "--simulations applies to --model",
            ),
        ] {
            let err = check(line).unwrap_err();
            assert!(err.contains(expected), "{line:?}: {err}");
        }
    }

    #[test]
    fn the_model_is_a_bundle_player_and_networks_go_to_sumito_torch() {
        let args = parse(&["--player", "greedy", "--model", "models/quick"]);
        let specs: Vec<String> = args
            .player_specs()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            specs,
            ["greedy", "bundle:model=models/quick,simulations=400"]
        );
        assert!(args.needs_network());
        assert!(!parse(&["--player", "alphabeta:depth=2"]).needs_network());
        assert!(parse(&["--player", "bundle:model=quick"]).needs_network());
    }

    #[test]
    fn generating_a_tiny_suite_writes_one_that_reads_back() {
        let dir = std::env::temp_dir().join(format!("sumito-tactics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("suite.txt");
        let args = parse(&[
            "--generate",
            "--out",
            out.to_str().unwrap(),
            "--per-kind",
            "1",
            "--seed",
            "5",
        ]);
        run(&args, &sumito_engine::Position::classical_players()).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("--per-kind 1 --seed 5"), "{text}");
        let suite = Suite::parse(&text).unwrap();
        for kind in Kind::ALL {
            assert_eq!(suite.count(kind), 1, "{kind}");
        }
        // Measuring a player on it, as JSON, then near the move limit and
        // past it.
        let measure = |options: &[&str]| {
            let mut line = vec!["--player", "greedy", "--suite", out.to_str().unwrap()];
            line.extend_from_slice(options);
            run(&parse(&line), &sumito_engine::Position::classical_players())
        };
        measure(&["--json"]).unwrap();
        measure(&["--at-ply", "199"]).unwrap();
        let err = format!("{:#}", measure(&["--at-ply", "200"]).unwrap_err());
        assert!(
            err.contains("--at-ply 200") && err.contains("move limit"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
