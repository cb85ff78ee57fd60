//! One test per rule of the variants section of the rules file, and the
//! general engine against the two-player engine on plain games.

use super::*;
use crate::board::Cell;
use crate::{
    EndReason, Ending, Layout, MoveProblem, MoveTextError, Outcome, Position, PositionTextError,
    Rules, TextProblem, random_playout,
};

fn cell(name: &str) -> Cell {
    name.parse().unwrap()
}

/// A position from a list of pieces: `("b", "A1 A2")` puts seat b's marbles
/// on A1 and A2; `n` neutral marbles.
fn board(rules: GeneralRules, pieces: &[(&str, &str)], to_move: usize) -> GeneralPosition {
    let mut marbles = [0u128; MAX_SEATS];
    let mut neutral = 0u128;
    for (who, cells) in pieces {
        for name in cells.split_whitespace() {
            let b = cell(name).bit();
            match *who {
                "n" => neutral |= b,
                "c" => marbles[0] |= b,
                letter => {
                    let seat = SEAT_LETTERS
                        .iter()
                        .position(|l| l.to_string() == letter)
                        .unwrap();
                    marbles[seat] |= b;
                }
            }
        }
    }
    GeneralPosition::new(rules, marbles, neutral, to_move, [0; MAX_SEATS]).unwrap()
}

fn two() -> GeneralRules {
    GeneralRules::plain(Seating::TWO)
}

/// Plays `text` (Aba-Pro or comma form) or returns the reason it is illegal.
fn try_play(position: &GeneralPosition, text: &str) -> Result<GeneralPosition, String> {
    match position.parse_move(text) {
        Ok(mv) => Ok(position.play(mv)),
        Err(MoveTextError {
            problem: MoveProblem::GeneralIllegal { reason },
            ..
        }) => Err(reason),
        Err(err) => panic!("{text}: {err}"),
    }
}

fn at(position: &GeneralPosition, name: &str) -> CellContent {
    position.at(cell(name))
}

#[test]
fn plain_two_player_games_agree_with_the_two_player_engine() {
    let mut checked = 0;
    for (seed, layout) in Layout::NAMED.into_iter().enumerate() {
        let rules = Rules {
            max_plies: Some(60),
            ..Rules::default()
        };
        for classic in random_playout(&Position::start(layout, rules), 60, seed as u64) {
            let mut general_rules = two();
            general_rules.max_plies = Some(60);
            let general =
                GeneralPosition::from_text(&classic.to_string(), Some(&general_rules)).unwrap();
            assert_eq!(general.to_string(), classic.to_string());
            let mut expected: Vec<usize> = classic
                .legal_moves()
                .into_iter()
                .map(|m| m.action())
                .collect();
            expected.sort();
            let found: Vec<usize> = general
                .legal_moves()
                .into_iter()
                .map(|m| m.index())
                .collect();
            assert_eq!(found, expected, "{classic}");
            for mv in classic.legal_moves() {
                let after = general.play(GeneralMove::group(mv));
                assert_eq!(
                    after.to_string(),
                    classic.play(mv).to_string(),
                    "{classic} {mv}"
                );
                assert_eq!(after.is_game_over(), classic.play(mv).is_game_over());
                let text = GeneralMove::group(mv).to_text();
                assert_eq!(
                    general.parse_move(&text),
                    Ok(GeneralMove::group(mv)),
                    "{text}"
                );
                let comma = GeneralMove::group(mv).to_comma();
                assert_eq!(
                    general.parse_move(&comma),
                    Ok(GeneralMove::group(mv)),
                    "{comma}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 400);
}

#[test]
fn perft_of_the_plain_game_matches_the_two_player_engine() {
    let classic = Position::start(Layout::Standard, Rules::default());
    let general = GeneralSetup::layout(GeneralLayout::Two(Layout::Standard))
        .start(&two())
        .unwrap();
    for depth in 1..=3 {
        assert_eq!(
            general_perft(&general, depth),
            crate::perft(&classic, depth)
        );
    }
}

#[test]
fn push_off_threats_of_plain_games_are_the_two_player_engines() {
    // The general engine finds them from the seat's moves, the two-player
    // engine by whole-board shifts: on every position of random games they
    // agree, seat by seat and cell by cell.
    let mut seen = 0;
    for seed in 0..6 {
        let start = Position::start(Layout::NAMED[seed as usize % 3], Rules::default());
        for classic in random_playout(&start, 400, seed) {
            let general = GeneralPosition::from_text(&classic.to_string(), None).unwrap();
            let threats = classic.push_off_threats();
            assert_eq!(general.push_off_threats(), threats, "{classic}");
            for seat in 0..2 {
                assert!(
                    general
                        .push_off_targets(seat)
                        .eq(threats.iter().filter(|t| t.seat == seat).map(|t| t.cell)),
                    "{classic}"
                );
            }
            seen += threats.len();
        }
    }
    assert!(seen > 50, "only {seen} threats in the games");
}

#[test]
fn push_off_targets_follow_holes_neutral_marbles_and_obstacles() {
    let threats = |position: &GeneralPosition| -> Vec<(usize, String)> {
        position
            .push_off_threats()
            .into_iter()
            .map(|threat| (threat.seat, threat.cell.to_string()))
            .collect()
    };
    // Three push two into a hole; White, not to move, threatens nothing.
    let holed = two().with_cells(&[], &[cell("E7")]).unwrap();
    let position = board(holed, &[("b", "E2 E3 E4"), ("w", "E5 E6")], 0);
    assert_eq!(threats(&position), [(0, "E6".to_owned())]);
    // An obstacle behind the line stops the push.
    let blocked = two().with_cells(&[cell("E7")], &[]).unwrap();
    let position = board(blocked, &[("b", "E2 E3 E4"), ("w", "E5 E6")], 0);
    assert_eq!(threats(&position), []);
    // A neutral marble at the rim is a target, for the seat to move or not.
    let position = board(two(), &[("b", "E7 E8"), ("n", "E9"), ("w", "A1")], 1);
    assert_eq!(threats(&position), [(0, "E9".to_owned())]);
    assert_eq!(position.push_off_targets(1).count(), 0);
}

#[test]
fn the_seat_to_move_threatens_a_marble_exactly_when_a_move_of_it_scores() {
    let layout = GeneralLayout::from_name("three-player").unwrap();
    let rules = GeneralRules::plain(Seating::new(3, false).unwrap());
    let mut position = GeneralSetup::layout(layout).start(&rules).unwrap();
    assert!(position.push_off_threats().is_empty(), "none at the start");
    // A game that pushes off whenever it can.
    let mut threatened = 0;
    for ply in 0..400 {
        if position.is_game_over() {
            break;
        }
        let mover = position.seat_to_move();
        let threats = position.push_off_threats();
        for threat in &threats {
            assert!(
                matches!(position.at(threat.cell), CellContent::Marble(seat) if seat != threat.seat),
                "{position}: {threat:?}"
            );
        }
        let moves = position.legal_moves();
        let scoring = moves
            .iter()
            .copied()
            .find(|&mv| position.play(mv).seat_score(mover) > position.seat_score(mover));
        assert_eq!(
            threats.iter().any(|threat| threat.seat == mover),
            scoring.is_some(),
            "{position}"
        );
        threatened += threats.len();
        position = position.play(scoring.unwrap_or(moves[(ply * 7) % moves.len()]));
    }
    assert!(threatened > 0, "the game had threats to check");
}

#[test]
fn a_hole_behind_a_pushed_line_swallows_the_marble_and_scores() {
    let rules = two().with_cells(&[], &[cell("E7")]).unwrap();
    let position = board(rules, &[("b", "E3 E4"), ("w", "E5 E6")], 0);
    // 2 against 2 is a pac even with a hole behind.
    assert!(try_play(&position, "E3E4").unwrap_err().contains("pac"));
    let position = board(rules, &[("b", "E2 E3 E4"), ("w", "E5 E6")], 0);
    let after = try_play(&position, "E2E3").unwrap();
    assert_eq!(at(&after, "E6"), CellContent::Marble(1));
    assert_eq!(at(&after, "E7"), CellContent::Hole);
    assert_eq!(
        after.seat_score(0),
        1,
        "the marble that fell in counts as pushed off"
    );
    assert_eq!(after.to_string().split(' ').nth(2), Some("0"));
    assert_eq!(
        after.to_string().split(' ').nth(3),
        Some("1"),
        "White lost one"
    );
}

#[test]
fn a_hole_in_front_of_an_own_marble_cannot_be_entered() {
    let rules = two().with_cells(&[], &[cell("E6")]).unwrap();
    let position = board(rules, &[("b", "E5 D4"), ("w", "I5")], 0);
    let reason = try_play(&position, "E5E6").unwrap_err();
    assert!(reason.contains("E6 is a hole"), "{reason}");
    // Nor by a broadside.
    let position = board(rules, &[("b", "D5 D6"), ("w", "I5")], 0);
    assert!(try_play(&position, "D5D6E6").unwrap_err().contains("hole"));
}

#[test]
fn an_obstacle_blocks_moves_and_pushes() {
    let rules = two().with_cells(&[cell("E7")], &[]).unwrap();
    let position = board(rules, &[("b", "E3 E4 E5"), ("w", "E6")], 0);
    let reason = try_play(&position, "E3E4").unwrap_err();
    assert!(
        reason.contains("blocked") && reason.contains("E7 is an obstacle"),
        "{reason}"
    );
    let position = board(rules, &[("b", "E6"), ("w", "I5")], 0);
    assert!(
        try_play(&position, "E6E7")
            .unwrap_err()
            .contains("obstacle")
    );
}

#[test]
fn neutral_and_opposing_marbles_are_pushed_together() {
    let position = board(two(), &[("b", "E3 E4 E5"), ("w", "E6"), ("n", "E7")], 0);
    let after = try_play(&position, "E3E4").unwrap();
    assert_eq!(at(&after, "E7"), CellContent::Marble(1));
    assert_eq!(at(&after, "E8"), CellContent::Neutral);
    // A line of neutral marbles alone is pushed too, and counts against the
    // pusher as opposing marbles do.
    let position = board(two(), &[("b", "E4 E5"), ("n", "E6 E7")], 0);
    assert!(try_play(&position, "E4E5").unwrap_err().contains("pac"));
}

#[test]
fn a_neutral_marble_pushed_off_scores_for_the_opponent_or_wins_for_the_pusher() {
    let pieces = [("b", "E7 E8"), ("n", "E9"), ("w", "A1")];
    let position = board(two(), &pieces, 0);
    let after = try_play(&position, "E7E8").unwrap();
    assert_eq!((after.seat_score(0), after.seat_score(1)), (0, 1));
    assert!(!after.is_game_over());
    let mut rules = two();
    rules.neutral_push_off = NeutralPushOff::PusherWins;
    let after = try_play(&board(rules, &pieces, 0), "E7E8").unwrap();
    assert_eq!(
        after.ending(),
        Some(Ending {
            outcome: Outcome::Win(0),
            reason: EndReason::NeutralPushedOff
        })
    );
    // With three players the first opposing seat after the pusher scores.
    let three = GeneralRules::plain(Seating::new(3, false).unwrap());
    let after = try_play(
        &board(
            three,
            &[("w", "E7 E8"), ("n", "E9"), ("b", "A1"), ("r", "I5")],
            1,
        ),
        "E7E8",
    )
    .unwrap();
    assert_eq!(after.scores()[..3], [0, 0, 1]);
}

#[test]
fn three_push_two_of_two_different_opponents() {
    let three = GeneralRules::plain(Seating::new(3, false).unwrap());
    let position = board(three, &[("b", "E5 E6 E7"), ("w", "E8"), ("r", "E9 A1")], 0);
    let after = try_play(&position, "E5E6").unwrap();
    assert_eq!(at(&after, "E9"), CellContent::Marble(1));
    assert_eq!(
        after.seat_score(0),
        1,
        "red's marble went off and scores for black"
    );
    assert_eq!(after.seat_to_move(), 1);
}

#[test]
fn a_partner_marble_may_lead_but_never_be_the_rear_and_is_never_pushed() {
    let four = GeneralRules::plain(Seating::new(4, false).unwrap());
    // Black (seat 0) and red (seat 2) are partners; white (1) opposes.
    let position = board(
        four,
        &[("b", "E4"), ("r", "E5"), ("w", "E6 A1"), ("g", "I5")],
        0,
    );
    // Black's own marble at the rear, the partner's in front: 2 push 1.
    let after = try_play(&position, "E4E5").unwrap();
    assert_eq!(at(&after, "E7"), CellContent::Marble(1));
    assert_eq!(at(&after, "E6"), CellContent::Marble(2));
    // The partner's marble at the rear: not black's group.
    let position = board(
        four,
        &[("r", "E4"), ("b", "E5"), ("w", "E7 A1"), ("g", "I5")],
        0,
    );
    let reason = try_play(&position, "E4-E5,E6").unwrap_err();
    assert!(reason.contains("rearmost"), "{reason}");
    // A partner is never pushed: it blocks like an own marble.
    let position = board(
        four,
        &[("b", "E3 E4"), ("r", "E5"), ("w", "A1"), ("g", "I5")],
        0,
    );
    let moves: Vec<String> = position.legal_moves().iter().map(|m| m.to_text()).collect();
    assert!(
        moves.contains(&"E3E4".to_string()),
        "three of the side move together"
    );
    let position = board(
        four,
        &[("b", "E2 E3 E4"), ("r", "E5"), ("w", "A1"), ("g", "I5")],
        0,
    );
    assert!(
        try_play(&position, "E2-E4,E5")
            .unwrap_err()
            .contains("partner")
    );
}

#[test]
fn shield_and_rotation_moves_are_blocked_or_free() {
    let mut rules = two();
    rules.shield_moves = true;
    rules.rotation_moves = true;
    let position = board(rules, &[("b", "E5 E6 F6"), ("w", "A1")], 0);
    // The triangle E5 E6 F6 steps E: E6 and F6 enter E7 and F7... all free.
    let after = try_play(&position, "E5E6F6E6").unwrap();
    assert_eq!(after.bitboard(0).count_ones(), 3);
    assert_eq!(at(&after, "E7"), CellContent::Marble(0));
    let blocked = board(rules, &[("b", "E5 E6 F6"), ("w", "E7 A1")], 0);
    assert!(try_play(&blocked, "E5E6F6E6").unwrap_err().contains("E7"));
    // A lance E4 E5 E6 turning anticlockwise about E5: E6 -> F6, E4 -> D4.
    let position = board(rules, &[("b", "E4 E5 E6"), ("w", "A1")], 0);
    let after = try_play(&position, "E4E5E6+").unwrap();
    assert_eq!(at(&after, "F6"), CellContent::Marble(0));
    assert_eq!(at(&after, "D4"), CellContent::Marble(0));
    let blocked = board(rules, &[("b", "E4 E5 E6"), ("w", "F6 A1")], 0);
    assert!(try_play(&blocked, "E4E5E6+").unwrap_err().contains("F6"));
    // Rules without them refuse them.
    let plain = board(two(), &[("b", "E4 E5 E6"), ("w", "A1")], 0);
    assert!(
        try_play(&plain, "E4E5E6+")
            .unwrap_err()
            .contains("not in these rules")
    );
    // Both forms round-trip for every legal extra move.
    let position = board(rules, &[("b", "D4 E4 E5 E6 F6 D5"), ("w", "A1 I5")], 0);
    for mv in position.legal_moves() {
        assert_eq!(
            position.parse_move(&mv.to_text()),
            Ok(mv),
            "{}",
            mv.to_text()
        );
        assert_eq!(
            position.parse_move(&mv.to_comma()),
            Ok(mv),
            "{}",
            mv.to_comma()
        );
    }
}

#[test]
fn the_one_colour_push_and_moves_that_give_one_position() {
    let mut rules = two();
    rules.one_colour = true;
    // Three in a row then a marble then the edge: 3 push 1 off, scoring.
    let position = board(rules, &[("c", "E6 E7 E8 E9 A1")], 0);
    let after = try_play(&position, "E6E7").unwrap();
    assert_eq!(after.seat_score(0), 1);
    // Three moving into an empty cell and two pushing the third's neighbour
    // give one position: one move.
    let position = board(rules, &[("c", "E3 E4 E5")], 0);
    let moves = position.legal_moves();
    let mut results: Vec<String> = moves
        .iter()
        .map(|&m| position.play(m).to_string())
        .collect();
    let count = results.len();
    results.sort();
    results.dedup();
    assert_eq!(
        results.len(),
        count,
        "every legal move gives its own position"
    );
    assert_eq!(general_perft(&position, 1), count as u64);
}

#[test]
fn a_handicap_side_wins_at_its_own_target() {
    let rules = two().with_targets(&[6, 4]).unwrap();
    let position = GeneralPosition::from_text("5/6/7/8/bww6/8/7/6/5 w 3 0", Some(&rules)).unwrap();
    assert!(!position.is_game_over());
    let after = try_play(&position, "E3E2").unwrap();
    assert_eq!(
        after.ending(),
        Some(Ending {
            outcome: Outcome::Win(1),
            reason: EndReason::MarblesOff
        })
    );
}

#[test]
fn the_move_limit_adjudicates_by_marbles_among_all_sides() {
    let mut three = GeneralRules::plain(Seating::new(3, false).unwrap());
    three.max_plies = Some(10);
    let position =
        GeneralPosition::from_text("r4/6/7/8/9/8/7/6/b3w b 1,2,2 9 1", Some(&three)).unwrap();
    let after = position.play(position.legal_moves()[0]);
    assert_eq!(
        after.ending(),
        Some(Ending {
            outcome: Outcome::Draw(0b110),
            reason: EndReason::MoveLimit
        })
    );
}

#[test]
fn position_texts_round_trip_and_errors_name_the_field() {
    for text in [
        "wwwww/wwwwww/2www2/8/4n4/8/2bbb2/bbbbbb/bbbbb b 0 0",
        "5/6/7/8/4o4/8/7/6/5 w 2 1 40 3",
        "x4/6/7/8/4c4/8/7/6/4c w 0 0",
        "r4/6/7/8/9/8/7/6/b3w b 1,2,2 9 1",
        "ry3/6/7/8/9/8/7/6/bwgu1 u 0,0,0,0,0,3",
    ] {
        let position = GeneralPosition::from_text(text, None).unwrap();
        assert_eq!(position.to_string(), text);
    }
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/4r b 0 0", None).unwrap_err();
    assert!(
        matches!(err.problem, TextProblem::SeatOutOfRange { letter: 'r', .. })
            && err.to_string().contains("A5"),
        "{err}"
    );
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/5 r 0 0", None).unwrap_err();
    assert!(matches!(err.problem, TextProblem::BadSeat { .. }), "{err}");
    let err = GeneralPosition::from_text("5/6/7/8/4z4/8/7/6/5 b 0 0", None).unwrap_err();
    assert!(
        matches!(
            err.problem,
            TextProblem::UnknownCharacter {
                row: 'E',
                found: 'z',
                ..
            }
        ),
        "{err}"
    );
    let holed = two().with_cells(&[], &[cell("E5")]).unwrap();
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/5 b 0 0", Some(&holed)).unwrap_err();
    assert!(
        err.to_string()
            .contains("E5 is an open cell in the text but a hole"),
        "{err}"
    );
}

/// Both texts give one error: the same fault in either grammar is the same
/// problem at the same character, in the same words but for what each
/// grammar reads.
#[test]
fn both_texts_say_what_and_where_alike() {
    let both = |text: &str| {
        let two = Position::from_fen(text).unwrap_err();
        let general = GeneralPosition::from_text(text, None).unwrap_err();
        assert_eq!(two.column, general.column, "{text}");
        (two.to_string(), general.to_string(), general.column)
    };
    let (two, general, column) = both("5/6/7/8/4z4/8/7/6/5 b 0 0");
    assert_eq!(
        two,
        "row E, character 2: unknown 'z' (expected b, w or a digit 1-9)"
    );
    assert_eq!(
        general,
        "row E, character 2: unknown 'z' (expected a seat letter b w r g u y, c, n, x, o or a digit 1-9)"
    );
    assert_eq!(column, Some(10));
    let (two, general, column) = both("5/6/7/8/9/8/7/6/5 B 0 0");
    assert_eq!(two, "side to move \"B\" must be b or w");
    assert_eq!(general, "seat to move \"B\" must be b or w");
    assert_eq!(column, Some(19));
    let (two, general, column) = both("5/6/7/8/9/8/7/6/b4 b 0 0 3 4");
    assert_eq!(two, general);
    assert_eq!(
        general,
        "plies since a push-off (4) cannot exceed the plies played (3)"
    );
    assert_eq!(column, Some(28));
    let (two, general, _) = both("5/6/7/8/9/8/7/6/b4 b x 0");
    assert_eq!(
        two,
        "black marbles off \"x\" is not a whole number from 0 to 14"
    );
    assert_eq!(
        general,
        "black marbles off \"x\" is not a whole number from 0 to 255"
    );
    // Three players: the seats and scores are named by their letters.
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/b4 z 0,x,0", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "score of seat w \"x\" is not a whole number from 0 to 255"
    );
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/b4 z 0,0,0", None).unwrap_err();
    assert_eq!(err.to_string(), "seat to move \"z\" must be b, w or r");
    assert_eq!(err.column, Some(20));
}

#[test]
fn huge_fields_and_moves_are_quoted_back_as_short_excerpts() {
    let huge = "9".repeat(1 << 20);
    let cut = format!("{}…", "9".repeat(crate::EXCERPT_CHARS));
    for text in [
        format!("5/6/7/8/9/8/7/6/5 {huge} 0 0"),
        format!("5/6/7/8/9/8/7/6/5 b {huge} 0"),
        format!("5/6/7/8/9/8/7/6/5 b 0,0,{huge}"),
        format!("5/6/7/8/9/8/7/6/5 b 0 0 {huge} 0"),
        format!("5/6/7/8/9/8/7/6/5 b 0 0 won:{huge}"),
    ] {
        let message = GeneralPosition::from_text(&text, None)
            .unwrap_err()
            .to_string();
        assert!(message.len() < 300, "{}", &message[..300]);
        assert!(message.contains(&cut), "{message}");
    }
    let start = GeneralPosition::from_text("5/6/7/8/9/8/7/6/b4 b 0 0", None).unwrap();
    // Ply counters: at most MAX_PLY_COUNTER (playing on from u32::MAX
    // overflowed), and no more plies since a push-off than plies.
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/b4 b 0 0 4294967295 0", None);
    assert!(
        matches!(
            err,
            Err(PositionTextError {
                problem: TextProblem::BadNumber { .. },
                ..
            })
        ),
        "{err:?}"
    );
    let err = GeneralPosition::from_text("5/6/7/8/9/8/7/6/b4 b 0 0 3 4", None);
    assert!(
        matches!(
            err,
            Err(PositionTextError {
                problem: TextProblem::PliesSincePushOffExceedPly { since: 4, ply: 3 },
                ..
            })
        ),
        "{err:?}"
    );
    let text = format!("5/6/7/8/9/8/7/6/b4 b 0 0 {} 0", crate::MAX_PLY_COUNTER);
    let last = GeneralPosition::from_text(&text, None).unwrap();
    assert_eq!(
        last.play(last.legal_moves()[0]).ply(),
        crate::MAX_PLY_COUNTER + 1
    );
    for text in [huge.clone(), format!("A1{huge}"), format!("a1,{huge}")] {
        let message = start.parse_move(&text).unwrap_err().to_string();
        assert!(message.len() < 300, "{}", &message[..300]);
    }
}

#[test]
fn symmetries_kept_map_legal_moves_onto_legal_moves() {
    let mut rules = two().with_cells(&[cell("E5")], &[]).unwrap();
    rules.shield_moves = true;
    rules.rotation_moves = true;
    let kept = symmetry::kept_symmetries(&rules);
    assert_eq!(kept.len(), 12, "E5 is the centre");
    let off_centre = two().with_cells(&[cell("E6")], &[]).unwrap();
    let kept_off = symmetry::kept_symmetries(&off_centre);
    assert_eq!(kept_off.len(), 2, "identity and the reflection in row E");
    let position = board(rules, &[("b", "D4 E4 D5 F6 F7 G7"), ("w", "E6 E7 C3")], 0);
    for s in kept {
        let image = symmetry::apply_position(s, &position);
        let mut mapped: Vec<GeneralMove> = position
            .legal_moves()
            .into_iter()
            .map(|m| symmetry::apply_move(s, m))
            .collect();
        mapped.sort();
        assert_eq!(mapped, image.legal_moves(), "{s:?}");
    }
}

#[test]
fn a_stuck_player_is_skipped_and_two_players_lose() {
    // Black's only marble is walled in on A1 by white marbles that cannot be
    // pushed (2 against 1 is not a push the other way round).
    let position = GeneralPosition::from_text("5/6/7/8/9/8/7/ww4/bw3 b 0 0", None).unwrap();
    assert_eq!(
        position.ending(),
        Some(Ending {
            outcome: Outcome::Win(1),
            reason: EndReason::NoLegalMoves
        })
    );
    let three = GeneralRules::plain(Seating::new(3, false).unwrap());
    let position =
        GeneralPosition::from_text("r4/6/7/8/9/8/7/ww4/bw3 b 0,0,0", Some(&three)).unwrap();
    assert_eq!(
        position.seat_to_move(),
        1,
        "black cannot move and is skipped"
    );
    assert!(!position.is_game_over());
}
