//! What a move does on the board, marble by marble: the picture of the last
//! move (arrows in SVG, highlighted cells in the terminal) is drawn from it.

use sumito_engine::{Cell, Color, Direction, Move, Position};

/// One marble moved one cell by a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarbleStep {
    /// Where the marble was.
    pub from: Cell,
    /// Where it went: `None` if it was pushed off the board.
    pub to: Option<Cell>,
    pub direction: Direction,
    /// The colour of the marble: the mover's, or the opponent's for a pushed one.
    pub color: Color,
    /// Whether the mover moved it (as opposed to pushing it).
    pub pushed: bool,
}

/// The marbles that the legal move `mv` moves in `before`: the mover's group,
/// then the opponent's marbles it pushes, nearest first.
pub fn marble_steps(before: &Position, mv: Move) -> Vec<MarbleStep> {
    let mover = before.side_to_move();
    let direction = mv.direction();
    let mut steps: Vec<MarbleStep> = mv
        .cells()
        .map(|from| MarbleStep {
            from,
            to: from.neighbour(direction),
            direction,
            color: mover,
            pushed: false,
        })
        .collect();
    if !mv.is_broadside() {
        // Inline groups list their cells from the trailing marble to the
        // leading one, so the last cell is the one that meets the opponent.
        let mut ahead = mv.cells().last().and_then(|lead| lead.neighbour(direction));
        while let Some(cell) = ahead.filter(|&cell| before.at(cell) == Some(mover.opponent())) {
            let next = cell.neighbour(direction);
            steps.push(MarbleStep {
                from: cell,
                to: next,
                direction,
                color: mover.opponent(),
                pushed: true,
            });
            ahead = next;
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::{Layout, Rules};

    #[test]
    fn a_group_move_lists_every_marble_it_moves() {
        let start = Position::start(Layout::Standard, Rules::default());
        let mv = start.parse_move("A1B2").unwrap();
        let steps = marble_steps(&start, mv);
        let moved: Vec<String> = steps
            .iter()
            .map(|s| format!("{}>{}", s.from, s.to.unwrap()))
            .collect();
        assert_eq!(moved, ["A1>B2", "B2>C3", "C3>D4"]);
        assert!(steps.iter().all(|s| !s.pushed && s.color == Color::Black));
    }

    #[test]
    fn a_push_off_lists_the_pushed_marbles_and_the_one_that_leaves() {
        // Black A1 B1 C1 moves NW into White D1 E1; F1 is not a cell, so
        // the marble on E1 leaves the board.
        let position = Position::from_fen("5/6/7/8/w8/w7/b6/b5/b4 b 0 0").unwrap();
        let mv = position.parse_move("A1B1").unwrap();
        assert!(position.is_push_off(mv));
        let steps = marble_steps(&position, mv);
        assert_eq!(steps.len(), 5);
        let pushed: Vec<(Cell, Option<Cell>)> = steps
            .iter()
            .filter(|s| s.pushed)
            .map(|s| (s.from, s.to))
            .collect();
        let cell = |name: &str| name.parse::<Cell>().unwrap();
        assert_eq!(pushed, [(cell("D1"), Some(cell("E1"))), (cell("E1"), None)]);
    }

    #[test]
    fn a_broadside_pushes_nothing() {
        let start = Position::start(Layout::Standard, Rules::default());
        let mv = start.parse_move("C3C5D4").unwrap();
        let steps = marble_steps(&start, mv);
        assert_eq!(steps.len(), 3);
        assert!(steps.iter().all(|s| !s.pushed));
    }
}
