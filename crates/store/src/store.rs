//! The storage of a run: checks every key, picks the backend its
//! [`Location`] names, and rides out outages of an object store.

use std::sync::Arc;

use crate::backend::{
    Backend, Created, MULTIPART_THRESHOLD, ObjectInfo, Replaced, StoreError, Version, valid_key,
};
use crate::location::Location;
use crate::{local, outage, remote};

/// A run's storage (see the crate docs). Cheap to clone: clones share the
/// connection.
#[derive(Clone, Debug)]
pub struct Store {
    location: Location,
    backend: Arc<dyn Backend>,
    /// How outages are waited out (shared by clones).
    outage: Arc<outage::Outage>,
}

impl Store {
    /// Opens the storage at `location` (for an object store: reads the
    /// credentials and endpoint from the environment; nothing is sent yet).
    pub fn open(location: &Location) -> Result<Store, StoreError> {
        Store::open_with(location, &[])
    }

    /// [`Store::open`], with `settings` of an object store given as the
    /// environment variables that would give them (`AWS_ENDPOINT_URL`,
    /// `AWS_ACCESS_KEY_ID`, ...), taking precedence over the environment.
    pub fn open_with(location: &Location, settings: &[(&str, &str)]) -> Result<Store, StoreError> {
        let backend: Arc<dyn Backend> = match location {
            Location::Local(root) => Arc::new(local::LocalBackend::new(root.clone())),
            Location::S3 { bucket, prefix } => Arc::new(remote::RemoteBackend::s3(
                bucket, prefix, location, settings,
            )?),
            Location::Memory(name) => Arc::new(remote::RemoteBackend::memory(name)?),
        };
        Ok(Store {
            location: location.clone(),
            outage: outage::Outage::of(&location.to_string()),
            backend,
        })
    }

    /// Where it is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Writes the object `key` whole, replacing any object of that key:
    /// readers see the old object or the new one, never a part.
    ///
    /// Every operation rides out an outage of an object store that answered
    /// before (a store never reached fails at once, so that a wrong endpoint
    /// is said at once): while it is unreachable, the operation waits and
    /// tries again with backoff for up to the outage limit, saying once on
    /// standard error that it waits and once that the store is back.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        valid_key(key)?;
        self.outage.ride_out(|| self.backend.put(key, bytes))
    }

    /// Writes the object `key` only if no object has that key, atomically:
    /// of two writers racing for one key exactly one gets [`Created::New`].
    pub fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        valid_key(key)?;
        let (created, retried) =
            self.ride_out_noting_retries(|| self.backend.create(key, bytes))?;
        // A create that reached the store but whose answer was lost, tried
        // again, finds its own object: the same bytes are this create's.
        if created == Created::Exists
            && retried
            && self.get(key)?.is_some_and(|found| found == bytes)
        {
            return Ok(Created::New);
        }
        Ok(created)
    }

    /// `write` ridden out as every operation is, and whether it was tried
    /// again after the store did not answer (a conditional write that did
    /// reach the store then finds its own object).
    fn ride_out_noting_retries<T>(
        &self,
        mut write: impl FnMut() -> Result<T, StoreError>,
    ) -> Result<(T, bool), StoreError> {
        let mut retried = false;
        let done = self.outage.ride_out(|| {
            let attempt = write();
            retried |= matches!(attempt, Err(StoreError::Unreachable { .. }));
            attempt
        })?;
        Ok((done, retried))
    }

    /// The object `key`, checked whole, or `None` if there is none.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        valid_key(key)?;
        self.outage.ride_out(|| self.backend.get(key))
    }

    /// The object `key` and its version, or `None` if there is none.
    pub fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        valid_key(key)?;
        self.outage.ride_out(|| self.backend.get_versioned(key))
    }

    /// Writes the object `key` whole only if it is still in the version
    /// `expected` (`None`: only if there is no object of that key), which a
    /// [`Store::get_versioned`] or an earlier replace gave: of two writers
    /// that read one version, one writes and the other gets
    /// [`Replaced::Changed`]. On an object store this is a conditional put
    /// (`If-Match` / `If-None-Match: *`), atomic at the store. In a folder
    /// the check and the write are two steps: a run's roles in a folder are
    /// held by file locks, which no live holder loses, so no two writers
    /// race there. Objects up to [`MULTIPART_THRESHOLD`] only.
    pub fn replace(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<Replaced, StoreError> {
        valid_key(key)?;
        if bytes.len() > MULTIPART_THRESHOLD {
            return Err(StoreError::TooLarge {
                location: self.location.to_string(),
                key: key.to_owned(),
                size: bytes.len(),
            });
        }
        let (replaced, retried) =
            self.ride_out_noting_retries(|| self.backend.replace(key, bytes, expected))?;
        // A write that reached the store but whose answer was lost, tried
        // again, finds its own bytes: the write was this one's.
        if replaced == Replaced::Changed
            && retried
            && let Some((found, version)) = self.get_versioned(key)?
            && found == bytes
        {
            return Ok(Replaced::Written(version));
        }
        Ok(replaced)
    }

    /// [`Store::get`] of every key of `keys`, in order; on an object store
    /// several requests are in flight at once, which is what makes reading
    /// many small objects (a trainer catching up on thousands of games) fast.
    pub fn get_many(&self, keys: &[String]) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
        let mut results = Vec::with_capacity(keys.len());
        let mut valid = Vec::new();
        let mut slots = Vec::new();
        for key in keys {
            match valid_key(key) {
                Ok(()) => {
                    slots.push(None);
                    valid.push(key.clone());
                }
                Err(err) => slots.push(Some(err)),
            }
        }
        let mut fetched = self
            .outage
            .ride_out_many(|| self.backend.get_many(&valid))
            .into_iter();
        for slot in slots {
            results.push(match slot {
                Some(err) => Err(err),
                None => fetched.next().expect("one result per valid key"),
            });
        }
        results
    }

    /// Every object whose key starts with `prefix` (`""` for all; a prefix
    /// ending in `/` lists a "folder" and everything below it), by key.
    pub fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        if !prefix.is_empty() {
            valid_key(prefix.trim_end_matches('/'))?;
        }
        let mut objects = self.outage.ride_out(|| self.backend.list(prefix))?;
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(objects)
    }

    /// The objects of [`Store::list`] whose key sorts after `offset`: on an
    /// object store, one request per thousand of those, however many come
    /// before (a trainer following the newest folders of a large run).
    pub fn list_after(&self, prefix: &str, offset: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        if !prefix.is_empty() {
            valid_key(prefix.trim_end_matches('/'))?;
        }
        valid_key(offset)?;
        let mut objects = self
            .outage
            .ride_out(|| self.backend.list_after(prefix, offset))?;
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(objects)
    }

    /// Deletes the object `key`; deleting one that is not there is no error.
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        valid_key(key)?;
        self.outage.ride_out(|| self.backend.delete(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{S3Server, Scratch};

    /// What every backend must do alike.
    fn behaves_as_a_store(store: &Store) {
        assert_eq!(store.get("a/b.json").unwrap(), None);
        store.put("a/b.json", b"one").unwrap();
        assert_eq!(store.get("a/b.json").unwrap().unwrap(), b"one");
        store.put("a/b.json", b"two!").unwrap();
        assert_eq!(store.get("a/b.json").unwrap().unwrap(), b"two!");
        // Conditional create: the first wins, the second leaves it alone.
        assert_eq!(store.create("leases/t/1", b"mine").unwrap(), Created::New);
        assert_eq!(
            store.create("leases/t/1", b"yours").unwrap(),
            Created::Exists
        );
        assert_eq!(store.get("leases/t/1").unwrap().unwrap(), b"mine");
        store.put("a/c/d.bin", &[7u8; 10]).unwrap();
        store.put("ab", b"x").unwrap();
        let keys = |prefix: &str| -> Vec<(String, u64)> {
            store
                .list(prefix)
                .unwrap()
                .into_iter()
                .map(|o| (o.key, o.size))
                .collect()
        };
        assert_eq!(
            keys("a/"),
            [("a/b.json".to_owned(), 4), ("a/c/d.bin".to_owned(), 10)]
        );
        assert_eq!(
            keys("a"),
            [
                ("a/b.json".to_owned(), 4),
                ("a/c/d.bin".to_owned(), 10),
                ("ab".to_owned(), 1)
            ]
        );
        assert_eq!(keys("").len(), 4);
        assert!(keys("nothing/").is_empty());
        // Listing after an offset: only later keys, the offset excluded.
        let after = |prefix: &str, offset: &str| -> Vec<String> {
            store
                .list_after(prefix, offset)
                .unwrap()
                .into_iter()
                .map(|o| o.key)
                .collect()
        };
        assert_eq!(after("a/", "a/b.json"), ["a/c/d.bin"]);
        assert_eq!(after("a/", "a/c"), ["a/c/d.bin"]);
        assert_eq!(after("", "a/c/d.bin"), ["ab", "leases/t/1"]);
        assert!(after("a/", "a/d").is_empty());
        // Many at once, in order, a missing one and a bad key included.
        let many: Vec<Option<Vec<u8>>> = store
            .get_many(&["ab".into(), "none".into(), "a/c/d.bin".into()])
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(many, [Some(b"x".to_vec()), None, Some(vec![7u8; 10])]);
        let with_bad = store.get_many(&["a//b".into(), "ab".into()]);
        assert!(with_bad[0].is_err() && with_bad[1].as_ref().unwrap().is_some());
        let keys_of_many: Vec<String> = (0..40).map(|i| format!("many/{i:02}")).collect();
        for (i, key) in keys_of_many.iter().enumerate() {
            store.put(key, &[i as u8]).unwrap();
        }
        let read: Vec<u8> = store
            .get_many(&keys_of_many)
            .into_iter()
            .map(|got| got.unwrap().unwrap()[0])
            .collect();
        assert_eq!(read, (0..40).collect::<Vec<u8>>());
        for key in &keys_of_many {
            store.delete(key).unwrap();
        }
        // Compare-and-swap: a write from a version read, refused once
        // another writer wrote since.
        assert_eq!(store.get_versioned("cas.json").unwrap(), None);
        let Replaced::Written(first) = store.replace("cas.json", b"1", None).unwrap() else {
            panic!("creating a missing object with no version expected")
        };
        assert_eq!(
            store.replace("cas.json", b"x", None).unwrap(),
            Replaced::Changed
        );
        let (bytes, read) = store.get_versioned("cas.json").unwrap().unwrap();
        assert_eq!((bytes.as_slice(), &read), (&b"1"[..], &first));
        let Replaced::Written(second) = store.replace("cas.json", b"22", Some(&read)).unwrap()
        else {
            panic!("replacing the version read")
        };
        assert_ne!(second, first);
        // A writer still holding the first version is refused, and the
        // object is left as the other wrote it.
        assert_eq!(
            store.replace("cas.json", b"late", Some(&first)).unwrap(),
            Replaced::Changed
        );
        assert_eq!(store.get("cas.json").unwrap().unwrap(), b"22");
        // A plain put is a change too.
        store.put("cas.json", b"333").unwrap();
        assert_eq!(
            store.replace("cas.json", b"4444", Some(&second)).unwrap(),
            Replaced::Changed
        );
        store.delete("cas.json").unwrap();
        assert_eq!(
            store.replace("cas.json", b"5", Some(&second)).unwrap(),
            Replaced::Changed
        );
        store.delete("a/b.json").unwrap();
        store.delete("a/b.json").unwrap();
        assert_eq!(store.get("a/b.json").unwrap(), None);
        // Bad keys are refused by name before anything is sent.
        for bad in ["", "/abs", "a//b", "a/../b", "a\\b"] {
            let message = store.put(bad, b"").unwrap_err().to_string();
            assert!(message.contains("not an object key"), "{bad}: {message}");
        }
    }

    #[test]
    fn a_folder_behaves_as_a_store() {
        let scratch = Scratch::new("local");
        let store = Store::open(&Location::Local(scratch.0.join("run"))).unwrap();
        behaves_as_a_store(&store);
        // A writer's temporary is never listed.
        let temporary = sumito_fsio::temporary_path(&scratch.0.join("run/a/c/e.bin")).unwrap();
        std::fs::write(&temporary, b"half").unwrap();
        assert_eq!(store.list("a/c/").unwrap().len(), 1);
        // A conditional write is for small records: a large one is refused.
        let large = vec![0u8; MULTIPART_THRESHOLD + 1];
        let err = store
            .replace("big.bin", &large, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("too many for a conditional write"), "{err}");
    }

    #[test]
    fn an_object_store_behaves_as_a_store() {
        let store = Store::open(&Location::parse("memory://test").unwrap()).unwrap();
        behaves_as_a_store(&store);
    }

    #[test]
    fn an_s3_server_behaves_as_a_store() {
        let server = S3Server::start("conformance");
        let store = server.store("runs/one");
        behaves_as_a_store(&store);
        // Another prefix of the bucket is another run.
        assert!(server.store("runs/two").list("").unwrap().is_empty());
        // Large objects go up in parts.
        let bytes: Vec<u8> = (0..MULTIPART_THRESHOLD + 999)
            .map(|i| (i * 7 % 256) as u8)
            .collect();
        store.put("models/big.bin", &bytes).unwrap();
        assert_eq!(store.get("models/big.bin").unwrap().unwrap(), bytes);
        // An object damaged on the server's disk is reported, not read.
        store.put("replay/g.game", b"a whole game file").unwrap();
        let on_disk = server.root.0.join("bucket/runs/one/replay/g.game");
        std::fs::write(&on_disk, b"a whole").unwrap();
        let message = store.get("replay/g.game").unwrap_err().to_string();
        assert!(message.contains("replay/g.game is corrupt"), "{message}");
    }

    #[test]
    fn an_https_endpoint_goes_through_tls_and_a_failed_handshake_is_an_error() {
        // The test server speaks plain HTTP, so the TLS handshake (rustls
        // over ring) fails: an error naming the object, not a panic for a
        // missing crypto provider.
        let server = S3Server::start("tls");
        let mut settings = server.settings();
        settings[0].1 = format!("https://127.0.0.1:{}", server.port);
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let location = Location::parse("s3://bucket/run").unwrap();
        let store = Store::open_with(&location, &settings).unwrap();
        let message = store.get("run.json").unwrap_err().to_string();
        assert!(message.contains("run.json"), "{message}");
    }

    #[test]
    fn an_unknown_setting_is_refused_by_name() {
        let location = Location::parse("s3://bucket/run").unwrap();
        let message = Store::open_with(&location, &[("AWS_NO_SUCH_THING", "1")])
            .unwrap_err()
            .to_string();
        assert!(message.contains("AWS_NO_SUCH_THING"), "{message}");
    }

    #[test]
    fn large_objects_go_up_in_parts_and_come_back_whole() {
        let store = Store::open(&Location::parse("memory://large").unwrap()).unwrap();
        let bytes: Vec<u8> = (0..MULTIPART_THRESHOLD + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        store.put("models/big.bin", &bytes).unwrap();
        assert_eq!(store.get("models/big.bin").unwrap().unwrap(), bytes);
    }
}
