//! A store on an object store, through the `object_store` crate: S3 and
//! everything that speaks its protocol, or memory for tests. The crate is
//! asynchronous; each store runs its requests on a small runtime of its own,
//! so the callers (plain threads) stay synchronous.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures_util::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey, S3ConditionalPut};
use object_store::memory::InMemory;
use object_store::path::Path as ObjectPath;
use object_store::{
    Attribute, AttributeValue, Attributes, BackoffConfig, ObjectStore, ObjectStoreExt, PutMode,
    PutMultipartOptions, PutOptions, PutPayload, RetryConfig, UpdateVersion, WriteMultipart,
};

use crate::backend::{
    Backend, Created, MULTIPART_THRESHOLD, ObjectInfo, Replaced, StoreError, Version,
};
use crate::crc::crc32c;
use crate::location::Location;

/// User metadata every object carries, checked when it is read.
const SIZE_METADATA: &str = "sumito-size";
const CRC_METADATA: &str = "sumito-crc32c";

/// How requests that fail for network or server reasons (timeouts, resets,
/// 5xx, throttling) are retried: up to 8 times, waiting 100 ms, then twice
/// as long each time up to 8 s, for at most 2 minutes in all; then the error
/// is reported, naming the object.
pub fn retry_config() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(8),
            base: 2.0,
        },
        max_retries: 8,
        retry_timeout: Duration::from_secs(120),
    }
}

/// Whether an error of the client says the store did not answer: a request
/// it gave up on after retrying ("... after 8 retries ..."; it retries only
/// what may pass: no answer, a reset, a time-out, a 5xx or throttling), or
/// one it could not send at all.
fn is_unreachable(message: &str) -> bool {
    let retried = message.split("after ").skip(1).any(|rest| {
        let mut words = rest.split(' ');
        let count = words.next().and_then(|n| n.parse::<u32>().ok());
        count.is_some_and(|n| n > 0) && words.next().is_some_and(|w| w.starts_with("retries"))
    });
    retried || message.contains("error sending request")
}

/// The in-memory stores of this process, by name, so that every
/// `memory://NAME` opened here sees the same objects.
fn memory_stores() -> &'static Mutex<HashMap<String, Arc<InMemory>>> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<InMemory>>>> = OnceLock::new();
    STORES.get_or_init(Default::default)
}

#[derive(Debug)]
pub(crate) struct RemoteBackend {
    store: Arc<dyn ObjectStore>,
    /// Every key lives under this prefix (`""` for the bucket's root).
    prefix: String,
    /// How messages name the store.
    location: String,
    runtime: tokio::runtime::Runtime,
}

fn runtime(location: &Location) -> Result<tokio::runtime::Runtime, StoreError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|cause| StoreError::Io {
            location: location.to_string(),
            key: String::new(),
            cause,
        })
}

impl RemoteBackend {
    /// The bucket `bucket` of the S3-compatible store the environment names.
    pub(crate) fn s3(
        bucket: &str,
        prefix: &str,
        location: &Location,
        settings: &[(&str, &str)],
    ) -> Result<RemoteBackend, StoreError> {
        // reqwest's TLS (https endpoints) takes the process's default
        // crypto provider: ring, the one object_store signs with here. A
        // provider installed before (a second store) is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = AmazonS3Builder::from_env();
        for (name, value) in settings {
            // The builder reads `AWS_X` from the environment as key `aws_x`.
            let key = name
                .to_ascii_lowercase()
                .parse::<AmazonS3ConfigKey>()
                .map_err(|_| StoreError::BadLocation {
                    text: location.to_string(),
                    problem: format!("{name} is not a setting of an S3 store"),
                })?;
            builder = builder.with_config(key, *value);
        }
        let store = builder
            .with_bucket_name(bucket)
            // `If-None-Match: *` on a put: AWS S3 since 2024, R2, Ceph,
            // MinIO and the test server do it.
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            .with_retry(retry_config())
            .build()
            .map_err(|err| StoreError::BadLocation {
                text: location.to_string(),
                problem: format!("cannot set up the object store ({err}); see the README for the AWS_* variables it reads"),
            })?;
        Ok(RemoteBackend {
            store: Arc::new(store),
            prefix: prefix.to_owned(),
            location: location.to_string(),
            runtime: runtime(location)?,
        })
    }

    /// The in-memory store `name` of this process.
    pub(crate) fn memory(name: &str) -> Result<RemoteBackend, StoreError> {
        let location = Location::Memory(name.to_owned());
        let store = memory_stores()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(name.to_owned())
            .or_insert_with(|| Arc::new(InMemory::new()))
            .clone();
        Ok(RemoteBackend {
            store,
            prefix: String::new(),
            location: location.to_string(),
            runtime: runtime(&location)?,
        })
    }

    /// The objects under `prefix` (after `offset`, when given).
    fn list_from(&self, prefix: &str, offset: Option<&str>) -> Result<Vec<ObjectInfo>, StoreError> {
        // The store lists whole path segments; a prefix that ends inside one
        // is listed from its folder and filtered here.
        let folder = match prefix.rfind('/') {
            Some(end) => &prefix[..end],
            None => "",
        };
        let listed = if folder.is_empty() && self.prefix.is_empty() {
            None
        } else if folder.is_empty() {
            Some(ObjectPath::from(self.prefix.as_str()))
        } else {
            Some(self.path(folder))
        };
        let stream = match offset {
            Some(offset) => self
                .store
                .list_with_offset(listed.as_ref(), &self.path(offset)),
            None => self.store.list(listed.as_ref()),
        };
        let result = self.runtime.block_on(stream.try_collect::<Vec<_>>());
        let metas = result.map_err(|err| self.error(prefix, err))?;
        Ok(metas
            .into_iter()
            .map(|meta| ObjectInfo {
                key: self.key_of(&meta.location),
                size: meta.size,
            })
            .filter(|object| {
                object.key.starts_with(prefix)
                    && offset.is_none_or(|offset| object.key.as_str() > offset)
            })
            .collect())
    }

    fn path(&self, key: &str) -> ObjectPath {
        if self.prefix.is_empty() {
            ObjectPath::from(key)
        } else {
            ObjectPath::from(format!("{}/{key}", self.prefix))
        }
    }

    fn key_of(&self, path: &ObjectPath) -> String {
        let full = path.as_ref();
        if self.prefix.is_empty() {
            full.to_owned()
        } else {
            full.strip_prefix(&self.prefix)
                .and_then(|rest| rest.strip_prefix('/'))
                .unwrap_or(full)
                .to_owned()
        }
    }

    fn error(&self, key: &str, err: object_store::Error) -> StoreError {
        let message = err.to_string();
        if is_unreachable(&message) {
            StoreError::Unreachable {
                location: self.location.clone(),
                key: key.to_owned(),
                message,
            }
        } else {
            StoreError::Remote {
                location: self.location.clone(),
                key: key.to_owned(),
                message,
            }
        }
    }

    /// The size and checksum an object carries.
    fn attributes(bytes: &[u8]) -> Attributes {
        Attributes::from_iter([
            (
                Attribute::Metadata(Cow::Borrowed(SIZE_METADATA)),
                AttributeValue::from(bytes.len().to_string()),
            ),
            (
                Attribute::Metadata(Cow::Borrowed(CRC_METADATA)),
                AttributeValue::from(format!("{:08x}", crc32c(bytes))),
            ),
        ])
    }

    /// Checks an object read against the size and checksum it carries
    /// (objects put there by other tools carry none and are taken as read).
    fn check(&self, key: &str, bytes: &[u8], attributes: &Attributes) -> Result<(), StoreError> {
        let corrupt = |problem: String| StoreError::Corrupt {
            location: self.location.clone(),
            key: key.to_owned(),
            problem,
        };
        let metadata = |name: &'static str| {
            attributes
                .get(&Attribute::Metadata(Cow::Borrowed(name)))
                .map(|value| value.as_ref().to_owned())
        };
        if let Some(size) = metadata(SIZE_METADATA)
            && size != bytes.len().to_string()
        {
            return Err(corrupt(format!(
                "{} bytes read, {size} written",
                bytes.len()
            )));
        }
        if let Some(crc) = metadata(CRC_METADATA) {
            let read = format!("{:08x}", crc32c(bytes));
            if read != crc {
                return Err(corrupt(format!("checksum {read} read, {crc} written")));
            }
        }
        Ok(())
    }
}

/// Objects requested at once by [`Backend::get_many`]: one request's
/// round trip, not the bandwidth, is what limits reading many small objects
/// (a trainer catching up on 1,344 games from the test server on the
/// loopback: 3.3 s with 16 in flight, 1.1 s with 64, 0.5 s with 256).
const GETS_IN_FLIGHT: usize = 256;

impl RemoteBackend {
    /// The object `key`, checked whole (see [`Backend::get`]).
    async fn fetch(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.fetch_versioned(key).await?.map(|(bytes, _)| bytes))
    }

    /// [`RemoteBackend::fetch`] with the object's ETag, where the store
    /// gives one.
    async fn fetch_versioned(
        &self,
        key: &str,
    ) -> Result<Option<(Vec<u8>, Option<String>)>, StoreError> {
        let path = self.path(key);
        let result = async {
            let got = self.store.get(&path).await?;
            let attributes = got.attributes.clone();
            let e_tag = got.meta.e_tag.clone();
            let bytes = got.bytes().await?;
            Ok::<_, object_store::Error>((bytes, attributes, e_tag))
        }
        .await;
        match result {
            Ok((bytes, attributes, e_tag)) => {
                self.check(key, &bytes, &attributes)?;
                Ok(Some((bytes.to_vec(), e_tag)))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(err) => Err(self.error(key, err)),
        }
    }

    /// The version of an ETag the store gave, or the error that it gave none
    /// (a store without ETags cannot fence a writer).
    fn version(&self, key: &str, e_tag: Option<String>) -> Result<Version, StoreError> {
        e_tag.map(Version).ok_or_else(|| StoreError::Remote {
            location: self.location.clone(),
            key: key.to_owned(),
            message: "the store gave no ETag, which a conditional write needs".into(),
        })
    }
}

impl Backend for RemoteBackend {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key);
        let attributes = Self::attributes(bytes);
        let result = self.runtime.block_on(async {
            if bytes.len() <= MULTIPART_THRESHOLD {
                let options = PutOptions {
                    attributes,
                    ..PutOptions::default()
                };
                self.store
                    .put_opts(&path, PutPayload::from(bytes.to_vec()), options)
                    .await
                    .map(|_| ())
            } else {
                let options = PutMultipartOptions {
                    attributes,
                    ..PutMultipartOptions::default()
                };
                let upload = self.store.put_multipart_opts(&path, options).await?;
                let mut writer = WriteMultipart::new_with_chunk_size(upload, MULTIPART_THRESHOLD);
                writer.write(bytes);
                writer.finish().await.map(|_| ())
            }
        });
        result.map_err(|err| self.error(key, err))
    }

    fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        let path = self.path(key);
        let options = PutOptions {
            mode: PutMode::Create,
            attributes: Self::attributes(bytes),
            ..PutOptions::default()
        };
        let result = self.runtime.block_on(self.store.put_opts(
            &path,
            PutPayload::from(bytes.to_vec()),
            options,
        ));
        match result {
            Ok(_) => Ok(Created::New),
            Err(
                object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. },
            ) => Ok(Created::Exists),
            Err(err) => Err(self.error(key, err)),
        }
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.runtime.block_on(self.fetch(key))
    }

    fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        match self.runtime.block_on(self.fetch_versioned(key))? {
            Some((bytes, e_tag)) => Ok(Some((bytes, self.version(key, e_tag)?))),
            None => Ok(None),
        }
    }

    fn replace(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<Replaced, StoreError> {
        let mode = match expected {
            Some(version) => PutMode::Update(UpdateVersion {
                e_tag: Some(version.0.clone()),
                version: None,
            }),
            None => PutMode::Create,
        };
        let options = PutOptions {
            mode,
            attributes: Self::attributes(bytes),
            ..PutOptions::default()
        };
        let result = self.runtime.block_on(self.store.put_opts(
            &self.path(key),
            PutPayload::from(bytes.to_vec()),
            options,
        ));
        match result {
            Ok(put) => Ok(Replaced::Written(self.version(key, put.e_tag)?)),
            // Changed since, created since, or deleted since (S3 answers an
            // If-Match on a missing object with 412, memory with NotFound).
            Err(
                object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. }
                | object_store::Error::NotFound { .. },
            ) => Ok(Replaced::Changed),
            Err(err) => Err(self.error(key, err)),
        }
    }

    fn get_many(&self, keys: &[String]) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
        use futures_util::StreamExt;
        self.runtime.block_on(
            futures_util::stream::iter(keys)
                .map(|key| self.fetch(key))
                .buffered(GETS_IN_FLIGHT)
                .collect(),
        )
    }

    fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        self.list_from(prefix, None)
    }

    fn list_after(&self, prefix: &str, offset: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        self.list_from(prefix, Some(offset))
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        match self.runtime.block_on(self.store.delete(&self.path(key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(err) => Err(self.error(key, err)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    #[test]
    fn unanswered_requests_are_told_from_refusals() {
        assert!(is_unreachable(
            "Generic S3 error: Error performing PUT http://127.0.0.1:9123/bucket/run/x in 1.44s, after 8 retries, max_retries: 8, retry_timeout: 120s  - HTTP error: error sending request"
        ));
        assert!(is_unreachable(
            "Generic S3 error: Error performing GET http://h/b/k in 120s, after 3 retries, max_retries: 8, retry_timeout: 120s - Server returned non-2xx status code: 503 Service Unavailable"
        ));
        assert!(!is_unreachable(
            "Generic S3 error: Error performing GET http://h/b/k in 10ms, after 0 retries, max_retries: 8, retry_timeout: 120s - Server returned non-2xx status code: 403 Forbidden"
        ));
        assert!(!is_unreachable("Object at location k not found"));
    }

    #[test]
    fn a_truncated_or_altered_object_is_reported_not_read() {
        let store = Store::open(&Location::parse("memory://corrupt").unwrap()).unwrap();
        let whole = b"a replay file of some length".to_vec();
        store.put("replay/a.game", &whole).unwrap();
        let raw = memory_stores().lock().unwrap()["corrupt"].clone();
        let runtime = runtime(&Location::Memory("corrupt".into())).unwrap();
        for (damaged, says) in [
            (whole[..10].to_vec(), "10 bytes read, 28 written"),
            (whole.iter().map(|b| b ^ 1).collect::<Vec<u8>>(), "checksum"),
        ] {
            // The object keeps the metadata of the whole one.
            let options = PutOptions {
                attributes: RemoteBackend::attributes(&whole),
                ..PutOptions::default()
            };
            runtime
                .block_on(raw.put_opts(
                    &ObjectPath::from("replay/a.game"),
                    PutPayload::from(damaged),
                    options,
                ))
                .unwrap();
            let message = store.get("replay/a.game").unwrap_err().to_string();
            assert!(
                message.contains("memory://corrupt/replay/a.game is corrupt")
                    && message.contains(says),
                "{message}"
            );
        }
    }
}
