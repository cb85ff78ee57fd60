//! The marbles each side could push off with one move, by the engine's
//! rules alone (every legal move of the side, as if it were its turn,
//! played and counted), so that the page marks them whatever the network
//! thinks. For two players this is the engine's own count of the push-off
//! planes (`Position::push_off_targets`, which the tests check it against);
//! it serves every variant and 3–6 players the same way.

use sumito_engine::Cell;
use sumito_engine::general::{CellContent, GeneralPosition, MAX_SEATS, MoveKind};

/// A marble that `seat` could push off with one move if it were its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Threat {
    pub cell: Cell,
    pub seat: usize,
}

/// Every marble that some seat could push off with one move in `position`
/// if it were that seat's turn (the seat to move: now), ordered by seat
/// then cell; none once the game is over.
pub fn push_off_threats(position: &GeneralPosition) -> Vec<Threat> {
    if position.is_game_over() {
        return Vec::new();
    }
    let rules = *position.rules();
    let seats = rules.seating.seats();
    let marbles: [u128; MAX_SEATS] = std::array::from_fn(|seat| {
        if seat < seats {
            position.bitboard(seat)
        } else {
            0
        }
    });
    let mut threats = Vec::new();
    for seat in 0..seats {
        if marbles[seat] == 0 {
            continue;
        }
        let as_mover = if seat == position.seat_to_move() {
            *position
        } else {
            match GeneralPosition::new(
                rules,
                marbles,
                position.neutral_bitboard(),
                seat,
                position.scores(),
            ) {
                Ok(other) => {
                    other.with_ply_counters(position.ply(), position.plies_since_push_off())
                }
                Err(_) => continue,
            }
        };
        // (A seat that cannot move is passed over: it threatens nothing.)
        if as_mover.is_game_over() || as_mover.seat_to_move() != seat {
            continue;
        }
        for cell in pushed_off_by(&as_mover) {
            threats.push(Threat { cell, seat });
        }
    }
    threats.sort();
    threats.dedup();
    threats
}

/// The marbles the seat to move can push off with one of its moves.
fn pushed_off_by(position: &GeneralPosition) -> Vec<Cell> {
    let mover = position.seat_to_move();
    let seating = position.rules().seating;
    let on_board = |p: &GeneralPosition| {
        let seats = p.rules().seating.seats();
        (0..seats).map(|s| p.marble_count(s)).sum::<u32>() + p.neutral_bitboard().count_ones()
    };
    let before = on_board(position);
    // A marble the mover may push: another side's, or a neutral one.
    let pushable = |cell: Cell| match position.at(cell) {
        CellContent::Marble(seat) => seating.side_of(seat) != seating.side_of(mover),
        CellContent::Neutral => true,
        _ => false,
    };
    let mut cells = Vec::new();
    for mv in position.legal_moves() {
        let MoveKind::Group(group) = mv.kind() else {
            continue; // shields and rotations push nothing
        };
        let dir = group.direction();
        let members: Vec<Cell> = group.cells().collect();
        // The marble a push moves last: the far end of the line of pushed
        // marbles ahead of the group's leading marble.
        let Some(front) = members.iter().copied().find(|cell| {
            cell.neighbour(dir)
                .is_none_or(|next| !members.contains(&next))
        }) else {
            continue;
        };
        let mut last = None;
        let mut next = front.neighbour(dir);
        while let Some(cell) = next.filter(|&cell| pushable(cell)) {
            last = Some(cell);
            next = cell.neighbour(dir);
        }
        if let Some(cell) = last
            && on_board(&position.play(mv)) < before
        {
            cells.push(cell);
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Color, Layout, Position, Rules};

    fn general(position: &Position) -> GeneralPosition {
        GeneralPosition::from_text(&position.to_string(), None).unwrap()
    }

    /// Positions of a random game from `layout`, every ply.
    fn game_positions(layout: Layout, seed: u64, plies: usize) -> Vec<Position> {
        let mut position = Position::start(layout, Rules::default());
        let mut state = seed;
        let mut positions = vec![position];
        for _ in 0..plies {
            let moves: Vec<_> = position.legal_moves().into_iter().collect();
            if moves.is_empty() || position.is_game_over() {
                break;
            }
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Pushes first, so that marbles fall and threats come.
            let pushes: Vec<_> = moves
                .iter()
                .copied()
                .filter(|&m| position.is_push(m))
                .collect();
            let pool = if !pushes.is_empty() && state >> 62 != 0 {
                &pushes
            } else {
                &moves
            };
            position = position.play(pool[(state >> 33) as usize % pool.len()]);
            positions.push(position);
        }
        positions
    }

    #[test]
    fn two_player_threats_are_the_engines_push_off_targets() {
        let mut seen = 0;
        for (layout, seed) in [
            (Layout::Standard, 1),
            (Layout::BelgianDaisy, 2),
            (Layout::Standard, 7),
        ] {
            for position in game_positions(layout, seed, 160) {
                let expected: Vec<Threat> = [Color::Black, Color::White]
                    .into_iter()
                    .flat_map(|attacker| {
                        position.push_off_targets(attacker).map(move |cell| Threat {
                            cell,
                            seat: attacker.index(),
                        })
                    })
                    .collect();
                let mut expected = expected;
                expected.sort();
                assert_eq!(
                    push_off_threats(&general(&position)),
                    expected,
                    "{position}"
                );
                seen += expected.len();
            }
        }
        assert!(seen > 0, "the games had threats to check");
    }

    #[test]
    fn three_players_threats_of_the_seat_to_move_are_its_push_offs() {
        let layout = sumito_engine::general::GeneralLayout::from_name("three-player").unwrap();
        let (rules, setup) = sumito_engine::rules_table::RulesTable::default()
            .resolve(layout)
            .unwrap();
        let mut position = setup.start(&rules).unwrap();
        assert!(push_off_threats(&position).is_empty(), "none at the start");
        // A game that pushes off whenever it can: at every ply the seat to
        // move threatens a marble exactly when one of its moves scores.
        let mut threatened = 0;
        for ply in 0..400 {
            if position.is_game_over() {
                break;
            }
            let mover = position.seat_to_move();
            let threats = push_off_threats(&position);
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
}
