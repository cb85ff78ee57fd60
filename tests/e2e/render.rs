//! End-to-end tests of `sumito render`: the SVG files it writes are
//! well-formed XML with the 61 cells, the right marbles, the last move's
//! arrows and the marbles off; bad input gets a clear error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;

use common::Scratch;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

fn render(args: &[&str]) -> Output {
    Command::new(SUMITO)
        .arg("render")
        .args(args)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Counts of what the picture shows, read from the parsed XML.
#[derive(Debug, PartialEq, Eq)]
struct Picture {
    cells: usize,
    black: usize,
    white: usize,
    black_off: usize,
    white_off: usize,
    arrows: usize,
    pushed_arrows: usize,
    coordinates: Vec<String>,
}

fn read_picture(path: &Path) -> Picture {
    let text = std::fs::read_to_string(path).unwrap();
    let document = roxmltree::Document::parse(&text)
        .unwrap_or_else(|err| panic!("{} is not well-formed XML: {err}", path.display()));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let with_class = |class: &str| {
        document
            .descendants()
            .filter(|node| node.attribute("class") == Some(class))
            .count()
    };
    Picture {
        cells: with_class("cell"),
        black: with_class("marble black"),
        white: with_class("marble white"),
        black_off: with_class("off black"),
        white_off: with_class("off white"),
        arrows: with_class("arrow"),
        pushed_arrows: with_class("arrow pushed"),
        coordinates: document
            .descendants()
            .filter(|node| node.attribute("class") == Some("coordinate"))
            .filter_map(|node| node.text())
            .map(str::to_string)
            .collect(),
    }
}

#[test]
fn a_position_renders_as_well_formed_svg_with_61_cells_and_its_marbles() {
    let scratch = Scratch::new("render-fen");
    let out = scratch.0.join("start.svg");
    let output = render(&[
        "--fen",
        "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let picture = read_picture(&out);
    assert_eq!(picture.cells, 61);
    assert_eq!((picture.black, picture.white), (14, 14));
    assert_eq!((picture.black_off, picture.white_off), (0, 0));
    assert_eq!(picture.arrows + picture.pushed_arrows, 0);
    let mut coordinates = picture.coordinates;
    coordinates.sort();
    let expected: Vec<String> = "1 2 3 4 5 6 7 8 9 A B C D E F G H I"
        .split(' ')
        .map(str::to_string)
        .collect();
    assert_eq!(coordinates, expected);

    // A middle game with marbles off, and a title that needs escaping.
    let out = scratch.0.join("middle.svg");
    let output = render(&[
        "--fen",
        "ww3/1ww3/7/2bbw3/3wb4/2b5/7/bb4/5 w 3 4",
        "--title",
        "Game <7> & \"notes\"",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let picture = read_picture(&out);
    assert_eq!(picture.cells, 61);
    assert_eq!((picture.black, picture.white), (6, 6));
    assert_eq!((picture.black_off, picture.white_off), (3, 4));
}

#[test]
fn a_game_record_renders_one_picture_per_position_with_the_moves_as_arrows() {
    let scratch = Scratch::new("render-record");
    // Black's three marbles on A1 B1 C1 push White's D1 E1; E1 leaves the board.
    let record = scratch.0.join("game.txt");
    std::fs::write(
        &record,
        "# sumito game record v1\n\
         start: 4w/6/7/8/w8/w7/b6/b5/b4 b 0 0\n\
         black: you\n\
         white: alphabeta:depth=1\n\
         moves:\n\
         A1B1\n\
         I9H9\n\
         result: *\n",
    )
    .unwrap();
    // Into a folder that is not there yet: render makes it.
    let out = scratch.0.join("pics").join("game.svg");
    let output = render(&[
        "--record",
        record.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let written: Vec<PathBuf> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    let expected: Vec<PathBuf> = ["game-000.svg", "game-001.svg", "game-002.svg"]
        .iter()
        .map(|name| scratch.0.join("pics").join(name))
        .collect();
    assert_eq!(written, expected);

    let start = read_picture(&expected[0]);
    assert_eq!((start.cells, start.black, start.white), (61, 3, 3));
    assert_eq!(start.arrows + start.pushed_arrows, 0);

    let push_off = read_picture(&expected[1]);
    assert_eq!((push_off.cells, push_off.black, push_off.white), (61, 3, 2));
    assert_eq!((push_off.arrows, push_off.pushed_arrows), (3, 2));
    assert_eq!((push_off.black_off, push_off.white_off), (0, 1));

    let reply = read_picture(&expected[2]);
    assert_eq!((reply.black, reply.white, reply.white_off), (3, 2, 1));
    assert_eq!((reply.arrows, reply.pushed_arrows), (1, 0));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let scratch = Scratch::new("render-errors");
    let out = scratch.0.join("x.svg");
    let out = out.to_str().unwrap();
    let broken = scratch.0.join("broken.txt");
    std::fs::write(
        &broken,
        "# sumito game record v1\nlayout: standard\nmoves:\nA1B2\nA1A2\nresult: *\n",
    )
    .unwrap();
    let missing = scratch.0.join("missing.txt");
    let png = scratch.0.join("x.png");
    for (args, expected) in [
        (
            vec!["--fen", "wwwww/wwwwww b 0 0", "--out", out],
            "the board has 2 rows",
        ),
        (
            vec!["--record", missing.to_str().unwrap(), "--out", out],
            "missing.txt",
        ),
        (
            vec!["--record", broken.to_str().unwrap(), "--out", out],
            "line 5: move 2",
        ),
        (
            vec!["--fen", "9/9 b 0 0", "--out", png.to_str().unwrap()],
            "must end in .svg",
        ),
        (vec!["--out", out], "--fen"),
    ] {
        let output = render(&args);
        assert!(!output.status.success(), "{args:?}");
        assert!(
            stderr(&output).contains(expected),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    assert!(!Path::new(out).exists());
}
