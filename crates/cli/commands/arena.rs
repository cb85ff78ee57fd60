//! `sumito arena`: a round-robin match between two or more players, with a
//! progress bar, tables of results and Elo ratings, a saved record of every
//! game, and a machine-readable last line `result: NAME=SCORE ...`. Matches
//! of classical players are played here; with a network player,
//! `sumito-torch` plays it with its own registry (`network/arena.rs`).

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use sumito_arena::PlayerSpec;
use sumito_arena::arena::{MatchBoard, MatchConfig, MatchStart, check_record_dir, play_match};
use sumito_arena::ladder::{LADDER_MAX_PLIES as DEFAULT_MAX_PLIES, ladder_rules};
use sumito_arena::player::{Entrant, PlayerRegistry};
use sumito_arena::players::general::general_registry;
use sumito_arena::report::{result_line, summary};
use sumito_arena::sprt::SprtConfig;
use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::{RulesTable, Targets};
use sumito_engine::{Layout, Rules};

use super::match_observer::CommandObserver;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// A player, as NAME or NAME:key=value,... (give two or more):
    /// `random`; `greedy[:weights=PATH]`;
    /// `alphabeta[:depth=N,time=DURATION,nodes=N,quiescence=N,tt_mb=N,weights=PATH]`
    /// (depth 3 if no depth, time or nodes is given; DURATION like 250ms or 2s);
    /// `net:model=CHECKPOINT_DIR[,simulations=N,precision=auto|f32|bf16]` (a
    /// checkpoint of a run, e.g. runs/quick/models/gen-000012; precision auto
    /// is bf16 where the CPU has it natively); `bundle[:model=NAME_OR_DIR,simulations=N]`
    /// (an exported model; without model=, the shipped one). Network players
    /// search with `simulations=N` (64) per move, with the Gumbel root over
    /// `considered=M` (16) moves, or with `puct=true` a PUCT root.
    #[arg(long = "player", value_name = "SPEC", required = true)]
    players: Vec<String>,
    /// Games per pairing: a multiple of the sides, since every opening is
    /// played once with each player on each side (with two players: once
    /// as Black) [default: 20, in games of more sides rounded up to a
    /// multiple of them].
    #[arg(long)]
    games: Option<u32>,
    /// Start layouts (comma-separated or repeated), used in turn by successive
    /// openings: standard, belgian-daisy, german-daisy, dutch-daisy,
    /// swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED,
    /// partly-random:SEED; for more players one of three-player,
    /// three-player-trapezoid, four-player, five-player, six-player (then
    /// give one --player per player, or per team in team games: seats are
    /// rotated from game to game) [default: standard, belgian-daisy and
    /// german-daisy in turn, as in the ladder; for the variants of --rules,
    /// standard].
    #[arg(long = "layout", value_delimiter = ',', value_parser = GeneralLayout::from_name)]
    layouts: Vec<GeneralLayout>,
    /// A TOML file whose [rules] table gives the rules (holes, obstacles,
    /// neutral marbles, shield and rotation moves, one colour, handicaps,
    /// partners in a row; see `sumito perft --help`). Its max_plies and
    /// marbles_to_win replace --max-plies and --marbles-to-win.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// Random plies (no pushes) played from the layout before the players take
    /// over, the same for both colour assignments, so that deterministic
    /// players meet varied positions.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Worker threads (games played at once); 0 means one per core. Network
    /// players of all games share one inference service per player, so more
    /// threads than cores (e.g. 16) give it larger batches.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Seed of the openings and of the players' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Folder for the game records [default: runs/arena/<UTC date-time>]; a
    /// folder that already holds game records is refused, never overwritten.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Move limit in plies: weak players can shuffle forever, so every game
    /// ends here; the player who pushed off more marbles wins, equal is a
    /// draw [default: a model player's training rules, else 200 as in the
    /// ladder]. A model plays only under the rules it was trained with: a
    /// value other than its own is refused.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_plies: Option<u32>,
    /// Marbles to push off to win [default: a model player's training rules,
    /// else 6].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=14))]
    marbles_to_win: Option<u8>,
    /// Also end a game after this many plies without a push-off (the player
    /// holding more of row E wins; equal is a draw).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    no_push_off_plies: Option<u32>,
    /// Stop a two-player match as soon as a sequential probability ratio test
    /// (α = β = 0.05) decides between H0: the first player is ELO0 stronger
    /// and H1: it is ELO1 stronger.
    #[arg(long, value_name = "ELO0,ELO1", value_parser = parse_sprt)]
    sprt: Option<SprtConfig>,
    /// Do not draw progress bars (`--quiet` is the same).
    #[arg(long = "no-progress", alias = "quiet")]
    quiet: bool,
}

fn parse_sprt(text: &str) -> Result<SprtConfig, String> {
    SprtConfig::parse(text).map_err(|e| e.to_string())
}

/// Games per pairing unless `--games` says.
const DEFAULT_GAMES: u32 = 20;

/// The openings of a two-player match unless `--layout` says: the ladder's.
const DEFAULT_LAYOUTS: [GeneralLayout; 3] = [
    GeneralLayout::Two(Layout::Standard),
    GeneralLayout::Two(Layout::BelgianDaisy),
    GeneralLayout::Two(Layout::GermanDaisy),
];

/// The kinds of player that are networks: `sumito-torch` registers them
/// (`network/arena.rs`), and a match with one of them is played there.
pub const NETWORK_PLAYER_KINDS: [&str; 2] = ["net", "bundle"];

/// The players `sumito` itself knows: the classical ones.
pub fn registry() -> PlayerRegistry {
    PlayerRegistry::builtin()
}

impl Args {
    /// Whether a player is a network (`net:` or `bundle`), so that the match
    /// is played by `sumito-torch`. A spec that does not parse is read here,
    /// where its error is reported.
    pub fn needs_network(&self) -> bool {
        self.players.iter().any(|text| {
            text.parse::<PlayerSpec>()
                .is_ok_and(|spec| NETWORK_PLAYER_KINDS.contains(&spec.kind.as_str()))
        })
    }
}

/// The players, named by their specs; a name given twice gets `#2`, `#3`, …
/// so that tables and the result line tell them apart.
fn entrants(registry: &PlayerRegistry, specs: &[String]) -> anyhow::Result<Vec<Entrant>> {
    let mut entrants: Vec<Entrant> = Vec::new();
    for text in specs {
        let spec: PlayerSpec = text
            .parse()
            .with_context(|| format!("reading --player {text:?}"))?;
        let mut entrant = registry
            .prepare(&spec)
            .with_context(|| format!("preparing --player {text:?}"))?;
        let taken: Vec<&str> = entrants.iter().map(|e| e.name.as_str()).collect();
        entrant.name = distinct_name(&entrant.name, &taken);
        entrants.push(entrant);
    }
    Ok(entrants)
}

/// `name`, or `name#2`, `name#3`, … the first that is not `taken`.
fn distinct_name(name: &str, taken: &[&str]) -> String {
    let mut distinct = name.to_owned();
    let mut copy = 1;
    while taken.contains(&distinct.as_str()) {
        copy += 1;
        distinct = format!("{name}#{copy}");
    }
    distinct
}

/// The names of `specs`, a name given twice numbered as in [`entrants`].
fn distinct_names(specs: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for spec in specs {
        let taken: Vec<&str> = names.iter().map(String::as_str).collect();
        let name = distinct_name(spec, &taken);
        names.push(name);
    }
    names
}

/// `runs/arena/YYYYMMDD-HHMMSS` (UTC now), the default record folder.
fn default_out_dir() -> PathBuf {
    stamped_dir("arena")
}

/// `runs/KIND/YYYYMMDD-HHMMSS` (UTC now): a fresh folder for one command's output.
pub fn stamped_dir(kind: &str) -> PathBuf {
    // `utc_timestamp` writes `YYYY-MM-DD HH:MM:SS`; keep the digits.
    let stamp: String = sumito_arena::record::utc_timestamp()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | ':' => None,
            c => Some(c),
        })
        .collect();
    PathBuf::from("runs").join(kind).join(stamp)
}

/// Each model of the general game among some specs, by spec, with the
/// `[rules]` table it learned under.
pub type TrainedTables = Vec<(String, RulesTable)>;

/// How a match of the general game gets its players: the rules each model
/// among its specs learned under, and the registry of the player kinds
/// ([`CLASSICAL_SEATS`] in `sumito`; `sumito-torch` adds the networks of
/// the general game).
#[derive(Debug)]
pub struct GeneralPlayers {
    /// The `[rules]` table (layouts included) of each model of the general
    /// game among the specs, by spec: read from its bundle, nothing loaded.
    pub trained: fn(&[String]) -> anyhow::Result<TrainedTables>,
    /// The player kinds of the general game.
    pub registry: fn() -> anyhow::Result<PlayerRegistry<GeneralPosition>>,
}

/// The classical players of the general game, and nothing else.
pub const CLASSICAL_SEATS: GeneralPlayers = GeneralPlayers {
    trained: |_| Ok(Vec::new()),
    registry: || Ok(general_registry()),
};

/// The entrants of `specs` in the general game, in order: each distinct
/// spec prepared once (a network loaded once, its games sharing it).
pub fn prepare_general(
    registry: &PlayerRegistry<GeneralPosition>,
    specs: &[String],
) -> anyhow::Result<Vec<Entrant<GeneralPosition>>> {
    let mut prepared: Vec<(&String, Entrant<GeneralPosition>)> = Vec::new();
    specs
        .iter()
        .map(|spec| {
            if let Some((_, entrant)) = prepared.iter().find(|(known, _)| *known == spec) {
                return Ok(entrant.clone());
            }
            let entrant = registry
                .prepare_str(spec)
                .with_context(|| format!("player {spec:?}"))?;
            prepared.push((spec, entrant.clone()));
            Ok(entrant)
        })
        .collect()
}

/// The rules given beside a `[rules]` table, by flags.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleFlags {
    pub max_plies: Option<u32>,
    pub no_push_off_plies: Option<u32>,
    pub marbles_to_win: Option<u8>,
}

/// The rules and layout of a game of the general game with model seats
/// (`trained`: each one's table, by spec), `None` without: the table they
/// learned under (all must share one) and a layout among those they
/// learned (their first by default); a key of `given` or a flag that
/// differs from theirs is refused, as in two-player matches.
pub fn model_rules(
    given: &RulesTable,
    flags: RuleFlags,
    layout: Option<GeneralLayout>,
    trained: &[(String, RulesTable)],
) -> anyhow::Result<Option<(RulesTable, GeneralLayout)>> {
    let Some((model, own)) = trained.first() else {
        return Ok(None);
    };
    let cannot = |what: String| {
        anyhow::anyhow!(
            "{what}: a model plays only under the rules it learned ({model} learned under {}); leave it out to play under them",
            own.describe()
        )
    };
    for (other, theirs) in &trained[1..] {
        if theirs != own {
            bail!(
                "{other} was trained under other rules ({}) than {model} ({}): a model plays only under the rules it learned, so these two cannot meet",
                theirs.describe(),
                own.describe()
            );
        }
    }
    if let Some((key, value, theirs)) = given.conflicts_with(own).into_iter().next() {
        return Err(cannot(format!(
            "--rules sets {key} = {value}, where the model's rules say {theirs}"
        )));
    }
    let limits = [
        ("--max-plies", flags.max_plies, own.max_plies),
        (
            "--no-push-off-plies",
            flags.no_push_off_plies,
            own.no_push_off_plies,
        ),
    ];
    for (flag, value, theirs) in limits {
        if let Some(value) = value.filter(|&value| Some(value) != theirs) {
            return Err(cannot(format!("{flag} {value}")));
        }
    }
    if let Some(n) = flags.marbles_to_win
        && own.marbles_to_win.as_ref() != Some(&Targets::All(n))
    {
        return Err(cannot(format!("--marbles-to-win {n}")));
    }
    let names = own.layouts.clone().unwrap_or_default();
    let learned = names
        .iter()
        .map(|name| {
            GeneralLayout::from_name(name).with_context(|| format!("{model}'s layout {name:?}"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let layout = match (layout, learned.first()) {
        (Some(layout), _) if learned.is_empty() || learned.contains(&layout) => layout,
        (Some(layout), _) => bail!(
            "--layout {layout}: {model} learned only on {}; give one of those, or leave --layout out for the first",
            names.join(", ")
        ),
        (None, Some(first)) => *first,
        (None, None) => GeneralLayout::Two(Layout::Standard),
    };
    Ok(Some((own.clone(), layout)))
}

/// The rules and layouts of a match of the general game: its models' rules
/// ([`model_rules`], each layout one they learned; by default their first),
/// or without models the given table with the ladder's limits where it
/// sets none (by default on the standard layout).
fn general_match_rules(
    args: &Args,
    given: &RulesTable,
    trained: &[(String, RulesTable)],
) -> anyhow::Result<(RulesTable, Vec<GeneralLayout>)> {
    let flags = RuleFlags {
        max_plies: args.max_plies,
        no_push_off_plies: args.no_push_off_plies,
        marbles_to_win: args.marbles_to_win,
    };
    let asked: Vec<Option<GeneralLayout>> = if args.layouts.is_empty() {
        vec![None]
    } else {
        args.layouts.iter().copied().map(Some).collect()
    };
    if !trained.is_empty() {
        let mut chosen = Vec::new();
        let mut table = None;
        for layout in asked {
            let (own, layout) =
                model_rules(given, flags, layout, trained)?.expect("a model among the players");
            table = Some(own);
            chosen.push(layout);
        }
        return Ok((table.expect("at least one layout"), chosen));
    }
    let mut table = given.clone();
    table.max_plies = table
        .max_plies
        .or(args.max_plies)
        .or(Some(DEFAULT_MAX_PLIES));
    table.no_push_off_plies = table.no_push_off_plies.or(args.no_push_off_plies);
    if table.marbles_to_win.is_none() {
        table.marbles_to_win = Some(Targets::All(args.marbles_to_win.unwrap_or(6)));
    }
    let layouts = asked
        .into_iter()
        .map(|layout| layout.unwrap_or(GeneralLayout::Two(Layout::Standard)))
        .collect();
    Ok((table, layouts))
}

/// A match of the general game: its layouts in turn, the players by side.
fn run_general(
    args: &Args,
    given: &RulesTable,
    trained: &[(String, RulesTable)],
    players: &GeneralPlayers,
) -> anyhow::Result<()> {
    let (table, layouts) = general_match_rules(args, given, trained)?;
    let starts = layouts
        .iter()
        .map(|&layout| MatchStart::general(layout, &table))
        .collect::<Result<Vec<_>, String>>()
        .map_err(anyhow::Error::msg)?;
    let rules = *starts[0].position.rules();
    if let Some(other) = starts
        .iter()
        .find(|start| start.position.rules().seating.sides() != rules.seating.sides())
    {
        bail!(
            "--layout {} and {} seat different numbers of sides: a match's layouts must seat the same",
            starts[0].layout,
            other.layout
        );
    }
    let sides = rules.seating.sides();
    if args.players.len() != sides {
        bail!(
            "{} players for {} sides: give one --player per {} in turn order",
            args.players.len(),
            sides,
            if rules.seating.teams() {
                "team"
            } else {
                "player"
            }
        );
    }
    let games = match args.games {
        Some(games) => games,
        None => DEFAULT_GAMES.div_ceil(sides as u32) * sides as u32,
    };
    if games == 0 || !games.is_multiple_of(sides as u32) {
        bail!(
            "--games {games} must be a positive multiple of the {sides} sides: every opening is \
             played once with each player on each side"
        );
    }
    // Before the match: records already in --out are never overwritten.
    let out = args.out.clone().unwrap_or_else(default_out_dir);
    check_record_dir(&out).context("--out")?;
    let names: Vec<String> = layouts.iter().map(ToString::to_string).collect();
    println!("{}: {rules}", names.join(", "));
    let mut entrants = prepare_general(&(players.registry)()?, &args.players)?;
    for (entrant, name) in entrants.iter_mut().zip(distinct_names(&args.players)) {
        entrant.name = name;
    }
    let config = MatchConfig {
        games_per_pairing: games,
        starts,
        rules: table,
        opening_plies: args.opening_plies,
        seed: args.seed,
        threads: args.threads,
        record_dir: Some(out),
        sprt: args.sprt,
    };
    play_and_report(args, &entrants, &config)
}

/// Plays the match and prints its tables, where its records went and the
/// `result:` line.
fn play_and_report<B: MatchBoard>(
    args: &Args,
    entrants: &[Entrant<B>],
    config: &MatchConfig<B>,
) -> anyhow::Result<()> {
    let observer = CommandObserver::new(args.quiet)?;
    let results = play_match(entrants, config, &observer).context("playing the match")?;
    let ratings = results.ratings().map_err(|e| e.to_string());
    print!("{}", summary(&results, &ratings));
    if let Some(out) = &config.record_dir {
        println!("game records: {}", out.display());
    }
    println!("{}", result_line(&results));
    Ok(())
}

/// The rules of a two-player match: those of its model players (all must
/// have learned under the same), with a rule given by `--rules` or a flag
/// refused where it differs from theirs; without models, the given rules
/// and for the rest the ladder's (6 marbles, 200 plies).
fn match_rules(args: &Args, table: &RulesTable, entrants: &[Entrant]) -> anyhow::Result<Rules> {
    let marbles_to_win = match table.marbles_to_win {
        Some(Targets::All(n)) => Some(n),
        Some(_) => bail!("a two-player match takes one marbles_to_win for both players"),
        None => args.marbles_to_win,
    };
    let max_plies = table.max_plies.or(args.max_plies);
    let no_push_off_plies = table.no_push_off_plies.or(args.no_push_off_plies);
    let mut trained: Option<(&Entrant, Rules)> = None;
    for entrant in entrants {
        let Some(rules) = entrant.trained_rules else {
            continue;
        };
        match trained {
            Some((first, first_rules)) if first_rules != rules => bail!(
                "{} was trained under other rules ({}) than {} ({}): a model plays only under \
                 the rules it learned, so these two cannot meet",
                entrant.name,
                rules.describe(),
                first.name,
                first_rules.describe()
            ),
            Some(_) => {}
            None => trained = Some((entrant, rules)),
        }
    }
    let Some((model, rules)) = trained else {
        let ladder = ladder_rules();
        return Ok(Rules {
            marbles_to_win: marbles_to_win.unwrap_or(ladder.marbles_to_win),
            max_plies: max_plies.or(ladder.max_plies),
            no_push_off_plies,
        });
    };
    let show = |plies: Option<u32>| plies.map_or_else(|| "none".to_owned(), |n| n.to_string());
    // (what, its flag, the value given if it differs from the model's, the model's)
    let differences = [
        (
            "marbles to win",
            "--marbles-to-win",
            marbles_to_win
                .filter(|&n| n != rules.marbles_to_win)
                .map(u32::from),
            rules.marbles_to_win.to_string(),
        ),
        (
            "move limit",
            "--max-plies",
            max_plies.filter(|&n| Some(n) != rules.max_plies),
            show(rules.max_plies),
        ),
        (
            "plies without a push-off",
            "--no-push-off-plies",
            no_push_off_plies.filter(|&n| Some(n) != rules.no_push_off_plies),
            show(rules.no_push_off_plies),
        ),
    ];
    for (what, flag, given, own) in differences {
        if let Some(given) = given {
            bail!(
                "{what} {given} ({flag} or --rules) differs from the rules {} was trained under \
                 ({what} {own}): a model plays only under the rules it learned; leave {flag} out \
                 to play under them",
                model.name
            );
        }
    }
    Ok(rules)
}

/// Plays the match of `args` with the players `registry` knows (and, for
/// the general game, those `general` makes).
pub fn run(args: Args, registry: &PlayerRegistry, general: &GeneralPlayers) -> anyhow::Result<()> {
    let table = match &args.rules {
        Some(path) => RulesTable::read(path)?,
        None => RulesTable::default(),
    };
    // A model of the general game among the players makes it a match of
    // the general game, under that model's rules.
    let trained = (general.trained)(&args.players)?;
    if table.is_general()
        || !trained.is_empty()
        || args
            .layouts
            .iter()
            .any(|l| !matches!(l, GeneralLayout::Two(_)))
    {
        return run_general(&args, &table, &trained, general);
    }
    if args.players.len() < 2 {
        bail!(
            "give at least two --player options (got {}), e.g. --player random --player alphabeta:depth=3",
            args.players.len()
        );
    }
    let games = args.games.unwrap_or(DEFAULT_GAMES);
    if games == 0 || !games.is_multiple_of(2) {
        bail!(
            "--games {games} must be even and positive: every opening is played once with each player as Black"
        );
    }
    let out = args.out.clone().unwrap_or_else(default_out_dir);
    // Before the players load: records already in --out are never overwritten.
    check_record_dir(&out).context("--out")?;
    let entrants = entrants(registry, &args.players)?;
    let rules = match_rules(&args, &table, &entrants)?;
    println!("rules: {}", rules.describe());
    let layouts: Vec<Layout> = if args.layouts.is_empty() {
        DEFAULT_LAYOUTS.to_vec()
    } else {
        args.layouts.clone()
    }
    .iter()
    .filter_map(|layout| match layout {
        GeneralLayout::Two(two) => Some(*two),
        _ => None,
    })
    .collect();
    let config = MatchConfig {
        games_per_pairing: games,
        opening_plies: args.opening_plies,
        seed: args.seed,
        threads: args.threads,
        record_dir: Some(out),
        sprt: args.sprt,
        ..MatchConfig::two_player(&layouts, rules)
    };
    play_and_report(&args, &entrants, &config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_folder_is_named_by_the_time() {
        let dir = default_out_dir();
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert!(dir.starts_with("runs/arena"));
        assert_eq!(name.len(), 15, "{name}");
        assert_eq!(&name[8..9], "-");
        assert!(
            name.chars()
                .filter(|c| *c != '-')
                .all(|c| c.is_ascii_digit())
        );
    }

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &[&str]) -> Result<Args, clap::Error> {
        use clap::Parser;
        Cli::try_parse_from(std::iter::once("arena").chain(line.iter().copied())).map(|c| c.args)
    }

    /// `sumito arena` of `players` on `layouts` (comma-separated), quiet,
    /// its records in `out`.
    fn quiet_match(
        players: &[&str],
        layouts: &str,
        games: &str,
        max_plies: &str,
        out: &str,
    ) -> Args {
        let mut line = vec!["--layout", layouts, "--games", games];
        line.extend(["--max-plies", max_plies, "--quiet", "--out", out]);
        for player in players {
            line.extend(["--player", player]);
        }
        parse(&line).unwrap()
    }

    #[test]
    fn runs_a_match_and_saves_replayable_records() {
        let dir = std::env::temp_dir().join(format!("sumito-cli-arena-{}", std::process::id()));
        let out = dir.to_str().unwrap();
        let args = quiet_match(
            &["random", "greedy"],
            "standard,german-daisy",
            "2",
            "80",
            out,
        );
        run(args, &registry(), &CLASSICAL_SEATS).unwrap();
        let records: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(records.len(), 2);
        for path in records {
            let record =
                sumito_arena::record::GameRecord::<sumito_engine::Position>::read(&path).unwrap();
            assert_eq!(record.rules.max_plies, Some(80));
            assert!(record.result.is_some());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_match_of_the_general_game_takes_its_layouts_in_turn() {
        let dir =
            std::env::temp_dir().join(format!("sumito-cli-arena-three-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let players = ["greedy", "random", "random"];
        let line = |layouts: &str, games: &str| {
            quiet_match(&players, layouts, games, "40", dir.to_str().unwrap())
        };
        run(
            line("three-player,three-player-trapezoid", "6"),
            &registry(),
            &CLASSICAL_SEATS,
        )
        .unwrap();
        let mut layouts: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| {
                let record = sumito_arena::record::GameRecord::<
                    sumito_engine::general::GeneralPosition,
                >::read(&entry.unwrap().path())
                .unwrap();
                assert!(record.result.is_some());
                match record.start {
                    sumito_arena::record::Start::Layout(layout) => layout.to_string(),
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        layouts.sort();
        assert_eq!(
            layouts,
            [
                "three-player",
                "three-player",
                "three-player",
                "three-player-trapezoid",
                "three-player-trapezoid",
                "three-player-trapezoid"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        // Layouts of other numbers of sides cannot share a match; games
        // come in whole rotations of the sides.
        let err = run(
            line("three-player,four-player", "6"),
            &registry(),
            &CLASSICAL_SEATS,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("seat different numbers of sides"), "{err}");
        let err = run(line("three-player", "4"), &registry(), &CLASSICAL_SEATS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("multiple of the 3 sides"), "{err}");
    }

    #[test]
    fn a_model_of_the_general_game_plays_under_its_table_and_layouts() {
        let own = RulesTable::from_toml(
            "[rules]\nmax_plies = 240\nmarbles_to_win = 6\nlayouts = [\"three-player\", \"four-player\"]\n",
        )
        .unwrap();
        let trained = [("bundle:model=m".to_owned(), own.clone())];
        let none = RulesTable::default();
        let three = GeneralLayout::from_name("three-player").unwrap();
        let four = GeneralLayout::from_name("four-player").unwrap();
        // No model: nothing chosen here.
        assert!(
            model_rules(&none, RuleFlags::default(), None, &[])
                .unwrap()
                .is_none()
        );
        // Its table, and its first layout unless another it learned is given.
        let chosen = model_rules(&none, RuleFlags::default(), None, &trained).unwrap();
        assert_eq!(chosen, Some((own.clone(), three)));
        let chosen = model_rules(&none, RuleFlags::default(), Some(four), &trained).unwrap();
        assert_eq!(chosen, Some((own.clone(), four)));
        let standard = GeneralLayout::Two(Layout::Standard);
        let err = model_rules(&none, RuleFlags::default(), Some(standard), &trained)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("learned only on three-player, four-player"),
            "{err}"
        );
        // The same limits given: fine; others, by flag or by --rules: refused.
        let same = RuleFlags {
            max_plies: Some(240),
            marbles_to_win: Some(6),
            ..RuleFlags::default()
        };
        assert!(model_rules(&none, same, None, &trained).unwrap().is_some());
        let other = RuleFlags {
            max_plies: Some(400),
            ..RuleFlags::default()
        };
        let err = model_rules(&none, other, None, &trained)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--max-plies 400") && err.contains("max_plies = 240"),
            "{err}"
        );
        let holes = RulesTable::from_toml("[rules]\nholes = [\"E5\"]\n").unwrap();
        let err = model_rules(&holes, RuleFlags::default(), None, &trained)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--rules sets holes"), "{err}");
        // Two models of different tables cannot meet.
        let mut shorter = own.clone();
        shorter.max_plies = Some(100);
        let two = [trained[0].clone(), ("bundle:model=n".to_owned(), shorter)];
        let err = model_rules(&none, RuleFlags::default(), None, &two)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot meet"), "{err}");
    }

    #[test]
    fn a_model_plays_under_its_training_rules_and_no_others() {
        let model = |name: &str, max_plies: Option<u32>| {
            let mut entrant = registry()
                .prepare_str("random")
                .unwrap()
                .with_trained_rules(Rules {
                    max_plies,
                    ..Rules::default()
                });
            entrant.name = name.to_owned();
            entrant
        };
        let classical = registry().prepare_str("greedy").unwrap();
        let table = RulesTable::default();
        let plain = parse(&["--player", "a", "--player", "b"]).unwrap();
        // No model: the ladder's rules.
        assert_eq!(
            match_rules(&plain, &table, std::slice::from_ref(&classical)).unwrap(),
            ladder_rules()
        );
        // A model's own rules, whatever the defaults.
        let trained = [model("m", Some(150)), classical.clone()];
        let rules = match_rules(&plain, &table, &trained).unwrap();
        assert_eq!(rules.max_plies, Some(150));
        // The same rules given: fine; others: refused, naming both.
        let same = parse(&["--player", "a", "--player", "b", "--max-plies", "150"]).unwrap();
        assert_eq!(match_rules(&same, &table, &trained).unwrap(), rules);
        let other = parse(&["--player", "a", "--player", "b", "--max-plies", "400"]).unwrap();
        let err = match_rules(&other, &table, &trained)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("400") && err.contains("150") && err.contains("--max-plies"),
            "{err}"
        );
        let marbles = parse(&["--player", "a", "--player", "b", "--marbles-to-win", "5"]).unwrap();
        let err = match_rules(&marbles, &table, &trained)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--marbles-to-win") && err.contains('5'),
            "{err}"
        );
        // Two models of different rules cannot meet.
        let err = match_rules(&plain, &table, &[model("m", Some(150)), model("n", None)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no move limit") && err.contains("150"),
            "{err}"
        );
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        let err = parse(&["--player", "random", "--layout", "hexagon"]).unwrap_err();
        assert!(err.to_string().contains("hexagon"), "{err}");
        let err = parse(&["--player", "random", "--sprt", "50,0"]).unwrap_err();
        assert!(err.to_string().contains("elo0 < elo1"), "{err}");
        let err = parse(&["--player", "random", "--max-plies", "0"]).unwrap_err();
        assert!(err.to_string().contains("max-plies"), "{err}");
        let one = run(
            parse(&["--player", "random"]).unwrap(),
            &registry(),
            &CLASSICAL_SEATS,
        )
        .unwrap_err();
        assert!(one.to_string().contains("at least two"), "{one}");
        let odd = parse(&["--player", "random", "--player", "greedy", "--games", "3"]).unwrap();
        assert!(
            run(odd, &registry(), &CLASSICAL_SEATS)
                .unwrap_err()
                .to_string()
                .contains("even")
        );
    }

    #[test]
    fn duplicate_players_get_numbered() {
        let registry = registry();
        let specs = ["random", "random", "greedy"].map(String::from);
        let names: Vec<String> = entrants(&registry, &specs)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["random", "random#2", "greedy"]);
        // A match of the general game names its seats' players alike.
        let specs = ["greedy", "greedy", "random", "greedy"].map(String::from);
        assert_eq!(
            distinct_names(&specs),
            ["greedy", "greedy#2", "random", "greedy#3"]
        );
        let err = entrants(&registry, &["alphabeta:depht=3".to_string()]).unwrap_err();
        assert!(format!("{err:#}").contains("depht"), "{err:#}");
    }
}
