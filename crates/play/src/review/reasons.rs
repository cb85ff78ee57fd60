//! Why a judged move was bad, in plain words, from the engine's exact
//! material count (`Board::material_after`, a minimax over every legal
//! move whose only score is the marbles pushed off): the move lets the
//! other side push a marble off (or win) within two of its moves, misses a
//! push-off the better move makes at once, or misses winning a marble in
//! two moves. A move whose loss is positional (no marble changes hands in
//! those few plies) has no reason here: the network's judgement stands
//! alone.

use sumito_engine::material::WIN;
use sumito_game::{Board, GameKind};

/// The reason `played` was worse than `better` (the search's move, where
/// it differs) in `position`, if the material count finds one.
pub fn reason<B: Board>(position: &B, played: B::Move, better: Option<B::Move>) -> Option<String> {
    let after = position.play(played);
    let me = position.mover_side();
    if after.result_for(me) == Some(1.0) {
        return None;
    }
    // Who moves next, as a sentence names them; with more than two sides
    // the material count sets every other side against the mover.
    let them = if position.sides() == 2 {
        B::seat_title(after.seat_to_move())
    } else {
        "the others".to_string()
    };
    let material = |mv: B::Move, plies: u32| position.material_after(mv, plies).unwrap_or(0);
    if let Some(better) = better {
        if position.play(better).result_for(me) == Some(1.0) {
            return Some(format!(
                "misses the winning push-off{} ({})",
                pushed_cell::<B>(better).map_or(String::new(), |cell| format!(" of {cell}")),
                B::move_text(better)
            ));
        }
        if position.push_offs(better) > position.push_offs(played) {
            return Some(match pushed_cell::<B>(better) {
                Some(cell) => format!("misses pushing off {cell} ({})", B::move_text(better)),
                None => format!("misses a push-off ({})", B::move_text(better)),
            });
        }
    }
    // What the other side gains in its next move, or in its next two; the
    // deeper count only with two sides (it grows with every side's moves).
    let depths: &[(u32, &str)] = if position.sides() == 2 {
        &[(2, "with its next move"), (4, "in 2 moves")]
    } else {
        &[(2, "with their next move")]
    };
    let gained = i32::try_from(position.push_offs(played)).unwrap_or(0);
    for &(plies, when) in depths {
        let kept = material(played, plies);
        let alternative = better.map_or(gained, |better| material(better, plies));
        if kept < gained && kept < alternative {
            return Some(if kept <= -WIN {
                format!("lets {them} win {when}")
            } else {
                format!("lets {them} push a marble off {when}")
            });
        }
    }
    // A marble the better move wins by force in two of the mover's moves.
    if let Some(better) = better
        && position.sides() == 2
        && material(better, 3) > 0
        && material(better, 3) > material(played, 3)
    {
        return Some(format!(
            "misses winning a marble in 2 moves ({})",
            B::move_text(better)
        ));
    }
    None
}

/// The cell of the marble `mv` pushes off, as the board names it: the last
/// cell on the board along the move's line. Known for the two-player game
/// only (the general game's holes swallow marbles before the edge).
fn pushed_cell<B: Board>(mv: B::Move) -> Option<String> {
    if B::KIND != GameKind::TwoPlayer {
        return None;
    }
    let group = B::general_move(mv).as_group()?;
    if group.is_broadside() {
        return None;
    }
    let direction = group.direction();
    let mut cell = group.cells().last()?;
    while let Some(next) = cell.neighbour(direction) {
        cell = next;
    }
    Some(cell.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::Position;

    fn position(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    /// The legal move of `position` whose text is `text`.
    fn find(position: &Position, text: &str) -> sumito_engine::Move {
        position
            .legal_moves()
            .into_iter()
            .find(|&mv| <Position as Board>::move_text(mv) == text)
            .unwrap_or_else(|| panic!("{text} is not legal in {position}"))
    }

    /// A move of Black's quiet marbles on row A (no part of the fight).
    fn quiet_move(position: &Position) -> sumito_engine::Move {
        position
            .legal_moves()
            .into_iter()
            .find(|&mv| {
                let text = <Position as Board>::move_text(mv);
                text.starts_with("A3") && !text.contains('E') && position.push_offs(mv) == 0
            })
            .unwrap()
    }

    #[test]
    fn a_missed_push_off_names_the_marble() {
        // Black's three on E3-E5 push White's two on E1-E2: E1 goes off.
        let position = position("5/6/7/8/wwbbb4/8/7/6/bbb2 b 0 0");
        let push = position
            .legal_moves()
            .into_iter()
            .find(|&mv| position.push_offs(mv) == 1)
            .unwrap();
        let quiet = quiet_move(&position);
        let why = reason(&position, quiet, Some(push)).unwrap();
        assert_eq!(
            why,
            format!(
                "misses pushing off E1 ({})",
                <Position as Board>::move_text(push)
            )
        );
        // The push itself has nothing to regret.
        assert_eq!(reason(&position, push, None), None);
    }

    #[test]
    fn a_move_that_leaves_a_marble_hanging_says_so() {
        // White's three on E3-E5 threaten Black's two on E1-E2; stepping
        // them up to D1-D2 saves both.
        let position = position("5/6/7/8/bbwww4/8/7/6/bbb2 b 0 0");
        let retreat = find(&position, "E1E2D1");
        assert_eq!(position.material_after(retreat, 2), Some(0));
        let quiet = quiet_move(&position);
        assert_eq!(
            reason(&position, quiet, Some(retreat)).as_deref(),
            Some("lets White push a marble off with its next move")
        );
        // Without a better move to compare, the loss alone is no reason.
        assert_eq!(reason(&position, retreat, None), None);
    }

    #[test]
    fn a_quiet_position_has_no_reason() {
        let start = Position::start(
            sumito_engine::Layout::Standard,
            sumito_engine::Rules::default(),
        );
        let moves = start.legal_moves();
        assert_eq!(reason(&start, moves[0], Some(moves[1])), None);
    }
}
