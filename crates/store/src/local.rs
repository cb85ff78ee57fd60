//! A store in a folder: one file per object, the key its path below the
//! folder.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::backend::{Backend, Created, ObjectInfo, Replaced, StoreError, Version};

#[derive(Debug)]
pub(crate) struct LocalBackend {
    root: PathBuf,
}

impl LocalBackend {
    pub(crate) fn new(root: PathBuf) -> LocalBackend {
        LocalBackend { root }
    }

    fn path(&self, key: &str) -> PathBuf {
        key.split('/')
            .fold(self.root.clone(), |path, part| path.join(part))
    }

    fn error(&self, key: &str) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        let key = key.to_owned();
        move |cause| StoreError::Io {
            location: self.root.display().to_string(),
            key,
            cause,
        }
    }

    fn make_parent(&self, path: &Path, key: &str) -> Result<(), StoreError> {
        match path.parent() {
            Some(parent) => std::fs::create_dir_all(parent).map_err(self.error(key)),
            None => Ok(()),
        }
    }

    /// Every file below `dir` (recursively) as `(key, size)`, `dir` being
    /// the folder of key prefix `dir_key` (`""` for the root).
    fn walk(&self, dir: &Path, dir_key: &str, out: &mut Vec<ObjectInfo>) -> Result<(), StoreError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(self.error(dir_key)(err)),
        };
        for entry in entries {
            let entry = entry.map_err(self.error(dir_key))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let key = if dir_key.is_empty() {
                name.clone()
            } else {
                format!("{dir_key}/{name}")
            };
            let kind = entry.file_type().map_err(self.error(&key))?;
            if kind.is_dir() {
                self.walk(&entry.path(), &key, out)?;
            } else if kind.is_file() && !sumito_fsio::is_temporary(&name) {
                let size = entry.metadata().map_err(self.error(&key))?.len();
                out.push(ObjectInfo { key, size });
            }
        }
        Ok(())
    }
}

impl Backend for LocalBackend {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key);
        self.make_parent(&path, key)?;
        sumito_fsio::write_atomic(&path, bytes).map_err(self.error(key))
    }

    fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        let path = self.path(key);
        self.make_parent(&path, key)?;
        // The whole object goes to a temporary, flushed, then gets its name
        // by a hard link, which fails if the name is taken: no reader ever
        // sees a part, and of two racing writers one wins.
        let temporary = sumito_fsio::temporary_path(&path).map_err(self.error(key))?;
        let written = (|| {
            let mut file = std::fs::File::create(&temporary)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            match std::fs::hard_link(&temporary, &path) {
                Ok(()) => Ok(Created::New),
                Err(err) if err.kind() == ErrorKind::AlreadyExists => Ok(Created::Exists),
                Err(err) => Err(err),
            }
        })();
        let _ = std::fs::remove_file(&temporary);
        written.map_err(self.error(key))
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match std::fs::read(self.path(key)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
            Err(err) => Err(self.error(key)(err)),
        }
    }

    fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        Ok(self.get(key)?.map(|bytes| {
            let version = file_version(&bytes);
            (bytes, version)
        }))
    }

    fn replace(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<Replaced, StoreError> {
        // Two steps (see Store::replace): a folder's roles are file locks.
        let found = self.get_versioned(key)?.map(|(_, version)| version);
        if found.as_ref() != expected {
            return Ok(Replaced::Changed);
        }
        self.put(key, bytes)?;
        Ok(Replaced::Written(file_version(bytes)))
    }

    fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        // Walk the deepest folder the prefix names whole, then filter.
        let dir_key = match prefix.rfind('/') {
            Some(end) => &prefix[..end],
            None => "",
        };
        let dir = if dir_key.is_empty() {
            self.root.clone()
        } else {
            self.path(dir_key)
        };
        let mut objects = Vec::new();
        self.walk(&dir, dir_key, &mut objects)?;
        objects.retain(|object| object.key.starts_with(prefix));
        Ok(objects)
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        match std::fs::remove_file(self.path(key)) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(()),
            Err(err) => Err(self.error(key)(err)),
        }
    }
}

/// A file's version: its bytes' CRC-32C and length.
fn file_version(bytes: &[u8]) -> Version {
    Version(format!("{:08x}-{}", crate::crc::crc32c(bytes), bytes.len()))
}
