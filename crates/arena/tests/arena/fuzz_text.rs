//! Fuzzing of the arena's text parsers with property tests that run in CI:
//! two-player game records (`GameRecord::parse`), general game records
//! (`GameRecord::<GeneralPosition>::parse`), and the `[rules]` table from TOML (a `--rules`
//! file, `RulesTable::from_toml`) and from JSON (what the web page sends,
//! `RulesTable::from_json`), resolved with every layout into a start.
//!
//! For each: any text gives `Ok` or `Err` and never panics; edits of real
//! texts (records of random games, random valid tables) never panic, and
//! what still parses writes and reads back to itself; valid values round
//! trip through their text; and every error message stays short (at most
//! 340 characters, [`FUZZ`]) even for a megabyte of input.
//!
//! The run, the check of an answer and the edits are the engine's too
//! (`sumito_textfuzz`); this file holds the arena's texts and tokens. The
//! seed is fixed, so CI tries the same inputs every run, and failures
//! are not written to `proptest-regressions/` files (`failure_persistence:
//! None`): a failure prints its shrunk input, which becomes a unit test
//! beside the parser. Inputs per run are in each block's comment and in
//! docs/fuzzing.md.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;
use sumito_arena::record::{AnyRecord, GameRecord, Start, Variation};
use sumito_arena::record_format::{
    GAME_RECORD_MAGIC, TWO_PLAYER_RECORD_MAGIC_V1, VARIANT_RECORD_MAGIC_V1,
};
use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::{RulesTable, Targets};
use sumito_engine::{Cell, Layout, MAX_PLY_COUNTER, Move, Position, Rules};
use sumito_textfuzz::{EditKind, Grammar, config, with_megabyte};

/// Pieces that the edits insert: the formats' own tokens and lines,
/// numbers at and past their types' limits, and characters that are not
/// ASCII (multi-byte, control, right-to-left, one that prints escaped).
const TOKENS: &[&str] = &[
    " ",
    "\t",
    "\n",
    "\r\n",
    ":",
    "=",
    ",",
    "|",
    "-",
    "#",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "0",
    "1",
    "14",
    "15",
    "255",
    "256",
    "-1",
    "4294967295",
    "4294967296",
    "99999999999999999999999",
    "1e9",
    "none",
    "true",
    "null",
    "A1B2",
    "E5",
    "Z9",
    "moves:",
    "variation after 0: A1B2",
    "variation after 1: I5H5 A1B2",
    "variation after 99999999999999999999999: A1B2",
    "result: *",
    "result: 1-0",
    "result: 1/2-1/2",
    "reason: marbles-off",
    "reason: move-limit",
    "layout: standard",
    "layout: six-player",
    "layout: random:7",
    "start: 5/6/7/8/9/8/7/6/5 b 0 0",
    "start_ply: 4294967295",
    "start_plies_since_push_off: 4294967295",
    "opening_plies: 4294967295",
    "rules: max_plies=1",
    "rules: { max_plies = 1 }",
    "rules: {}",
    "seats: a | b",
    "black: x",
    "marbles_to_win",
    "max_plies",
    "holes",
    "neutral",
    "removed_marbles",
    "neutral_push_off",
    "pusher-wins",
    "partners_in_a_row",
    "layouts",
    "é",
    "€",
    "💥",
    "\u{0}",
    "\u{7f}",
    "\u{202e}",
    "\u{e0001}",
    "\u{fffd}",
];

/// The arena's texts as the fuzzing edits them (`sumito_textfuzz`): lines
/// swapped, duplicated and deleted, characters deleted, inserted, replaced
/// and repeated; errors of at most 300 characters, and 40 for the place
/// they name (`line 12: `, `rules.layouts[0]: `).
static FUZZ: Grammar = Grammar {
    message_limit: 340,
    tokens: TOKENS,
    separator: '\n',
    edits: &[
        EditKind::Delete { len: 1..6 },
        EditKind::Insert,
        EditKind::Replace { len: 1..4 },
        EditKind::SwapParts,
        EditKind::DuplicatePart,
        EditKind::DeletePart,
        EditKind::Repeat,
    ],
    printable: "[ -~\n]{0,120}",
    bytes: 200,
};

/// Player names as records hold them: trimmed, one line, no `|`.
const NAMES: &[&str] = &[
    "random",
    "greedy",
    "alphabeta:depth=3",
    "net:runs/quick/best.safetensors:sims=64",
    "",
    "Ann Lee",
    "Zoë",
    "名人",
    "a#b",
];

// ---------------------------------------------------------------------------
// Two-player game records

/// Plays up to `plies` random moves from `start`, pushing off when it can
/// half the time, so that games end by marbles off as well as by limits.
fn random_moves(start: Position, plies: usize, seed: u64) -> (Vec<Move>, Position) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut moves, mut position) = (Vec::new(), start);
    for _ in 0..plies {
        let legal = position.legal_moves();
        if legal.is_empty() {
            break;
        }
        let off = |p: &Position| {
            p.marbles_off(sumito_engine::Color::Black) + p.marbles_off(sumito_engine::Color::White)
        };
        let push = rng
            .random_bool(0.5)
            .then(|| {
                legal
                    .iter()
                    .copied()
                    .find(|&mv| off(&position.play(mv)) > off(&position))
            })
            .flatten();
        let mv = push.unwrap_or_else(|| legal[rng.random_range(0..legal.len())]);
        moves.push(mv);
        position = position.play(mv);
    }
    (moves, position)
}

fn any_layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        proptest::sample::select(Layout::NAMED.to_vec()),
        any::<u64>().prop_map(|seed| Layout::Random { seed }),
        any::<u64>().prop_map(|seed| Layout::PartlyRandom { seed }),
    ]
}

fn two_player_rules() -> impl Strategy<Value = Rules> {
    (
        1..=14u8,
        proptest::option::of(1..300u32),
        proptest::option::of(1..60u32),
    )
        .prop_map(|(marbles_to_win, max_plies, no_push_off_plies)| Rules {
            marbles_to_win,
            max_plies,
            no_push_off_plies,
        })
}

/// A record of a random game: from a layout, or from a position taken from
/// another game (with its ply counters), under random rules.
fn game_record() -> impl Strategy<Value = GameRecord<Position>> {
    (
        any_layout(),
        two_player_rules(),
        any::<bool>(),
        (any::<u64>(), 0..80usize, 0..200usize),
        (
            proptest::sample::select(NAMES),
            proptest::sample::select(NAMES),
        ),
        any::<proptest::sample::Index>(),
        // Ply counters of the start: none, any, or at the largest a start
        // may have (from u32::MAX the next move overflowed).
        prop_oneof![
            Just(None),
            (0..=MAX_PLY_COUNTER, 0..=MAX_PLY_COUNTER).prop_map(Some),
            ((MAX_PLY_COUNTER - 3)..=MAX_PLY_COUNTER).prop_map(|ply| Some((ply, ply))),
        ],
    )
        .prop_map(
            |(
                layout,
                rules,
                from_text,
                (seed, before, plies),
                (black, white),
                opening,
                counters,
            )| {
                let layout_start = Position::start(layout, Rules::default());
                let start = if from_text {
                    let (_, position) = random_moves(layout_start, before, seed ^ 1);
                    let position = match counters {
                        Some((a, b)) => position.with_ply_counters(a.max(b), a.min(b)),
                        None => position,
                    };
                    // A start read from a record is under the record's
                    // rules.
                    Start::Position(position.with_rules(rules))
                } else {
                    Start::Layout(layout)
                };
                let first = match start {
                    Start::Layout(layout) => Position::start(layout, rules),
                    Start::Position(position) => position.with_rules(rules),
                };
                let (moves, last) = random_moves(first, plies, seed);
                GameRecord {
                    start,
                    rules,
                    players: vec![black.to_owned(), white.to_owned()],
                    opening_plies: opening.index(moves.len() + 1) as u32,
                    moves,
                    variations: Vec::new(),
                    result: last.ending(),
                    forfeit: None,
                }
            },
        )
}

/// Checks reading `text` as a game record: a short error, or a record that
/// writes and reads back to itself.
fn check_game_record(text: &str) -> Result<(), TestCaseError> {
    FUZZ.check(text, GameRecord::<Position>::parse(text), |record| {
        let again = GameRecord::<Position>::parse(&record.to_text());
        prop_assert_eq!(again, Ok(record), "{:?}", text);
        Ok(())
    })
}

proptest! {
    // 2,000 inputs each.
    #![proptest_config(config(2_000))]

    #[test]
    fn game_record_any_text_never_panics(text in FUZZ.any_text(), magic in 0usize..3) {
        // After the first line (of the one format or the older two-player
        // one), the parser reads on.
        let text = match magic {
            0 => text,
            1 => format!("{GAME_RECORD_MAGIC}\n{text}"),
            _ => format!("{TWO_PLAYER_RECORD_MAGIC_V1}\n{text}"),
        };
        check_game_record(&text)?;
        // A record of either game: an error, or a record that writes and
        // reads back as the same game.
        FUZZ.check(&text, AnyRecord::parse(&text), |record| match record {
            AnyRecord::TwoPlayer(record) => check_game_record(&record.to_text()),
            AnyRecord::General(record) => check_general_record(&record.to_text()),
        })?;
    }

    #[test]
    fn game_record_edited_older_records_never_panic(
        edits in FUZZ.edits(1..4),
    ) {
        // A record of the older two-player format, as written before the
        // one format (still read).
        let text = include_str!("../../testdata/records/two-player-v1.txt");
        prop_assert!(GameRecord::<Position>::parse(text).is_ok());
        check_game_record(&FUZZ.apply(text, &edits))?;
    }

    #[test]
    fn game_record_edited_records_never_panic_and_read_back(
        record in game_record(),
        edits in FUZZ.edits(1..4),
    ) {
        let text = record.to_text();
        prop_assert_eq!(GameRecord::<Position>::parse(&text), Ok(record));
        check_game_record(&FUZZ.apply(&text, &edits))?;
    }
}

// ---------------------------------------------------------------------------
// The rules table

/// Every cell name and a few that are not cells.
fn cell_name() -> impl Strategy<Value = String> {
    prop_oneof![
        9 => (0..61usize).prop_map(|index| {
            Cell::all().nth(index).expect("61 cells").to_string()
        }),
        1 => proptest::sample::select(&["e5", "A0", "J1", "", "E55"][..]).prop_map(str::to_owned),
    ]
}

fn cell_list() -> impl Strategy<Value = Option<Vec<String>>> {
    proptest::option::weighted(0.4, proptest::collection::vec(cell_name(), 0..4))
}

/// Every layout's name, as `layouts` holds them.
fn layout_names() -> Vec<String> {
    let many = GeneralLayout::MANY_PLAYER.into_iter();
    let mut names: Vec<String> = Layout::NAMED
        .map(GeneralLayout::Two)
        .into_iter()
        .chain(many)
        .map(|layout| layout.name())
        .collect();
    names.extend([
        "random:7".into(),
        "partly-random:3".into(),
        "hexagon".into(),
    ]);
    names
}

/// A rules table with every key sometimes present: values in and out of
/// their ranges, cells that clash, keys that do not fit every layout.
fn rules_table() -> impl Strategy<Value = RulesTable> {
    let targets = prop_oneof![
        (0..=15u8).prop_map(Targets::All),
        proptest::collection::vec(0..=15u8, 1..7).prop_map(Targets::PerSide),
    ];
    let flag = || proptest::option::weighted(0.3, any::<bool>());
    (
        (
            proptest::option::weighted(0.5, targets),
            proptest::option::weighted(0.3, 0..500u32),
            proptest::option::weighted(0.3, 0..100u32),
            proptest::option::weighted(
                0.2,
                proptest::collection::vec(proptest::sample::select(layout_names()), 0..3),
            ),
        ),
        (cell_list(), cell_list(), cell_list(), cell_list()),
        proptest::option::weighted(
            0.3,
            proptest::sample::select(&["opponent-scores", "pusher-wins", "nobody"][..])
                .prop_map(str::to_owned),
        ),
        (flag(), flag(), flag(), flag()),
    )
        .prop_map(
            |(
                (marbles_to_win, max_plies, no_push_off_plies, layouts),
                (obstacles, holes, neutral, removed_marbles),
                neutral_push_off,
                (shield_moves, rotation_moves, one_colour, partners_in_a_row),
            )| RulesTable {
                marbles_to_win,
                max_plies,
                no_push_off_plies,
                layouts,
                obstacles,
                holes,
                neutral,
                neutral_push_off,
                removed_marbles,
                shield_moves,
                rotation_moves,
                one_colour,
                partners_in_a_row,
            },
        )
}

/// Every layout the general game knows, and two seeded ones.
fn every_layout() -> Vec<GeneralLayout> {
    let mut layouts: Vec<GeneralLayout> = Layout::NAMED.map(GeneralLayout::Two).to_vec();
    layouts.extend(GeneralLayout::MANY_PLAYER);
    layouts.push(GeneralLayout::Two(Layout::Random { seed: 7 }));
    layouts.push(GeneralLayout::Two(Layout::PartlyRandom { seed: 3 }));
    layouts
}

/// Resolves `table` with every layout and starts each game: a start, or a
/// short error; never a panic.
fn check_resolves(table: &RulesTable) -> Result<(), TestCaseError> {
    for layout in every_layout() {
        match table.resolve(layout) {
            Ok((rules, setup)) => {
                let start = setup.start(&rules);
                prop_assert!(start.is_ok(), "{:?} with {}: {:?}", table, layout, start);
                prop_assert_eq!(table.start(layout).ok(), start.ok());
            }
            Err(err) => FUZZ.short(err.to_string(), 0)?,
        }
    }
    if let Err(err) = table.layout() {
        FUZZ.short(err.to_string(), 0)?;
    }
    for seats in 2..=6 {
        if let Err(err) = table.rules_for_text(seats) {
            FUZZ.short(err.to_string(), 0)?;
        }
    }
    Ok(())
}

/// The `[rules]` table as a `--rules` file holds it.
fn toml_text(table: &RulesTable) -> String {
    #[derive(serde::Serialize)]
    struct File<'a> {
        rules: &'a RulesTable,
    }
    toml::to_string(&File { rules: table }).expect("a table serializes")
}

/// Checks reading `text` as a `--rules` file and as the page's JSON.
fn check_rules_text(text: &str) -> Result<(), TestCaseError> {
    FUZZ.check(text, RulesTable::from_toml(text), |table| {
        prop_assert_eq!(RulesTable::from_toml(&toml_text(&table)), Ok(table.clone()));
        check_resolves(&table)
    })?;
    // (Text that is not JSON at all is refused by the page's message
    // parser before the table is read.)
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        FUZZ.check(text, RulesTable::from_json(&value), |table| {
            let json = serde_json::to_value(&table).expect("a table serializes");
            prop_assert_eq!(RulesTable::from_json(&json), Ok(table.clone()));
            check_resolves(&table)
        })?;
    }
    Ok(())
}

proptest! {
    // 2,000 inputs each.
    #![proptest_config(config(2_000))]

    /// A table reads back from its TOML and JSON texts, and resolves with
    /// every layout into a start or a short error.
    #[test]
    fn rules_table_round_trips_and_resolves_with_every_layout(table in rules_table()) {
        let toml = toml_text(&table);
        prop_assert_eq!(RulesTable::from_toml(&toml), Ok(table.clone()), "{}", toml);
        let json = serde_json::to_value(&table).expect("a table serializes");
        prop_assert_eq!(RulesTable::from_json(&json), Ok(table.clone()));
        check_resolves(&table)?;
    }

    #[test]
    fn rules_table_any_text_never_panics(text in FUZZ.any_text(), header in any::<bool>()) {
        let text = if header { format!("[rules]\n{text}") } else { text };
        check_rules_text(&text)?;
    }

    #[test]
    fn rules_table_edited_texts_never_panic(
        table in rules_table(),
        json in any::<bool>(),
        edits in FUZZ.edits(1..4),
    ) {
        let text = if json {
            serde_json::to_string_pretty(&table).expect("a table serializes")
        } else {
            toml_text(&table)
        };
        check_rules_text(&FUZZ.apply(&text, &edits))?;
    }
}

// ---------------------------------------------------------------------------
// General game records

/// Records of random general games, made once per test run (general games
/// are too slow to play for every input): every layout under a rules table
/// that fits it, from the layout or from a position of another game, with
/// games of up to 40 moves (some finished by a move limit or pushes).
fn general_records() -> &'static [GameRecord<GeneralPosition>] {
    static RECORDS: OnceLock<Vec<GameRecord<GeneralPosition>>> = OnceLock::new();
    RECORDS.get_or_init(|| {
        let table =
            |text: &str| RulesTable::from_toml(&format!("[rules]\n{text}")).expect("a table");
        let setups = [
            ("standard", ""),
            (
                "belgian-daisy",
                "holes = [\"E5\"]\nshield_moves = true\nmax_plies = 12",
            ),
            (
                "german-daisy",
                "neutral = [\"E5\"]\nneutral_push_off = \"pusher-wins\"",
            ),
            (
                "standard",
                "one_colour = true\nrotation_moves = true\nmarbles_to_win = 2",
            ),
            (
                "snakes",
                "obstacles = [\"E5\"]\nremoved_marbles = [\"A1\"]\nmarbles_to_win = [1, 2]",
            ),
            ("three-player", "marbles_to_win = 1"),
            ("three-player-trapezoid", "max_plies = 9"),
            (
                "four-player",
                "partners_in_a_row = true\nshield_moves = true",
            ),
            ("five-player", "holes = [\"C3\"]\nmarbles_to_win = 1"),
            (
                "six-player",
                "rotation_moves = true\nno_push_off_plies = 10",
            ),
        ];
        let mut records = Vec::new();
        for (index, (layout, rules)) in setups.into_iter().enumerate() {
            let layout = GeneralLayout::from_name(layout).expect("a layout");
            let rules = table(rules);
            for seed in 0..3u64 {
                let mut rng = ChaCha8Rng::seed_from_u64(seed << 8 | index as u64);
                let mut position = rules.start(layout).expect("a start");
                // From the text of a position of another game, where the
                // table allows one (it holds no start-only keys).
                let from_text = seed == 2 && rules.rules_for_text(layout.seats()).is_ok();
                if from_text {
                    for _ in 0..rng.random_range(0..20) {
                        let moves = position.legal_moves();
                        if moves.is_empty() {
                            break;
                        }
                        position = position.play(moves[rng.random_range(0..moves.len())]);
                    }
                }
                let start = if from_text {
                    Start::Position(position)
                } else {
                    Start::Layout(layout)
                };
                let seats = (0..layout.seats())
                    .map(|seat| NAMES[(seat + index) % NAMES.len()].to_owned())
                    .collect();
                let mut moves = Vec::new();
                let mut positions = vec![position];
                for _ in 0..rng.random_range(0..40) {
                    let legal = position.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let mv = legal[rng.random_range(0..legal.len())];
                    moves.push(mv);
                    position = position.play(mv);
                    positions.push(position);
                }
                // A few side lines, from random plies, each another move
                // than the game's there and then random ones.
                let mut variations = Vec::new();
                for _ in 0..rng.random_range(0..3) {
                    let ply = rng.random_range(0..=moves.len());
                    let mut at = positions[ply];
                    let mut line = Vec::new();
                    for _ in 0..rng.random_range(1..6) {
                        if at.is_game_over() {
                            break;
                        }
                        let legal: Vec<_> = at
                            .legal_moves()
                            .into_iter()
                            .filter(|mv| !(line.is_empty() && moves.get(ply) == Some(mv)))
                            .collect();
                        if legal.is_empty() {
                            break;
                        }
                        let mv = legal[rng.random_range(0..legal.len())];
                        line.push(mv);
                        at = at.play(mv);
                    }
                    if !line.is_empty() {
                        Variation::add_to(&mut variations, Variation { ply, moves: line });
                    }
                }
                records.push(GameRecord {
                    start,
                    rules: rules.clone(),
                    players: seats,
                    opening_plies: rng.random_range(0..=moves.len()) as u32,
                    moves,
                    variations,
                    result: position.ending(),
                    forfeit: None,
                });
            }
        }
        records
    })
}

fn general_record() -> impl Strategy<Value = GameRecord<GeneralPosition>> {
    proptest::sample::select(general_records())
}

/// Checks reading `text` as a general game record: a short error, or a
/// record that writes and reads back to itself.
fn check_general_record(text: &str) -> Result<(), TestCaseError> {
    FUZZ.check(text, GameRecord::<GeneralPosition>::parse(text), |record| {
        let again = GameRecord::<GeneralPosition>::parse(&record.to_text());
        prop_assert_eq!(again, Ok(record), "{:?}", text);
        Ok(())
    })
}

proptest! {
    // 2,000 inputs each.
    #![proptest_config(config(2_000))]

    #[test]
    fn general_record_any_text_never_panics(text in FUZZ.any_text(), magic in 0usize..3) {
        let text = match magic {
            0 => text,
            1 => format!("{GAME_RECORD_MAGIC}\n{text}"),
            _ => format!("{VARIANT_RECORD_MAGIC_V1}\n{text}"),
        };
        check_general_record(&text)?;
    }

    #[test]
    fn general_record_edited_records_never_panic_and_read_back(
        record in general_record(),
        edits in FUZZ.edits(1..4),
    ) {
        let text = record.to_text();
        prop_assert_eq!(GameRecord::<GeneralPosition>::parse(&text), Ok(record));
        check_general_record(&FUZZ.apply(&text, &edits))?;
    }
}

// ---------------------------------------------------------------------------
// A megabyte of input

proptest! {
    // 60 inputs, a megabyte each.
    #![proptest_config(config(60))]

    /// A megabyte of input, anywhere in a real record or rules table, gives
    /// a short error.
    #[test]
    fn huge_texts_give_short_errors(
        record in game_record(),
        general in general_record(),
        table in rules_table(),
        at in any::<usize>(),
        piece in FUZZ.piece(),
    ) {
        check_game_record(&with_megabyte(&record.to_text(), at, &piece))?;
        check_general_record(&with_megabyte(&general.to_text(), at, &piece))?;
        check_rules_text(&with_megabyte(&toml_text(&table), at, &piece))?;
        let json = serde_json::to_string(&table).expect("a table serializes");
        check_rules_text(&with_megabyte(&json, at, &piece))?;
    }
}
