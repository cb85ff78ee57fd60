//! The game record of every game: [`GameRecord<B>`], one type for the
//! two-player game (`B` = [`Position`], replayed by the two-player engine)
//! and the general game (`B` = [`GeneralPosition`]: variants, 3 to 6
//! players, teams), read and written in the one record format of
//! [`crate::record_format`] (the older two-player format of
//! [`crate::record_v1`] still reads). What differs between the games is
//! their [`Board`]: where a start leads under the rules, and how a record
//! of the game is one of the general engine (which writes the text) and
//! back. [`AnyRecord`] is a record of either game, decided once
//! from its rules and start.

use std::path::Path;

use sumito_engine::general::{GeneralPosition, MAX_SEATS, SEAT_NAMES};
use sumito_engine::{Ending, Position};
use sumito_game::{Board, GameKind};

use crate::record_format::read_with;
pub use crate::record_format::{RecordError, RecordFileError};

/// Where a recorded game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start<B: Board> {
    Layout(B::Layout),
    /// A position (with its ply counters; the rules are the record's).
    Position(B),
}

/// A side line of a game, as PGN's and SGF's: moves played from the position
/// after `ply` moves of the game, the first of them another than the game's
/// own next move (or any, after its last move). A variation within a
/// variation is a line that shares its first moves with another from the
/// same ply: the lines of a ply are the leaves of its tree, in order, so that
/// the first line through a move is that move's main continuation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variation<M> {
    pub ply: usize,
    pub moves: Vec<M>,
}

impl<M: Copy + PartialEq> Variation<M> {
    /// The variation that `line`, played from the position after `ply`
    /// moves of `game`, makes: its moves along the game's own are the
    /// game's, so it starts where it leaves the game; `None` when it never
    /// does (or is empty).
    pub fn branching(game: &[M], ply: usize, line: &[M]) -> Option<Variation<M>> {
        let along = line
            .iter()
            .zip(game.get(ply..).unwrap_or_default())
            .take_while(|(a, b)| a == b)
            .count();
        (along < line.len()).then(|| Variation {
            ply: ply + along,
            moves: line[along..].to_vec(),
        })
    }

    /// Adds `line` to the lines of a tree (`lines`): a line that only goes
    /// as far as one already there adds nothing, one that goes on from the
    /// end of one takes its place, and any other branches off as a new last
    /// line (its first moves shared with the lines before it).
    pub fn add_to(lines: &mut Vec<Variation<M>>, line: Variation<M>) {
        if lines
            .iter()
            .any(|old| old.ply == line.ply && old.moves.starts_with(&line.moves))
        {
            return;
        }
        match lines
            .iter()
            .position(|old| old.ply == line.ply && line.moves.starts_with(&old.moves))
        {
            Some(index) => lines[index] = line,
            None => lines.push(line),
        }
    }

    /// The lines of `lines`, variations of the game `old`, that still stand
    /// when the game's moves are `new` (after an undo, a move, another
    /// game): those from a ply whose moves before it are the same, their
    /// moves along the new game's own taken as the game's.
    pub fn standing(lines: &[Variation<M>], old: &[M], new: &[M]) -> Vec<Variation<M>> {
        let mut kept = Vec::new();
        for variation in lines {
            let ply = variation.ply;
            if ply <= new.len()
                && ply <= old.len()
                && new[..ply] == old[..ply]
                && let Some(line) = Variation::branching(new, ply, &variation.moves)
            {
                Variation::add_to(&mut kept, line);
            }
        }
        kept
    }
}

/// A game that a seat gave up before the board ended it: by resigning, or
/// by running out of time on its clock. The seat is the one to move when
/// it happened (a page's resignation and a clock's flag both fall on the
/// seat whose turn it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The seat, in a byte: a record of the two-player game stays small
    /// enough to sit unboxed beside a boxed general one in [`AnyRecord`].
    seat: u8,
    pub by: ForfeitBy,
}

/// How a seat gave a game up ([`Forfeit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForfeitBy {
    Resignation,
    Time,
}

impl Forfeit {
    /// `seat` (one of a game's, below [`MAX_SEATS`]) gave the game up `by`.
    pub fn new(seat: usize, by: ForfeitBy) -> Forfeit {
        assert!(seat < MAX_SEATS, "seat {seat} of at most {MAX_SEATS}");
        Forfeit {
            seat: seat as u8,
            by,
        }
    }

    /// The seat that gave the game up.
    pub fn seat(&self) -> usize {
        usize::from(self.seat)
    }

    /// The words a record's `forfeit:` line and a page say: "black
    /// resigned", "white ran out of time".
    pub fn describe(&self) -> String {
        let seat = SEAT_NAMES[self.seat()];
        match self.by {
            ForfeitBy::Resignation => format!("{seat} resigned"),
            ForfeitBy::Time => format!("{seat} ran out of time"),
        }
    }

    /// Reads [`Forfeit::describe`]'s words for a game of `seats` seats.
    pub fn parse(text: &str, seats: usize) -> Result<Forfeit, String> {
        let (name, by) = if let Some(name) = text.strip_suffix(" resigned") {
            (name, ForfeitBy::Resignation)
        } else if let Some(name) = text.strip_suffix(" ran out of time") {
            (name, ForfeitBy::Time)
        } else {
            return Err(format!(
                "{text:?} is not a forfeit: write \"SEAT resigned\" or \"SEAT ran out of time\""
            ));
        };
        let seat = SEAT_NAMES[..seats]
            .iter()
            .position(|seat| *seat == name.trim())
            .ok_or_else(|| {
                format!(
                    "{:?} is not a seat of this game (its seats: {})",
                    name.trim(),
                    SEAT_NAMES[..seats].join(", ")
                )
            })?;
        Ok(Forfeit::new(seat, by))
    }
}

/// A whole game: where it starts, under which rules, who played, its moves
/// and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<B: Board> {
    pub start: Start<B>,
    pub rules: B::Rules,
    /// Who played each seat, in turn order (Black first); empty when not
    /// named.
    pub players: Vec<String>,
    /// How many of the first `moves` were a random opening.
    pub opening_plies: u32,
    pub moves: Vec<B::Move>,
    /// Side lines from the game's plies (a page's analysis board), in the
    /// order they were made.
    pub variations: Vec<Variation<B::Move>>,
    /// How the board ended the game; `None` if it did not.
    pub result: Option<Ending>,
    /// The seat that gave the game up before the board ended it, if one did.
    pub forfeit: Option<Forfeit>,
}

/// Why a record of the general engine is not one of a game (the
/// two-player game): the header keys of the line at fault, and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotTwoPlayer {
    pub keys: &'static [&'static str],
    pub why: String,
}

impl<B: Board> GameRecord<B> {
    /// A game from `start` under `rules`, not yet played and its players
    /// not yet named.
    pub fn unplayed(start: Start<B>, rules: B::Rules) -> GameRecord<B> {
        GameRecord {
            start,
            rules,
            players: Vec::new(),
            opening_plies: 0,
            moves: Vec::new(),
            variations: Vec::new(),
            result: None,
            forfeit: None,
        }
    }

    /// The variations of this record that still stand when the game's
    /// moves are `moves` ([`Variation::standing`]).
    pub fn variations_on(&self, moves: &[B::Move]) -> Vec<Variation<B::Move>> {
        Variation::standing(&self.variations, &self.moves, moves)
    }

    /// Drops the variations that are not played out under the record's
    /// rules (a record taken under a model's: a move of a variation that is
    /// not legal there); the game's own moves are checked by
    /// [`GameRecord::positions`].
    pub fn keep_playable_variations(&mut self) {
        let Ok(positions) = self.positions() else {
            return;
        };
        self.variations.retain(|variation| {
            let Some(&(mut position)) = positions.get(variation.ply) else {
                return false;
            };
            variation.moves.iter().all(|&mv| {
                let legal = !position.is_over() && position.is_legal(mv);
                if legal {
                    position = position.play(mv);
                }
                legal
            })
        });
    }

    /// Who played `seat` ("" when not named).
    pub fn player(&self, seat: usize) -> &str {
        self.players.get(seat).map_or("", String::as_str)
    }

    /// The position before the first move; an error names what of the
    /// start does not fit the rules.
    pub fn start_position(&self) -> Result<B, String> {
        match &self.start {
            Start::Layout(layout) => B::first_position(*layout, &self.rules),
            Start::Position(position) => position.under_rules(&self.rules),
        }
    }

    /// The record of a match's game from `start` under `rules` by
    /// `players` (by side), its first `opening_plies` moves a random
    /// opening, ended at `end`.
    pub fn of_match(
        start: Start<B>,
        rules: &B::Rules,
        players: &[String],
        opening_plies: u32,
        moves: &[B::Move],
        end: &B,
    ) -> GameRecord<B> {
        GameRecord {
            start,
            rules: rules.clone(),
            players: (0..end.seats())
                .map(|seat| players[end.side_of(seat)].clone())
                .collect(),
            opening_plies,
            moves: moves.to_vec(),
            variations: Vec::new(),
            result: end.ending(),
            forfeit: None,
        }
    }

    /// The same game as a record of the general engine, which writes the
    /// one text format (it plays the two-player game move for move alike).
    pub fn to_general(&self) -> GameRecord<GeneralPosition> {
        let rules = B::rules_table(&self.rules);
        let start = match self.start {
            Start::Layout(layout) => Start::Layout(B::general_layout(layout)),
            Start::Position(position) => Start::Position(
                rules
                    .position_from_text(&position.to_string())
                    .expect("a position of a game reads as one of the general engine"),
            ),
        };
        let mut general = GameRecord {
            start,
            rules,
            players: self.players.clone(),
            opening_plies: self.opening_plies,
            moves: self.moves.iter().map(|&mv| B::general_move(mv)).collect(),
            variations: self
                .variations
                .iter()
                .map(|variation| Variation {
                    ply: variation.ply,
                    moves: variation
                        .moves
                        .iter()
                        .map(|&mv| B::general_move(mv))
                        .collect(),
                })
                .collect(),
            result: None,
            forfeit: self.forfeit,
        };
        general.result = general
            .positions()
            .ok()
            .and_then(|positions| positions.last()?.ending());
        general
    }

    /// The game of a general-engine record when it is one of this game (for
    /// the two-player game: plain rules, a two-player start, at most two
    /// seats named and group moves only); otherwise what makes it not.
    pub fn from_general(
        record: GameRecord<GeneralPosition>,
    ) -> Result<GameRecord<B>, NotTwoPlayer> {
        let not = |keys: &'static [&'static str], why: String| NotTwoPlayer { keys, why };
        let rules = B::rules_of_table(&record.rules).map_err(|why| not(&["rules:"], why))?;
        let start = match &record.start {
            Start::Layout(layout) => {
                Start::Layout(B::layout_of_general(*layout).map_err(|why| not(&["layout:"], why))?)
            }
            Start::Position(position) => Start::Position(
                B::position_from_text(&position.to_string(), &record.rules)
                    .map_err(|err| not(&["start:"], format!("its start: {err}")))?,
            ),
        };
        if record.players.len() > B::MAX_SEATS {
            return Err(not(
                &["seats:"],
                format!("it names {} seats", record.players.len()),
            ));
        }
        let moves = record
            .moves
            .iter()
            .enumerate()
            .map(|(ply, &mv)| {
                B::move_of_general(mv).ok_or_else(|| {
                    not(
                        &["moves:"],
                        format!(
                            "move {} ({}) is not a move of this game",
                            ply + 1,
                            mv.to_text()
                        ),
                    )
                })
            })
            .collect::<Result<Vec<B::Move>, NotTwoPlayer>>()?;
        let variations = record
            .variations
            .iter()
            .map(|variation| {
                let moves = variation
                    .moves
                    .iter()
                    .enumerate()
                    .map(|(index, &mv)| {
                        B::move_of_general(mv).ok_or_else(|| {
                            not(
                                &["variation"],
                                format!(
                                    "move {} ({}) of the variation after ply {} is not a move of this game",
                                    index + 1,
                                    mv.to_text(),
                                    variation.ply
                                ),
                            )
                        })
                    })
                    .collect::<Result<Vec<B::Move>, NotTwoPlayer>>()?;
                Ok(Variation {
                    ply: variation.ply,
                    moves,
                })
            })
            .collect::<Result<Vec<_>, NotTwoPlayer>>()?;
        let mut game = GameRecord {
            start,
            rules,
            players: record.players,
            opening_plies: record.opening_plies,
            moves,
            variations,
            result: None,
            forfeit: record.forfeit,
        };
        game.result = game
            .positions()
            .ok()
            .and_then(|positions| positions.last()?.ending());
        Ok(game)
    }

    /// Every position of the game, the start first; an error names the
    /// first move that is not legal where it is played (under these rules:
    /// a record read under others, such as a model's, may end sooner).
    pub fn positions(&self) -> Result<Vec<B>, String> {
        let mut positions = vec![self.start_position()?];
        for (ply, &mv) in self.moves.iter().enumerate() {
            let last = positions[positions.len() - 1];
            if last.is_over() {
                return Err(format!(
                    "the game ends after move {ply} under these rules, but the record goes on to move {}",
                    self.moves.len()
                ));
            }
            if !last.is_legal(mv) {
                return Err(format!(
                    "move {} ({}) is not legal there",
                    ply + 1,
                    B::move_text(mv)
                ));
            }
            positions.push(last.play(mv));
        }
        Ok(positions)
    }
}

/// A record of either game: which one is decided once, from the record's
/// rules and start (plain rules and a two-player start make a two-player
/// game, played by the two-player engine).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyRecord {
    TwoPlayer(GameRecord<Position>),
    /// (Boxed: its start position is large.)
    General(Box<GameRecord<GeneralPosition>>),
}

impl AnyRecord {
    /// Reads a record of any format (the one format, or an older two-player
    /// or general-game record) and replays it.
    pub fn parse(text: &str) -> Result<AnyRecord, RecordError> {
        let general = GameRecord::<GeneralPosition>::parse(text)?;
        Ok(
            match GameRecord::<Position>::from_general(general.clone()) {
                Ok(record) => AnyRecord::TwoPlayer(record),
                Err(_) => AnyRecord::General(Box::new(general)),
            },
        )
    }

    /// Reads a record file (see [`AnyRecord::parse`]).
    pub fn read(path: &Path) -> Result<AnyRecord, RecordFileError> {
        read_with(path, AnyRecord::parse)
    }

    /// Which game it is a record of.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyRecord::TwoPlayer(_) => GameKind::TwoPlayer,
            AnyRecord::General(_) => GameKind::General,
        }
    }

    /// The game as a record of the general engine (which plays the
    /// two-player game too).
    pub fn into_general(self) -> GameRecord<GeneralPosition> {
        match self {
            AnyRecord::TwoPlayer(record) => record.to_general(),
            AnyRecord::General(record) => *record,
        }
    }
}

/// A UTC timestamp `YYYY-MM-DD HH:MM:SS` for log lines and folder names.
pub fn utc_timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Writes `bytes` to `path` so that readers see the old file or the whole new
/// one, never a part (`sumito_fsio`: a temporary beside it that names its
/// writer, flushed, then renamed over `path`).
pub use sumito_fsio::write_atomic;

/// A short, file-name-safe form of a player name.
pub fn file_safe(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let short: String = out.trim_matches('-').chars().take(40).collect();
    if short.is_empty() {
        "player".to_string()
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record_format::{GAME_RECORD_MAGIC, TWO_PLAYER_RECORD_MAGIC_V1};
    use sumito_engine::{Color, EndReason, Layout, MAX_PLY_COUNTER, Move, Outcome, Rules};

    fn sample() -> GameRecord<Position> {
        let rules = Rules {
            max_plies: Some(400),
            ..Rules::default()
        };
        let start = Position::start(Layout::BelgianDaisy, rules);
        let moves: Vec<Move> = sumito_engine::random_playout(&start, 12, 9)
            .windows(2)
            .map(|pair| {
                *pair[0]
                    .legal_moves()
                    .iter()
                    .find(|&&mv| pair[0].play(mv) == pair[1])
                    .unwrap()
            })
            .collect();
        GameRecord {
            start: Start::Layout(Layout::BelgianDaisy),
            rules,
            players: vec!["alphabeta:depth=3".into(), "random".into()],
            opening_plies: 4,
            moves,
            variations: Vec::new(),
            result: None,
            forfeit: None,
        }
    }

    #[test]
    fn round_trips_an_unfinished_game() {
        let record = sample();
        let text = record.to_text();
        assert!(text.starts_with(GAME_RECORD_MAGIC), "{text}");
        assert!(
            text.contains("seats: alphabeta:depth=3 | random\n"),
            "{text}"
        );
        assert!(
            text.contains("rules: { marbles_to_win = 6, max_plies = 400 }\n"),
            "{text}"
        );
        assert_eq!(GameRecord::<Position>::parse(&text).unwrap(), record);
        assert_eq!(
            AnyRecord::parse(&text).unwrap(),
            AnyRecord::TwoPlayer(record.clone())
        );
        // The general engine reads the same text as the same game.
        let general = GameRecord::<GeneralPosition>::parse(&text).unwrap();
        assert_eq!(general, record.to_general());
        assert_eq!(
            GameRecord::<Position>::from_general(general).unwrap(),
            record
        );
    }

    #[test]
    fn a_record_of_the_general_game_is_refused_saying_why() {
        let text = sample().to_text();
        for (from, to, key, why) in [
            (
                "rules: {",
                "rules: { holes = [\"E5\"],",
                "rules:",
                "the rules are",
            ),
            (
                "layout: belgian-daisy",
                "layout: three-player",
                "layout:",
                "seats more than two players",
            ),
        ] {
            let changed = text.replace(from, to);
            // (The moves no longer fit: only the header is kept.)
            let header: String = changed
                .lines()
                .take_while(|line| *line != "moves:")
                .map(|line| format!("{line}\n"))
                .collect();
            let changed = format!("{header}moves:\nresult: *\n")
                .replace("seats: alphabeta:depth=3 | random\n", "")
                .replace("opening_plies: 4\n", "");
            let err = GameRecord::<Position>::parse(&changed).unwrap_err();
            assert_eq!(err.line, line_of(&changed, key), "{err}");
            assert!(
                err.problem.contains("record of the general game") && err.problem.contains(why),
                "{err}"
            );
            assert!(matches!(
                AnyRecord::parse(&changed).unwrap(),
                AnyRecord::General(_)
            ));
        }
    }

    proptest::proptest! {
        #[test]
        fn any_random_game_round_trips(layout in 0usize..9, seed in 0u64..10_000, max_plies in 1u32..200) {
            let rules = Rules { max_plies: Some(max_plies), ..Rules::default() };
            let start = Position::start(Layout::NAMED[layout], rules);
            let positions = sumito_engine::random_playout(&start, 250, seed);
            let moves: Vec<Move> = positions
                .windows(2)
                .map(|pair| {
                    *pair[0].legal_moves().iter().find(|&&mv| pair[0].play(mv) == pair[1]).unwrap()
                })
                .collect();
            let record = GameRecord {
                start: Start::Layout(Layout::NAMED[layout]),
                rules,
                players: vec!["random".into(), "random".into()],
                opening_plies: 0,
                moves,
                variations: Vec::new(),
                result: positions.last().unwrap().ending(),
                forfeit: None,
            };
            proptest::prop_assert_eq!(GameRecord::<Position>::parse(&record.to_text()).unwrap(), record);
        }
    }

    #[test]
    fn round_trips_a_finished_game_from_a_position() {
        // Black pushes E9 off for the sixth marble.
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5")
            .unwrap()
            .with_ply_counters(57, 3);
        let mv = position.parse_move("E7E8").unwrap();
        let record = GameRecord {
            start: Start::Position(position),
            rules: Rules::default(),
            players: vec!["a".into(), "b".into()],
            opening_plies: 0,
            moves: vec![mv],
            variations: Vec::new(),
            result: Some(Ending {
                outcome: Outcome::win_of(Color::Black),
                reason: EndReason::MarblesOff,
            }),
            forfeit: None,
        };
        let text = record.to_text();
        assert!(
            text.contains("start: 5/6/7/8/6bbw/8/7/6/5 b 0 5 57 3\n"),
            "{text}"
        );
        assert!(
            text.contains("result: black wins (enough marbles pushed off)\n"),
            "{text}"
        );
        let parsed = GameRecord::<Position>::parse(&text).unwrap();
        assert_eq!(parsed, record);
        assert_eq!(
            parsed
                .positions()
                .unwrap()
                .last()
                .unwrap()
                .marbles_off(Color::White),
            6
        );
    }

    #[test]
    fn the_start_counters_come_from_the_text_or_the_lines() {
        let fen = "5/6/7/8/6bbw/8/7/6/5 b 0 5";
        let record = |header: &str| {
            GameRecord::<Position>::parse(&format!(
                "{TWO_PLAYER_RECORD_MAGIC_V1}\nstart: {fen}{header}\nmoves:\nresult: *\n"
            ))
        };
        let ply = |header: &str| {
            let position = record(header).unwrap().start_position().unwrap();
            (position.ply(), position.plies_since_push_off())
        };
        // The text's counters were dropped when no line gave them.
        assert_eq!(ply(" 57 12"), (57, 12));
        assert_eq!(ply(" 57 12\nstart_ply: 60"), (60, 12));
        assert_eq!(ply("\nstart_ply: 60"), (60, 0));
        // More plies since a push-off than plies: refused, as in the text
        // (it was accepted, and the record then wrote a start it could not
        // read back).
        let err = record("\nstart_plies_since_push_off: 3").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.problem.contains("cannot exceed"), "{err}");
        // A counter near u32::MAX made the first move overflow (a panic).
        let err = record("\nstart_ply: 4294967295").unwrap_err();
        assert!(err.problem.contains("from 0 to 1000000000"), "{err}");
        let text = format!(
            "{TWO_PLAYER_RECORD_MAGIC_V1}\nstart: {fen}\nstart_ply: {MAX_PLY_COUNTER}\nmoves:\nE7E8\nresult: 1-0\nreason: marbles-off\n"
        );
        let last = GameRecord::<Position>::parse(&text)
            .unwrap()
            .positions()
            .unwrap()[1];
        assert_eq!(last.ply(), MAX_PLY_COUNTER + 1);
    }

    /// A record of the older two-player format, as today's binary wrote it
    /// (`sumito arena`, 2026-11-27).
    const TWO_PLAYER_V1: &str = include_str!("../testdata/records/two-player-v1.txt");

    /// The first 12 moves of [`TWO_PLAYER_V1`], unfinished.
    fn v1_sample() -> String {
        let mut text = String::new();
        let mut moves = None;
        for line in TWO_PLAYER_V1.lines() {
            if moves == Some(12) {
                break;
            }
            text.push_str(line);
            text.push('\n');
            moves = match (moves, line) {
                (None, "moves:") => Some(0),
                (Some(n), _) => Some(n + 1),
                (None, _) => None,
            };
        }
        text + "result: *\n"
    }

    #[test]
    fn records_of_the_older_formats_still_read() {
        let record = GameRecord::<Position>::parse(TWO_PLAYER_V1).unwrap();
        assert_eq!(record.start, Start::Layout(Layout::Standard));
        assert_eq!(
            (record.player(0), record.player(1)),
            ("alphabeta:depth=1", "greedy")
        );
        assert_eq!((record.opening_plies, record.moves.len()), (4, 60));
        assert_eq!(
            record.result,
            Some(Ending {
                outcome: Outcome::draw_of_all(2),
                reason: EndReason::MoveLimit
            })
        );
        // Written anew in the one format, it reads back the same.
        assert_eq!(
            GameRecord::<Position>::parse(&record.to_text()).unwrap(),
            record
        );
        assert!(record.to_text().contains(
            "result: draw between black and white (move limit reached, decided by marbles pushed off)\n"
        ));
        // The general game's older records read as records of the general
        // game, and the one format keeps them.
        for (text, seats) in [
            (include_str!("../testdata/records/holes-v1.txt"), 2),
            (include_str!("../testdata/records/three-player-v1.txt"), 3),
        ] {
            let AnyRecord::General(general) = AnyRecord::parse(text).unwrap() else {
                panic!("not a record of the general game: {text}");
            };
            assert_eq!(general.players.len(), seats);
            assert!(general.result.is_some());
            assert_eq!(
                GameRecord::<GeneralPosition>::parse(&general.to_text()).unwrap(),
                *general
            );
        }
        // An older two-player record as a record of the general engine.
        let general = AnyRecord::parse(TWO_PLAYER_V1).unwrap().into_general();
        assert_eq!(general, record.to_general());
    }

    #[test]
    fn a_huge_line_is_quoted_back_as_an_excerpt() {
        let huge = "x".repeat(1 << 20);
        let sample = v1_sample();
        for (from, to) in [
            ("layout: standard", format!("layout: {huge}")),
            ("white: greedy", format!("{huge}: greedy")),
            ("moves:", format!("moves:\n{huge}")),
            ("result: *", format!("result: {huge}")),
            ("rules: ", format!("rules: max_plies={huge} ")),
        ] {
            let err = GameRecord::<Position>::parse(&sample.replace(from, &to)).unwrap_err();
            let message = err.to_string();
            assert!(message.chars().count() < 300, "{}", &message[..300]);
            assert!(message.contains(&"x".repeat(40)), "{message}");
        }
    }

    /// Parses `text` with line `n` (1-based) replaced by `line`.
    fn with_line(text: &str, n: usize, line: &str) -> Result<GameRecord<Position>, RecordError> {
        let mut lines: Vec<&str> = text.lines().collect();
        lines[n - 1] = line;
        GameRecord::<Position>::parse(&lines.join("\n"))
    }

    fn line_of(text: &str, prefix: &str) -> usize {
        text.lines().position(|l| l.starts_with(prefix)).unwrap() + 1
    }

    #[test]
    fn malformed_records_name_the_line() {
        let text = v1_sample();
        let record = GameRecord::<Position>::parse(&text).unwrap();
        let err = with_line(&text, 1, "# some other file").unwrap_err();
        assert_eq!(err.line, 1);

        let layout = line_of(&text, "layout:");
        let err = with_line(&text, layout, "layout: hexagon").unwrap_err();
        assert_eq!(err.line, layout);
        assert!(err.problem.contains("hexagon"), "{err}");

        let rules = line_of(&text, "rules:");
        let err = with_line(&text, rules, "rules: max_plies=-3").unwrap_err();
        assert_eq!(err.line, rules);
        assert!(err.to_string().contains("max_plies"), "{err}");

        // Values out of range are refused as everywhere else (the
        // engine's one check), naming the item and the values allowed.
        for (line, message) in [
            (
                "rules: marbles_to_win=0",
                "marbles_to_win=0: is 0, must be 1 to 14",
            ),
            (
                "rules: marbles_to_win=15",
                "marbles_to_win=15: is 15, must be 1 to 14",
            ),
            (
                "rules: max_plies=0",
                "max_plies=0: is 0, must be at least 1",
            ),
            (
                "rules: no_push_off_plies=0",
                "no_push_off_plies=0: is 0, must be at least 1",
            ),
        ] {
            let err = with_line(&text, rules, line).unwrap_err();
            assert_eq!(err.line, rules);
            assert!(err.problem.contains(message), "{line}: {err}");
        }

        let err = with_line(&text, rules, "colour: green").unwrap_err();
        assert!(err.problem.contains("unknown header"), "{err}");

        // The third move replaced by one that is not legal there.
        let third = line_of(&text, "moves:") + 3;
        let before_third = record.positions().unwrap()[2];
        // (Aba-Pro text leaves the group size to the position, so look for a
        // text that no legal move there has.)
        let illegal = Move::all()
            .map(|mv| mv.to_string())
            .find(|text| before_third.parse_move(text).is_err())
            .unwrap();
        let err = with_line(&text, third, &illegal).unwrap_err();
        assert_eq!(err.line, third);
        assert!(err.problem.starts_with("move 3:"), "{err}");
        let err = with_line(&text, third, "Z9").unwrap_err();
        assert_eq!(err.line, third);

        let result = line_of(&text, "result:");
        let err = with_line(&text, result, "result: 1-0").unwrap_err();
        assert_eq!(err.line, result);
        assert!(err.problem.contains("not over"), "{err}");
        let err = with_line(&text, result, "result: win").unwrap_err();
        assert_eq!(err.line, result);

        let truncated: String = text.lines().take(result - 1).collect::<Vec<_>>().join("\n");
        let err = GameRecord::<Position>::parse(&truncated).unwrap_err();
        assert!(err.problem.contains("without a result"), "{err}");
    }

    #[test]
    fn results_must_match_the_replay() {
        let position = Position::from_fen("5/6/7/8/6bbw/8/7/6/5 b 0 5").unwrap();
        let text = format!(
            "{TWO_PLAYER_RECORD_MAGIC_V1}\nstart: {position}\nmoves:\nE7E8\nresult: 0-1\nreason: marbles-off\n"
        );
        let err = GameRecord::<Position>::parse(&text).unwrap_err();
        assert_eq!(err.line, 5);
        assert!(err.problem.contains("replay ends 1-0"), "{err}");
        let text = text
            .replace("0-1", "1-0")
            .replace("marbles-off", "move-limit");
        let err = GameRecord::<Position>::parse(&text).unwrap_err();
        assert_eq!(err.line, 6);
        let text = text
            .replace("move-limit", "marbles-off")
            .replace("E7E8\n", "E7E8\nE1E2\n");
        let err = GameRecord::<Position>::parse(&text).unwrap_err();
        assert_eq!(err.line, 5);
        assert!(err.problem.contains("after the end"), "{err}");
    }

    #[test]
    fn writes_atomically() {
        let dir = std::env::temp_dir().join(format!("sumito-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.txt");
        let record = sample();
        record.write(&path).unwrap();
        record.write(&path).unwrap();
        assert_eq!(GameRecord::<Position>::read(&path).unwrap(), record);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("game.txt")]);
        let err = GameRecord::<Position>::read(&dir.join("missing.txt")).unwrap_err();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn variations_join_a_tree_and_stand_while_the_game_leads_to_them() {
        let line = |ply, moves: &[u8]| Variation {
            ply,
            moves: moves.to_vec(),
        };
        // Along the game's own moves a line is the game's.
        let game = [1, 2, 3];
        assert_eq!(Variation::branching(&game, 1, &[2, 3]), None);
        assert_eq!(
            Variation::branching(&game, 1, &[2, 9, 4]),
            Some(line(2, &[9, 4]))
        );
        assert_eq!(Variation::branching(&game, 3, &[7]), Some(line(3, &[7])));
        // A line within a line adds nothing, one going on from a line takes
        // its place, one branching off comes last.
        let mut lines = vec![line(1, &[5, 6])];
        Variation::add_to(&mut lines, line(1, &[5]));
        Variation::add_to(&mut lines, line(1, &[5, 6, 7]));
        Variation::add_to(&mut lines, line(1, &[5, 8]));
        Variation::add_to(&mut lines, line(0, &[5]));
        assert_eq!(
            lines,
            [line(1, &[5, 6, 7]), line(1, &[5, 8]), line(0, &[5])]
        );
        // Another game's moves keep the lines from the plies it shares; a
        // line the new game's move begins goes on from that move.
        assert_eq!(
            Variation::standing(&lines, &game, &[1, 5]),
            [line(2, &[6, 7]), line(2, &[8]), line(0, &[5])]
        );
        assert_eq!(Variation::standing(&lines, &game, &[4]), [line(0, &[5])]);
        assert_eq!(Variation::standing(&lines, &game, &[]), [line(0, &[5])]);
    }

    #[test]
    fn a_record_taken_under_other_rules_keeps_the_variations_it_can_play() {
        let mut record = sample();
        let positions = record.positions().unwrap();
        let other = positions[2]
            .legal_moves()
            .into_iter()
            .find(|&mv| mv != record.moves[2])
            .unwrap();
        record.variations = vec![Variation {
            ply: 2,
            moves: vec![other],
        }];
        assert_eq!(
            GameRecord::<Position>::parse(&record.to_text()).unwrap(),
            record
        );
        let mut kept = record.clone();
        kept.keep_playable_variations();
        assert_eq!(kept.variations, record.variations);
        // A move that is not legal where it is played is left out.
        kept.variations[0].moves.push(other);
        kept.keep_playable_variations();
        assert!(kept.variations.is_empty());
        // A game played on from a loaded one keeps the variations it still
        // leads to.
        assert_eq!(record.variations_on(&record.moves[..2]), record.variations);
        assert!(record.variations_on(&record.moves[..1]).is_empty());
    }

    #[test]
    fn file_safe_names() {
        assert_eq!(file_safe("alphabeta:depth=3"), "alphabeta-depth-3");
        assert_eq!(file_safe("::"), "player");
    }
}
