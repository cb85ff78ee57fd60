//! TensorBoard event files, written by hand: a TFRecord stream of `Event`
//! protocol buffers holding scalar summaries. Only the handful of protobuf
//! fields TensorBoard reads for scalars are encoded, which keeps the writer
//! free of a protobuf code generator and lets every I/O error reach the caller
//! (the `tensorboard-rs` crate panics on them in a background thread).
//!
//! Framing of one record: `u64 length (LE)`, `u32 masked CRC-32C of the length
//! bytes`, the data, `u32 masked CRC-32C of the data`.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::crc::masked_crc32c;
use crate::fsutil::hostname;
use crate::rundir::{RunDir, TENSORBOARD};

/// Errors while writing or reading event files.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("cannot write TensorBoard events to {path}: {cause}")]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot read TensorBoard events from {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("TensorBoard event file {path} is malformed at byte {offset}: {problem}")]
    Malformed {
        path: PathBuf,
        offset: usize,
        problem: String,
    },
}

/// Appends scalar summaries to a new event file in a log directory.
#[derive(Debug)]
pub struct EventWriter {
    path: PathBuf,
    out: BufWriter<File>,
    /// Where the file is copied whole after each flush: the run's store and
    /// the key (for a run on an object store, whose TensorBoard events are
    /// written locally and uploaded).
    mirror: Option<(sumito_store::Store, String)>,
}

impl EventWriter {
    /// Creates `dir` if needed and a fresh event file in it, named as
    /// TensorBoard expects (`events.out.tfevents.<secs>.<host>.<pid>.<tag>`).
    /// Several writers (one per process or role) may share a directory:
    /// TensorBoard merges the files.
    pub fn create(dir: &Path, tag: &str) -> Result<EventWriter, EventError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let host = hostname();
        let name = format!(
            "events.out.tfevents.{:010}.{host}.{}.{tag}",
            now.as_secs(),
            std::process::id()
        );
        let path = dir.join(name);
        let write_err = |source| EventError::Write {
            path: path.clone(),
            cause: source,
        };
        std::fs::create_dir_all(dir).map_err(write_err)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(write_err)?;
        let mut writer = EventWriter {
            path,
            out: BufWriter::new(file),
            mirror: None,
        };
        let mut event = Vec::new();
        encode_event_header(&mut event, now.as_secs_f64(), 0);
        encode_bytes_field(&mut event, 3, b"brain.Event:2");
        writer.write_record(&event)?;
        writer.flush()?;
        Ok(writer)
    }

    /// A new event file of this process for `tag` (its role) in the run
    /// `run`'s `tensorboard/`: on an object store written in the working
    /// folder and uploaded whole after every flush (each process writes its
    /// own file, so uploads never clash).
    pub fn for_run(run: &RunDir, tag: &str) -> Result<EventWriter, EventError> {
        let mut events = EventWriter::create(&run.tensorboard_dir(), tag)?;
        if run.is_remote() {
            events.mirror_to(run.store().clone(), TENSORBOARD)?;
        }
        Ok(events)
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Copies the file whole to `store` as the object in `folder_key` named
    /// as the file, now and after every flush.
    pub fn mirror_to(
        &mut self,
        store: sumito_store::Store,
        folder_key: &str,
    ) -> Result<(), EventError> {
        let name = self
            .path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.mirror = Some((
            store,
            format!("{}/{name}", folder_key.trim_end_matches('/')),
        ));
        self.upload()
    }

    fn upload(&self) -> Result<(), EventError> {
        let Some((store, key)) = &self.mirror else {
            return Ok(());
        };
        let bytes = std::fs::read(&self.path).map_err(|source| EventError::Read {
            path: self.path.clone(),
            cause: source,
        })?;
        store.put(key, &bytes).map_err(|err| EventError::Write {
            path: PathBuf::from(format!("{}/{key}", store.location())),
            cause: std::io::Error::other(err.to_string()),
        })
    }

    /// Records the scalars `(tag, value)` at `step`, in one event, and flushes
    /// so that TensorBoard sees them at once.
    pub fn scalars(&mut self, step: u64, values: &[(&str, f64)]) -> Result<(), EventError> {
        if values.is_empty() {
            return Ok(());
        }
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let mut summary = Vec::new();
        for (tag, value) in values {
            let mut entry = Vec::new();
            encode_bytes_field(&mut entry, 1, tag.as_bytes());
            entry.push(0x15); // field 2 (simple_value), wire type 5 (32-bit)
            entry.extend_from_slice(&(*value as f32).to_le_bytes());
            encode_bytes_field(&mut summary, 1, &entry);
        }
        let mut event = Vec::new();
        encode_event_header(&mut event, wall, step);
        encode_bytes_field(&mut event, 5, &summary);
        self.write_record(&event)?;
        self.flush()
    }

    fn write_record(&mut self, data: &[u8]) -> Result<(), EventError> {
        let length = (data.len() as u64).to_le_bytes();
        let result = (|| {
            self.out.write_all(&length)?;
            self.out.write_all(&masked_crc32c(&length).to_le_bytes())?;
            self.out.write_all(data)?;
            self.out.write_all(&masked_crc32c(data).to_le_bytes())
        })();
        result.map_err(|source| EventError::Write {
            path: self.path.clone(),
            cause: source,
        })
    }

    fn flush(&mut self) -> Result<(), EventError> {
        self.out.flush().map_err(|source| EventError::Write {
            path: self.path.clone(),
            cause: source,
        })?;
        self.upload()
    }
}

fn encode_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn encode_bytes_field(out: &mut Vec<u8>, field: u8, bytes: &[u8]) {
    out.push((field << 3) | 2);
    encode_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn encode_event_header(out: &mut Vec<u8>, wall_time: f64, step: u64) {
    out.push(0x09); // field 1 (wall_time), wire type 1 (64-bit)
    out.extend_from_slice(&wall_time.to_le_bytes());
    out.push(0x10); // field 2 (step), varint
    encode_varint(out, step);
}

/// One decoded event: the parts this writer produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub wall_time: f64,
    pub step: u64,
    pub file_version: Option<String>,
    pub scalars: Vec<(String, f32)>,
}

/// Reads every event of a file, checking the framing and both CRCs of each
/// record: what TensorBoard itself checks. Used by tests and `sumito` tools.
pub fn read_events(path: &Path) -> Result<Vec<Event>, EventError> {
    let data = std::fs::read(path).map_err(|source| EventError::Read {
        path: path.to_owned(),
        cause: source,
    })?;
    let malformed = |offset: usize, problem: &str| EventError::Malformed {
        path: path.to_owned(),
        offset,
        problem: problem.to_owned(),
    };
    let mut events = Vec::new();
    let mut offset = 0;
    while offset < data.len() {
        let header = data
            .get(offset..offset + 12)
            .ok_or_else(|| malformed(offset, "truncated record header"))?;
        let (length_bytes, length_crc) = header.split_at(8);
        if masked_crc32c(length_bytes).to_le_bytes() != length_crc {
            return Err(malformed(offset, "length checksum mismatch"));
        }
        let length = u64::from_le_bytes(length_bytes.try_into().expect("8 bytes")) as usize;
        let start = offset + 12;
        let end = start
            .checked_add(length)
            .filter(|end| end + 4 <= data.len());
        let end = end.ok_or_else(|| malformed(offset, "truncated record"))?;
        let body = &data[start..end];
        if masked_crc32c(body).to_le_bytes() != data[end..end + 4] {
            return Err(malformed(offset, "data checksum mismatch"));
        }
        events.push(decode_event(body).map_err(|problem| malformed(start, problem))?);
        offset = end + 4;
    }
    Ok(events)
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, &'static str> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.data.get(self.at).ok_or("truncated varint")?;
            self.at += 1;
            value |= u64::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("varint too long")
    }

    fn take(&mut self, count: usize) -> Result<&'a [u8], &'static str> {
        let end = self
            .at
            .checked_add(count)
            .filter(|end| *end <= self.data.len());
        let bytes = &self.data[self.at..end.ok_or("truncated field")?];
        self.at += count;
        Ok(bytes)
    }

    /// The next `(field, wire type)` and, for length-delimited and fixed
    /// fields, the payload bytes; for varints the value as bytes.
    fn field(&mut self) -> Result<(u64, Field<'a>), &'static str> {
        let key = self.varint()?;
        let field = match key & 7 {
            0 => Field::Varint(self.varint()?),
            1 => Field::Fixed(self.take(8)?),
            2 => {
                let length = self.varint()? as usize;
                Field::Bytes(self.take(length)?)
            }
            5 => Field::Fixed(self.take(4)?),
            _ => return Err("unsupported wire type"),
        };
        Ok((key >> 3, field))
    }
}

enum Field<'a> {
    Varint(u64),
    Fixed(&'a [u8]),
    Bytes(&'a [u8]),
}

fn decode_event(data: &[u8]) -> Result<Event, &'static str> {
    let mut event = Event {
        wall_time: 0.0,
        step: 0,
        file_version: None,
        scalars: Vec::new(),
    };
    let mut reader = Reader { data, at: 0 };
    while reader.at < data.len() {
        match reader.field()? {
            (1, Field::Fixed(bytes)) if bytes.len() == 8 => {
                event.wall_time = f64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            }
            (2, Field::Varint(step)) => event.step = step,
            (3, Field::Bytes(text)) => {
                event.file_version = Some(
                    String::from_utf8(text.to_vec()).map_err(|_| "file_version is not UTF-8")?,
                );
            }
            (5, Field::Bytes(summary)) => decode_summary(summary, &mut event.scalars)?,
            _ => {}
        }
    }
    Ok(event)
}

fn decode_summary(data: &[u8], scalars: &mut Vec<(String, f32)>) -> Result<(), &'static str> {
    let mut reader = Reader { data, at: 0 };
    while reader.at < data.len() {
        if let (1, Field::Bytes(value)) = reader.field()? {
            let mut inner = Reader { data: value, at: 0 };
            let (mut tag, mut simple) = (None, None);
            while inner.at < value.len() {
                match inner.field()? {
                    (1, Field::Bytes(text)) => {
                        tag =
                            Some(String::from_utf8(text.to_vec()).map_err(|_| "tag is not UTF-8")?);
                    }
                    (2, Field::Fixed(bytes)) if bytes.len() == 4 => {
                        simple = Some(f32::from_le_bytes(bytes.try_into().expect("4 bytes")));
                    }
                    _ => {}
                }
            }
            if let (Some(tag), Some(simple)) = (tag, simple) {
                scalars.push((tag, simple));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;

    #[test]
    fn written_scalars_read_back_with_valid_framing() {
        let dir = TempDir::new("tb-roundtrip");
        let mut writer = EventWriter::create(dir.path(), "trainer").unwrap();
        writer
            .scalars(3, &[("loss/policy", 1.25), ("lr", 0.02)])
            .unwrap();
        writer.scalars(4, &[("loss/policy", 1.0)]).unwrap();
        let events = read_events(writer.path()).unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].file_version.as_deref(), Some("brain.Event:2"));
        assert_eq!(events[1].step, 3);
        assert_eq!(
            events[1].scalars,
            vec![("loss/policy".to_owned(), 1.25), ("lr".to_owned(), 0.02)]
        );
        assert_eq!(events[2].step, 4);
        assert!(events[2].wall_time > 1.0e9);
    }

    #[test]
    fn a_flipped_byte_is_reported() {
        let dir = TempDir::new("tb-corrupt");
        let mut writer = EventWriter::create(dir.path(), "x").unwrap();
        writer.scalars(1, &[("a", 1.0)]).unwrap();
        let path = writer.path().to_owned();
        drop(writer);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 6;
        bytes[last] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
        let err = read_events(&path).unwrap_err();
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
    }
}
