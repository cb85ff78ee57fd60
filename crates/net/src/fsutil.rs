//! Atomic file writes and a checksum for checkpoint files.

use std::path::Path;

use crate::NetError;

/// Writes `bytes` to `path` atomically (`sumito_fsio::write_atomic`: a
/// temporary beside it that names its writer, so the run directory removes
/// it if this process is killed; fsync; rename; fsync of the directory).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    sumito_fsio::write_atomic(path, bytes).map_err(NetError::io(path))
}

/// Makes renames inside `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), NetError> {
    std::fs::File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(NetError::io(dir))
}

/// FNV-1a, 64 bits: detects damaged files (not an integrity check against
/// tampering).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// A path under the system's temporary folder for test `name`, unique to
/// this process and not there yet (a leftover of an earlier run is removed).
#[cfg(test)]
pub(crate) fn fresh_test_path(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("sumito-net-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_known_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sumito-net-fsutil-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("file.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
