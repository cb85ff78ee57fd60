//! Reading new replay files in a background thread, so that a trainer whose
//! games sit on an object store keeps training while they are listed and
//! fetched, instead of waiting on the store's round trips (KataGo's and
//! lc0's trainers keep data loading out of the training loop too).
//!
//! The thread lists the replay folder, fetches every file it has not fetched
//! yet (several requests in flight), and hands over everything one listing
//! found in one [`Pass`]; when a listing finds nothing new it sleeps a
//! second. The store decodes a pass as it would a synchronous read, so the
//! window is the same either way.

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sumito_store::StoreError;

use super::files::ReplayFolder;

/// How long the thread sleeps after a listing that found nothing new.
const IDLE_POLL: Duration = Duration::from_secs(1);

/// Replay files asked for in one go from the run's storage (the store keeps
/// a few hundred requests in flight).
pub const READ_AT_ONCE: usize = 1024;

/// One file as read: its key and its bytes (`None`: deleted since it was
/// listed), or why it could not be read.
pub type Fetched = (String, Result<Option<Vec<u8>>, StoreError>);

/// What one listing found, read. `Err`: the listing itself failed.
pub type Pass = Result<Vec<Fetched>, StoreError>;

/// How often the thread lists the whole folder; in between it lists only
/// the newest two model folders and those after them, where new games go.
/// (A self-play worker still playing an older model writes into an older
/// folder: its games are found by the next whole listing.)
pub const WHOLE_LISTING_EVERY: Duration = Duration::from_secs(30);

/// Lists `folder` (only the keys after `offset`, when given) and reads the
/// files with one of `extensions` not in `seen`, in chunks of [`READ_AT_ONCE`],
/// oldest first; adds to `seen` the keys read or found corrupt (a file that
/// failed otherwise is read again next time).
pub fn read_unseen(
    folder: &ReplayFolder,
    extensions: &[&str],
    offset: Option<&str>,
    seen: &mut HashSet<String>,
    mut on_listed: impl FnMut(usize),
) -> Pass {
    let listed = match offset {
        Some(offset) => folder.list_after(extensions, offset)?,
        None => folder.list(extensions)?,
    };
    let unseen: Vec<String> = listed
        .into_iter()
        .filter(|key| !seen.contains(key))
        .collect();
    on_listed(unseen.len());
    let mut fetched = Vec::with_capacity(unseen.len());
    for keys in unseen.chunks(READ_AT_ONCE) {
        fetched.extend(keys.iter().cloned().zip(folder.read_many(keys)));
    }
    for (key, read) in &fetched {
        if matches!(read, Ok(_) | Err(StoreError::Corrupt { .. })) {
            seen.insert(key.clone());
        }
    }
    Ok(fetched)
}

/// What the reader thread and its owner share.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    /// Files listed and not handed over yet.
    backlog: AtomicUsize,
    /// Nanoseconds the thread spent listing and reading.
    busy_nanos: AtomicU64,
    /// Files handed over.
    files: AtomicU64,
    /// Listings done (each handed over before it is counted).
    listings: AtomicU64,
}

/// The reading thread of one replay folder; stops when dropped.
#[derive(Debug)]
pub struct BackgroundReader {
    /// The folder read, for messages.
    folder: String,
    passes: Mutex<Receiver<Pass>>,
    shared: Arc<Shared>,
}

impl BackgroundReader {
    /// Starts reading the files with `extensions` of `folder` that are not
    /// in `seen`.
    pub fn start(
        folder: ReplayFolder,
        extensions: [&'static str; 2],
        seen: HashSet<String>,
    ) -> BackgroundReader {
        Self::start_listing_whole_every(folder, extensions, seen, WHOLE_LISTING_EVERY)
    }

    /// [`BackgroundReader::start`], listing the whole folder every
    /// `whole_every` (tests).
    pub fn start_listing_whole_every(
        folder: ReplayFolder,
        extensions: [&'static str; 2],
        seen: HashSet<String>,
        whole_every: Duration,
    ) -> BackgroundReader {
        // One pass waiting at most: the thread reads ahead by one listing.
        let (sender, passes) = sync_channel(1);
        let shared = Arc::new(Shared::default());
        let thread_shared = Arc::clone(&shared);
        let description = folder.describe();
        std::thread::Builder::new()
            .name("replay-reader".to_owned())
            .spawn(move || {
                read_loop(
                    &folder,
                    extensions,
                    seen,
                    whole_every,
                    &sender,
                    &thread_shared,
                );
            })
            .expect("spawning the replay reader thread");
        BackgroundReader {
            folder: description,
            passes: Mutex::new(passes),
            shared,
        }
    }

    /// The passes read since the last call, without waiting.
    pub fn take(&self) -> Vec<Pass> {
        let passes = self.passes.lock().expect("reader lock");
        let mut taken = Vec::new();
        loop {
            match passes.try_recv() {
                Ok(pass) => taken.push(pass),
                Err(TryRecvError::Empty) => return taken,
                Err(TryRecvError::Disconnected) => {
                    taken.push(Err(self.stopped()));
                    return taken;
                }
            }
        }
    }

    /// Waits up to `timeout` for a pass, then takes what is there. Returns
    /// the passes and how long of the wait the thread was reading files it
    /// had listed already (time spent waiting on storage, not on games).
    pub fn wait(&self, timeout: Duration) -> (Vec<Pass>, Duration) {
        let started = Instant::now();
        let reading = self.backlog() > 0;
        let first = self
            .passes
            .lock()
            .expect("reader lock")
            .recv_timeout(timeout);
        let waited = started.elapsed();
        let mut passes = match first {
            Ok(pass) => vec![pass],
            Err(RecvTimeoutError::Timeout) => Vec::new(),
            Err(RecvTimeoutError::Disconnected) => vec![Err(self.stopped())],
        };
        passes.extend(self.take());
        let on_storage = if reading { waited } else { Duration::ZERO };
        (passes, on_storage)
    }

    /// The error of a thread that ended (it panicked).
    fn stopped(&self) -> StoreError {
        StoreError::Remote {
            location: self.folder.clone(),
            key: String::new(),
            message: "the thread reading replay files stopped".to_owned(),
        }
    }

    /// Whether the thread has listed the folder and handed over what that
    /// found at least once (all there is is then in the channel or taken).
    pub fn listed_once(&self) -> bool {
        self.shared.listings.load(Ordering::Acquire) > 0
    }

    /// Files listed by the thread and not handed over yet.
    pub fn backlog(&self) -> usize {
        self.shared.backlog.load(Ordering::Relaxed)
    }

    /// Files handed over, and the time the thread spent listing and
    /// reading (in the background: not the trainer's time).
    pub fn work_done(&self) -> (u64, Duration) {
        (
            self.shared.files.load(Ordering::Relaxed),
            Duration::from_nanos(self.shared.busy_nanos.load(Ordering::Relaxed)),
        )
    }
}

impl Drop for BackgroundReader {
    fn drop(&mut self) {
        // The thread sees the flag within a second, or fails to hand over
        // its pass: either way it ends on its own (a read in flight is not
        // waited for).
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

fn read_loop(
    folder: &ReplayFolder,
    extensions: [&'static str; 2],
    mut seen: HashSet<String>,
    whole_every: Duration,
    sender: &SyncSender<Pass>,
    shared: &Shared,
) {
    let mut whole_listing: Option<Instant> = None;
    // The folders of the keys seen, kept as they come (not recomputed from
    // every key at each listing).
    let mut folders = Folders::default();
    folders.add(seen.iter());
    while !shared.stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        let offset = match whole_listing {
            Some(at) if at.elapsed() < whole_every => folders.second_newest(),
            _ => None,
        };
        if offset.is_none() {
            whole_listing = Some(started);
        }
        let pass = read_unseen(
            folder,
            &extensions,
            offset.as_deref(),
            &mut seen,
            |listed| {
                shared.backlog.store(listed, Ordering::Relaxed);
            },
        );
        shared
            .busy_nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let found = match &pass {
            Ok(fetched) => {
                folders.add(fetched.iter().map(|(key, _)| key));
                fetched.len()
            }
            // Said once by the owner; listed again after the pause.
            Err(_) => 0,
        };
        let failed = pass.is_err();
        if found > 0 || failed {
            shared.files.fetch_add(found as u64, Ordering::Relaxed);
            if sender.send(pass).is_err() {
                return;
            }
            shared.backlog.store(0, Ordering::Relaxed);
        }
        shared.listings.fetch_add(1, Ordering::Release);
        if found == 0 {
            let idle = Instant::now();
            while idle.elapsed() < IDLE_POLL && !shared.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// The folders that hold replay files, by name (`replay/model-000012`).
#[derive(Default)]
struct Folders(BTreeSet<String>);

impl Folders {
    fn add<'a>(&mut self, keys: impl Iterator<Item = &'a String>) {
        for key in keys {
            if let Some((folder, _)) = key.rsplit_once('/')
                && !self.0.contains(folder)
            {
                self.0.insert(folder.to_owned());
            }
        }
    }

    /// The offset that lists the second newest folder and those after it
    /// (`replay/model-000011` when `replay/model-000012` is the newest);
    /// `None` with one folder or none.
    fn second_newest(&self) -> Option<String> {
        self.0.iter().rev().nth(1).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_store::{Location, Store};

    /// The keys a reader hands over within `timeout`.
    fn keys_within(reader: &BackgroundReader, timeout: Duration) -> Vec<String> {
        let started = Instant::now();
        let mut keys = Vec::new();
        while started.elapsed() < timeout {
            for pass in reader.wait(Duration::from_millis(100)).0 {
                keys.extend(pass.unwrap().into_iter().map(|(key, _)| key));
            }
        }
        keys.sort();
        keys
    }

    #[test]
    fn new_files_of_the_newest_folders_come_at_once_and_stragglers_with_a_whole_listing() {
        let store = Store::open(&Location::parse("memory://reader").unwrap()).unwrap();
        let folder = ReplayFolder::new(store.clone(), "replay");
        for (key, bytes) in [
            ("replay/model-000001/1-a.game", b"one"),
            ("replay/model-000002/2-a.game", b"two"),
            ("replay/model-000003/3-a.game", b"thr"),
        ] {
            store.put(key, bytes).unwrap();
        }
        let reader = BackgroundReader::start_listing_whole_every(
            folder,
            ["replay", "game"],
            HashSet::new(),
            Duration::from_secs(5),
        );
        assert_eq!(keys_within(&reader, Duration::from_millis(600)).len(), 3);
        assert!(reader.listed_once());
        // Within the whole-listing interval: the newest two folders and a
        // new one are followed, an older one is not looked at yet.
        store.put("replay/model-000001/4-b.game", b"old").unwrap();
        store.put("replay/model-000002/5-b.game", b"new").unwrap();
        store.put("replay/model-000004/6-a.game", b"new").unwrap();
        assert_eq!(
            keys_within(&reader, Duration::from_millis(1500)),
            [
                "replay/model-000002/5-b.game",
                "replay/model-000004/6-a.game"
            ]
        );
        // The next whole listing finds the straggler.
        assert_eq!(
            keys_within(&reader, Duration::from_secs(5)),
            ["replay/model-000001/4-b.game"]
        );
        assert_eq!(reader.backlog(), 0);
        assert_eq!(reader.work_done().0, 6);
    }

    #[test]
    fn quick_listings_start_at_the_second_newest_folder() {
        let newest_folders = |keys: &[&str]| {
            let keys: Vec<String> = keys.iter().map(|key| (*key).to_owned()).collect();
            let mut folders = Folders::default();
            folders.add(keys.iter());
            folders.second_newest()
        };
        assert_eq!(newest_folders(&[]), None);
        assert_eq!(newest_folders(&["replay/model-000001/a.game"]), None);
        assert_eq!(
            newest_folders(&[
                "replay/model-000003/c.game",
                "replay/model-000001/a.game",
                "replay/model-000012/d.game",
                "replay/model-000003/b.game",
            ]),
            Some("replay/model-000003".to_owned())
        );
    }
}
