//! Where a run lives: a folder on a local (or shared) file system, or a
//! prefix of a bucket on any S3-compatible object store (AWS S3, Cloudflare
//! R2, Ceph, Garage, MinIO, ...), behind one small synchronous interface.
//!
//! The interface is the object stores' own, which a file system can keep
//! too: whole objects named by `/`-separated keys, written at once and never
//! seen half-written ([`Store::put`]), created only if absent
//! ([`Store::create`], the one primitive leases need), read whole
//! ([`Store::get`]), listed by prefix ([`Store::list`]) and deleted
//! ([`Store::delete`]). Nothing is appended to or rewritten in place, so a
//! writer killed at any moment leaves either no object or a whole one. An
//! object read with its [`Version`] ([`Store::get_versioned`]) can be
//! replaced only if no one replaced it since ([`Store::replace`], a
//! compare-and-swap: what fences a role's holder taken over while a write
//! of its was in flight).
//!
//! * **A local folder** ([`Location::Local`]): an object is a file; `put`
//!   is an atomic write (`sumito_fsio::write_atomic`: temporary beside the
//!   target, flushed, renamed), `create` a hard link of a flushed temporary,
//!   which the kernel refuses if the name exists. Temporaries (named by
//!   `sumito_fsio::temporary_path`) are never listed.
//! * **An object store** ([`Location::S3`], `s3://BUCKET/PREFIX`), through
//!   the `object_store` crate: `create` is a conditional put
//!   (`If-None-Match: *`); objects above [`MULTIPART_THRESHOLD`] go up as
//!   multipart uploads; every object carries its size and CRC-32C as user
//!   metadata and is checked against them when read, so a truncated or
//!   corrupted object is reported ([`StoreError::Corrupt`]), never taken for
//!   whole. Requests that fail for network or server reasons are retried
//!   with exponential backoff ([`retry_config`]) and then reported naming
//!   the object. Credentials, region and endpoint come from the usual
//!   environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//!   `AWS_SESSION_TOKEN`, `AWS_REGION` or `AWS_DEFAULT_REGION`,
//!   `AWS_ENDPOINT_URL` for other providers, `AWS_ALLOW_HTTP=true` for a
//!   plain-HTTP endpoint such as a local test server).

mod backend;
pub mod crc;
mod local;
mod location;
mod outage;
mod remote;
mod store;

#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use backend::{Created, MULTIPART_THRESHOLD, ObjectInfo, Replaced, StoreError, Version};
pub use location::Location;
pub use remote::retry_config;
pub use store::Store;
