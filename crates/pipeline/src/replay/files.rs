//! Replay files in the run directory: one file per finished game, written
//! atomically under a name unique across processes and machines
//! (`<unix ms>-<host>-<pid>-<n>.game`), so that a finished game is never lost
//! and a partial one never appears, whoever writes it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::format::{GameRecord, encode_game};
use super::variant_format::{VariantReplay, encode_variant_game};
use crate::fsutil::{hostname, is_temporary, write_atomic};

pub const EXTENSION: &str = "game";
/// The extension of general-game replay files ([`super::variant_format`]).
pub const VARIANT_EXTENSION: &str = "vgame";

/// Writes `bytes` into `dir` (created if needed) under a new unique name
/// with `extension`, atomically, and returns its path.
fn write_unique(dir: &Path, extension: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    let name = format!(
        "{millis:013}-{}-{}-{:06}.{extension}",
        hostname(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let path = dir.join(name);
    write_atomic(&path, bytes)?;
    Ok(path)
}

/// Writes `game` into `dir` (created if needed) and returns its path.
pub fn write_game(dir: &Path, game: &GameRecord) -> std::io::Result<PathBuf> {
    write_unique(dir, EXTENSION, &encode_game(game))
}

/// Writes a general-game replay into `dir` (created if needed) and returns
/// its path.
pub fn write_variant_game(dir: &Path, replay: &VariantReplay) -> std::io::Result<PathBuf> {
    write_unique(dir, VARIANT_EXTENSION, &encode_variant_game(replay))
}

/// Every two-player replay file under `replay_dir` (in its `model-*`
/// folders), oldest first by the time in its name.
pub fn list_games(replay_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    list_replay_files(replay_dir, EXTENSION)
}

/// Every replay file with `extension` under `replay_dir` (in its
/// `model-*` folders), oldest first by the time in its name.
pub fn list_replay_files(replay_dir: &Path, extension: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if !replay_dir.exists() {
        return Ok(files);
    }
    for folder in std::fs::read_dir(replay_dir)? {
        let folder = folder?.path();
        if !folder.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !is_temporary(&name) && path.extension().is_some_and(|ext| ext == extension) {
                files.push(path);
            }
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}
