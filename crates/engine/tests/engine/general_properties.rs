//! Property tests of the general game over seeded random playouts of every
//! variant: marbles and scores conserved, the position text and the move
//! notation round trips, and the symmetries a rules value keeps.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeSet, HashSet};
use sumito_engine::general::symmetry::{apply_move, apply_position, kept_symmetries};
use sumito_engine::general::{
    CellContent, GeneralLayout, GeneralMove, GeneralPosition, GeneralRules, GeneralSetup,
    NeutralPushOff, Seating,
};
use sumito_engine::{Cell, EndReason, Ending, Outcome, Symmetry};

fn cells(list: &str) -> Vec<Cell> {
    list.split_whitespace()
        .map(|name| name.parse().expect("a cell name"))
        .collect()
}

/// One variant: a start and its rules.
struct Variant {
    name: &'static str,
    rules: GeneralRules,
    setup: GeneralSetup,
}

/// A variant from a layout, the players, the obstacle and hole cells, the
/// neutral and removed cells, and a change to the rules.
fn variant(
    name: &'static str,
    layout: &str,
    (seats, partners_in_a_row): (usize, bool),
    (obstacles, holes): (&str, &str),
    (neutral, removed): (&str, &str),
    change: impl FnOnce(&mut GeneralRules),
) -> Variant {
    let mut rules = GeneralRules::plain(Seating::new(seats, partners_in_a_row).expect("seating"))
        .with_cells(&cells(obstacles), &cells(holes))
        .expect("cells");
    change(&mut rules);
    Variant {
        name,
        rules,
        setup: GeneralSetup {
            layout: GeneralLayout::from_name(layout).expect("layout"),
            neutral: cells(neutral),
            removed: cells(removed),
        },
    }
}

fn targets(rules: &mut GeneralRules, values: &[u8]) {
    *rules = rules.with_targets(values).expect("targets");
}

/// Every variant: two-player layouts with each option and combinations,
/// and every 3–6 player layout, plain and with options.
fn variants() -> Vec<Variant> {
    let two = (2, false);
    let none = ("", "");
    vec![
        variant("standard, hole", "standard", two, ("", "E5"), none, |_| {}),
        variant(
            "standard, obstacles",
            "standard",
            two,
            ("E1 E9 E5", ""),
            none,
            |_| {},
        ),
        variant(
            "standard, neutral",
            "standard",
            two,
            none,
            ("E5", ""),
            |_| {},
        ),
        variant(
            "german, neutral, pusher wins",
            "german-daisy",
            two,
            none,
            ("E1 E5 E9", ""),
            |r| {
                r.neutral_push_off = NeutralPushOff::PusherWins;
            },
        ),
        variant(
            "belgian, shield, rotation",
            "belgian-daisy",
            two,
            none,
            none,
            |r| {
                r.shield_moves = true;
                r.rotation_moves = true;
            },
        ),
        variant("standard, one colour", "standard", two, none, none, |r| {
            r.one_colour = true;
            targets(r, &[4]);
        }),
        variant(
            "domination, one colour, everything",
            "domination",
            two,
            ("E5", "E1"),
            ("E9", ""),
            |r| {
                r.one_colour = true;
                r.shield_moves = true;
                r.rotation_moves = true;
                targets(r, &[3]);
            },
        ),
        variant(
            "standard, handicap",
            "standard",
            two,
            none,
            ("", "A1 A5"),
            |r| targets(r, &[6, 3]),
        ),
        variant(
            "snakes, everything, move limit",
            "snakes",
            two,
            ("E5", "E1 E9"),
            ("D6", ""),
            |r| {
                r.shield_moves = true;
                r.rotation_moves = true;
                r.max_plies = Some(50);
                targets(r, &[4, 5]);
            },
        ),
        variant(
            "three-player",
            "three-player",
            (3, false),
            none,
            none,
            |r| targets(r, &[3]),
        ),
        variant(
            "three-player-trapezoid",
            "three-player-trapezoid",
            (3, false),
            ("E5", ""),
            ("D5", ""),
            |r| {
                r.neutral_push_off = NeutralPushOff::PusherWins;
                targets(r, &[3, 2, 4]);
            },
        ),
        variant(
            "four-player",
            "four-player",
            (4, false),
            none,
            ("E5", ""),
            |r| targets(r, &[3]),
        ),
        variant(
            "four-player, partners in a row",
            "four-player",
            (4, true),
            ("", "E5"),
            none,
            |r| {
                r.shield_moves = true;
                r.rotation_moves = true;
                targets(r, &[3, 4]);
            },
        ),
        variant(
            "five-player",
            "five-player",
            (5, false),
            ("", "C3 G6"),
            ("C5", ""),
            |r| targets(r, &[3]),
        ),
        variant("six-player", "six-player", (6, false), none, none, |r| {
            targets(r, &[3])
        }),
        variant(
            "six-player, partners in a row",
            "six-player",
            (6, true),
            ("E1", ""),
            ("E5", "A2"),
            |r| {
                r.shield_moves = true;
                r.rotation_moves = true;
                r.max_plies = Some(30);
            },
        ),
        variant(
            "three-player, one colour",
            "three-player",
            (3, false),
            none,
            ("E5", ""),
            |r| {
                r.one_colour = true;
                targets(r, &[3]);
            },
        ),
    ]
}

/// Marbles on the board, neutral ones included.
fn on_board(position: &GeneralPosition) -> u32 {
    Cell::all()
        .filter(|&cell| {
            matches!(
                position.at(cell),
                CellContent::Marble(_) | CellContent::Neutral
            )
        })
        .count() as u32
}

fn neutral_count(position: &GeneralPosition) -> u32 {
    Cell::all()
        .filter(|&cell| position.at(cell) == CellContent::Neutral)
        .count() as u32
}

fn score_sum(position: &GeneralPosition) -> u32 {
    position.scores().iter().map(|&s| u32::from(s)).sum()
}

/// Marbles that left the board: the scores, and a neutral marble that won
/// at once under `pusher-wins` (it scores for nobody).
fn gone(position: &GeneralPosition) -> u32 {
    let neutral_win = matches!(
        position.ending(),
        Some(Ending {
            reason: EndReason::NeutralPushedOff,
            ..
        })
    );
    score_sum(position) + u32::from(neutral_win)
}

/// The positions of a random playout of up to `plies` plies; moves that push
/// a marble off are preferred, so that games reach their end.
fn playout(variant: &Variant, seed: u64, plies: usize) -> Vec<GeneralPosition> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut position = variant
        .setup
        .start(&variant.rules)
        .unwrap_or_else(|e| panic!("{}: {e}", variant.name));
    let mut positions = vec![position];
    for _ in 0..plies {
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        let children: Vec<GeneralPosition> = moves.iter().map(|&mv| position.play(mv)).collect();
        let offs: Vec<&GeneralPosition> = children
            .iter()
            .filter(|c| gone(c) > gone(&position))
            .collect();
        position = if !offs.is_empty() && rng.random_bool(0.5) {
            *offs[rng.random_range(0..offs.len())]
        } else {
            children[rng.random_range(0..children.len())]
        };
        positions.push(position);
    }
    positions
}

/// Marbles and scores: what leaves the board is what the scores (and a
/// neutral win) count, one marble a move at most, and the credit goes to
/// the right seat.
fn check_conservation(variant: &Variant, start_total: u32, position: &GeneralPosition) {
    let name = variant.name;
    let rules = &variant.rules;
    let seating = rules.seating;
    assert_eq!(
        on_board(position) + gone(position),
        start_total,
        "{name}: {position}"
    );
    let mover = position.seat_to_move();
    for mv in position.legal_moves() {
        let child = position.play(mv);
        let left = on_board(position) - on_board(&child);
        assert!(left <= 1, "{name}: {} in {position}", mv.to_text());
        assert_eq!(
            gone(&child) - gone(position),
            left,
            "{name}: {}",
            mv.to_text()
        );
        let rises: Vec<usize> = (0..seating.seats())
            .filter(|&seat| child.seat_score(seat) != position.seat_score(seat))
            .collect();
        let neutral_left = neutral_count(position) - neutral_count(&child);
        let context = format!("{name}: {} in {position}", mv.to_text());
        if left == 0 {
            assert!(rises.is_empty(), "{context}");
        } else if neutral_left == 1 {
            match rules.neutral_push_off {
                NeutralPushOff::OpponentScores => {
                    assert_eq!(rises.len(), 1, "{context}");
                    assert!(!seating.same_side(rises[0], mover), "{context}");
                }
                NeutralPushOff::PusherWins => {
                    assert!(rises.is_empty(), "{context}");
                    assert_eq!(
                        child.ending(),
                        Some(Ending {
                            outcome: Outcome::Win(seating.side_of(mover)),
                            reason: EndReason::NeutralPushedOff
                        }),
                        "{context}"
                    );
                }
            }
        } else {
            assert_eq!(rises, [mover], "{context}");
        }
        // Nobody loses marbles of their own side by their own move.
        if !rules.one_colour {
            for seat in seating.seats_of(seating.side_of(mover)) {
                assert_eq!(
                    child.marble_count(seat),
                    position.marble_count(seat),
                    "{context}"
                );
            }
        }
        for seat in 0..seating.seats() {
            assert!(child.seat_score(seat) >= position.seat_score(seat));
            assert!(child.marble_count(seat) <= position.marble_count(seat));
        }
    }
}

/// The position text reads back to the same text and the same legal moves;
/// every legal move's two spellings read back to the move.
fn check_round_trips(variant: &Variant, position: &GeneralPosition) {
    let text = position.to_string();
    let reread = GeneralPosition::from_text(&text, Some(&variant.rules))
        .unwrap_or_else(|e| panic!("{}: {text}: {e}", variant.name));
    assert_eq!(reread.to_string(), text, "{}", variant.name);
    let moves = position.legal_moves();
    assert_eq!(reread.legal_moves(), moves, "{}: {text}", variant.name);
    assert_eq!(
        reread.ending(),
        position.ending(),
        "{}: {text}",
        variant.name
    );
    for &mv in &moves {
        for written in [mv.to_comma(), mv.to_text()] {
            assert_eq!(
                position.parse_move(&written),
                Ok(mv),
                "{}: {written} in {text}",
                variant.name
            );
        }
    }
}

/// Each symmetry the rules keep maps the board onto the image's board and
/// the legal moves onto the image's legal moves, and commutes with playing.
/// In the one-colour game a move stands for all moves with its result, so
/// there the sets of child positions are compared.
fn check_symmetries(variant: &Variant, position: &GeneralPosition) {
    let name = variant.name;
    let moves = position.legal_moves();
    let children: Vec<GeneralPosition> = moves.iter().map(|&mv| position.play(mv)).collect();
    for symmetry in kept_symmetries(&variant.rules) {
        let image = apply_position(symmetry, position);
        for cell in Cell::all() {
            assert_eq!(
                image.at(symmetry.apply_cell(cell)),
                position.at(cell),
                "{name}: {cell}"
            );
        }
        assert_eq!(image.seat_to_move(), position.seat_to_move());
        assert_eq!(image.scores(), position.scores());
        if variant.rules.one_colour {
            let mapped: HashSet<GeneralPosition> = children
                .iter()
                .map(|child| apply_position(symmetry, child))
                .collect();
            let direct: HashSet<GeneralPosition> = image
                .legal_moves()
                .iter()
                .map(|&mv| image.play(mv))
                .collect();
            assert!(mapped == direct, "{name}: {position}, {symmetry:?}");
        } else {
            let mapped: BTreeSet<GeneralMove> =
                moves.iter().map(|&mv| apply_move(symmetry, mv)).collect();
            let direct: BTreeSet<GeneralMove> = image.legal_moves().into_iter().collect();
            assert_eq!(mapped, direct, "{name}: {position}, {symmetry:?}");
            for (&mv, child) in moves.iter().zip(&children) {
                assert_eq!(
                    apply_position(symmetry, child),
                    image.play(apply_move(symmetry, mv)),
                    "{name}: {} in {position}, {symmetry:?}",
                    mv.to_text()
                );
            }
        }
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x5u64 << 40 | 0x0171),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(6))]

    /// Every variant, one playout each: conservation on every position; the
    /// round trips and symmetries on every fifth one and the last.
    #[test]
    fn playouts_of_every_variant(seed in any::<u64>(), plies in 0..90usize) {
        for (index, variant) in variants().iter().enumerate() {
            let positions = playout(variant, seed ^ index as u64, plies);
            let start_total = on_board(&positions[0]) + gone(&positions[0]);
            for (ply, position) in positions.iter().enumerate() {
                check_conservation(variant, start_total, position);
                if ply % 5 == 0 || ply + 1 == positions.len() {
                    check_round_trips(variant, position);
                    check_symmetries(variant, position);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn general_text_parsing_never_panics(
        rows in proptest::collection::vec("[bwrguycnxo0-9]{0,10}", 0..11),
        tail in "[ bwrguy0-9,]{0,14}",
    ) {
        let text = format!("{}{}", rows.join("/"), tail);
        if let Ok(position) = GeneralPosition::from_text(&text, None) {
            let again = GeneralPosition::from_text(&position.to_string(), Some(position.rules()));
            prop_assert_eq!(again.map(|p| p.to_string()), Ok(position.to_string()));
        }
    }
}

#[test]
fn every_variant_starts_and_keeps_exactly_the_symmetries_of_its_cells() {
    let role = |p: &GeneralPosition, c: Cell| match p.at(c) {
        role @ (CellContent::Obstacle | CellContent::Hole) => Some(role),
        _ => None,
    };
    for variant in variants() {
        let start = variant.setup.start(&variant.rules).expect("start");
        let kept = kept_symmetries(&variant.rules);
        assert_eq!(kept.first(), Some(&Symmetry::IDENTITY), "{}", variant.name);
        for symmetry in Symmetry::ALL {
            let keeps_cells = Cell::all()
                .all(|cell| role(&start, cell) == role(&start, symmetry.apply_cell(cell)));
            assert_eq!(
                kept.contains(&symmetry),
                keeps_cells,
                "{}: {symmetry:?}",
                variant.name
            );
        }
    }
}

#[test]
fn one_colour_aba_pro_of_two_pushing_one_off_reads_back() {
    let mut rules = GeneralRules::plain(Seating::TWO);
    rules.one_colour = true;
    let start = GeneralSetup::layout(GeneralLayout::from_name("standard").expect("layout"))
        .start(&rules)
        .expect("start");
    let push_off = start
        .legal_moves()
        .into_iter()
        .find(|&mv| mv.to_text() == "A3A4")
        .expect("A3-A4 pushes A5 off");
    assert_eq!(start.play(push_off).seat_score(0), 1);
    assert_eq!(start.parse_move(&push_off.to_comma()), Ok(push_off));
    assert_eq!(start.parse_move("A3A4"), Ok(push_off));
}

#[test]
fn a_game_won_by_a_neutral_marble_reads_back_finished() {
    let mut rules = GeneralRules::plain(Seating::TWO);
    rules.neutral_push_off = NeutralPushOff::PusherWins;
    let position = GeneralPosition::from_text("5/6/7/8/6bbn/8/7/6/w4 b 0 0", Some(&rules))
        .expect("position text");
    let won = position.play(position.parse_move("E7E8").expect("E7-E8 pushes E9 off"));
    assert_eq!(
        won.ending(),
        Some(Ending {
            outcome: Outcome::Win(0),
            reason: EndReason::NeutralPushedOff
        })
    );
    assert!(won.legal_moves().is_empty());
    let reread = GeneralPosition::from_text(&won.to_string(), Some(&rules)).expect("text");
    assert_eq!(reread.ending(), won.ending(), "{won}");
    assert_eq!(reread.legal_moves(), won.legal_moves());
}
