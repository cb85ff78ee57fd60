//! Leases: which processes work on a run, and which one holds each
//! single-writer role.
//!
//! Every lease goes through one small interface: [`LeaseBackend::acquire`]
//! takes a named lease, shared or exclusive, or refuses naming who holds it;
//! the [`HeldLease`] it returns says whether it was lost
//! ([`HeldLease::is_lost`]) and is given back with [`HeldLease::release`]
//! (or on drop). [`LeaseBackend::acquire_all`] takes every lease of the run
//! at once, to delete it. The one backend today, [`LocalLeases`], serves a
//! run on a local or shared file system; a run on object storage (issue 15)
//! adds a backend that acquires by conditional create of epoch-numbered
//! lease objects with an expiry, and nothing above this interface changes.
//!
//! The leases of a run:
//!
//! - `open`: held shared by every process that works on the run, and
//!   exclusively by a process deleting it, so that a run is never deleted
//!   under a process using it, nor used while being deleted;
//! - `process-HOST-PID`: each process's own, exclusive. It names the process
//!   (host, process id, command) in messages, and tells whether the writer
//!   of a temporary file (whose name carries its host and process id) still
//!   lives;
//! - `trainer`, `evaluator`: the single-writer roles, exclusive.
//!
//! [`LocalLeases`] keeps `leases/NAME.lock`, on which the holder keeps an OS
//! file lock (`flock`) for as long as it holds the lease. The kernel releases
//! that lock when the process dies, however it dies and whether or not its
//! parent reaps it, so a lease of a killed process on the same machine is
//! free at once. An exclusive holder also writes `leases/NAME.json` (host,
//! process id, command, renewal time) and renews it every third of the lease
//! time: the record names the holder in messages, and stands for it on
//! machines that share the run directory through a file system whose locks
//! they do not see. Such a holder is presumed dead once its record is older
//! than the lease time. A holder checks its lease before each write
//! ([`HeldLease::is_lost`]); one whose record has gone unrenewed for half
//! the lease time (a process paused by SIGSTOP, say) reads it again first,
//! so that once resumed it never writes after another process took over.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::error::{Result, RunDirError, io_error};
pub use super::holder::Holder;
use super::json::write_json;
use crate::fsutil::{hostname, is_temporary, unix_seconds};

/// How long a lease lasts without renewal: a holder on another machine that
/// has not renewed its lease for this long is presumed dead. (On the same
/// machine the OS lock tells at once.) On an object store, the lease time of
/// the shared and per-process leases, which nobody takes over.
pub const LEASE_TTL: Duration = Duration::from_secs(60);

/// On an object store, the lease time of a role (trainer, evaluator...):
/// a start that watches the role's lease go unrenewed this long, by its
/// own clock, takes it over, so a killed role is replaced within seconds.
/// Its holder renews every third of it (about 54 requests a minute).
pub const ROLE_LEASE_TTL: Duration = Duration::from_secs(10);

/// The lease every process working on the run holds shared, and deletion
/// holds exclusively.
pub const OPEN: &str = "open";

/// The name of the lease of process `pid` on `host`.
pub fn process_lease(host: &str, pid: u32) -> String {
    format!("process-{host}-{pid}")
}

/// How a lease is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// With any number of other shared holders, but no exclusive one.
    Shared,
    /// Alone.
    Exclusive,
}

/// Takes and gives back the leases of one run (see the module docs).
pub trait LeaseBackend: std::fmt::Debug {
    /// Takes lease `name` for this process, running `command` (for
    /// messages), or refuses naming who holds it: [`RunDirError::Busy`] for
    /// a role, [`RunDirError::InUse`] for `open` taken exclusively,
    /// [`RunDirError::BeingDeleted`] for `open` taken shared.
    fn acquire(&self, name: &str, mode: Mode, command: &str) -> Result<Box<dyn HeldLease>>;
    /// Takes every lease of the run exclusively (to delete it), `open`
    /// first, refusing as [`LeaseBackend::acquire`] does if any is held.
    fn acquire_all(&self) -> Result<Vec<Box<dyn HeldLease>>>;
}

/// A lease this process holds.
pub trait HeldLease: std::fmt::Debug + Send {
    /// Whether another process took the lease over (after this one failed to
    /// renew it for the lease time); the holder must then stop writing. A
    /// holder asks before each write. When its last renewal is old (its
    /// process was paused or starved), the answer is checked against the
    /// lease's storage then and there, not left to the renewer thread, which
    /// may not have run yet since the process resumed.
    fn is_lost(&self) -> bool;
    /// Gives the lease back (dropping it does too). Later calls do nothing.
    fn release(&mut self);
}

/// What a process writes about itself in an exclusive lease.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct LeaseRecord {
    host: String,
    pid: u32,
    token: u64,
    /// Unix seconds of the last renewal.
    renewed: f64,
    /// The command holding the lease, e.g. `sumito train`.
    #[serde(default)]
    command: String,
}

/// Whether a process on this machine that held a lease is alive, by its lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// It holds its lock.
    Alive,
    /// Nothing holds the lock, or there is none.
    Dead,
}

/// The leases of a run in a directory (see the module docs).
#[derive(Debug, Clone)]
pub struct LocalLeases {
    root: PathBuf,
    ttl: Duration,
}

/// How many times a lock held by another process is tried again, 50 ms
/// apart, before the lease is refused: a process checking whether a holder
/// lives holds its lock for a moment.
const LOCK_RETRIES: u32 = 3;

impl LocalLeases {
    /// The leases of the run in `root`, presumed dead on other machines after
    /// `ttl` without renewal.
    pub fn new(root: &Path, ttl: Duration) -> LocalLeases {
        LocalLeases {
            root: root.to_owned(),
            ttl,
        }
    }

    pub fn dir(&self) -> PathBuf {
        self.root.join("leases")
    }

    fn lock_path(&self, name: &str) -> PathBuf {
        self.dir().join(format!("{name}.lock"))
    }

    fn record_path(&self, name: &str) -> PathBuf {
        self.dir().join(format!("{name}.json"))
    }

    /// Whether the holder of lease `name` on this machine is alive: whether
    /// its lock is held (by anyone, this process included).
    pub fn liveness(&self, name: &str) -> Result<Liveness> {
        let path = self.lock_path(name);
        match try_lock(&path, Mode::Shared, false) {
            Ok(Some(_probe)) => Ok(Liveness::Dead),
            Ok(None) => Ok(Liveness::Alive),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Liveness::Dead),
            Err(cause) => Err(RunDirError::Io { path, cause }),
        }
    }

    /// Whether process `pid` of `host` may still write into the run: on this
    /// machine, whether it holds its process lease; on another, whether its
    /// record was renewed within the lease time (or cannot be read, which
    /// errs on the safe side).
    pub fn writer_alive(&self, host: &str, pid: u32) -> Result<bool> {
        let name = process_lease(host, pid);
        if host == hostname() {
            return Ok(pid == std::process::id() || self.liveness(&name)? == Liveness::Alive);
        }
        Ok(match read_record(&self.record_path(&name))? {
            Some(record) => unix_seconds() - record.renewed < self.ttl.as_secs_f64(),
            None => true,
        })
    }

    /// Removes the files of this machine's process leases whose process is
    /// gone; returns their paths.
    pub fn remove_dead_process_leases(&self) -> Result<Vec<PathBuf>> {
        let me = hostname();
        let mut removed = Vec::new();
        for name in self.names()? {
            let Some((host, _pid)) = name
                .strip_prefix("process-")
                .and_then(|rest| rest.rsplit_once('-'))
            else {
                continue;
            };
            if host != me {
                continue;
            }
            let lock_path = self.lock_path(&name);
            // Taking its lock proves its process gone, and keeps anyone else
            // from taking it while its files go.
            let lock = match try_lock(&lock_path, Mode::Exclusive, false) {
                Ok(Some(lock)) => Some(lock),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
                Ok(None) => continue,
                Err(cause) => {
                    return Err(RunDirError::Io {
                        path: lock_path,
                        cause,
                    });
                }
            };
            for path in [self.record_path(&name), lock_path] {
                if std::fs::remove_file(&path).is_ok() {
                    removed.push(path);
                }
            }
            drop(lock);
        }
        Ok(removed)
    }

    /// Every lease name the run has files for.
    fn names(&self) -> Result<Vec<String>> {
        let dir = self.dir();
        let mut names = Vec::new();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(names),
            Err(cause) => return Err(RunDirError::Io { path: dir, cause }),
        };
        for entry in entries {
            let name = entry.map_err(io_error(&dir))?.file_name();
            let name = name.to_string_lossy();
            if is_temporary(&name) {
                continue;
            }
            if let Some(stem) = name
                .strip_suffix(".lock")
                .or_else(|| name.strip_suffix(".json"))
                && !names.iter().any(|known| known == stem)
            {
                names.push(stem.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// The processes holding an exclusive lease now, with their roles: on
    /// this machine those holding its lock, on others those whose record is
    /// fresh.
    pub fn holders(&self) -> Result<Vec<Holder>> {
        let mut holders: Vec<Holder> = Vec::new();
        for name in self.names()? {
            let Some(holder) = self.live_holder(&name)? else {
                continue;
            };
            let known = holders
                .iter_mut()
                .find(|known| known.host == holder.host && known.pid == holder.pid);
            let holder = match known {
                Some(known) => known,
                None => {
                    holders.push(holder);
                    holders.last_mut().expect("just pushed")
                }
            };
            if !name.starts_with("process-") {
                holder.roles.push(name);
            }
        }
        Ok(holders)
    }

    /// The holder of lease `name` if it is alive (see [`Self::holders`]).
    fn live_holder(&self, name: &str) -> Result<Option<Holder>> {
        let Some(record) = read_record(&self.record_path(name))? else {
            return Ok(None);
        };
        let alive = if record.host == hostname() {
            self.liveness(name)? == Liveness::Alive
        } else {
            self.other_machine(&record).is_some()
        };
        Ok(alive.then(|| self.holder(&record)))
    }

    /// How long ago a holder on another machine renewed its lease and how
    /// long until it is presumed dead; `None` once it is.
    fn other_machine(&self, record: &LeaseRecord) -> Option<(f64, f64)> {
        let age = unix_seconds() - record.renewed;
        let ttl = self.ttl.as_secs_f64();
        (age < ttl).then_some((age.max(0.0), ttl - age))
    }

    fn holder(&self, record: &LeaseRecord) -> Holder {
        let renewed = if record.host == hostname() {
            None
        } else {
            self.other_machine(record)
        };
        Holder {
            host: record.host.clone(),
            pid: record.pid,
            command: record.command.clone(),
            roles: Vec::new(),
            renewed,
        }
    }

    fn busy(&self, name: &str, holder: Option<Holder>) -> RunDirError {
        RunDirError::Busy {
            path: self.root.clone(),
            role: name.to_owned(),
            holder: holder.map(Box::new),
        }
    }

    /// Locks lease `name`, trying again a few times while another process
    /// holds it; refuses as [`LeaseBackend::acquire`] says.
    fn lock(&self, name: &str, mode: Mode) -> Result<File> {
        let path = self.lock_path(name);
        for attempt in 0..=LOCK_RETRIES {
            match try_lock(&path, mode, true) {
                Ok(Some(file)) => return Ok(file),
                Ok(None) if attempt < LOCK_RETRIES => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Ok(None) => break,
                // No leases folder: the run is gone (deleted or moved), or
                // lost the folder. Only in the second case is it made again
                // (not recursively: the run's own folder must still be there).
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    let gone = || RunDirError::NotARun {
                        path: self.root.clone(),
                    };
                    if attempt > 0 || !self.root.join("run.json").is_file() {
                        return Err(gone());
                    }
                    match std::fs::create_dir(self.dir()) {
                        Ok(()) => {}
                        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
                        Err(_) => return Err(gone()),
                    }
                }
                Err(cause) => return Err(RunDirError::Io { path, cause }),
            }
        }
        Err(match (name, mode) {
            (OPEN, Mode::Shared) => RunDirError::BeingDeleted {
                path: self.root.clone(),
            },
            (OPEN, Mode::Exclusive) => RunDirError::InUse {
                path: self.root.clone(),
                holders: self.holders()?,
            },
            _ => {
                let record = read_record(&self.record_path(name))?;
                self.busy(name, record.map(|record| self.holder(&record)))
            }
        })
    }

    /// Locks lease `name` exclusively and checks that no holder on another
    /// machine has renewed it within the lease time.
    fn lock_exclusive(&self, name: &str) -> Result<File> {
        let file = self.lock(name, Mode::Exclusive)?;
        if let Some(record) = read_record(&self.record_path(name))?
            && record.host != hostname()
            && self.other_machine(&record).is_some()
        {
            return Err(self.busy(name, Some(self.holder(&record))));
        }
        Ok(file)
    }
}

impl LeaseBackend for LocalLeases {
    fn acquire(&self, name: &str, mode: Mode, command: &str) -> Result<Box<dyn HeldLease>> {
        // `open` has no record: its shared holders are named by their own
        // process leases, and its exclusive holder is a deletion or creation.
        if mode == Mode::Shared || name == OPEN {
            let lock = self.lock(name, mode)?;
            return Ok(Box::new(LocalHeld::new(lock, None, None)));
        }
        let lock = self.lock_exclusive(name)?;
        let record = LeaseRecord {
            host: hostname(),
            pid: std::process::id(),
            token: rand::random(),
            renewed: unix_seconds(),
            command: command.to_owned(),
        };
        let keeper = RecordKeeper::start(self.record_path(name), record, self.ttl)?;
        // A process's own lease has a name no other process takes: its files
        // go with it. (Role leases keep their lock file: removing a lock file
        // that another process may have just opened would let two hold it.)
        let own_files = name.starts_with("process-").then(|| self.lock_path(name));
        Ok(Box::new(LocalHeld::new(lock, Some(keeper), own_files)))
    }

    fn acquire_all(&self) -> Result<Vec<Box<dyn HeldLease>>> {
        let mut held: Vec<Box<dyn HeldLease>> = vec![Box::new(LocalHeld::new(
            self.lock(OPEN, Mode::Exclusive)?,
            None,
            None,
        ))];
        for name in self.names()? {
            if name != OPEN {
                let lock = self.lock_exclusive(&name)?;
                held.push(Box::new(LocalHeld::new(lock, None, None)));
            }
        }
        Ok(held)
    }
}

/// Opens `path` (creating it if `create`) and locks it in `mode` without
/// waiting; `None` if another holder (another process, or another handle of
/// this one) prevents it. The lock is checked to be on the file the path
/// names now: a lock file removed (with its lease) between opening and
/// locking is opened again.
fn try_lock(path: &Path, mode: Mode, create: bool) -> std::io::Result<Option<File>> {
    for _ in 0..5 {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create)
            .truncate(false)
            .open(path)?;
        let locked = match mode {
            Mode::Shared => file.try_lock_shared(),
            Mode::Exclusive => file.try_lock(),
        };
        match locked {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(err)) => return Err(err),
        }
        if names_file(path, &file)? {
            return Ok(Some(file));
        }
        if !create {
            return Err(std::io::ErrorKind::NotFound.into());
        }
    }
    Err(std::io::Error::other(
        "the lock file was replaced five times while being locked",
    ))
}

/// Whether `path` names the open `file` (and not a file created after it
/// was removed).
#[cfg(unix)]
fn names_file(path: &Path, file: &File) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(named) => Ok(named.dev() == open.dev() && named.ino() == open.ino()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(err),
    }
}

#[cfg(not(unix))]
fn names_file(path: &Path, _file: &File) -> std::io::Result<bool> {
    Ok(path.exists())
}

fn read_record(path: &Path) -> Result<Option<LeaseRecord>> {
    match std::fs::read(path) {
        // A record that does not parse (written by something else) names no
        // one; the lock still decides on this machine.
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(RunDirError::Io {
            path: path.to_owned(),
            cause: source,
        }),
    }
}

/// Keeps an exclusive lease's record fresh from a thread of its own.
#[derive(Debug)]
struct RecordKeeper {
    state: Arc<KeeperState>,
    stop: Arc<AtomicBool>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

/// What the renewer thread and the holder share.
#[derive(Debug)]
struct KeeperState {
    path: PathBuf,
    /// The record as this holder writes it (its token tells it from a
    /// process that took the lease over).
    record: std::sync::Mutex<LeaseRecord>,
    lost: AtomicBool,
    /// When the record was last renewed.
    renewed: std::sync::Mutex<Instant>,
    ttl: Duration,
}

impl KeeperState {
    /// Renews the record now, unless another process took the lease over
    /// (its record carries another token); whether it is still held.
    fn renew(&self) -> bool {
        let mut record = self.record.lock().unwrap_or_else(|p| p.into_inner());
        if self.lost.load(Ordering::Relaxed) {
            return false;
        }
        match read_record(&self.path) {
            // Taken over by a process on another machine that presumed this
            // one dead.
            Ok(Some(holder)) if holder.token != record.token => {
                self.lost.store(true, Ordering::Relaxed);
                false
            }
            _ => {
                record.renewed = unix_seconds();
                let _ = write_json(&self.path, &*record);
                *self.renewed.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
                true
            }
        }
    }

    fn since_renewal(&self) -> Duration {
        self.renewed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }

    /// Whether the lease was lost. A holder whose record was renewed within
    /// half the lease time cannot have been presumed dead; one whose record
    /// is older (its process was paused, e.g. by SIGSTOP, or starved) checks
    /// the record now rather than wait for its renewer, so that it never
    /// writes after another process took its role over.
    fn is_lost(&self) -> bool {
        if self.lost.load(Ordering::Relaxed) {
            return true;
        }
        if self.since_renewal() < self.ttl / 2 {
            return false;
        }
        !self.renew()
    }
}

impl RecordKeeper {
    fn start(path: PathBuf, record: LeaseRecord, ttl: Duration) -> Result<RecordKeeper> {
        write_json(&path, &record)?;
        let state = Arc::new(KeeperState {
            path: path.clone(),
            record: std::sync::Mutex::new(record),
            lost: AtomicBool::new(false),
            renewed: std::sync::Mutex::new(Instant::now()),
            ttl,
        });
        let stop = Arc::new(AtomicBool::new(false));
        let renewer = {
            let (state, stop) = (Arc::clone(&state), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("lease".into())
                .spawn(move || {
                    let period = ttl / 3;
                    let tick = Duration::from_millis(100).min(period);
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(tick);
                        // By the clock, not by counting ticks: a process
                        // resumed after a pause renews (or learns it lost
                        // the lease) at once.
                        if state.since_renewal() >= period && !state.renew() {
                            return;
                        }
                    }
                })
                .map_err(io_error(&path))?
        };
        Ok(RecordKeeper {
            state,
            stop,
            renewer: Some(renewer),
        })
    }

    fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        let token = self
            .state
            .record
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .token;
        if let Ok(Some(holder)) = read_record(&self.state.path)
            && holder.token == token
        {
            let _ = std::fs::remove_file(&self.state.path);
        }
    }
}

/// A lease held through [`LocalLeases`]: the locked file, the record keeper
/// of an exclusive lease, and for a process's own lease the lock file to
/// remove with it.
#[derive(Debug)]
struct LocalHeld {
    lock: Option<File>,
    keeper: Option<RecordKeeper>,
    own_lock_file: Option<PathBuf>,
}

impl LocalHeld {
    fn new(lock: File, keeper: Option<RecordKeeper>, own_lock_file: Option<PathBuf>) -> Self {
        LocalHeld {
            lock: Some(lock),
            keeper,
            own_lock_file,
        }
    }
}

impl HeldLease for LocalHeld {
    fn is_lost(&self) -> bool {
        self.keeper
            .as_ref()
            .is_some_and(|keeper| keeper.state.is_lost())
    }

    fn release(&mut self) {
        if let Some(mut keeper) = self.keeper.take() {
            keeper.stop();
        }
        // Removed while still locked, so that no one locks it in between.
        if let Some(path) = self.own_lock_file.take() {
            let _ = std::fs::remove_file(path);
        }
        // Closing the file releases the lock.
        self.lock.take();
    }
}

impl Drop for LocalHeld {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsutil::testing::TempDir;

    fn record(host: &str, token: u64) -> LeaseRecord {
        LeaseRecord {
            host: host.into(),
            pid: 7,
            token,
            renewed: unix_seconds(),
            command: "sumito evaluate".into(),
        }
    }

    /// The keeper of a lease whose record was just written, with no
    /// renewer thread: as in a process paused by SIGSTOP.
    fn paused_keeper(path: &Path, ttl: Duration) -> KeeperState {
        let own = record(&hostname(), 1);
        write_json(path, &own).unwrap();
        KeeperState {
            path: path.to_owned(),
            record: std::sync::Mutex::new(own),
            lost: AtomicBool::new(false),
            renewed: std::sync::Mutex::new(Instant::now()),
            ttl,
        }
    }

    #[test]
    fn a_paused_holder_learns_at_once_that_another_machine_took_its_role() {
        let dir = TempDir::new("paused-holder");
        let short = Duration::from_millis(400);
        let path = dir.path().join("evaluator.json");
        let keeper = paused_keeper(&path, short);
        assert!(!keeper.is_lost());
        // Paused past the lease time; a process on another machine, seeing
        // only the stale record, took the role over.
        std::thread::sleep(short + Duration::from_millis(100));
        write_json(&path, &record("elsewhere", 2)).unwrap();
        // Resumed: its first check finds the role lost.
        assert!(keeper.is_lost());
        assert!(keeper.is_lost(), "and lost it stays");
        assert_eq!(read_record(&path).unwrap().unwrap().token, 2);

        // Paused as long, but not taken over: the check renews the record
        // and the holder goes on.
        let kept = paused_keeper(&dir.path().join("trainer.json"), short);
        std::thread::sleep(short + Duration::from_millis(100));
        assert!(!kept.is_lost());
        let renewed = read_record(&kept.path).unwrap().unwrap();
        assert!(unix_seconds() - renewed.renewed < 0.2, "{renewed:?}");
    }
}
