//! Atomic file writes, in one place for every crate that writes files
//! (game records, checkpoints, replay files, the run directory's state):
//! the bytes go to a temporary name beside the target, are flushed, then
//! renamed over it, so a reader (or a process killed at any moment) sees the
//! old file or the whole new one. The temporary's name carries the writer's
//! host and process id, so that a later process can tell the leftover of a
//! killed writer from a write under way and remove it (the run directory
//! does, on start). And reads of input files with a stated cap
//! ([`read_capped`]), refused before they are read whole.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` so that readers (and a process killed at any
/// moment) see either the old file or the whole new one: the data goes to a
/// temporary name in the same directory ([`temporary_path`]), is flushed to
/// disk, then renamed over `path`, and the directory entry is flushed too.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = parent_dir(path);
    let temp = temporary_path(path)?;
    let result = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        // Make the rename itself durable; some file systems refuse to open a
        // directory for syncing, which costs only durability, not atomicity.
        if let Ok(handle) = File::open(dir) {
            let _ = handle.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The most bytes an input text file (a game record, a `[rules]` file, a
/// configuration, evaluation weights, an openings list) may hold: far more
/// than any real one, and little enough to hold in memory.
pub const MAX_TEXT_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the file at `path` whole, refusing one of more than `cap` bytes
/// before reading more than that: a device (`/dev/zero`) or a huge file
/// named by mistake ends with an error, not with the memory.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it holds more than {cap} bytes, the most read from such a file"),
        ));
    }
    Ok(bytes)
}

/// [`read_capped`] for a text file (UTF-8).
pub fn read_text_capped(path: &Path, cap: u64) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, cap)?).map_err(|err| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is not UTF-8 text (byte {} is not)",
                err.utf8_error().valid_up_to() + 1
            ),
        )
    })
}

/// The folder `path` is in (`.` for a bare name).
fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// A fresh temporary name beside `path` for a file or folder that will be
/// renamed to `path`: `.NAME.HOST-PID-N.tmp`. The writer's host and process
/// id in the name let a later process tell the leftover of a killed writer
/// (removed on start, see `RunDir::remove_leftovers`) from a write under way.
pub fn temporary_path(path: &Path) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "path has no file name")
    })?;
    Ok(parent_dir(path).join(format!(
        ".{}.{}-{}-{}.tmp",
        name.to_string_lossy(),
        hostname(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )))
}

/// Whether `name` is a temporary file left by an interrupted [`write_atomic`].
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// The host and process id that wrote the temporary file `name` (named by
/// [`temporary_path`]); `None` for any other name, including temporaries of
/// older versions, which named no host.
pub fn temporary_writer(name: &str) -> Option<(&str, u32)> {
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, writer) = stem.rsplit_once('.')?;
    let mut parts = writer.rsplitn(3, '-');
    let counter = parts.next()?;
    let pid = parts.next()?.parse().ok()?;
    let host = parts.next()?;
    let host_ok = !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    (host_ok && !counter.is_empty() && counter.bytes().all(|b| b.is_ascii_digit()))
        .then_some((host, pid))
}

/// This machine's host name, reduced to characters safe in file names
/// (ASCII letters, digits and `-`), read once.
pub fn hostname() -> String {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let raw = fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_default();
        let clean: String = raw
            .trim()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if clean.is_empty() {
            "host".to_owned()
        } else {
            clean
        }
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sumito-fsio-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = scratch("atomic");
        let path = dir.join("state.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_no_temporary() {
        let dir = scratch("failed");
        // The target is a folder: the rename fails, the temporary goes.
        let target = dir.join("taken");
        fs::create_dir_all(target.join("inside")).unwrap();
        assert!(write_atomic(&target, b"bytes").is_err());
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("taken")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_carry_their_writer() {
        let temp = temporary_path(Path::new("runs/x/replay/1-h-2-000003.game")).unwrap();
        let name = temp.file_name().unwrap().to_str().unwrap();
        assert!(is_temporary(name), "{name}");
        assert_eq!(temp.parent(), Some(Path::new("runs/x/replay")));
        assert_eq!(
            temporary_writer(name),
            Some((hostname().as_str(), std::process::id()))
        );
        assert_eq!(
            temporary_writer(".state.json.my-host-2-77-5.tmp"),
            Some(("my-host-2", 77))
        );
        // Older versions named no host: their writer is unknown.
        assert_eq!(temporary_writer(".state.json.77-5.tmp"), None);
        assert_eq!(temporary_writer(".gen-000001.1234.tmp"), None);
        assert_eq!(temporary_writer("state.json"), None);
        assert_eq!(temporary_writer(".a.b c-1-2.tmp"), None);
    }

    #[test]
    fn a_capped_read_refuses_a_larger_file_and_an_endless_device() {
        let dir = scratch("capped");
        let path = dir.join("record.txt");
        fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_text_capped(&path, 10).unwrap(), "0123456789");
        let err = read_capped(&path, 9).unwrap_err();
        assert!(err.to_string().contains("more than 9 bytes"), "{err}");
        // A device without end is refused after its cap, not read whole.
        let started = std::time::Instant::now();
        let err = read_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(err.to_string().contains("more than 1048576 bytes"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        fs::write(&path, b"ok\xff").unwrap();
        let err = read_text_capped(&path, 10).unwrap_err();
        assert!(err.to_string().contains("byte 3"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// Test helpers of every crate that writes files (feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use std::path::PathBuf;

    /// A fresh scratch folder for one test, `<temp>/sumito-<name>-<pid>`
    /// (emptied first), removed when dropped.
    #[derive(Debug)]
    pub struct Scratch(pub PathBuf);

    impl Scratch {
        pub fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("sumito-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
