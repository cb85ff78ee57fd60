//! The one game record format of both games: a plain, line-oriented text
//! that the engine replays exactly. The rules travel with the game, so a
//! record replays the same anywhere.
//!
//! ```text
//! # sumito game record v2
//! layout: belgian-daisy
//! rules: { marbles_to_win = 6, max_plies = 400 }
//! seats: alphabeta:depth=3 | random
//! opening_plies: 4
//! moves:
//! A1B2
//! I5H5
//! …
//! variation after 1: G7F7 C3D3
//! variation after 1: G7F7 C4D4
//! result: black wins (enough marbles pushed off)
//! ```
//!
//! - The first line is exactly `# sumito game record v2`; other lines
//!   starting with `#`, and blank lines, are comments anywhere.
//! - Header lines `key: value` before `moves:`, each at most once. The start
//!   is `layout: NAME` (any layout, two-player or many-player) or `start:
//!   TEXT` (a position text of the general game, which for two players is
//!   the two-player text, ply counters included). `rules:` is the `[rules]`
//!   table as one TOML inline table (the keys of `--rules` files and run
//!   configurations; `{}` or absent for the plain rules). `seats:` names
//!   who played each seat, in turn order (Black first), separated by ` | `.
//!   `opening_plies:` counts the first moves that were a random opening
//!   rather than the players' choices. `forfeit:` (absent in most records)
//!   says that the seat to move after the moves gave the game up before
//!   the board ended it: `white resigned`, `black ran out of time`
//!   (`record::Forfeit`).
//! - After `moves:`, one move per line (Aba-Pro or comma form, shield and
//!   rotation moves included), each legal where it is played.
//! - Then the variations (side lines, as PGN's and SGF's), none or more:
//!   `variation after PLY: MOVES`, the moves separated by spaces, played
//!   from the position after `PLY` moves of the game (`0` the start; the
//!   game's length for a line after its last move), each legal where it is
//!   played, the first another than the game's own next move. A variation
//!   within a variation is a line sharing its first moves with one before
//!   it from the same ply: the lines are the leaves of the tree in the
//!   order they were played (`record::Variation`). Errors name the
//!   variation's ply, the move's place in it and its ply in the game.
//! - `result:` is the result as the general engine words it (`black wins
//!   (enough marbles pushed off)`, `draw between black and white (move
//!   limit reached, decided by marbles pushed off)`), or `*` for an
//!   unfinished game; it must agree with the replay.
//!
//! Which game a record is (the two-player game, played by the two-player
//! engine, or the general game) is decided once, from its rules and start
//! (`record::AnyRecord`): plain rules (targets and limits only) and a
//! two-player start make a two-player game.
//!
//! Older records still read: the two-player format `# sumito game record
//! v1` (`black:`/`white:`, `rules: marbles_to_win=6 max_plies=400
//! no_push_off_plies=none`, `result: 1-0` and `reason: marbles-off`) and the
//! general game's `# sumito variant game record v1` (this format under
//! another first line).
//!
//! Errors name the line and the problem.

use std::path::{Path, PathBuf};

use thiserror::Error;

pub use sumito_game::formats::{
    GAME_RECORD_MAGIC, TWO_PLAYER_RECORD_MAGIC_V1, VARIANT_RECORD_MAGIC_V1,
};

/// Which format a record's text is in, by its first line; `None` for none
/// of them.
pub fn format_of(text: &str) -> Option<&'static str> {
    let first = text.lines().next()?.trim();
    [
        GAME_RECORD_MAGIC,
        TWO_PLAYER_RECORD_MAGIC_V1,
        VARIANT_RECORD_MAGIC_V1,
    ]
    .into_iter()
    .find(|magic| *magic == first)
}

/// A problem in a record's text, at a line (1-based).
#[derive(Debug, Error, PartialEq, Eq)]
#[error("line {line}: {problem}")]
pub struct RecordError {
    pub line: usize,
    pub problem: String,
}

#[derive(Debug, Error)]
pub enum RecordFileError {
    #[error("cannot read game record {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("game record {path}: {cause}")]
    Parse { path: PathBuf, cause: RecordError },
    #[error("cannot write game record {path}: {cause}")]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// The most bytes a record file may hold ([`sumito_fsio::MAX_TEXT_FILE_BYTES`]):
/// a game of the longest a page shows is some 30 kB.
pub const MAX_RECORD_BYTES: u64 = sumito_fsio::MAX_TEXT_FILE_BYTES;

/// Reads a record file (at most [`MAX_RECORD_BYTES`], refused before
/// reading more) and parses it with `parse`, the errors naming the file.
pub fn read_with<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, RecordError>,
) -> Result<T, RecordFileError> {
    let text = sumito_fsio::read_text_capped(path, MAX_RECORD_BYTES).map_err(|cause| {
        RecordFileError::Read {
            path: path.to_path_buf(),
            cause,
        }
    })?;
    parse(&text).map_err(|cause| RecordFileError::Parse {
        path: path.to_path_buf(),
        cause,
    })
}

/// Writes a record's text atomically (a temporary file renamed into place),
/// the error naming the file.
pub fn write_text(path: &Path, text: &str) -> Result<(), RecordFileError> {
    sumito_fsio::write_atomic(path, text.as_bytes()).map_err(|cause| RecordFileError::Write {
        path: path.to_path_buf(),
        cause,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_known_by_their_first_line() {
        assert_eq!(
            format_of(&format!("{GAME_RECORD_MAGIC}\nlayout: standard\n")),
            Some(GAME_RECORD_MAGIC)
        );
        assert_eq!(
            format_of(&format!("  {TWO_PLAYER_RECORD_MAGIC_V1}\n")),
            Some(TWO_PLAYER_RECORD_MAGIC_V1)
        );
        assert_eq!(
            format_of(VARIANT_RECORD_MAGIC_V1),
            Some(VARIANT_RECORD_MAGIC_V1)
        );
        assert_eq!(format_of("A1B2 I5H5"), None);
        assert_eq!(format_of(""), None);
    }
}
