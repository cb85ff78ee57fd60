//! The replay container: the one file of a finished self-play game of
//! either game, `<unix ms>-<host>-<pid>-<n>.replay`. It frames the game's
//! own encoding ([`super::format`] for the two-player game, which keeps
//! every position for the trainer's speed; [`super::general_format`] for
//! the general game, which keeps the start and the moves) with what every
//! reader checks first: which game it holds, and a checksum of the whole.
//! Little-endian:
//!
//! ```text
//! magic        8  b"SUMITOR\0"
//! version      2  REPLAY_CONTAINER_VERSION
//! game         1  0 the two-player game, 1 the general game
//! length       4  of the game's encoding
//! game's bytes n  the game's own format, whole (its magic and checksum included)
//! crc32c       4  of every byte before it
//! ```
//!
//! Files written before the container (`.game` of the two-player game,
//! `.vgame` of the general game: the game's encoding alone) still read:
//! the store lists them beside `.replay` files, and [`unwrap`] hands their
//! bytes through.

use sumito_game::GameKind;

use crate::crc::crc32c;

use super::error::FormatError;

/// The extension of replay files.
pub const EXTENSION: &str = "replay";
pub const CONTAINER_MAGIC: [u8; 8] = *b"SUMITOR\0";
pub use sumito_game::formats::REPLAY_CONTAINER_VERSION;
/// Magic, version, game and length.
const HEADER_LEN: usize = 8 + 2 + 1 + 4;

/// The container's byte for which game a file holds.
fn code(kind: GameKind) -> u8 {
    match kind {
        GameKind::TwoPlayer => 0,
        GameKind::General => 1,
    }
}

/// The extension of a game's files written before the container.
pub fn legacy_extension(kind: GameKind) -> &'static str {
    match kind {
        GameKind::TwoPlayer => "game",
        GameKind::General => "vgame",
    }
}

/// `game` (the game's encoding) in a container.
pub fn wrap(kind: GameKind, game: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + game.len() + 4);
    out.extend_from_slice(&CONTAINER_MAGIC);
    out.extend_from_slice(&REPLAY_CONTAINER_VERSION.to_le_bytes());
    out.push(code(kind));
    out.extend_from_slice(&(game.len() as u32).to_le_bytes());
    out.extend_from_slice(game);
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The game's encoding in a replay file's `bytes`, after checking the
/// container (its version, its checksum, and that it holds `kind`); the
/// bytes of a file written before the container as they are.
pub fn unwrap(kind: GameKind, bytes: &[u8]) -> Result<&[u8], FormatError> {
    let Some(game) = header(kind, bytes)? else {
        return Ok(bytes);
    };
    let (body, stored) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(stored.try_into().expect("4 bytes"));
    let computed = crc32c(body);
    if stored != computed {
        return Err(FormatError::Checksum { stored, computed });
    }
    Ok(game)
}

/// The game's encoding in `bytes` without the checksum of the whole (a
/// cheap look at its header; [`unwrap`] checks everything): the bytes of a
/// file written before the container as they are.
pub fn peek(kind: GameKind, bytes: &[u8]) -> Result<&[u8], FormatError> {
    Ok(header(kind, bytes)?.unwrap_or(bytes))
}

/// The game's encoding in a container's `bytes` after checking its header
/// (length, version, which game, the game's length); None for bytes
/// without the container's magic (a file written before it).
fn header(kind: GameKind, bytes: &[u8]) -> Result<Option<&[u8]>, FormatError> {
    if bytes.len() < 8 || bytes[..8] != CONTAINER_MAGIC {
        return Ok(None);
    }
    if bytes.len() < HEADER_LEN + 4 {
        return Err(FormatError::Truncated {
            length: bytes.len(),
            needed: HEADER_LEN + 4,
        });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != REPLAY_CONTAINER_VERSION {
        return Err(FormatError::BadHeader(format!(
            "replay container version {version} is not supported (this sumito reads version \
             {REPLAY_CONTAINER_VERSION})"
        )));
    }
    let found = bytes[10];
    if found != code(kind) {
        let held = GameKind::ALL
            .into_iter()
            .find(|&other| code(other) == found)
            .map_or_else(
                || format!("an unknown game ({found})"),
                |other| other.name().into(),
            );
        return Err(FormatError::BadHeader(format!(
            "the file holds a game of {held}, not of {}",
            kind.name()
        )));
    }
    let game = &bytes[HEADER_LEN..bytes.len() - 4];
    let length = u32::from_le_bytes(bytes[11..15].try_into().expect("4 bytes")) as usize;
    if length > game.len() {
        return Err(FormatError::Truncated {
            length: bytes.len(),
            needed: HEADER_LEN + length + 4,
        });
    }
    if length != game.len() {
        return Err(FormatError::BadHeader(format!(
            "the game's encoding is {} bytes, the container says {length}",
            game.len()
        )));
    }
    Ok(Some(game))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_goes_in_and_out_whole_and_damage_is_named() {
        let game = b"SUMITOG\0 any game bytes".to_vec();
        let bytes = wrap(GameKind::TwoPlayer, &game);
        assert_eq!(unwrap(GameKind::TwoPlayer, &bytes).unwrap(), &game[..]);
        // A file of the other game is refused by name.
        let err = unwrap(GameKind::General, &bytes).unwrap_err().to_string();
        assert!(
            err.contains("the two-player game, not of the general game"),
            "{err}"
        );
        // One flipped byte fails the checksum.
        let mut damaged = bytes.clone();
        damaged[20] ^= 1;
        assert!(matches!(
            unwrap(GameKind::TwoPlayer, &damaged),
            Err(FormatError::Checksum { .. })
        ));
        // A cut file.
        assert!(unwrap(GameKind::TwoPlayer, &bytes[..12]).is_err());
        // A newer container.
        let mut newer = bytes.clone();
        newer[8] = 9;
        let err = unwrap(GameKind::TwoPlayer, &newer).unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
        // Bytes of a file written before the container pass through.
        assert_eq!(unwrap(GameKind::General, &game).unwrap(), &game[..]);
    }

    #[test]
    fn files_written_before_the_container_still_read_and_the_store_lists_both() {
        use super::super::files::{ReplayFolder, list_games, write_replay};
        use super::super::format::decode_game;
        use super::super::general_format::decode_general_game;

        let two = include_bytes!("../../testdata/before-container/two-player.game");
        let three = include_bytes!("../../testdata/before-container/three-player.vgame");
        let game = decode_game(two).unwrap();
        let general = decode_general_game(three).unwrap();
        assert!(!game.positions.is_empty() && !general.game.positions.is_empty());
        // Each game's reader refuses the other game's old file.
        assert!(decode_game(three).is_err());
        assert!(decode_general_game(two).is_err());
        // Written again, each is in the container, under the one extension.
        let dir = crate::fsutil::testing::TempDir::new("replay-container");
        let folder = ReplayFolder::local(dir.path()).unwrap();
        std::fs::write(dir.path().join("1-old.game"), two).unwrap();
        std::fs::write(dir.path().join("1-old.vgame"), three).unwrap();
        let new_two = write_replay(&folder, &game).unwrap();
        let new_three = write_replay(&folder, &general).unwrap();
        for key in [&new_two, &new_three] {
            assert!(key.ends_with(".replay"), "{key}");
            let bytes = folder.read(key).unwrap().unwrap();
            assert_eq!(bytes[..8], CONTAINER_MAGIC);
        }
        assert_eq!(
            decode_game(&folder.read(&new_two).unwrap().unwrap()).unwrap(),
            game
        );
        let again = decode_general_game(&folder.read(&new_three).unwrap().unwrap()).unwrap();
        assert_eq!(again.game.positions.len(), general.game.positions.len());
        // A game's listing holds its old files and every container file.
        let listed = list_games(&folder, GameKind::TwoPlayer).unwrap();
        assert!(listed.contains(&"1-old.game".to_owned()), "{listed:?}");
        assert!(!listed.contains(&"1-old.vgame".to_owned()), "{listed:?}");
        assert_eq!(listed.len(), 3, "{listed:?}");
    }
}
