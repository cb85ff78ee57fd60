//! `sumito arena`: a round-robin match between two or more players, with a
//! progress bar, tables of results and Elo ratings, a saved record of every
//! game, and a machine-readable last line `result: NAME=SCORE ...`. Matches
//! of classical players are played here; with a network player,
//! `sumito-torch` plays it with its own registry (`network/arena.rs`).

use std::path::{Path, PathBuf};
use sumito_game::Board;

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use sumito_arena::PlayerSpec;
use sumito_arena::arena::{MatchConfig, MatchStart, check_record_dir, play_match};
use sumito_arena::match_start::default_layouts;
use sumito_arena::player::Entrant;
use sumito_arena::report::{result_line, summary};
use sumito_arena::sprt::SprtConfig;
use sumito_engine::general::GeneralLayout;
use sumito_engine::quote_position_text;
use sumito_engine::rules_table::RulesTable;
use sumito_game::{GameKind, with_board};

use super::command_board::{
    CommandBoard, NETWORK_PLAYER_KINDS, PlayerKinds, RuleFlags, learned_layouts, match_start,
    model_rules, prepare_players, rules_of, table_without_models, trained_tables,
};
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
    /// `considered=M` (16) moves (every parameter: docs/strength.md).
    #[arg(long = "player", value_name = "SPEC", required = true)]
    players: Vec<String>,
    /// Games per pairing: a multiple of the sides, since every opening is
    /// played once with each player on each side (with two players: once
    /// as Black) [default: 20, in games of more sides rounded up to a
    /// multiple of them; with --start, every position once with each
    /// player on each side].
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
    /// A file of start positions, in place of layouts: one position a line
    /// in the text format (as `sumito moves --fen` reads it; blank lines and
    /// lines starting with `#` are skipped), used in turn by successive
    /// openings, each with its own ply counters (the move limit counts on
    /// from them). Give `--opening-plies 0` to start at the positions
    /// themselves: a suite of test positions, or an opening book.
    #[arg(long = "start", value_name = "FILE", conflicts_with = "layouts")]
    start_file: Option<PathBuf>,
    /// A TOML file whose [rules] table gives the rules (holes, obstacles,
    /// neutral marbles, shield and rotation moves, one colour, handicaps,
    /// partners in a row; see `sumito perft --help`). Its max_plies and
    /// marbles_to_win replace --max-plies and --marbles-to-win.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// Random plies (no pushes) played from the layout (or `--start`
    /// position) before the players take over, the same for both colour
    /// assignments, so that deterministic players meet varied positions.
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

    fn rule_flags(&self) -> RuleFlags {
        RuleFlags {
            max_plies: self.max_plies,
            no_push_off_plies: self.no_push_off_plies,
            marbles_to_win: self.marbles_to_win,
        }
    }
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

/// The rules and layouts of a match: those its models learned (all must
/// share them; [`model_rules`], each layout one they learned, by default
/// their first), or without models the given table with the ladder's
/// limits where it sets none; without `--layout`, a two-player match takes
/// the ladder's three openings in turn, one of the general game Standard.
fn match_rules<B: CommandBoard>(
    args: &Args,
    given: &RulesTable,
    entrants: &[Entrant<B>],
) -> anyhow::Result<(RulesTable, Vec<GeneralLayout>)> {
    let trained = trained_tables(entrants);
    let flags = args.rule_flags();
    // Without --layout: the default layouts of the table's game.
    let default_layouts = |table: &RulesTable| default_layouts(GameKind::of(table, &[], false));
    if let Some((model, own)) = trained.first() {
        let learned = learned_layouts(model, own)?;
        let asked: Vec<Option<GeneralLayout>> = match (args.layouts.is_empty(), learned.is_empty())
        {
            (false, _) => args.layouts.iter().copied().map(Some).collect(),
            (true, false) => vec![None],
            (true, true) => default_layouts(own).into_iter().map(Some).collect(),
        };
        let mut layouts = Vec::new();
        for layout in asked {
            let (_, layout) =
                model_rules(given, flags, layout, &trained)?.expect("a model among the players");
            layouts.push(layout);
        }
        return Ok((own.clone(), layouts));
    }
    let table = table_without_models(given, flags);
    let layouts = if args.layouts.is_empty() {
        default_layouts(&table)
    } else {
        args.layouts.clone()
    };
    Ok((table, layouts))
}

/// A match of game `B`: its layouts in turn, the players by side (with
/// two sides, every pairing of two or more players).
fn run_match<B: CommandBoard>(
    args: &Args,
    given: &RulesTable,
    kinds: &PlayerKinds,
) -> anyhow::Result<()> {
    if args.players.len() < 2 {
        bail!(
            "give at least two --player options (got {}), e.g. --player random --player alphabeta:depth=3",
            args.players.len()
        );
    }
    // Before the players load: records already in --out are never overwritten.
    let out = args.out.clone().unwrap_or_else(default_out_dir);
    check_record_dir(&out).context("--out")?;
    let entrants = prepare_players(&B::registry(kinds)?, &args.players)?;
    let (table, layouts) = match_rules(args, given, &entrants)?;
    let (starts, names) = match &args.start_file {
        Some(path) => {
            let starts = read_starts::<B>(path, &table)?;
            let names = format!("{} positions of {}", starts.len(), path.display());
            (starts, names)
        }
        None => {
            let starts = layouts
                .iter()
                .map(|&layout| match_start::<B>(layout, &table))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let names: Vec<String> = layouts.iter().map(ToString::to_string).collect();
            (starts, names.join(", "))
        }
    };
    let sides = starts[0].position.sides();
    if let Some(other) = starts.iter().find(|start| start.position.sides() != sides) {
        bail!(
            "the starts {} and {} seat different numbers of sides: a match's starts must seat the same",
            starts[0],
            other
        );
    }
    if sides != 2 && args.players.len() != sides {
        bail!(
            "{} players for {} sides: give one --player per {} in turn order",
            args.players.len(),
            sides,
            if starts[0].position.seats() != sides {
                "team"
            } else {
                "player"
            }
        );
    }
    // A file's positions are what the match is for: all of them by default.
    let every_start = starts.len() as u32 * sides as u32;
    let games = match args.games {
        Some(games) => games,
        None if args.start_file.is_some() => every_start,
        None => DEFAULT_GAMES.div_ceil(sides as u32) * sides as u32,
    };
    if games == 0 || !games.is_multiple_of(sides as u32) {
        bail!(
            "--games {games} must be a positive multiple of the {sides} sides: every opening is \
             played once with each player on each side"
        );
    }
    println!("{names}: {}", table.describe());
    if args.start_file.is_some() && games < every_start {
        println!(
            "note: --games {games} plays the first {} of the {} start positions (each once with \
             each player on each side); --games {every_start}, or no --games, plays them all",
            games / sides as u32,
            starts.len()
        );
    }
    let config = MatchConfig {
        games_per_pairing: games,
        starts,
        rules: rules_of::<B>(&table)?,
        opening_plies: args.opening_plies,
        seed: args.seed,
        threads: args.threads,
        record_dir: Some(out),
        sprt: args.sprt,
    };
    play_and_report(args, &entrants, &config)
}

/// The start positions of the file `path` under the rules of `table`: one
/// a line, blank lines and `#` comments skipped; an error names the file,
/// the line and what is wrong there.
fn read_starts<B: Board>(path: &Path, table: &RulesTable) -> anyhow::Result<Vec<MatchStart<B>>> {
    let text = sumito_fsio::read_text_capped(path, sumito_fsio::MAX_TEXT_FILE_BYTES)
        .with_context(|| format!("reading the start positions of {}", path.display()))?;
    let mut starts = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}, line {}", path.display(), index + 1);
        let position = B::position_from_text(line, table).map_err(|err| {
            anyhow::anyhow!(
                "{}: {err} in {}",
                at(),
                quote_position_text(line, err.column)
            )
        })?;
        if position.is_over() {
            bail!("{}: the game is already over in {line:?}", at());
        }
        starts.push(MatchStart::at(position));
    }
    if starts.is_empty() {
        bail!("{} holds no start position", path.display());
    }
    Ok(starts)
}

/// Plays the match and prints its tables, where its records went and the
/// `result:` line.
fn play_and_report<B: Board>(
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

/// Plays the match of `args` with the players `kinds` knows, in the game
/// its rules, layouts and models choose ([`GameKind::of`]).
pub fn run(args: Args, kinds: &PlayerKinds) -> anyhow::Result<()> {
    let given = match &args.rules {
        Some(path) => RulesTable::read(path)?,
        None => RulesTable::default(),
    };
    let general_models = !(kinds.general_models)(&args.players)?.is_empty();
    let game = GameKind::of(&given, &args.layouts, general_models);
    with_board!(game, run_match(&args, &given, kinds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::command_board::{CLASSICAL_PLAYERS, match_start, rules_of};
    use sumito_arena::arena_board::ArenaBoard;
    use sumito_arena::ladder::ladder_rules;
    use sumito_arena::record::{GameRecord, Start};
    use sumito_engine::Position;
    use sumito_engine::Rules;

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

    /// Every game record in `dir`, each checked to be of a finished game.
    fn finished_records<B: Board>(dir: &Path) -> Vec<GameRecord<B>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| {
                let record = GameRecord::<B>::read(&entry.unwrap().path()).unwrap();
                assert!(record.result.is_some());
                record
            })
            .collect()
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
        run(args, &CLASSICAL_PLAYERS).unwrap();
        let records = finished_records::<Position>(&dir);
        assert_eq!(records.len(), 2);
        for record in records {
            assert_eq!(record.rules.max_plies, Some(80));
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
            &CLASSICAL_PLAYERS,
        )
        .unwrap();
        let mut layouts: Vec<String> =
            finished_records::<sumito_engine::general::GeneralPosition>(&dir)
                .into_iter()
                .map(|record| match record.start {
                    Start::Layout(layout) => layout.to_string(),
                    other => panic!("{other:?}"),
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
        let err = run(line("three-player,four-player", "6"), &CLASSICAL_PLAYERS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("seat different numbers of sides"), "{err}");
        let err = run(line("three-player", "4"), &CLASSICAL_PLAYERS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("multiple of the 3 sides"), "{err}");
    }

    #[test]
    fn a_match_starts_at_the_positions_of_a_file_in_turn() {
        let dir = std::env::temp_dir().join(format!("sumito-cli-arena-at-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("starts.txt");
        let first = "5/2b3/wbbb3/wwbbb3/4w4/5w2/ww1w3/bbbww1/bb1w1 b 2 3 28 0";
        let second = "5/2b3/wbbb3/1wwbbb2/4w4/5w2/bbwww2/bbbww1/bb1w1 w 0 3 25 0";
        std::fs::write(&file, format!("# two positions\n\n{first}\n  {second}\n")).unwrap();
        let out = dir.join("games");
        let line = |file: &Path, out: &Path| {
            parse(&[
                "--player",
                "greedy",
                "--player",
                "random",
                "--start",
                file.to_str().unwrap(),
                "--opening-plies",
                "0",
                "--games",
                "4",
                "--max-plies",
                "60",
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ])
            .unwrap()
        };
        run(line(&file, &out), &CLASSICAL_PLAYERS).unwrap();
        // Without --games, every position is played once from each side.
        let all = dir.join("all");
        let mut every = line(&file, &all);
        every.games = None;
        run(every, &CLASSICAL_PLAYERS).unwrap();
        assert_eq!(finished_records::<Position>(&all).len(), 4);
        let mut starts: Vec<String> = finished_records::<Position>(&out)
            .into_iter()
            .map(|record| match record.start {
                Start::Position(position) => position.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        starts.sort();
        let mut expected =
            [first, first, second, second].map(|fen| Position::from_fen(fen).unwrap().to_string());
        expected.sort();
        assert_eq!(starts, expected);
        // A bad line is named by file and line, and so is a finished game;
        // --start and --layout exclude each other.
        let fail = |text: &str| {
            std::fs::write(&file, text).unwrap();
            let out = dir.join(format!("bad-{}", text.len()));
            run(line(&file, &out), &CLASSICAL_PLAYERS)
                .unwrap_err()
                .to_string()
        };
        let err = fail(&format!("{first}\n# fine\n{first} x\n"));
        assert!(err.contains("starts.txt, line 3"), "{err}");
        let err = fail("# nothing\n");
        assert!(err.contains("holds no start position"), "{err}");
        let over = "5/6/7/8/6bbw/8/7/6/5 b 0 6 30 0";
        let err = fail(&format!("{over}\n"));
        assert!(
            err.contains("line 1") && err.contains("already over"),
            "{err}"
        );
        let both = parse(&[
            "--player", "a", "--player", "b", "--start", "f", "--layout", "standard",
        ]);
        assert!(both.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_model_plays_under_its_training_rules_and_no_others() {
        let registry = Position::classical_players();
        let model = |name: &str, max_plies: Option<u32>| {
            let mut entrant = registry
                .prepare_str("random")
                .unwrap()
                .with_trained_rules(Rules {
                    max_plies,
                    ..Rules::default()
                });
            entrant.name = name.to_owned();
            entrant
        };
        let classical = registry.prepare_str("greedy").unwrap();
        let table = RulesTable::default();
        let rules = |args: &Args, entrants: &[Entrant]| {
            match_rules(args, &table, entrants)
                .map(|(table, layouts)| (rules_of::<Position>(&table).unwrap(), layouts))
        };
        let plain = parse(&["--player", "a", "--player", "b"]).unwrap();
        // No model: the ladder's rules and openings.
        assert_eq!(
            rules(&plain, std::slice::from_ref(&classical)).unwrap(),
            (ladder_rules(), default_layouts(GameKind::TwoPlayer))
        );
        // A model's own rules, whatever the defaults.
        let trained = [model("m", Some(150)), classical.clone()];
        let (own, layouts) = rules(&plain, &trained).unwrap();
        assert_eq!(own.max_plies, Some(150));
        assert_eq!(layouts, default_layouts(GameKind::TwoPlayer));
        // The same rules given: fine; others: refused, naming both.
        let same = parse(&["--player", "a", "--player", "b", "--max-plies", "150"]).unwrap();
        assert_eq!(rules(&same, &trained).unwrap().0, own);
        let other = parse(&["--player", "a", "--player", "b", "--max-plies", "400"]).unwrap();
        let err = rules(&other, &trained).unwrap_err().to_string();
        assert!(
            err.contains("400") && err.contains("150") && err.contains("--max-plies"),
            "{err}"
        );
        let marbles = parse(&["--player", "a", "--player", "b", "--marbles-to-win", "5"]).unwrap();
        let err = rules(&marbles, &trained).unwrap_err().to_string();
        assert!(
            err.contains("--marbles-to-win") && err.contains('5'),
            "{err}"
        );
        // Two models of different rules cannot meet.
        let err = rules(&plain, &[model("m", Some(150)), model("n", None)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot meet") && err.contains("150"), "{err}");
        // A two-player model on a layout of the general game: the other game.
        let three = parse(&["--player", "a", "--player", "b", "--layout", "three-player"]).unwrap();
        let (table, layouts) = match_rules(&three, &table, &trained).unwrap();
        assert!(match_start::<Position>(layouts[0], &table).is_err());
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        let err = parse(&["--player", "random", "--layout", "hexagon"]).unwrap_err();
        assert!(err.to_string().contains("hexagon"), "{err}");
        let err = parse(&["--player", "random", "--sprt", "50,0"]).unwrap_err();
        assert!(err.to_string().contains("elo0 < elo1"), "{err}");
        let err = parse(&["--player", "random", "--max-plies", "0"]).unwrap_err();
        assert!(err.to_string().contains("max-plies"), "{err}");
        let one = run(parse(&["--player", "random"]).unwrap(), &CLASSICAL_PLAYERS).unwrap_err();
        assert!(one.to_string().contains("at least two"), "{one}");
        let odd = parse(&["--player", "random", "--player", "greedy", "--games", "3"]).unwrap();
        assert!(
            run(odd, &CLASSICAL_PLAYERS)
                .unwrap_err()
                .to_string()
                .contains("multiple of the 2 sides")
        );
    }
}
