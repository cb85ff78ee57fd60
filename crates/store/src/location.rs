//! Where a run is stored: a folder, `s3://BUCKET/PREFIX`, or an object
//! store in memory, as a user writes it.

use std::fmt;
use std::path::PathBuf;

use crate::backend::{StoreError, check_key};

/// Where a run is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A folder.
    Local(PathBuf),
    /// `s3://BUCKET/PREFIX`: every key of the run under `PREFIX/`.
    S3 { bucket: String, prefix: String },
    /// An object store in this process's memory (`memory://NAME`), for tests.
    Memory(String),
}

impl Location {
    /// Reads `s3://BUCKET[/PREFIX]`, `memory://NAME`, or else a folder path.
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        let bad = |problem: &str| StoreError::BadLocation {
            text: text.to_owned(),
            problem: problem.to_owned(),
        };
        if let Some(rest) = text.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket: write s3://BUCKET/PREFIX"));
            }
            let prefix = prefix.trim_end_matches('/');
            if !prefix.is_empty() {
                check_key(prefix).map_err(|problem| bad(&problem))?;
            }
            return Ok(Location::S3 {
                bucket: bucket.to_owned(),
                prefix: prefix.to_owned(),
            });
        }
        if let Some(name) = text.strip_prefix("memory://") {
            return Ok(Location::Memory(name.to_owned()));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(bad(&format!(
                "{scheme}:// is not a storage this program knows: give a folder or s3://BUCKET/PREFIX"
            )));
        }
        if text.is_empty() {
            return Err(bad("empty"));
        }
        Ok(Location::Local(PathBuf::from(text)))
    }

    /// Whether the run is on a local (or shared) file system.
    pub fn is_local(&self) -> bool {
        matches!(self, Location::Local(_))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(path) => write!(f, "{}", path.display()),
            Location::S3 { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            Location::S3 { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
            Location::Memory(name) => write!(f, "memory://{name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_read_as_users_write_them() {
        assert_eq!(
            Location::parse("s3://bucket/runs/quick/").unwrap(),
            Location::S3 {
                bucket: "bucket".into(),
                prefix: "runs/quick".into()
            }
        );
        assert_eq!(
            Location::parse("s3://bucket").unwrap().to_string(),
            "s3://bucket"
        );
        assert_eq!(
            Location::parse("runs/quick").unwrap(),
            Location::Local("runs/quick".into())
        );
        for (bad, says) in [
            ("s3://", "no bucket"),
            ("gs://b/p", "gs://"),
            ("s3://b/a/../c", "'..'"),
        ] {
            let message = Location::parse(bad).unwrap_err().to_string();
            assert!(message.contains(says), "{bad}: {message}");
        }
    }
}
