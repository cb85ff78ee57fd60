//! Terminal play of the general game: every variant and 3–6 players. Each
//! seat is played by people at the keyboard or by a classical engine; several
//! people may share a seat and take its turns in order (four people at two
//! colours: two names per colour).
//!
//! Lines read: a move (Aba-Pro or comma form, shield and rotation moves
//! too), `moves` (the legal moves), `undo` (back to the previous turn of a
//! person), `board`, `help`, `quit`.

use std::io::{BufRead, Write};

use sumito_arena::multi::SeatPlayer;
use sumito_arena::variant_record::VariantRecord;
use sumito_engine::variant::{SEAT_NAMES, VariantMove};

use crate::board_text::BoardStyle;
use crate::session::{NOT_UTF8, read_line};
use crate::variant_view::{draw_variant_board, seat_title};

/// Who plays a seat.
pub enum SeatControl {
    /// People at the keyboard, taking this seat's turns in order.
    People(Vec<String>),
    /// A classical engine.
    Engine(Box<dyn SeatPlayer>),
}

impl std::fmt::Debug for SeatControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeatControl({})", self.label())
    }
}

impl SeatControl {
    fn label(&self) -> String {
        match self {
            SeatControl::People(names) if names.is_empty() => "you".into(),
            SeatControl::People(names) => names.join("/"),
            SeatControl::Engine(player) => player.name(),
        }
    }
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    Finished(String),
    Quit,
    EndOfInput,
}

const HELP: &str = "Type a move (A1B2, C3C5D4, shield A1A2B2B1, rotation C3D4E5+, or b2,c2 / g5-h6,f4), or: moves, undo, board, save FILE, help, quit";

/// Plays from `start` until the game ends, a person quits, or the input
/// ends. `seats[s]` plays seat `s`. With `echo_input` each line read is
/// printed after its prompt (input from a pipe, so that the transcript
/// reads like a terminal session).
pub fn run_variant_session(
    record: VariantRecord,
    mut seats: Vec<SeatControl>,
    style: BoardStyle,
    echo_input: bool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> std::io::Result<SessionEnd> {
    let start = record.start_position().map_err(std::io::Error::other)?;
    let mut history = vec![start];
    let mut moves: Vec<VariantMove> = Vec::new();
    let labels: Vec<String> = seats.iter().map(SeatControl::label).collect();
    writeln!(out, "{}\n{HELP}", start.rules())?;
    let mut show_board = true;
    loop {
        let position = *history.last().expect("the start is never undone");
        if show_board {
            write!(out, "{}", draw_variant_board(&position, style, &labels))?;
        }
        show_board = true;
        if let Some(result) = position.describe_outcome() {
            writeln!(out, "Game over: {result}")?;
            return Ok(SessionEnd::Finished(result));
        }
        let seat = position.seat_to_move();
        let colour = SEAT_NAMES[seat];
        match &mut seats[seat] {
            SeatControl::Engine(player) => {
                let mv = player
                    .choose(&position)
                    .map_err(|err| std::io::Error::other(err.to_string()))?;
                writeln!(
                    out,
                    "{} ({}) plays {}",
                    seat_title(seat),
                    player.name(),
                    mv.to_text()
                )?;
                history.push(position.play(mv));
                moves.push(mv);
            }
            SeatControl::People(names) => {
                // The seat's turns so far decide whose turn it is.
                let turns = history[..history.len() - 1]
                    .iter()
                    .filter(|p| p.seat_to_move() == seat)
                    .count();
                let who = if names.is_empty() {
                    format!("{} ({colour})", seat_title(seat))
                } else {
                    format!("{} ({colour})", names[turns % names.len()])
                };
                write!(out, "{who} to move: ")?;
                out.flush()?;
                let Some(line) = read_line(input)? else {
                    writeln!(out)?;
                    return Ok(SessionEnd::EndOfInput);
                };
                if echo_input {
                    writeln!(out, "{}", String::from_utf8_lossy(&line).trim())?;
                }
                // Refused like any other line that is not a move or a
                // command: one bad line must not end (and lose) the game.
                let Ok(line) = String::from_utf8(line) else {
                    writeln!(out, "{NOT_UTF8}")?;
                    show_board = false;
                    continue;
                };
                let line = line.trim();
                match line {
                    "" => show_board = false,
                    "quit" | "exit" | "resign" => return Ok(SessionEnd::Quit),
                    "help" | "?" => {
                        writeln!(out, "{HELP}")?;
                        show_board = false;
                    }
                    "board" => {}
                    "moves" => {
                        let moves: Vec<String> =
                            position.legal_moves().iter().map(|m| m.to_text()).collect();
                        writeln!(out, "{} legal moves: {}", moves.len(), moves.join(" "))?;
                        show_board = false;
                    }
                    "undo" => {
                        // Back to the previous turn of a person (the
                        // engines' replies since are taken back too).
                        if history.len() == 1 {
                            writeln!(out, "nothing to undo")?;
                            show_board = false;
                        } else {
                            history.pop();
                            moves.pop();
                            while history.len() > 1
                                && matches!(
                                    seats[history.last().expect("not empty").seat_to_move()],
                                    SeatControl::Engine(_)
                                )
                            {
                                history.pop();
                                moves.pop();
                            }
                        }
                    }
                    save if save.starts_with("save ") => {
                        let path = std::path::Path::new(save["save ".len()..].trim());
                        let mut game = record.clone();
                        game.seats = labels.clone();
                        game.moves = moves.clone();
                        game.result = position.describe_outcome();
                        match game.write(path) {
                            Ok(()) => writeln!(out, "saved to {}", path.display())?,
                            Err(err) => writeln!(out, "{err}")?,
                        }
                        show_board = false;
                    }
                    text => match position.parse_move(text) {
                        Ok(mv) => {
                            history.push(position.play(mv));
                            moves.push(mv);
                        }
                        Err(err) => {
                            writeln!(out, "{err}")?;
                            show_board = false;
                        }
                    },
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_arena::multi::seat_player;
    use sumito_arena::variant_record::VariantStart;
    use sumito_engine::rules_table::RulesTable;
    use sumito_engine::variant::VariantLayout;

    fn record(layout: &str, rules: RulesTable) -> VariantRecord {
        VariantRecord {
            start: VariantStart::Layout(VariantLayout::from_name(layout).unwrap()),
            rules,
            seats: Vec::new(),
            opening_plies: 0,
            moves: Vec::new(),
            result: None,
        }
    }

    #[test]
    fn people_share_seats_engines_reply_and_undo_goes_back_to_a_person() {
        let start = record("standard", RulesTable::default());
        let seats = vec![
            SeatControl::People(vec!["Ann".into(), "Cid".into()]),
            SeatControl::Engine(seat_player("greedy", 1).unwrap()),
        ];
        let saved =
            std::env::temp_dir().join(format!("sumito-variant-session-{}.txt", std::process::id()));
        let script = format!(
            "A1B2\nZ9Z8\nI5H5\nB1C2\nundo\nmoves\nsave {}\nquit\n",
            saved.display()
        );
        let mut input = script.as_bytes();
        let mut out = Vec::new();
        let end = run_variant_session(start, seats, BoardStyle::Ascii, false, &mut input, &mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(end, SessionEnd::Quit);
        assert!(text.contains("Ann (black) to move"), "{text}");
        assert!(text.contains("White (greedy) plays"), "{text}");
        // Ann moved, so Cid has the next black turn.
        assert!(text.contains("Cid (black) to move"), "{text}");
        assert!(
            text.contains("is not a move") || text.contains("not a cell"),
            "{text}"
        );
        assert!(
            text.contains("not legal here"),
            "I5H5 is White's marble: {text}"
        );
        // Cid: two refused moves, B1C2, then (Ann's turn came and was
        // undone with the engine's reply) Cid again, after `moves` and
        // after `save`.
        assert_eq!(text.matches("Cid (black) to move").count(), 6, "{text}");
        assert_eq!(text.matches("Ann (black) to move").count(), 2, "{text}");
        assert!(text.contains("legal moves:"), "{text}");
        // The saved record replays to the position on the board.
        let game = VariantRecord::read(&saved).unwrap();
        std::fs::remove_file(&saved).unwrap();
        assert_eq!(game.moves.len(), 2, "A1B2 and the reply; B1C2 was undone");
        assert_eq!(game.seats, ["Ann/Cid", "greedy"]);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_refused_and_the_game_goes_on() {
        let start = record("three-player", RulesTable::default());
        let mut seats = vec![SeatControl::People(Vec::new())];
        for seat in 1..3 {
            seats.push(SeatControl::Engine(seat_player("random", seat).unwrap()));
        }
        let mut input: &[u8] = b"A5B5\n\xff\xfe bad\nmoves\nquit\n";
        let mut out = Vec::new();
        let end = run_variant_session(start, seats, BoardStyle::Ascii, true, &mut input, &mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(end, SessionEnd::Quit, "{text}");
        assert!(text.contains(NOT_UTF8), "{text}");
        // The lines after it are still read: `moves` answered, then `quit`.
        assert!(text.contains("legal moves:"), "{text}");
    }

    #[test]
    fn a_three_player_game_between_engines_runs_to_its_end() {
        let start = record(
            "three-player",
            RulesTable {
                max_plies: Some(60),
                ..RulesTable::default()
            },
        );
        let seats = (0..3)
            .map(|seat| SeatControl::Engine(seat_player("greedy", seat).unwrap()))
            .collect();
        let mut out = Vec::new();
        let end = run_variant_session(
            start,
            seats,
            BoardStyle::Ascii,
            false,
            &mut "".as_bytes(),
            &mut out,
        )
        .unwrap();
        assert!(matches!(end, SessionEnd::Finished(_)), "{end:?}");
    }
}
