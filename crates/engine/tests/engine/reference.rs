//! The engine judged against an independent reference model of the rules.
//!
//! `reference/model.rs` implements two-player Abalone from the rules file
//! alone, on the position text format, with a naive 9×9 array and no engine
//! code. The first half of this file checks the model against facts stated in
//! the rules file and hand-made pushing positions; the second half compares
//! the engine with it: start layouts, the set of child positions of every
//! position met in seeded random playouts and random boards, and perft.

#[path = "reference/model.rs"]
mod model;

use model::{
    Coord, DIRS, Dir, MARBLES_PER_SIDE, RefChild, RefMove, RefPosition, Side, all_group_moves,
    layout, table_cells,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use sumito_engine::{
    ACTION_COUNT, Cell, Color, Direction, EndReason, Ending, Layout, Move, Outcome, Position,
    Rules, perft, perft_divide,
};

const STANDARD_TEXT: &str = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0";

/// A position with the listed marbles (table notation, e.g. "E3–E5 F1").
fn board(black: &str, white: &str, to_move: Side) -> RefPosition {
    let mut position = RefPosition::empty();
    for (list, side) in [(black, Side::Black), (white, Side::White)] {
        for cell in table_cells(list) {
            position.set(cell, Some(side));
        }
    }
    position.to_move = to_move;
    position
}

/// Plays the group (cells in line order, e.g. "E3 E4 E5") in direction
/// `dir` ("E", "NE", …) in the reference model.
fn try_play(position: &RefPosition, group: &str, dir: &str) -> Option<RefChild> {
    let group = group.split_whitespace().map(cell).collect();
    position.try_move(&RefMove {
        group,
        dir: dir_named(dir),
    })
}

fn dir_named(name: &str) -> Dir {
    *DIRS
        .iter()
        .find(|d| d.name() == name)
        .expect("direction name")
}

fn cell(name: &str) -> Coord {
    Coord::parse(name).expect("cell name")
}

// ---------------------------------------------------------------------------
// The reference model on its own.
// ---------------------------------------------------------------------------

#[test]
fn standard_layout_prints_as_the_rules_file_says() {
    assert_eq!(layout("standard").to_text(), STANDARD_TEXT);
    assert_eq!(
        RefPosition::parse(STANDARD_TEXT).unwrap(),
        layout("standard")
    );
}

#[test]
fn every_table_layout_has_fourteen_marbles_each_and_round_trips() {
    for (name, _, _) in model::LAYOUT_TABLE {
        let position = layout(name);
        assert_eq!(position.count(Side::Black), MARBLES_PER_SIDE, "{name}");
        assert_eq!(position.count(Side::White), MARBLES_PER_SIDE, "{name}");
        let text = position.to_text();
        assert_eq!(
            RefPosition::parse(&text).unwrap(),
            position,
            "{name}: {text}"
        );
    }
}

#[test]
fn text_format_parsing_expands_digits_and_rejects_bad_rows() {
    let unmerged = "11111/wwwwww/2www2/44/9/8/2bbb2/bbbbbb/bbbbb w 3 5";
    let position = RefPosition::parse(unmerged).unwrap();
    assert_eq!(position.to_move, Side::White);
    assert_eq!((position.black_off, position.white_off), (3, 5));
    assert_eq!(
        position.to_text(),
        "5/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb w 3 5"
    );
    for bad in [
        "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0",
        "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb b 0 0",
        "wwwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0",
        "wwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0",
        "wwwww/wwwwww/2wxw2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0",
        "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb x 0 0",
        "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 z",
    ] {
        assert!(RefPosition::parse(bad).is_err(), "accepted {bad:?}");
    }
}

#[test]
fn cells_and_directions_match_the_rules_file() {
    assert_eq!(model::all_cells().len(), 61);
    let row_lengths: Vec<usize> = (0..=8)
        .map(|row| model::all_cells().iter().filter(|c| c.row == row).count())
        .collect();
    assert_eq!(row_lengths, [5, 6, 7, 8, 9, 8, 7, 6, 5]);
    for corner in ["A1", "A5", "E1", "E9", "I5", "I9"] {
        let on_board = DIRS
            .iter()
            .filter(|d| cell(corner).step(**d).exists())
            .count();
        assert_eq!(on_board, 3, "corner {corner}");
    }
    let step = |from: &str, dir: &str| cell(from).step(dir_named(dir)).to_string();
    assert_eq!(step("A1", "NE"), "B2");
    assert_eq!(step("A1", "NW"), "B1");
    assert_eq!(step("E5", "E"), "E6");
    assert_eq!(step("E5", "SW"), "D4");
    assert_eq!(step("E5", "SE"), "D5");
    assert_eq!(step("E5", "W"), "E4");
}

#[test]
fn standard_start_has_44_moves_of_the_stated_kinds() {
    let children = layout("standard").children();
    let singles = children.iter().filter(|c| c.mv.group.len() == 1).count();
    let inline_groups = children
        .iter()
        .filter(|c| c.mv.group.len() > 1 && c.mv.is_inline())
        .count();
    let broadside = children.iter().filter(|c| !c.mv.is_inline()).count();
    assert_eq!(
        (children.len(), singles, inline_groups, broadside),
        (44, 14, 20, 10)
    );
}

#[test]
fn there_are_1734_group_direction_pairs_that_can_ever_be_legal() {
    let possible: Vec<RefMove> = all_group_moves()
        .into_iter()
        .filter(RefMove::can_ever_be_legal)
        .collect();
    let singles = possible.iter().filter(|m| m.group.len() == 1).count();
    let inline = possible
        .iter()
        .filter(|m| m.group.len() > 1 && m.is_inline())
        .count();
    let broadside = possible.iter().filter(|m| !m.is_inline()).count();
    assert_eq!(
        (possible.len(), singles, inline, broadside),
        (1734, 312, 462, 960)
    );
    // Each of them is legal in some position: alone on the board, the
    // mover's group can make it.
    for mv in &possible {
        let mut position = RefPosition::empty();
        for &c in &mv.group {
            position.set(c, Some(Side::Black));
        }
        assert!(position.try_move(mv).is_some(), "{mv} is never legal");
    }
}

/// A hand-made move: the marbles on an otherwise empty board (table
/// notation), who moves, the group (in line order) and direction, and the
/// child's text with the number of opponent marbles pushed, or `None` if the
/// move is illegal. The children are written out by hand from the rules file.
struct Case {
    what: &'static str,
    black: &'static str,
    white: &'static str,
    mover: Side,
    group: &'static str,
    dir: &'static str,
    child: Option<(&'static str, usize)>,
}

const fn case(
    what: &'static str,
    (black, white, mover): (&'static str, &'static str, Side),
    (group, dir): (&'static str, &'static str),
    child: Option<(&'static str, usize)>,
) -> Case {
    Case {
        what,
        black,
        white,
        mover,
        group,
        dir,
        child,
    }
}

const B: Side = Side::Black;

// One case a line reads best as a table.
#[rustfmt::skip]
const CASES: [Case; 29] = [
    case("3 push 1", ("E3–E5", "E6", B), ("E3 E4 E5", "E"), Some(("5/6/7/8/3bbbw2/8/7/6/5 w 0 0", 1))),
    case("2 push 1", ("E3–E5", "E6", B), ("E4 E5", "E"), Some(("5/6/7/8/2b1bbw2/8/7/6/5 w 0 0", 1))),
    case("1 against 1 is a pac", ("E3–E5", "E6", B), ("E5", "E"), None),
    case("3 push 2", ("E3–E5", "E6 E7", B), ("E3 E4 E5", "E"), Some(("5/6/7/8/3bbbww1/8/7/6/5 w 0 0", 2))),
    case("2 against 2 is a pac", ("E3–E5", "E6 E7", B), ("E4 E5", "E"), None),
    case("2 against 2 alone", ("E4 E5", "E6 E7", B), ("E4 E5", "E"), None),
    case("3 against 3 is a pac", ("E3–E5", "E6–E8", B), ("E3 E4 E5", "E"), None),
    case("4 own against 3 is 3 against 3", ("E2–E5", "E6–E8", B), ("E3 E4 E5", "E"), None),
    case("own marble behind 1 blocks", ("E3–E5 E7", "E6", B), ("E3 E4 E5", "E"), None),
    case("own marble behind 2 blocks", ("E3–E5 E8", "E6 E7", B), ("E3 E4 E5", "E"), None),
    case("a gap means no push", ("E3–E5", "E7", B), ("E3 E4 E5", "E"), Some(("5/6/7/8/3bbbw2/8/7/6/5 w 0 0", 0))),
    case("4 own: the front 3 push 2", ("E2–E5", "E6 E7", B), ("E3 E4 E5", "E"), Some(("5/6/7/8/1b1bbbww1/8/7/6/5 w 0 0", 2))),
    case("4 own: the back 3 are blocked", ("E2–E5", "E6 E7", B), ("E2 E3 E4", "E"), None),
    case("4 own: the back 2 are blocked", ("E2–E5", "E6 E7", B), ("E2 E3", "E"), None),
    case("4 own: the front 2 are a pac", ("E2–E5", "E6 E7", B), ("E4 E5", "E"), None),
    case("2 push 1 off", ("E7 E8", "E9", B), ("E7 E8", "E"), Some(("5/6/7/8/7bb/8/7/6/5 w 0 1", 1))),
    case("3 push 2, one off", ("E5–E7", "E8 E9", B), ("E5 E6 E7", "E"), Some(("5/6/7/8/5bbbw/8/7/6/5 w 0 1", 2))),
    case("White pushes off along NW", ("E1", "C1 D1", Side::White), ("C1 D1", "NW"), Some(("5/6/7/8/w8/w7/7/6/5 b 1 0", 1))),
    case("3 push 1 along NE", ("A1 B2 C3", "D4", B), ("A1 B2 C3", "NE"), Some(("5/6/7/8/4w4/3b4/2b4/1b4/5 w 0 0", 1))),
    case("3 against 3 along NE", ("A1 B2 C3", "D4 E5 F6", B), ("A1 B2 C3", "NE"), None),
    case("3 push 2 along SE", ("I5 H5 G5", "F5 E5", B), ("I5 H5 G5", "SE"), Some(("5/1b4/2b4/3b4/4w4/4w3/7/6/5 w 0 0", 2))),
    case("a single marble never moves off", ("E9", "", B), ("E9", "E"), None),
    case("an inline group never moves off", ("E8 E9", "", B), ("E8 E9", "E"), None),
    case("a broadside never moves off", ("I5 I6", "", B), ("I5 I6", "NE"), None),
    case("broadside NE", ("E4 E5", "", B), ("E4 E5", "NE"), Some(("5/6/7/3bb3/9/8/7/6/5 w 0 0", 0))),
    case("a broadside never pushes", ("E4 E5", "F6", B), ("E4 E5", "NE"), None),
    case("broadside NW beside an opponent", ("E4 E5", "F6", B), ("E4 E5", "NW"), Some(("5/6/7/2bbw3/9/8/7/6/5 w 0 0", 0))),
    case("an opponent's marble cannot be moved", ("E4", "E5", B), ("E5", "W"), None),
    case("a group with an opponent's marble cannot move", ("E4", "E5", B), ("E4 E5", "NE"), None),
];

#[test]
fn hand_made_moves_have_the_children_written_out_by_hand() {
    for case in &CASES {
        let position = board(case.black, case.white, case.mover);
        let child = try_play(&position, case.group, case.dir);
        let actual = child.map(|c| (c.position.to_text(), c.pushed));
        let expected = case.child.map(|(text, pushed)| (text.to_string(), pushed));
        assert_eq!(
            actual, expected,
            "{}: {} {} in {position:?}",
            case.what, case.group, case.dir
        );
    }
}

#[test]
fn four_in_line_pushes_two_with_the_front_three_only() {
    let pushes: Vec<String> = board("E2–E5", "E6 E7", Side::Black)
        .children()
        .into_iter()
        .filter(|c| c.pushed > 0)
        .map(|c| c.mv.to_string())
        .collect();
    assert_eq!(pushes, ["E3-E4-E5 E"]);
}

#[test]
fn a_side_with_six_marbles_off_ends_the_game() {
    let mut position = layout("standard");
    position.white_off = 6;
    assert!(position.children().is_empty());
    position.white_off = 5;
    position.black_off = 6;
    assert!(position.children().is_empty());
    position.black_off = 5;
    assert_eq!(position.children().len(), 44);
}

// ---------------------------------------------------------------------------
// The engine against the reference.
// ---------------------------------------------------------------------------

/// The reference model's perft from two start layouts, depths 1 to 4. Depth 2
/// is 44² and 52² because the two camps cannot touch within two plies.
const REFERENCE_PERFT: [(&str, [u64; 4]); 2] = [
    ("standard", [44, 1_936, 98_912, 5_045_110]),
    ("belgian-daisy", [52, 2_692, 149_322, 8_270_666]),
];

/// The reference direction of an engine direction (matched by name, so the
/// two direction tables are not assumed to share an order).
fn ref_dir(dir: Direction) -> Dir {
    dir_named(match dir {
        Direction::E => "E",
        Direction::W => "W",
        Direction::NE => "NE",
        Direction::SW => "SW",
        Direction::NW => "NW",
        Direction::SE => "SE",
    })
}

fn coord_of(cell: Cell) -> Coord {
    Coord {
        row: i32::from(cell.row()),
        diag: i32::from(cell.diag()),
    }
}

/// The engine's move as a reference move: the same cells, the same direction.
fn ref_move_of(mv: Move) -> RefMove {
    RefMove {
        group: mv.cells().map(coord_of).collect(),
        dir: ref_dir(mv.direction()),
    }
}

/// A move named independently of the order its group is listed in.
fn move_key(mv: &RefMove) -> String {
    let mut cells = mv.group.clone();
    cells.sort_by_key(|c| (c.row, c.diag));
    let names: Vec<String> = cells.iter().map(Coord::to_string).collect();
    format!("{} {}", names.join("-"), mv.dir.name())
}

/// The Aba-Pro spellings the rules file allows for a move: an inline move is
/// its trailing cell and that marble's destination; a broadside is the two
/// end cells and the destination of the first, with either end first.
fn aba_pro_spellings(mv: &RefMove) -> Vec<String> {
    if mv.is_inline() {
        let trailing = mv.trailing();
        return vec![format!("{trailing}{}", trailing.step(mv.dir))];
    }
    let first = mv.group[0];
    let last = *mv.group.last().expect("a group is never empty");
    [(first, last), (last, first)]
        .iter()
        .map(|(a, b)| format!("{a}{b}{}", a.step(mv.dir)))
        .collect()
}

/// A position's text without its ply counters: the reference knows the
/// board, the marbles off and the side to move, not the game's length.
fn board_text(position: &Position) -> String {
    position.with_ply_counters(0, 0).to_string()
}

/// Every way the engine disagrees with the reference about one position:
/// reading and printing it, the number of legal moves, the set of child
/// positions, and for each engine move its child, kind, push flags and
/// notation; and the outcome when a side has lost six marbles.
/// `ref_children` are `reference.children()`.
fn disagreements(reference: &RefPosition, ref_children: &[RefChild]) -> Vec<String> {
    let text = reference.to_text();
    let engine = match Position::from_fen(&text) {
        Ok(engine) => engine,
        Err(error) => return vec![format!("the engine rejects the text: {error}")],
    };
    let mut problems = Vec::new();
    if engine.to_string() != text {
        problems.push(format!("the engine prints it back as {engine}"));
    }
    let moves = engine.legal_moves();
    if moves.len() != ref_children.len() {
        problems.push(format!(
            "the engine has {} legal moves, the reference {}",
            moves.len(),
            ref_children.len()
        ));
    }
    if perft(&engine, 1) != ref_children.len() as u64 {
        problems.push(format!("engine perft(1) = {}", perft(&engine, 1)));
    }

    let ref_by_child: BTreeMap<String, &RefChild> = ref_children
        .iter()
        .map(|c| (c.position.to_text(), c))
        .collect();
    let mut engine_by_child: BTreeMap<String, Move> = BTreeMap::new();
    for &mv in moves.iter() {
        let child = board_text(&engine.play(mv));
        let ref_mv = ref_move_of(mv);
        if let Some(earlier) = engine_by_child.insert(child.clone(), mv) {
            problems.push(format!(
                "engine moves {earlier} and {mv} both lead to {child}"
            ));
        }
        let Some(ref_child) = reference.try_move(&ref_mv) else {
            problems.push(format!(
                "engine move {mv} ({ref_mv}) is illegal in the reference"
            ));
            continue;
        };
        if ref_child.position.to_text() != child {
            problems.push(format!(
                "engine move {mv} ({ref_mv}) gives {child}, the reference {:?}",
                ref_child.position
            ));
        }
        if mv.group_len() != ref_mv.group.len() || mv.is_broadside() == ref_mv.is_inline() {
            problems.push(format!(
                "engine move {mv} ({ref_mv}) has the wrong size or kind"
            ));
        }
        if engine.is_push(mv) != (ref_child.pushed > 0)
            || engine.is_push_off(mv) != ref_child.pushed_off
        {
            problems.push(format!(
                "engine move {mv} ({ref_mv}): is_push {} is_push_off {}, the reference pushes {} (off: {})",
                engine.is_push(mv),
                engine.is_push_off(mv),
                ref_child.pushed,
                ref_child.pushed_off
            ));
        }
        let spellings = aba_pro_spellings(&ref_mv);
        if !spellings.contains(&mv.to_string()) {
            problems.push(format!(
                "engine move {ref_mv} prints as {mv}, expected one of {spellings:?}"
            ));
        }
        for spelling in &spellings {
            match engine.parse_move(spelling) {
                Ok(parsed) if parsed == mv => {}
                Ok(parsed) => problems.push(format!("{spelling} parses as {parsed}, not {mv}")),
                Err(error) => problems.push(format!("{spelling} does not parse: {error}")),
            }
        }
    }
    for (child, ref_child) in &ref_by_child {
        if !engine_by_child.contains_key(child) {
            problems.push(format!(
                "missing child {child} of reference move {}",
                ref_child.mv
            ));
        }
    }
    for (child, mv) in &engine_by_child {
        if !ref_by_child.contains_key(child) {
            problems.push(format!(
                "extra child {child} of engine move {mv} ({})",
                ref_move_of(*mv)
            ));
        }
    }

    let winner = if reference.white_off >= model::MARBLES_TO_WIN {
        Some(Color::Black)
    } else if reference.black_off >= model::MARBLES_TO_WIN {
        Some(Color::White)
    } else {
        None
    };
    match (winner, engine.ending()) {
        (
            Some(winner),
            Some(Ending {
                outcome: Outcome::Win(side),
                reason: EndReason::MarblesOff,
            }),
        ) if side == winner.index() => {}
        (None, None) if !ref_children.is_empty() => {}
        // Rules file has no word on a side with marbles left but no move.
        (None, _) if ref_children.is_empty() => {}
        (expected, actual) => problems.push(format!(
            "engine outcome {actual:?}, expected a win for {expected:?} by marbles off"
        )),
    }
    problems
}

/// Also checks [`Position::is_legal`] on every one of the 1734 actions.
fn legality_disagreements(reference: &RefPosition) -> Vec<String> {
    let engine = Position::from_fen(&reference.to_text()).expect("checked by `disagreements`");
    let mut problems = Vec::new();
    for action in 0..ACTION_COUNT {
        let mv = Move::from_action(action).expect("action below ACTION_COUNT");
        let ref_legal = reference.pushed_by(&ref_move_of(mv)).is_some();
        if engine.is_legal(mv) != ref_legal {
            problems.push(format!(
                "action {action} ({mv}, {}): engine is_legal {}, reference {ref_legal}",
                ref_move_of(mv),
                engine.is_legal(mv)
            ));
        }
    }
    problems
}

/// Collects the disagreements of many positions, labelled, and fails with
/// the first few of them.
#[derive(Default)]
struct Verdict {
    positions: usize,
    failures: Vec<String>,
}

impl Verdict {
    /// Compares one position (and, if `all_actions`, every action's
    /// legality); returns the reference children for the caller to reuse.
    fn check(&mut self, label: &str, position: &RefPosition, all_actions: bool) -> Vec<RefChild> {
        self.positions += 1;
        let children = position.children();
        let mut problems = disagreements(position, &children);
        if all_actions && problems.is_empty() {
            problems = legality_disagreements(position);
        }
        if !problems.is_empty() {
            self.failures.push(format!(
                "{label}: {position:?}\n  {}",
                problems.join("\n  ")
            ));
        }
        children
    }

    fn assert_clean(&self) {
        assert!(
            self.failures.is_empty(),
            "the engine disagrees with the reference in {} of {} positions; the first ones:\n{}",
            self.failures.len(),
            self.positions,
            self.failures
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// The boards of the hand-made moves above, with either side to move.
fn hand_made_positions() -> Vec<RefPosition> {
    let mut positions = Vec::new();
    for case in &CASES {
        for side in [Side::Black, Side::White] {
            positions.push(board(case.black, case.white, side));
        }
    }
    positions
}

/// A move of a playout: push-offs and pushes are preferred so that the games
/// reach positions with marbles off, and some reach the end.
fn pick_playout_move<'a>(children: &'a [RefChild], rng: &mut ChaCha8Rng) -> &'a RefChild {
    let push_offs: Vec<&RefChild> = children.iter().filter(|c| c.pushed_off).collect();
    let pushes: Vec<&RefChild> = children.iter().filter(|c| c.pushed > 0).collect();
    let pool: Vec<&RefChild> = if !push_offs.is_empty() && rng.random_bool(0.7) {
        push_offs
    } else if !pushes.is_empty() && rng.random_bool(0.5) {
        pushes
    } else {
        children.iter().collect()
    };
    pool[rng.random_range(0..pool.len())]
}

/// A board with random marbles: each side has 0–5 marbles off (rarely 6,
/// which ends the game), and up to 3 more simply missing, which the text
/// format allows.
fn random_board(rng: &mut ChaCha8Rng) -> RefPosition {
    let mut cells = model::all_cells().to_vec();
    cells.shuffle(rng);
    let mut free = cells.into_iter();
    let mut position = RefPosition::empty();
    let loser = if rng.random_bool(0.05) {
        Some(rng.random_range(0..2))
    } else {
        None
    };
    for (index, side) in [Side::Black, Side::White].into_iter().enumerate() {
        let off = if loser == Some(index) {
            6
        } else {
            rng.random_range(0..=5)
        };
        let on_board = MARBLES_PER_SIDE - off - rng.random_range(0..=3);
        for _ in 0..on_board {
            position.set(free.next().expect("61 cells hold 28 marbles"), Some(side));
        }
        match side {
            Side::Black => position.black_off = off,
            Side::White => position.white_off = off,
        }
    }
    position.to_move = if rng.random_bool(0.5) {
        Side::Black
    } else {
        Side::White
    };
    position
}

#[test]
fn engine_layouts_are_the_rules_file_table() {
    let mut names = Vec::new();
    for layout in Layout::NAMED {
        let name = layout.name();
        let engine = Position::start(layout, Rules::default());
        assert_eq!(
            engine.to_string(),
            model::layout(&name).to_text(),
            "layout {name}"
        );
        assert_eq!(Layout::from_name(&name), Ok(layout));
        names.push(name);
    }
    let table_names: Vec<&str> = model::LAYOUT_TABLE
        .iter()
        .map(|(name, _, _)| *name)
        .collect();
    assert_eq!(names, table_names);
}

#[test]
fn engine_action_space_is_every_pair_that_can_ever_be_legal() {
    let mut engine_keys = BTreeSet::new();
    for action in 0..ACTION_COUNT {
        let mv = Move::from_action(action).expect("action below ACTION_COUNT");
        assert_eq!(mv.action(), action);
        let ref_mv = ref_move_of(mv);
        assert_eq!(mv.group_len(), ref_mv.group.len(), "action {action}");
        assert_eq!(mv.is_broadside(), !ref_mv.is_inline(), "action {action}");
        assert!(
            engine_keys.insert(move_key(&ref_mv)),
            "action {action} ({ref_mv}) repeats"
        );
    }
    assert_eq!(Move::from_action(ACTION_COUNT), None);
    let ref_keys: BTreeSet<String> = all_group_moves()
        .iter()
        .filter(|mv| mv.can_ever_be_legal())
        .map(move_key)
        .collect();
    assert_eq!(engine_keys, ref_keys);
}

#[test]
fn engine_agrees_on_start_layouts_and_hand_made_positions() {
    let mut verdict = Verdict::default();
    for layout in Layout::NAMED {
        verdict.check(&layout.name(), &model::layout(&layout.name()), true);
    }
    for seed in 0..40 {
        for layout in [Layout::Random { seed }, Layout::PartlyRandom { seed }] {
            let text = Position::start(layout, Rules::default()).to_string();
            let position = RefPosition::parse(&text).expect("the engine prints valid text");
            verdict.check(&layout.name(), &position, true);
        }
    }
    for position in hand_made_positions() {
        verdict.check("hand-made position", &position, true);
    }
    verdict.assert_clean();
}

#[test]
fn engine_agrees_in_random_playouts() {
    const GAMES: u64 = 200;
    const MAX_PLIES: usize = 150;
    let mut verdict = Verdict::default();
    let (mut finished, mut with_marbles_off) = (0, 0);
    for game in 0..GAMES {
        let mut rng = ChaCha8Rng::seed_from_u64(game);
        let (name, _, _) = model::LAYOUT_TABLE[game as usize % model::LAYOUT_TABLE.len()];
        let mut position = model::layout(name);
        for ply in 0..=MAX_PLIES {
            for side in [Side::Black, Side::White] {
                let total = position.count(side) + position.off(side);
                assert_eq!(total, MARBLES_PER_SIDE, "{side:?} marbles lost or created");
            }
            if position.black_off + position.white_off > 0 {
                with_marbles_off += 1;
            }
            // Every position is compared; every 25th also on all 1734 actions.
            let label = format!("game {game} ({name}), ply {ply}");
            let children = verdict.check(&label, &position, ply % 25 == 0);
            if children.is_empty() {
                finished += 1;
                break;
            }
            position = pick_playout_move(&children, &mut rng).position.clone();
        }
    }
    println!(
        "{} positions compared, {with_marbles_off} with marbles off, {finished} of {GAMES} games finished",
        verdict.positions
    );
    verdict.assert_clean();
    // Guard the coverage the playout policy is there for.
    assert!(
        finished >= GAMES as usize / 4,
        "only {finished} games reached six marbles off"
    );
    assert!(with_marbles_off >= verdict.positions / 4);
}

#[test]
fn engine_agrees_on_random_boards() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    let mut verdict = Verdict::default();
    for board_index in 0..3000 {
        let position = random_board(&mut rng);
        verdict.check(
            &format!("random board {board_index}"),
            &position,
            board_index % 10 == 0,
        );
    }
    verdict.assert_clean();
}

/// Compares perft of the engine, the reference and the pinned numbers; on a
/// mismatch shows the root moves whose subtree counts differ.
fn check_perft(name: &str, depth: u32) {
    let reference = model::layout(name);
    let pinned = REFERENCE_PERFT
        .iter()
        .find(|(n, _)| *n == name)
        .expect("pinned layout")
        .1;
    let engine = Position::start(
        Layout::from_name(name).expect("layout name"),
        Rules::default(),
    );
    let ref_count = reference.perft(depth);
    let engine_count = perft(&engine, depth);
    let expected = pinned[depth as usize - 1];
    if ref_count == engine_count && ref_count == expected {
        return;
    }
    let mut report = Vec::new();
    let ref_divide: BTreeMap<String, (String, u64)> = reference
        .children()
        .iter()
        .map(|c| {
            (
                c.position.to_text(),
                (c.mv.to_string(), c.position.perft(depth - 1)),
            )
        })
        .collect();
    for (mv, count) in perft_divide(&engine, depth) {
        let child = board_text(&engine.play(mv));
        match ref_divide.get(&child) {
            Some((_, ref_count)) if *ref_count == count => {}
            other => report.push(format!(
                "{mv} -> {child}: engine {count}, reference {other:?}"
            )),
        }
    }
    panic!(
        "{name} perft({depth}): engine {engine_count}, reference {ref_count}, pinned {expected}\n{}",
        report.join("\n")
    );
}

#[test]
fn engine_perft_to_depth_3_matches_the_reference() {
    for (name, _) in REFERENCE_PERFT {
        for depth in 1..=3 {
            check_perft(name, depth);
        }
    }
}

#[test]
fn engine_perft_4_matches_the_reference() {
    for (name, _) in REFERENCE_PERFT {
        check_perft(name, 4);
    }
}
