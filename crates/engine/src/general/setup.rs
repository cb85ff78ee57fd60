//! How a general game starts: a layout (any two-player one, or one of the
//! 3–6 player layouts of the rules file), neutral marbles added on empty
//! cells, and marbles removed for a handicap.

use super::position::{GeneralBoardError, GeneralPosition};
use super::rules::{GeneralRules, MAX_SEATS, cells_to_bits};
use crate::board::Cell;
use crate::layout::{Layout, LayoutError};
use std::fmt;

/// A start layout of the general game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GeneralLayout {
    /// A two-player layout (Black and White).
    Two(Layout),
    /// 11 each; bottom, upper left, upper right.
    ThreePlayer,
    /// 12 each; bottom, upper left, upper right.
    ThreePlayerTrapezoid,
    /// 9 each; bottom, left, top, right (teams bottom + top, left + right).
    FourPlayer,
    /// 8 each and 7 in the centre; bottom, left, top, right, centre.
    FivePlayer,
    /// 6 each; bottom, lower left, upper left, top, upper right, lower right
    /// (teams: opposite sides).
    SixPlayer,
}

/// The rule sheets' own start, where nothing names another: a model whose
/// rules carry no layouts learned on it.
impl Default for GeneralLayout {
    fn default() -> Self {
        GeneralLayout::Two(Layout::Standard)
    }
}

/// The cells of the many-player layouts, seat by seat in turn order.
const MANY: [(&str, GeneralLayout, &[&str]); 5] = [
    (
        "three-player",
        GeneralLayout::ThreePlayer,
        &[
            "A1 A2 A3 A4 A5 B1 B2 B3 B4 B5 B6",
            "E1 F2 G3 H4 I5 D1 E2 F3 G4 H5 I6",
            "E9 F9 G9 H9 I9 D8 E8 F8 G8 H8 I8",
        ],
    ),
    (
        "three-player-trapezoid",
        GeneralLayout::ThreePlayerTrapezoid,
        &[
            "A1 A2 A3 A4 A5 B2 B3 B4 B5 C3 C4 C5",
            "E1 E2 E3 F2 F3 F4 G3 G4 G5 H4 H5 I5",
            "E7 E8 E9 F7 F8 F9 G7 G8 G9 H8 H9 I9",
        ],
    ),
    (
        "four-player",
        GeneralLayout::FourPlayer,
        &[
            "A2 A3 A4 A5 B3 B4 B5 C4 C5",
            "B1 C1 D1 E1 C2 D2 E2 D3 E3",
            "I5 I6 I7 I8 H5 H6 H7 G5 G6",
            "E9 F9 G9 H9 E8 F8 G8 E7 F7",
        ],
    ),
    (
        "five-player",
        GeneralLayout::FivePlayer,
        &[
            "A2 A3 A4 A5 B3 B4 B5 B6",
            "B1 C1 D1 E1 C2 D2 E2 F2",
            "I5 I6 I7 I8 H4 H5 H6 H7",
            "E9 F9 G9 H9 D8 E8 F8 G8",
            "E5 D4 D5 E4 E6 F5 F6",
        ],
    ),
    (
        "six-player",
        GeneralLayout::SixPlayer,
        &[
            "A2 A3 A4 B3 B4 C4",
            "B1 C1 C2 D1 D2 D3",
            "F2 F3 F4 G3 G4 H4",
            "G6 H6 H7 I6 I7 I8",
            "F7 F8 F9 G8 G9 H9",
            "B6 C6 C7 D6 D7 D8",
        ],
    ),
];

/// What is wrong with a start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error(
        "the layout {layout} seats {layout_seats} players, but the rules are for {rules_seats}"
    )]
    Seats {
        layout: String,
        layout_seats: usize,
        rules_seats: usize,
    },
    #[error("{cell} is {what}, but the layout {layout} has a marble there")]
    CellTaken {
        cell: Cell,
        what: &'static str,
        layout: String,
    },
    #[error("removed_marbles names {cell}, but the layout {layout} has no marble there")]
    NothingToRemove { cell: Cell, layout: String },
    #[error("{cell} is named twice in {key}")]
    Repeated { cell: Cell, key: &'static str },
    #[error(transparent)]
    Board(#[from] GeneralBoardError),
}

impl GeneralLayout {
    /// Every many-player layout.
    pub const MANY_PLAYER: [GeneralLayout; 5] = [
        GeneralLayout::ThreePlayer,
        GeneralLayout::ThreePlayerTrapezoid,
        GeneralLayout::FourPlayer,
        GeneralLayout::FivePlayer,
        GeneralLayout::SixPlayer,
    ];

    /// Reads a name: a many-player one (`three-player`, `four-player`, ...)
    /// or any two-player layout name.
    pub fn from_name(name: &str) -> Result<GeneralLayout, LayoutError> {
        let lower = name.trim().to_ascii_lowercase();
        if let Some((_, layout, _)) = MANY.iter().find(|(n, _, _)| *n == lower) {
            return Ok(*layout);
        }
        Layout::from_name(name)
            .map(GeneralLayout::Two)
            .map_err(|err| match err {
                LayoutError::Unknown { name } => LayoutError::UnknownAny { name },
                other => other,
            })
    }

    /// The name [`GeneralLayout::from_name`] reads.
    pub fn name(&self) -> String {
        match self {
            GeneralLayout::Two(layout) => layout.name(),
            many => MANY
                .iter()
                .find(|(_, layout, _)| layout == many)
                .map(|(name, _, _)| name.to_string())
                .expect("every many-player layout is in the table"),
        }
    }

    /// Number of players.
    pub fn seats(&self) -> usize {
        match self {
            GeneralLayout::Two(_) => 2,
            many => MANY
                .iter()
                .find(|(_, layout, _)| layout == many)
                .map(|(_, _, seats)| seats.len())
                .expect("every many-player layout is in the table"),
        }
    }

    /// Each seat's cells, in turn order.
    pub fn cells(&self) -> Vec<Vec<Cell>> {
        match self {
            GeneralLayout::Two(layout) => layout.cells().to_vec(),
            many => MANY
                .iter()
                .find(|(_, layout, _)| layout == many)
                .map(|(_, _, seats)| {
                    seats
                        .iter()
                        .map(|list| {
                            list.split(' ')
                                .map(|name| name.parse().expect("layout tables name valid cells"))
                                .collect()
                        })
                        .collect()
                })
                .expect("every many-player layout is in the table"),
        }
    }
}

impl fmt::Display for GeneralLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A start: the layout, the cells that get a neutral marble, and the cells
/// whose marbles are taken off for a handicap (they do not count as pushed
/// off).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GeneralSetup {
    pub layout: GeneralLayout,
    pub neutral: Vec<Cell>,
    pub removed: Vec<Cell>,
}

impl GeneralSetup {
    /// The layout alone.
    pub fn layout(layout: GeneralLayout) -> GeneralSetup {
        GeneralSetup {
            layout,
            neutral: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// The start position under `rules`, seat 0 to move.
    pub fn start(&self, rules: &GeneralRules) -> Result<GeneralPosition, SetupError> {
        let layout_name = self.layout.name();
        if self.layout.seats() != rules.seating.seats() {
            return Err(SetupError::Seats {
                layout: layout_name,
                layout_seats: self.layout.seats(),
                rules_seats: rules.seating.seats(),
            });
        }
        for (key, list) in [
            ("neutral", &self.neutral),
            ("removed_marbles", &self.removed),
        ] {
            for (i, cell) in list.iter().enumerate() {
                if list[..i].contains(cell) {
                    return Err(SetupError::Repeated { cell: *cell, key });
                }
            }
        }
        let mut marbles = [0u128; MAX_SEATS];
        for (seat, cells) in self.layout.cells().into_iter().enumerate() {
            marbles[seat] = cells_to_bits(&cells);
        }
        let all = marbles.iter().fold(0, |a, b| a | b);
        let taken = |cell: Cell| all & cell.bit() != 0;
        for (cells, what) in [
            (super::rules::cells_of(rules.obstacles), "an obstacle"),
            (super::rules::cells_of(rules.holes), "a hole"),
            (self.neutral.clone(), "a neutral cell"),
        ] {
            if let Some(&cell) = cells.iter().find(|&&cell| taken(cell)) {
                return Err(SetupError::CellTaken {
                    cell,
                    what,
                    layout: layout_name,
                });
            }
        }
        for &cell in &self.removed {
            if !taken(cell) {
                return Err(SetupError::NothingToRemove {
                    cell,
                    layout: layout_name,
                });
            }
            for board in &mut marbles {
                *board &= !cell.bit();
            }
        }
        if rules.one_colour {
            let common = marbles.iter().fold(0, |a, b| a | b);
            marbles = [0; MAX_SEATS];
            marbles[0] = common;
        }
        // A thrown marble that fell off counts as pushed off by the opponent.
        let mut scores = [0u8; MAX_SEATS];
        if let GeneralLayout::Two(layout) = self.layout {
            let [black, white] = layout.fallen();
            scores[0] = white;
            scores[1] = black;
        }
        Ok(GeneralPosition::new(
            *rules,
            marbles,
            cells_to_bits(&self.neutral),
            0,
            scores,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::general::rules::Seating;

    #[test]
    fn many_player_layouts_have_their_marble_counts_on_distinct_cells() {
        for (layout, each) in [
            (GeneralLayout::ThreePlayer, vec![11; 3]),
            (GeneralLayout::ThreePlayerTrapezoid, vec![12; 3]),
            (GeneralLayout::FourPlayer, vec![9; 4]),
            (GeneralLayout::FivePlayer, vec![8, 8, 8, 8, 7]),
            (GeneralLayout::SixPlayer, vec![6; 6]),
        ] {
            let cells = layout.cells();
            assert_eq!(
                cells.iter().map(Vec::len).collect::<Vec<_>>(),
                each,
                "{layout}"
            );
            let mut all: Vec<Cell> = cells.concat();
            all.sort();
            all.dedup();
            assert_eq!(all.len(), each.iter().sum::<usize>(), "{layout}");
            assert_eq!(GeneralLayout::from_name(&layout.name()), Ok(layout));
            let rules = GeneralRules::plain(Seating::new(layout.seats(), false).unwrap());
            let start = GeneralSetup::layout(layout).start(&rules).unwrap();
            assert_eq!(start.seat_to_move(), 0);
        }
    }

    #[test]
    fn starts_name_the_cell_that_conflicts() {
        let rules = GeneralRules::plain(Seating::TWO);
        let standard = GeneralLayout::Two(Layout::Standard);
        let mut setup = GeneralSetup::layout(standard);
        setup.neutral = vec!["A1".parse().unwrap()];
        let err = setup.start(&rules).unwrap_err().to_string();
        assert!(err.contains("A1") && err.contains("neutral"), "{err}");
        let holed = rules.with_cells(&[], &["I9".parse().unwrap()]).unwrap();
        let err = GeneralSetup::layout(standard)
            .start(&holed)
            .unwrap_err()
            .to_string();
        assert!(err.contains("I9") && err.contains("hole"), "{err}");
        let mut setup = GeneralSetup::layout(standard);
        setup.removed = vec!["E5".parse().unwrap()];
        let err = setup.start(&rules).unwrap_err().to_string();
        assert!(
            err.contains("E5") && err.contains("removed_marbles"),
            "{err}"
        );
        let err = GeneralSetup::layout(GeneralLayout::FourPlayer)
            .start(&rules)
            .unwrap_err()
            .to_string();
        assert!(err.contains("4 players") && err.contains("for 2"), "{err}");
    }
}
