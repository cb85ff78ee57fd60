//! Property tests over random playouts from every layout and over random
//! boards: conservation of marbles, incremental hashing, the 12 symmetries,
//! text and notation round trips, the action bijection, and the bitboard
//! generator against the cell-by-cell legality check.

use proptest::prelude::*;
use std::collections::BTreeSet;
use sumito_engine::{
    ACTION_COUNT, Cell, Color, Layout, MARBLES_PER_SIDE, Move, Position, Rules, Symmetry,
    random_playout,
};

/// Any layout: the named ones and seeded random and partly random ones.
fn any_layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        (0..Layout::NAMED.len()).prop_map(|i| Layout::NAMED[i]),
        any::<u64>().prop_map(|seed| Layout::Random { seed }),
        any::<u64>().prop_map(|seed| Layout::PartlyRandom { seed }),
    ]
}

/// Positions met in a random playout of up to 120 plies from any layout.
fn playout() -> impl Strategy<Value = Vec<Position>> {
    (any_layout(), any::<u64>(), 0..120usize).prop_map(|(layout, seed, plies)| {
        random_playout(&Position::start(layout, Rules::default()), plies, seed)
    })
}

/// A random board written in the text format: each cell empty, black or
/// white, at most 14 of a colour, with random off counts and side to move.
fn random_board() -> impl Strategy<Value = Position> {
    (
        proptest::collection::vec(0..5u8, 61),
        any::<bool>(),
        0..=14u8,
        0..=14u8,
    )
        .prop_map(|(cells, white_to_move, black_off, white_off)| {
            let mut counts = [0u8; 2];
            let mut owner = [None; 61];
            for (i, &roll) in cells.iter().enumerate() {
                // 0..3 empty, 3 black, 4 white.
                let color = match roll {
                    3 => 0,
                    4 => 1,
                    _ => continue,
                };
                if counts[color] < MARBLES_PER_SIDE {
                    counts[color] += 1;
                    owner[i] = Some(color);
                }
            }
            let off = [
                black_off.min(MARBLES_PER_SIDE - counts[0]),
                white_off.min(MARBLES_PER_SIDE - counts[1]),
            ];
            let mut rows = Vec::new();
            for row in (0..9u8).rev() {
                let mut text = String::new();
                for cell in Cell::all().filter(|c| c.row() == row) {
                    text.push(match owner[cell.index()] {
                        None => '1',
                        Some(0) => 'b',
                        Some(_) => 'w',
                    });
                }
                rows.push(text);
            }
            let side = if white_to_move { 'w' } else { 'b' };
            let text = format!("{} {side} {} {}", rows.join("/"), off[0], off[1]);
            Position::from_fen(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
        })
}

fn move_set(position: &Position) -> BTreeSet<Move> {
    position.legal_moves().iter().copied().collect()
}

/// The checks every position must pass.
fn check_position(position: &Position) {
    // Hash, text round trip.
    assert_eq!(position.hash(), position.compute_hash());
    let text = position.to_string();
    let reread = Position::from_fen(&text).expect("printed text parses");
    assert_eq!(reread.to_string(), text);
    assert_eq!(reread.hash(), position.hash());
    for color in Color::ALL {
        assert!(reread.marbles(color).eq(position.marbles(color)));
    }

    // Bitboard generator = cell-by-cell check over the whole action space.
    let moves = position.legal_moves();
    let by_cells: Vec<Move> = Move::all().filter(|&m| position.is_legal(m)).collect();
    assert_eq!(moves.to_vec(), by_cells, "{text}");
    assert_eq!(position.count_legal_moves(), moves.len());
    if position.ending().is_some() {
        assert!(moves.is_empty());
    }

    let mover = position.side_to_move();
    for &mv in moves.iter() {
        // Action bijection and notation round trips.
        assert_eq!(Move::from_action(mv.action()), Some(mv));
        assert!(mv.action() < ACTION_COUNT);
        for written in [
            mv.to_string(),
            mv.to_string().to_lowercase(),
            mv.to_comma_notation(),
            mv.to_comma_notation().to_uppercase(),
        ] {
            assert_eq!(position.parse_move(&written), Ok(mv), "{written} in {text}");
        }

        // The child: marbles conserved, counters, hash, push flags.
        let child = position.play(mv);
        assert_eq!(child.side_to_move(), mover.opponent());
        assert_eq!(child.ply(), position.ply() + 1);
        assert_eq!(child.hash(), child.compute_hash());
        for color in Color::ALL {
            let before = position.marble_count(color) + u32::from(position.marbles_off(color));
            let after = child.marble_count(color) + u32::from(child.marbles_off(color));
            assert_eq!(before, after);
        }
        assert_eq!(child.marble_count(mover), position.marble_count(mover));
        let pushed_off =
            child.marbles_off(mover.opponent()) - position.marbles_off(mover.opponent());
        assert_eq!(pushed_off == 1, position.is_push_off(mv));
        assert!(pushed_off <= 1);
        assert_eq!(child.plies_since_push_off() == 0, pushed_off == 1);
        let opponent_moved = !child
            .marbles(mover.opponent())
            .eq(position.marbles(mover.opponent()));
        assert_eq!(opponent_moved, position.is_push(mv));
        assert!(!mv.is_broadside() || !opponent_moved);
        // Exactly the group left its cells or is followed by its own marbles.
        for cell in mv.cells() {
            let dest = cell
                .neighbour(mv.direction())
                .expect("legal moves stay on the board");
            assert_eq!(child.at(dest), Some(mover));
        }
    }

    // Symmetries commute with move generation and play.
    for sym in Symmetry::ALL {
        let image = sym.apply_position(position);
        assert_eq!(image.hash(), image.compute_hash());
        let mapped: BTreeSet<Move> = moves.iter().map(|&m| sym.apply_move(m)).collect();
        assert_eq!(mapped, move_set(&image));
        for &mv in moves.iter() {
            assert_eq!(sym.apply_action(mv.action()), sym.apply_move(mv).action());
            assert_eq!(
                sym.apply_position(&position.play(mv)),
                image.play(sym.apply_move(mv))
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn playouts_from_every_layout(positions in playout()) {
        let start = positions[0];
        for color in Color::ALL {
            // (A partly random start may have thrown marbles off.)
            prop_assert_eq!(start.marble_count(color) + u32::from(start.marbles_off(color)), 14);
        }
        for position in &positions {
            check_position(position);
            for color in Color::ALL {
                prop_assert_eq!(
                    position.marble_count(color) + u32::from(position.marbles_off(color)),
                    14
                );
            }
        }
    }

    #[test]
    fn random_boards(position in random_board()) {
        check_position(&position);
        // A few plies on from the random board.
        for (i, next) in random_playout(&position, 6, position.hash()).iter().enumerate() {
            if i > 0 {
                check_position(next);
            }
        }
    }

    #[test]
    fn position_text_parsing_never_panics(text in ".{0,80}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn near_miss_position_texts_never_panic(
        rows in proptest::collection::vec("[bw0-9xB/]{0,12}", 0..11),
        tail in "[ bw0-9+-]{0,12}",
    ) {
        let text = format!("{}{}", rows.join("/"), tail);
        if let Ok(position) = Position::from_fen(&text) {
            prop_assert_eq!(Position::from_fen(&position.to_string()), Ok(position));
        }
    }

    #[test]
    fn move_parsing_never_panics(text in ".{0,24}", layout in any_layout()) {
        let position = Position::start(layout, Rules::default());
        if let Ok(mv) = position.parse_move(&text) {
            prop_assert!(position.is_legal(mv));
        }
    }

    #[test]
    fn move_like_texts_never_panic(text in "[a-jA-J0-9,\\- ]{0,14}", layout in any_layout()) {
        let position = Position::start(layout, Rules::default());
        if let Ok(mv) = position.parse_move(&text) {
            prop_assert!(position.is_legal(mv));
        }
    }
}

#[test]
fn every_action_maps_back_through_every_symmetry() {
    for sym in Symmetry::ALL {
        let mut images: Vec<usize> = (0..ACTION_COUNT).map(|a| sym.apply_action(a)).collect();
        for (action, &image) in images.iter().enumerate() {
            assert_eq!(sym.inverse().apply_action(image), action);
        }
        images.sort();
        images.dedup();
        assert_eq!(
            images.len(),
            ACTION_COUNT,
            "a symmetry permutes the actions"
        );
    }
}
