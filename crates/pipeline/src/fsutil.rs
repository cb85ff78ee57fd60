//! Small file-system helpers of the run directory: atomic replacement,
//! temporary names that say who wrote them and host identity (for leases
//! and file names) come from `sumito_fsio`, shared with every crate that
//! writes files.

pub use sumito_fsio::{hostname, is_temporary, temporary_path, temporary_writer, write_atomic};

/// Seconds since the Unix epoch.
pub fn unix_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

/// A UTC timestamp `YYYY-MM-DD HH:MM:SS` for log lines (the arena's records
/// use the same stamp, so it lives in the lowest crate that needs it).
pub use sumito_arena::record::utc_timestamp;

#[cfg(test)]
pub(crate) mod testing {
    use std::path::{Path, PathBuf};

    /// A fresh directory under the system temp dir, removed on drop.
    #[derive(Debug)]
    pub struct TempDir(PathBuf);

    impl TempDir {
        pub fn new(name: &str) -> TempDir {
            use std::sync::atomic::{AtomicU64, Ordering};
            static COUNTER: AtomicU64 = AtomicU64::new(0);
            let dir = std::env::temp_dir().join(format!(
                "sumito-test-{name}-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_has_the_right_shape() {
        let stamp = utc_timestamp();
        assert_eq!(stamp.len(), 19, "{stamp}");
        assert!(stamp.starts_with("20"), "{stamp}");
    }
}
