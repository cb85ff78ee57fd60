//! What every kind of storage does (the [`Backend`] a [`crate::Store`] holds:
//! a folder, `local`, or an object store, `remote`), and the values its
//! operations take and give: object keys and their check, listings,
//! versions, the outcomes of conditional writes, and the one error type.

use std::fmt;

/// Objects larger than this are uploaded in parts of this size.
pub const MULTIPART_THRESHOLD: usize = 8 << 20;

/// One stored object, as a listing gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    /// Its key, relative to the store's location.
    pub key: String,
    pub size: u64,
}

/// What [`Store::create`](crate::Store::create) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The object did not exist and now holds the bytes given.
    New,
    /// An object of that key existed; it was left as it was.
    Exists,
}

/// Which writing of an object a reader saw: an object store's ETag; for a
/// file, a digest of its bytes (CRC-32C and length). Opaque: only compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version(pub(crate) String);

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What [`Store::replace`](crate::Store::replace) did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replaced {
    /// The object was as expected and now holds the bytes given, in this
    /// version.
    Written(Version),
    /// Someone wrote (or deleted, or created) it since: nothing was written.
    Changed,
}

/// What went wrong; every error names the store and the object.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{text:?} is not a place to keep a run: {problem}")]
    BadLocation { text: String, problem: String },
    #[error("{key:?} is not an object key: {problem}")]
    BadKey { key: String, problem: String },
    #[error("{location}/{key}: {cause}")]
    Io {
        location: String,
        key: String,
        cause: std::io::Error,
    },
    #[error("{location}/{key}: {message}")]
    Remote {
        location: String,
        key: String,
        message: String,
    },
    /// The store did not answer (connection refused or reset, time-outs,
    /// 5xx), after the client's own retries: what [`Store`](crate::Store) waits out.
    #[error("{location}/{key}: the store is unreachable: {message}")]
    Unreachable {
        location: String,
        key: String,
        message: String,
    },
    #[error(
        "{location}/{key}: {size} bytes are too many for a conditional write (at most {MULTIPART_THRESHOLD})"
    )]
    TooLarge {
        location: String,
        key: String,
        size: usize,
    },
    #[error("{location}/{key} is corrupt: {problem}; it is not used")]
    Corrupt {
        location: String,
        key: String,
        problem: String,
    },
}

/// Checks that `key` is relative, `/`-separated, without empty, `.` or `..`
/// parts; the problem otherwise.
pub(crate) fn check_key(key: &str) -> Result<(), String> {
    if key.is_empty() {
        return Err("empty".into());
    }
    if key.starts_with('/') || key.contains('\\') {
        return Err("keys are relative and separated by '/'".into());
    }
    if key
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err("it has an empty, '.' or '..' part".into());
    }
    Ok(())
}

pub(crate) fn valid_key(key: &str) -> Result<(), StoreError> {
    check_key(key).map_err(|problem| StoreError::BadKey {
        key: key.to_owned(),
        problem,
    })
}

/// The operations every kind of storage provides.
pub(crate) trait Backend: Send + Sync + fmt::Debug {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError>;
    fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError>;
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError>;
    /// Writes `key` only if it is in the version `expected` (`None`: only
    /// if there is no object of that key).
    fn replace(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<Replaced, StoreError>;
    /// [`Backend::get`] of each key, in order (an object store asks for
    /// several at once).
    fn get_many(&self, keys: &[String]) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
        keys.iter().map(|key| self.get(key)).collect()
    }
    fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, StoreError>;
    /// [`Backend::list`] of the keys after `offset` only (an object store
    /// starts its listing there).
    fn list_after(&self, prefix: &str, offset: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        let mut objects = self.list(prefix)?;
        objects.retain(|object| object.key.as_str() > offset);
        Ok(objects)
    }
    fn delete(&self, key: &str) -> Result<(), StoreError>;
}
