//! Fuzzing of the engine's text parsers with property tests that run in CI:
//! the two-player position text (`Position::from_fen`), the general
//! position text (`GeneralPosition::from_text`) and both move notations
//! (`Position::parse_move`, `GeneralPosition::parse_move`).
//!
//! For each: any text, valid or not, gives `Ok` or `Err` and never panics;
//! edits of real texts (every layout's start, positions and moves of random
//! games) that still parse print back to what they parse to; and every error
//! message stays short (at most 300 characters, [`FUZZ`]) even for a
//! megabyte of input, because errors quote a person's text only as an
//! excerpt (`sumito_engine::excerpt`).
//!
//! The run, the check of an answer and the edits are the arena's too
//! (`sumito_textfuzz`); this file holds the engine's texts and tokens. The
//! seed is fixed, so CI tries the same inputs every run, and failures are
//! not written to `proptest-regressions/` files (`failure_persistence:
//! None`): a failure prints its shrunk input, which becomes a unit test
//! beside the parser. Inputs per run, 19,100 in all, are in each block's
//! comment and in docs/fuzzing.md.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;
use sumito_engine::general::{
    GeneralLayout, GeneralPosition, GeneralRules, GeneralSetup, NeutralPushOff, Seating,
};
use sumito_engine::{Cell, Layout, Position, Rules, random_playout};
use sumito_textfuzz::{EditKind, Grammar, config, with_megabyte};

/// Pieces that the edits insert: the parsers' own tokens, numbers at and
/// past their types' limits, separators, and characters that are not ASCII
/// (multi-byte, control, right-to-left, a character that prints escaped).
const TOKENS: &[&str] = &[
    "/",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    ",",
    "-",
    "+",
    ":",
    "0",
    "1",
    "5",
    "9",
    "14",
    "15",
    "255",
    "256",
    "-1",
    "+1",
    "4294967295",
    "4294967296",
    "99999999999999999999999",
    "b",
    "w",
    "r",
    "g",
    "u",
    "y",
    "c",
    "n",
    "x",
    "o",
    "B",
    "W",
    "won:",
    "won:b",
    "won:w",
    "won:y",
    "A1",
    "E5",
    "I9",
    "A0",
    "Z9",
    "J1",
    "é",
    "ß",
    "€",
    "💥",
    "\u{0}",
    "\u{7f}",
    "\u{202e}",
    "\u{e0001}",
    "\u{fffd}",
];

/// The texts of the engine as the fuzzing edits them (`sumito_textfuzz`):
/// fields (split at spaces) swapped and duplicated, characters deleted,
/// inserted, replaced, duplicated and repeated; errors of at most 300
/// characters.
static FUZZ: Grammar = Grammar {
    message_limit: 300,
    tokens: TOKENS,
    separator: ' ',
    edits: &[
        EditKind::Delete { len: 1..4 },
        EditKind::Insert,
        EditKind::Replace { len: 1..3 },
        EditKind::Duplicate { len: 1..8 },
        EditKind::SwapParts,
        EditKind::DuplicatePart,
        EditKind::Repeat,
    ],
    printable: "[ -~]{0,80}",
    bytes: 120,
};

/// Any two-player layout: the named ones and seeded random ones.
fn any_layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        proptest::sample::select(Layout::NAMED.to_vec()),
        any::<u64>().prop_map(|seed| Layout::Random { seed }),
        any::<u64>().prop_map(|seed| Layout::PartlyRandom { seed }),
    ]
}

/// A position of a random two-player game: the start of any layout or up
/// to 150 random plies into its game (the ply counters printed then).
fn two_player_position() -> impl Strategy<Value = Position> {
    (any_layout(), any::<u64>(), 0..150usize).prop_map(|(layout, seed, plies)| {
        let start = Position::start(layout, Rules::default());
        *random_playout(&start, plies, seed)
            .last()
            .expect("a playout holds its start")
    })
}

fn cells(names: &str) -> Vec<Cell> {
    names
        .split_whitespace()
        .map(|name| name.parse().expect("a cell name"))
        .collect()
}

/// Rules and starts of the general game: every layout (two-player and
/// many-player) plain, and two-player and four-player games with each kind
/// of cell, the extra moves, one colour, per-side targets and limits.
fn general_starts() -> Vec<GeneralPosition> {
    let mut starts = Vec::new();
    let many = GeneralLayout::MANY_PLAYER.into_iter();
    for layout in Layout::NAMED
        .map(GeneralLayout::Two)
        .into_iter()
        .chain(many)
    {
        let rules = GeneralRules::plain(Seating::new(layout.seats(), false).expect("seating"));
        starts.push(GeneralSetup::layout(layout).start(&rules).expect("start"));
    }
    let standard = GeneralLayout::Two(Layout::Standard);
    let four = GeneralLayout::FourPlayer;
    let neutral_pusher_wins = |rules: &mut GeneralRules| {
        rules.neutral_push_off = NeutralPushOff::PusherWins;
        rules.max_plies = Some(60);
    };
    type Change = fn(&mut GeneralRules);
    let variants: [(GeneralLayout, bool, &str, &str, &str, &str, Change); 5] = [
        (standard, false, "E1 E9", "E5", "D4", "A1", |_| {}),
        (standard, false, "", "", "E5", "", neutral_pusher_wins),
        (standard, false, "", "", "", "", |rules| {
            rules.one_colour = true;
            rules.shield_moves = true;
            rules.rotation_moves = true;
            *rules = rules.with_targets(&[4]).expect("targets");
        }),
        (four, true, "", "E5", "", "", |rules| {
            rules.shield_moves = true;
            rules.no_push_off_plies = Some(20);
            *rules = rules.with_targets(&[3, 4]).expect("targets");
        }),
        (four, false, "E5", "", "", "", |rules| {
            rules.rotation_moves = true;
        }),
    ];
    for (layout, partners, obstacles, holes, neutral, removed, change) in variants {
        let seating = Seating::new(layout.seats(), partners).expect("seating");
        let mut rules = GeneralRules::plain(seating)
            .with_cells(&cells(obstacles), &cells(holes))
            .expect("cells");
        change(&mut rules);
        let setup = GeneralSetup {
            layout,
            neutral: cells(neutral),
            removed: cells(removed),
        };
        starts.push(setup.start(&rules).expect("start"));
    }
    starts
}

/// Positions of random general games: every 4th position of an 80-ply
/// game from each of [`general_starts`] (pushing off when it can, half the
/// time, so that scores, won games and neutral wins come up). Made once per
/// test run: general games are too slow to play for every input.
fn general_pool() -> &'static [GeneralPosition] {
    static POOL: OnceLock<Vec<GeneralPosition>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool = Vec::new();
        for (index, start) in general_starts().into_iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(index as u64);
            let mut position = start;
            for ply in 0..80 {
                if ply % 4 == 0 {
                    pool.push(position);
                }
                let moves = position.legal_moves();
                if moves.is_empty() {
                    pool.push(position);
                    break;
                }
                let scored =
                    |p: &GeneralPosition| p.scores().iter().map(|&s| u32::from(s)).sum::<u32>();
                let push = rng.random_bool(0.5).then(|| {
                    moves
                        .iter()
                        .map(|&mv| position.play(mv))
                        .find(|child| scored(child) > scored(&position) || child.is_game_over())
                });
                position = push
                    .flatten()
                    .unwrap_or_else(|| position.play(moves[rng.random_range(0..moves.len())]));
            }
        }
        pool
    })
}

fn general_position() -> impl Strategy<Value = GeneralPosition> {
    proptest::sample::select(general_pool())
}

/// Checks what reading `text` as a two-player position gives: an error
/// with a short message, or a position that prints back to itself.
fn check_fen(text: &str) -> Result<(), TestCaseError> {
    FUZZ.check(text, Position::from_fen(text), |position| {
        let printed = position.to_string();
        prop_assert_eq!(Position::from_fen(&printed), Ok(position), "{:?}", text);
        Ok(())
    })
}

/// Checks reading `text` as a general position, without rules and under
/// `rules`: an error with a short message, or a position that prints and
/// reads back to itself.
fn check_general_text(text: &str, rules: &GeneralRules) -> Result<(), TestCaseError> {
    for rules in [None, Some(rules)] {
        FUZZ.check(text, GeneralPosition::from_text(text, rules), |position| {
            let printed = position.to_string();
            let again = GeneralPosition::from_text(&printed, Some(position.rules()));
            prop_assert_eq!(again, Ok(position), "{:?}", text);
            Ok(())
        })?;
    }
    Ok(())
}

proptest! {
    // 3,000 inputs each.
    #![proptest_config(config(3_000))]

    #[test]
    fn fen_any_text_never_panics(text in FUZZ.any_text()) {
        check_fen(&text)?;
    }

    #[test]
    fn general_text_any_text_never_panics(text in FUZZ.any_text(), position in general_position()) {
        check_general_text(&text, position.rules())?;
    }
}

proptest! {
    // 3,000 inputs.
    #![proptest_config(config(3_000))]

    #[test]
    fn fen_edited_texts_never_panic_and_read_back(
        position in two_player_position(),
        edits in FUZZ.edits(1..4),
    ) {
        let text = position.to_string();
        prop_assert_eq!(Position::from_fen(&text), Ok(position));
        check_fen(&FUZZ.apply(&text, &edits))?;
    }
}

proptest! {
    // 2,000 inputs.
    #![proptest_config(config(2_000))]

    #[test]
    fn general_text_edited_texts_never_panic_and_read_back(
        position in general_position(),
        edits in FUZZ.edits(1..4),
    ) {
        let text = position.to_string();
        prop_assert_eq!(GeneralPosition::from_text(&text, Some(position.rules())), Ok(position));
        check_general_text(&FUZZ.apply(&text, &edits), position.rules())?;
    }
}

/// Checks reading `text` as a move in `position`: a legal move, or an
/// error with a short message.
fn check_move(position: &Position, text: &str) -> Result<(), TestCaseError> {
    FUZZ.check(text, position.parse_move(text), |mv| {
        prop_assert!(position.is_legal(mv), "{:?} in {}", text, position);
        Ok(())
    })
}

fn check_general_move(position: &GeneralPosition, text: &str) -> Result<(), TestCaseError> {
    FUZZ.check(text, position.parse_move(text), |mv| {
        prop_assert!(position.is_legal(mv), "{:?} in {}", text, position);
        Ok(())
    })
}

/// Move-like text: cells, separators and the rotation signs.
fn move_like_text() -> impl Strategy<Value = String> {
    prop_oneof![FUZZ.any_text(), "[a-jA-J0-9,+\\- ]{0,20}"]
}

proptest! {
    // 2,000 inputs each.
    #![proptest_config(config(2_000))]

    #[test]
    fn move_any_text_never_panics(position in two_player_position(), text in move_like_text()) {
        check_move(&position, &text)?;
    }

    #[test]
    fn general_move_any_text_never_panics(position in general_position(), text in move_like_text()) {
        check_general_move(&position, &text)?;
    }

    /// A legal move's texts (Aba-Pro and comma form) read back as it;
    /// edited, they read as a legal move or give a short error.
    #[test]
    fn move_edited_texts_never_panic_and_read_back(
        position in two_player_position(),
        choice in any::<proptest::sample::Index>(),
        edits in FUZZ.edits(1..3),
    ) {
        let moves = position.legal_moves();
        prop_assume!(!moves.is_empty());
        let mv = moves[choice.index(moves.len())];
        for text in [mv.to_string(), mv.to_comma_notation()] {
            prop_assert_eq!(position.parse_move(&text), Ok(mv));
            check_move(&position, &FUZZ.apply(&text, &edits))?;
        }
    }

    #[test]
    fn general_move_edited_texts_never_panic_and_read_back(
        position in general_position(),
        choice in any::<proptest::sample::Index>(),
        edits in FUZZ.edits(1..3),
    ) {
        let moves = position.legal_moves();
        prop_assume!(!moves.is_empty());
        let mv = moves[choice.index(moves.len())];
        for text in [mv.to_text(), mv.to_comma()] {
            // (In the one-colour game a text may read as another move that
            // gives the same position.)
            let read = position.parse_move(&text);
            prop_assert!(read.is_ok(), "{} in {}: {:?}", text, position, read);
            check_general_move(&position, &FUZZ.apply(&text, &edits))?;
        }
    }
}

proptest! {
    // 100 inputs, a megabyte each.
    #![proptest_config(config(100))]

    /// A megabyte of input, anywhere in a real position or move text,
    /// gives a short error.
    #[test]
    fn huge_texts_give_short_errors(
        position in two_player_position(),
        general in general_position(),
        at in any::<usize>(),
        piece in FUZZ.piece(),
    ) {
        check_fen(&with_megabyte(&position.to_string(), at, &piece))?;
        check_general_text(&with_megabyte(&general.to_string(), at, &piece), general.rules())?;
        if let Some(mv) = position.legal_moves().first() {
            check_move(&position, &with_megabyte(&mv.to_comma_notation(), at, &piece))?;
            check_move(&position, &with_megabyte(&mv.to_string(), at, &piece))?;
        }
        if let Some(mv) = general.legal_moves().first() {
            check_general_move(&general, &with_megabyte(&mv.to_comma(), at, &piece))?;
            check_general_move(&general, &with_megabyte(&mv.to_text(), at, &piece))?;
        }
    }
}
