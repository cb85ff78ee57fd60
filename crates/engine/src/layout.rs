//! Start layouts: the named ones of the rule sheets, a seeded random one and
//! a seeded partly random one. Black always moves first.

use crate::board::{CELL_COUNT, Cell, Color};
use crate::excerpt::excerpt;
use crate::position::{Position, Rules};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::str::FromStr;

/// A start layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Layout {
    Standard,
    BelgianDaisy,
    GermanDaisy,
    DutchDaisy,
    SwissDaisy,
    Domination,
    Pyramid,
    Snakes,
    TheWall,
    /// 14 marbles of each colour on cells drawn at random: a ChaCha8 stream
    /// seeded with `seed` shuffles the 61 cells (Fisher–Yates, from the last
    /// cell down); the first 14 get Black's marbles, the next 14 White's.
    Random {
        seed: u64,
    },
    /// The Standard layout with 3 marbles of each colour thrown onto the
    /// board, as the rules file says: Black keeps A1–A5 and B1–B6, White
    /// keeps I5–I9 and H4–H9; then Black's three marbles of row C and
    /// White's three of row G are thrown, Black's first, each onto a cell of
    /// rows D–F (25 cells) drawn uniformly from a ChaCha8 stream seeded with
    /// `seed`. A marble that lands on a cell already taken falls off the
    /// board and counts as pushed off by the opponent
    /// ([`Layout::fallen`]).
    PartlyRandom {
        seed: u64,
    },
}

/// Why a layout name was not understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error(
        "unknown layout {name:?}; known: standard, belgian-daisy, german-daisy, dutch-daisy, swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED, partly-random:SEED"
    )]
    Unknown { name: String },
    #[error(
        "unknown layout {name:?}; known: standard, belgian-daisy, german-daisy, dutch-daisy, swiss-daisy, domination, pyramid, snakes, the-wall, random:SEED, partly-random:SEED, and for more players three-player, three-player-trapezoid, four-player, five-player, six-player"
    )]
    UnknownAny { name: String },
    #[error("layout {name:?}: the seed {seed:?} is not a whole number 0..2^64")]
    BadSeed { name: String, seed: String },
}

/// Black's and White's cells of each named layout, as in the rule sheets.
const NAMED_CELLS: [(&str, &str, &str); 9] = [
    (
        "standard",
        "A1 A2 A3 A4 A5 B1 B2 B3 B4 B5 B6 C3 C4 C5",
        "I5 I6 I7 I8 I9 H4 H5 H6 H7 H8 H9 G5 G6 G7",
    ),
    (
        "belgian-daisy",
        "A1 A2 B1 B2 B3 C2 C3 G7 G8 H7 H8 H9 I8 I9",
        "A4 A5 B4 B5 B6 C5 C6 G4 G5 H4 H5 H6 I5 I6",
    ),
    (
        "german-daisy",
        "B1 B2 C1 C2 C3 D2 D3 F7 F8 G7 G8 G9 H8 H9",
        "B5 B6 C5 C6 C7 D6 D7 F3 F4 G3 G4 G5 H4 H5",
    ),
    (
        "dutch-daisy",
        "A1 A2 B1 B3 B5 C2 C3 G7 G8 H5 H7 H9 I8 I9",
        "A4 A5 B2 B4 B6 C5 C6 G4 G5 H4 H6 H8 I5 I6",
    ),
    (
        "swiss-daisy",
        "B1 B2 C1 C3 C6 D2 D3 F7 F8 G4 G7 G9 H8 H9",
        "B5 B6 C2 C5 C7 D6 D7 F3 F4 G3 G5 G8 H4 H5",
    ),
    (
        "domination",
        "B1 C1 C2 D1 D2 D3 E4 E6 F7 F8 F9 G8 G9 H9",
        "B6 C6 C7 D5 D6 D7 D8 F2 F3 F4 F5 G3 G4 H4",
    ),
    (
        "pyramid",
        "A5 B5 B6 C5 C6 C7 D5 D6 D7 D8 E6 E7 E8 E9",
        "E1 E2 E3 E4 F2 F3 F4 F5 G3 G4 G5 H4 H5 I5",
    ),
    (
        "snakes",
        "D2 D3 E2 E4 F2 F5 F6 G3 H4 I5 I6 I7 I8 I9",
        "A1 A2 A3 A4 A5 B6 C7 D4 D5 D8 E6 E8 F7 F8",
    ),
    (
        "the-wall",
        "A3 C2 C3 C4 C5 C6 D1 D2 D3 D4 D5 D6 D7 D8",
        "F2 F3 F4 F5 F6 F7 F8 F9 G4 G5 G6 G7 G8 I7",
    ),
];

fn cells_of(list: &str) -> Vec<Cell> {
    list.split(' ')
        .map(|name| name.parse().expect("layout tables name valid cells"))
        .collect()
}

/// A uniform index in `0..bound` from one 64-bit draw (multiply-shift; the
/// bias is below 2^-57 for the small bounds used here).
fn draw_below(rng: &mut ChaCha8Rng, bound: usize) -> usize {
    ((u128::from(rng.next_u64()) * bound as u128) >> 64) as usize
}

/// Fisher–Yates shuffle from the last element down, on a fixed random stream.
fn shuffle<T>(rng: &mut ChaCha8Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        items.swap(i, draw_below(rng, i + 1));
    }
}

impl Layout {
    /// The nine named layouts, in the order of the rule sheets.
    pub const NAMED: [Layout; 9] = [
        Layout::Standard,
        Layout::BelgianDaisy,
        Layout::GermanDaisy,
        Layout::DutchDaisy,
        Layout::SwissDaisy,
        Layout::Domination,
        Layout::Pyramid,
        Layout::Snakes,
        Layout::TheWall,
    ];

    /// Reads a name: `standard`, `belgian-daisy`, `german-daisy`,
    /// `dutch-daisy`, `swiss-daisy`, `domination`, `pyramid`, `snakes`,
    /// `the-wall`, `random:SEED` or `partly-random:SEED` (case-insensitive).
    pub fn from_name(name: &str) -> Result<Layout, LayoutError> {
        let lower = name.trim().to_ascii_lowercase();
        if let Some(index) = NAMED_CELLS.iter().position(|(n, _, _)| *n == lower) {
            return Ok(Layout::NAMED[index]);
        }
        let seeded = |prefix: &str| -> Option<Result<u64, LayoutError>> {
            let seed = lower.strip_prefix(prefix)?.strip_prefix(':')?;
            Some(seed.parse().map_err(|_| LayoutError::BadSeed {
                name: excerpt(name),
                seed: excerpt(seed),
            }))
        };
        if let Some(seed) = seeded("random") {
            return Ok(Layout::Random { seed: seed? });
        }
        if let Some(seed) = seeded("partly-random") {
            return Ok(Layout::PartlyRandom { seed: seed? });
        }
        Err(LayoutError::Unknown {
            name: excerpt(name),
        })
    }

    /// The name [`Layout::from_name`] reads back.
    pub fn name(&self) -> String {
        match self {
            Layout::Random { seed } => format!("random:{seed}"),
            Layout::PartlyRandom { seed } => format!("partly-random:{seed}"),
            named => {
                let index = Layout::NAMED
                    .iter()
                    .position(|n| n == named)
                    .expect("every other layout is named");
                NAMED_CELLS[index].0.to_string()
            }
        }
    }

    /// Black's and White's cells.
    pub fn cells(&self) -> [Vec<Cell>; 2] {
        match *self {
            Layout::Random { seed } => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut cells: Vec<Cell> = Cell::all().collect();
                shuffle(&mut rng, &mut cells);
                [cells[..14].to_vec(), cells[14..28].to_vec()]
            }
            Layout::PartlyRandom { seed } => thrown(seed).0,
            named => {
                let index = Layout::NAMED
                    .iter()
                    .position(|n| *n == named)
                    .expect("every other layout is named");
                let (_, black, white) = NAMED_CELLS[index];
                [cells_of(black), cells_of(white)]
            }
        }
    }
}

/// The marbles of `partly-random:SEED` on the board, and how many of each
/// colour fell off when thrown.
fn thrown(seed: u64) -> ([Vec<Cell>; 2], [u8; 2]) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let [standard_black, standard_white] = Layout::Standard.cells();
    let kept = |cells: Vec<Cell>, thrown_row: u8| -> Vec<Cell> {
        cells
            .into_iter()
            .filter(|c| c.row() != thrown_row)
            .collect()
    };
    let mut placed = [kept(standard_black, 2), kept(standard_white, 6)];
    let targets: Vec<Cell> = Cell::all().filter(|c| (3..=5).contains(&c.row())).collect();
    let mut fallen = [0u8; 2];
    for color in 0..2 {
        for _ in 0..3 {
            let cell = targets[draw_below(&mut rng, targets.len())];
            if placed.iter().any(|cells| cells.contains(&cell)) {
                fallen[color] += 1;
            } else {
                placed[color].push(cell);
            }
        }
    }
    for cells in &mut placed {
        cells.sort();
    }
    (placed, fallen)
}

impl Layout {
    /// Marbles of each colour (Black, White) that are off the board at the
    /// start: only `partly-random` throws marbles off.
    pub fn fallen(&self) -> [u8; 2] {
        match *self {
            Layout::PartlyRandom { seed } => thrown(seed).1,
            _ => [0, 0],
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Layout {
    type Err = LayoutError;
    fn from_str(name: &str) -> Result<Layout, LayoutError> {
        Layout::from_name(name)
    }
}

impl Position {
    /// The start position of `layout` under `rules`, Black to move (with the
    /// marbles that fell off a `partly-random` start already off).
    pub fn start(layout: Layout, rules: Rules) -> Position {
        let mut marbles = [0u128; 2];
        for (color, cells) in Color::ALL.into_iter().zip(layout.cells()) {
            for cell in cells {
                marbles[color.index()] |= cell.bit();
            }
        }
        debug_assert_eq!(CELL_COUNT, 61);
        Position::from_parts(marbles, Color::Black, layout.fallen(), rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symmetry::Symmetry;

    #[test]
    fn names_round_trip() {
        for layout in Layout::NAMED.into_iter().chain([
            Layout::Random { seed: 7 },
            Layout::PartlyRandom { seed: u64::MAX },
        ]) {
            assert_eq!(Layout::from_name(&layout.name()), Ok(layout));
            assert_eq!(layout.name().to_uppercase().parse::<Layout>(), Ok(layout));
        }
        assert!(matches!(
            Layout::from_name("daisy"),
            Err(LayoutError::Unknown { .. })
        ));
        assert!(matches!(
            Layout::from_name("random"),
            Err(LayoutError::Unknown { .. })
        ));
        assert!(matches!(
            Layout::from_name("random:x"),
            Err(LayoutError::BadSeed { .. })
        ));
        assert!(matches!(
            Layout::from_name("partly-random:-1"),
            Err(LayoutError::BadSeed { .. })
        ));
    }

    #[test]
    fn every_layout_has_fourteen_marbles_each_on_distinct_cells() {
        let layouts = Layout::NAMED.into_iter().chain(
            (0..50).flat_map(|seed| [Layout::Random { seed }, Layout::PartlyRandom { seed }]),
        );
        for layout in layouts {
            let [black, white] = layout.cells();
            let fallen = layout.fallen();
            let mut all: Vec<Cell> = black.iter().chain(&white).copied().collect();
            assert_eq!(
                (
                    black.len() + usize::from(fallen[0]),
                    white.len() + usize::from(fallen[1])
                ),
                (14, 14),
                "{layout}"
            );
            all.sort();
            all.dedup();
            assert_eq!(all.len(), black.len() + white.len(), "{layout}");
            let position = Position::start(layout, Rules::default());
            for color in Color::ALL {
                assert_eq!(
                    position.marble_count(color) + u32::from(position.marbles_off(color)),
                    14
                );
            }
        }
    }

    #[test]
    fn named_layouts_are_point_symmetric() {
        // Turning the board half round maps each named layout onto itself,
        // either keeping or swapping the colours: a check on the cell tables.
        let half_turn = Symmetry::ALL[3];
        for layout in Layout::NAMED {
            let [black, white] = layout.cells();
            let turn = |cells: &[Cell]| {
                let mut out: Vec<Cell> = cells.iter().map(|&c| half_turn.apply_cell(c)).collect();
                out.sort();
                out
            };
            let (mut black_sorted, mut white_sorted) = (black.clone(), white.clone());
            black_sorted.sort();
            white_sorted.sort();
            let kept = turn(&black) == black_sorted && turn(&white) == white_sorted;
            let swapped = turn(&black) == white_sorted && turn(&white) == black_sorted;
            assert!(kept || swapped, "{layout}");
        }
    }

    #[test]
    fn standard_text() {
        let position = Position::start(Layout::Standard, Rules::default());
        assert_eq!(
            position.to_string(),
            "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0"
        );
        assert_eq!(
            Position::start(Layout::BelgianDaisy, Rules::default()).to_string(),
            "ww1bb/wwwbbb/1ww1bb1/8/9/8/1bb1ww1/bbbwww/bb1ww b 0 0"
        );
    }

    #[test]
    fn random_layouts_are_fixed_by_their_seed() {
        let a = Layout::Random { seed: 1 }.cells();
        assert_eq!(a, Layout::Random { seed: 1 }.cells());
        assert_ne!(a, Layout::Random { seed: 2 }.cells());
        let [std_black, std_white] = Layout::Standard.cells();
        let mut fell_any = false;
        for seed in 0..200 {
            let layout = Layout::PartlyRandom { seed };
            let cells = layout.cells();
            for (cells, standard) in cells.iter().zip([&std_black, &std_white]) {
                // Rows A-B (I-H) stay; the three of row C (G) were thrown
                // into rows D-F.
                let thrown: Vec<&Cell> = cells.iter().filter(|c| !standard.contains(c)).collect();
                assert_eq!(cells.len() - thrown.len(), 11, "seed {seed}");
                assert!(thrown.iter().all(|c| (3..=5).contains(&c.row())));
            }
            fell_any |= layout.fallen() != [0, 0];
        }
        // 6 throws onto 25 cells collide in about half the starts.
        assert!(fell_any);
    }
}
