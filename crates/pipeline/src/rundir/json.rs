//! The run directory's JSON records in a folder: written whole
//! (atomically) and read back, their errors naming the file.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::{Result, RunDirError, io_error};
use crate::fsutil::write_atomic;

/// `value` as pretty JSON, as the run's records are kept.
pub(crate) fn json_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(value).expect("run-directory records serialize");
    text.push('\n');
    text.into_bytes()
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic(path, &json_bytes(value)).map_err(io_error(path))
}

/// Reads a JSON record written by [`write_json`].
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    serde_json::from_slice(&bytes).map_err(|err| RunDirError::Malformed {
        path: path.to_owned(),
        problem: err.to_string(),
    })
}
