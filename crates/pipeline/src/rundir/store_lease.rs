//! Leases of a run kept in a [`Store`] (an object store, where no process
//! can lock anything): by conditional create of epoch-numbered lease
//! objects with an expiry.
//!
//! An exclusive lease `NAME` is a chain of objects
//! `leases/NAME/EPOCH.json`, each naming its holder and when the lease
//! expires. The newest epoch says who holds the lease: a process takes it by
//! creating the next epoch ([`Store::create`]: only if absent, so of two
//! racing processes exactly one gets it) when the newest was released, when
//! there is none, or when it watched the newest stay the newest for the
//! lease time by its own clock (the holder stopped renewing: killed, frozen
//! or cut off); the holder renews it by creating the next epoch itself every
//! third of the lease time, and has lost it when that epoch exists already
//! (someone presumed it dead and took over) or when it could not renew for
//! nine tenths of the lease time, counted from the start of its last
//! renewal (a network partition: the others may take over, so it must stop
//! writing). A role's lease time is short ([`StoreLeases::new`]: 10 s in a
//! run), so a killed role is taken over within seconds by the next start.
//! Releasing creates a `released` epoch, so the next process need not wait.
//! Old epochs are deleted by their holder as it renews.
//!
//! The shared lease `open` (every process working on the run) is one object
//! per holder, `leases/open/shared/HOLDER.json`, renewed in place; its
//! exclusive form (a deletion) is the epoch chain of `open`. Each side
//! writes its own object first and then looks for the other, and backs off
//! if it finds one alive, so a deletion never overlaps a process at work.
//!
//! Clocks. A takeover is judged by the taker's own monotonic clock alone
//! (how long the newest epoch stayed the newest), and the holder stops by
//! its own; each epoch exists before anyone can see it and after its
//! holder started creating it, so no skew between machines' wall clocks can
//! make two holders act at once. Wall clocks (the records' `expires`) only
//! let a start take at once a chain whose holder is long dead (expired a
//! long lease time ago), and judge the shared `open` objects and the
//! processes' own leases, which nobody takes over: there a skew of up to
//! that long lease time (60 s in a run) is harmless.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sumito_store::{Created, Store, StoreError};

use super::error::{Result, RunDirError};
use super::lease::{HeldLease, Holder, LeaseBackend, Mode, OPEN, process_lease};
use crate::fsutil::{hostname, unix_seconds};

/// What a lease object says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct EpochRecord {
    host: String,
    pid: u32,
    /// Tells this holder's objects from another's with the same host and pid.
    token: u64,
    command: String,
    /// Unix seconds: when it was written, and until when it holds.
    renewed: f64,
    expires: f64,
    /// Given back: the lease is free whatever the expiry says.
    #[serde(default)]
    released: bool,
    /// The process-id namespace of its holder (Linux's
    /// `/proc/self/ns/pid`): on the same host and in the same namespace, a
    /// holder whose process is gone is known dead at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pid_space: Option<String>,
}

impl EpochRecord {
    /// Whether it holds at `now` (Unix seconds).
    fn holds(&self, now: f64) -> bool {
        !self.released && now < self.expires
    }
}

/// The leases of one run in a store (see the module docs).
#[derive(Debug, Clone)]
pub struct StoreLeases {
    store: Store,
    /// How messages name the run.
    run: PathBuf,
    /// The lease time of a role's lease: how long a taker watches it
    /// unrenewed before it takes over.
    ttl: Duration,
    /// The lease time of the shared `open` objects and the processes' own
    /// leases, judged by wall clocks; also how long past its expiry a
    /// role's lease is taken without watching.
    long_ttl: Duration,
    /// Seconds this process's wall clock is off (tests of clock skew).
    clock_offset: f64,
}

/// How the exclusive `open` lease names the creation of a run (not a
/// deletion), for the processes that find it held.
pub const CREATION_COMMAND: &str = "sumito (creating the run)";

/// How often a process waiting to take a lease looks at its newest epoch.
const WATCH_PERIOD: Duration = Duration::from_millis(500);

fn store_error(err: StoreError) -> RunDirError {
    RunDirError::Io {
        path: PathBuf::new(),
        cause: std::io::Error::other(err.to_string()),
    }
}

/// This process's process-id namespace, where Linux says.
fn pid_space() -> Option<String> {
    std::fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|link| link.to_string_lossy().into_owned())
}

/// Whether process `pid` of this namespace is running (or a zombie not yet
/// reaped); true where that cannot be told.
fn process_running(pid: u32) -> bool {
    !std::path::Path::new("/proc/self").exists()
        || std::path::Path::new(&format!("/proc/{pid}")).exists()
}

fn epoch_key(name: &str, epoch: u64) -> String {
    format!("leases/{name}/{epoch:010}.json")
}

fn shared_key(holder: &str) -> String {
    format!("leases/{OPEN}/shared/{holder}.json")
}

impl StoreLeases {
    /// The leases of the run kept in `store`, which messages call `run`: a
    /// role's holder is taken over once watched unrenewed for `ttl`; shared
    /// and process leases (and a role's lease expired for that long) are
    /// over `long_ttl` after their expiry by the wall clock.
    pub fn new(store: Store, run: PathBuf, ttl: Duration, long_ttl: Duration) -> StoreLeases {
        StoreLeases {
            store,
            run,
            ttl,
            long_ttl,
            clock_offset: 0.0,
        }
    }

    /// The same leases as seen by a process whose wall clock is `seconds`
    /// ahead (behind, if negative).
    #[cfg(test)]
    fn with_clock_offset(mut self, seconds: f64) -> StoreLeases {
        self.clock_offset = seconds;
        self
    }

    /// Unix seconds by this process's wall clock.
    fn now(&self) -> f64 {
        unix_seconds() + self.clock_offset
    }

    /// The lease time of lease `name`: short for a role's, which others
    /// take over; long for a process's own and for `open` (whose shared
    /// holders judge a deletion's record by the wall clock).
    fn ttl_of(&self, name: &str) -> Duration {
        if name.starts_with("process-") || name == OPEN {
            self.long_ttl
        } else {
            self.ttl
        }
    }

    fn record(&self, command: &str, token: u64, ttl: Duration) -> EpochRecord {
        let now = self.now();
        EpochRecord {
            host: hostname(),
            pid: std::process::id(),
            token,
            command: command.to_owned(),
            renewed: now,
            expires: now + ttl.as_secs_f64(),
            released: false,
            pid_space: pid_space(),
        }
    }

    /// Whether `record`'s holder is known dead now: one of this host and
    /// process-id namespace whose process is gone (killed). Elsewhere, only
    /// its expiry tells ([`StoreLeases::long_dead`]).
    fn gone_here(&self, record: &EpochRecord) -> bool {
        record.host == hostname()
            && record.pid != std::process::id()
            && record.pid_space.is_some()
            && record.pid_space == pid_space()
            && !process_running(record.pid)
    }

    /// Whether `record`'s holder is over: given back, long expired, or
    /// known dead.
    fn over(&self, record: &EpochRecord) -> bool {
        record.released || self.long_dead(record) || self.gone_here(record)
    }

    /// Whether `record` expired so long ago (a long lease time past its
    /// expiry by this machine's clock) that no clock skew explains it.
    fn long_dead(&self, record: &EpochRecord) -> bool {
        self.now() > record.expires + self.long_ttl.as_secs_f64()
    }

    fn read(&self, key: &str) -> Result<Option<EpochRecord>> {
        Ok(self
            .store
            .get(key)
            .map_err(store_error)?
            // An object that does not parse (written by something else)
            // names no one and holds nothing.
            .and_then(|bytes| serde_json::from_slice(&bytes).ok()))
    }

    /// The epochs of lease `name` in the store, in no order.
    fn epochs(&self, name: &str) -> std::result::Result<Vec<u64>, StoreError> {
        let prefix = format!("leases/{name}/");
        Ok(self
            .store
            .list(&prefix)?
            .iter()
            .filter_map(|object| {
                let rest = object.key.strip_prefix(&prefix)?;
                rest.strip_suffix(".json")?.parse::<u64>().ok()
            })
            .collect())
    }

    /// Deletes the epochs of lease `name` older than `epoch`, the holder's
    /// own: they are no one's any more (a holder still at one of them learns
    /// it lost at its next renewal, [`HeldState::renew`]). Best effort: what
    /// is left is deleted at the next renewal.
    fn delete_older_epochs(&self, name: &str, epoch: u64, known: &[u64]) {
        for &old in known.iter().filter(|&&old| old < epoch) {
            let _ = self.store.delete(&epoch_key(name, old));
        }
    }

    /// The newest epoch of lease `name` and its record.
    fn newest(&self, name: &str) -> Result<Option<(u64, Option<EpochRecord>)>> {
        let newest = self.epochs(name).map_err(store_error)?.into_iter().max();
        match newest {
            Some(epoch) => Ok(Some((epoch, self.read(&epoch_key(name, epoch))?))),
            None => Ok(None),
        }
    }

    /// Who `record` names: a holder seen alive (renewing, or within its
    /// expiry), so nothing to wait for.
    fn holder(&self, record: &EpochRecord) -> Holder {
        let age = self.now() - record.renewed;
        Holder {
            host: record.host.clone(),
            pid: record.pid,
            command: record.command.clone(),
            roles: Vec::new(),
            renewed: Some((age.max(0.0), 0.0)),
        }
    }

    fn busy(&self, name: &str, holder: Option<Holder>) -> RunDirError {
        RunDirError::Busy {
            path: self.run.clone(),
            role: name.to_owned(),
            holder: holder.map(Box::new),
        }
    }

    /// Takes exclusive lease `name` by creating its next epoch: at once
    /// when it is free (released, none, or long dead); when it is held,
    /// after watching its newest epoch stay the newest for the lease time
    /// (the holder is dead: a takeover, said on standard error), or refuses
    /// as soon as the holder renews (it is alive).
    fn take(&self, name: &str, command: &str) -> Result<StoreHeld> {
        let ttl = self.ttl_of(name);
        let token: u64 = rand::random();
        // The epoch being watched, and since when (this machine's clock,
        // read after the epoch was seen, so after it existed).
        let mut watched: Option<(u64, Instant)> = None;
        let mut lost_races = 0;
        loop {
            let asked = Instant::now();
            let newest = self.newest(name)?;
            let next = match newest {
                None => 1,
                Some((epoch, None)) => epoch + 1,
                Some((epoch, Some(record))) if record.released || self.long_dead(&record) => {
                    epoch + 1
                }
                Some((epoch, Some(record))) => {
                    let slow = asked.elapsed() > ttl / 3;
                    match &watched {
                        // The holder renewed (or another process took over):
                        // it is alive.
                        Some((seen, _)) if *seen != epoch => {
                            return Err(self.busy(name, Some(self.holder(&record))));
                        }
                        // Unrenewed for the lease time, each look answered
                        // promptly (an outage that held up this look held up
                        // the holder's renewals too: watch again).
                        Some((_, since)) if !slow && since.elapsed() >= ttl => {
                            eprintln!(
                                "the {name} lease of {} was not renewed for {:.0} s: taking it over",
                                self.run.display(),
                                ttl.as_secs_f64()
                            );
                            epoch + 1
                        }
                        // Watching: from now at first sight or after a
                        // slow look, else on.
                        _ => {
                            // A stop asked for while watching (Ctrl-C, or
                            // SIGTERM from an orchestrator) ends the start
                            // before it has taken anything.
                            if crate::stop::stop_requested() {
                                return Err(RunDirError::StoppedWhileWaiting {
                                    path: self.run.clone(),
                                    role: name.to_owned(),
                                });
                            }
                            if slow || watched.is_none() {
                                watched = Some((epoch, Instant::now()));
                            }
                            std::thread::sleep(WATCH_PERIOD.min(ttl / 4));
                            continue;
                        }
                    }
                }
            };
            let record = self.record(command, token, ttl);
            let bytes = serde_json::to_vec(&record).expect("a lease record serialises");
            match self
                .store
                .create(&epoch_key(name, next), &bytes)
                .map_err(store_error)?
            {
                Created::New => {
                    // What the previous holders left (a killed one's last
                    // epochs) goes now rather than never.
                    if let Ok(known) = self.epochs(name) {
                        self.delete_older_epochs(name, next, &known);
                    }
                    return Ok(StoreHeld::start(
                        self.clone(),
                        ttl,
                        Chain {
                            name: name.to_owned(),
                            epoch: next,
                            record,
                        },
                    ));
                }
                // Another process took that epoch first (or the holder
                // renewed just then): look again, refusing if it holds.
                Created::Exists => {
                    lost_races += 1;
                    if lost_races >= 3 {
                        let holder = match self.newest(name)? {
                            Some((_, Some(record))) => Some(self.holder(&record)),
                            _ => None,
                        };
                        return Err(self.busy(name, holder));
                    }
                    // Whoever made it is seen as a renewal at the next
                    // look: refused unless it gave the lease back.
                    watched = Some((next - 1, Instant::now()));
                }
            }
        }
    }

    /// The live shared holders of `open`, but `except` (a holder's key).
    fn shared_holders(&self, except: Option<&str>) -> Result<Vec<Holder>> {
        let prefix = format!("leases/{OPEN}/shared/");
        let mut holders = Vec::new();
        for object in self.store.list(&prefix).map_err(store_error)? {
            if Some(object.key.as_str()) == except {
                continue;
            }
            if let Some(record) = self.read(&object.key)?
                && record.holds(self.now())
            {
                holders.push(self.holder(&record));
            }
        }
        Ok(holders)
    }

    /// Every lease name with an epoch chain.
    fn chain_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = Vec::new();
        for object in self.store.list("leases/").map_err(store_error)? {
            let mut parts = object.key.split('/').skip(1);
            if let (Some(name), Some(file), None) = (parts.next(), parts.next(), parts.next())
                && file
                    .strip_suffix(".json")
                    .is_some_and(|e| e.parse::<u64>().is_ok())
                && !names.iter().any(|known| known == name)
            {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Deletes the epoch chains of process leases (`process-HOST-PID`)
    /// given back or expired for longer than the lease time, but this
    /// process's: a process's own lease is nobody else's to take, so its
    /// last epoch tells no one anything once it is over. Returns the keys
    /// deleted.
    pub fn remove_finished_process_leases(&self) -> Result<Vec<String>> {
        let own = process_lease(&hostname(), std::process::id());
        let mut chains: Vec<(String, Vec<(u64, String)>)> = Vec::new();
        for object in self.store.list("leases/").map_err(store_error)? {
            let mut parts = object.key.split('/').skip(1);
            let (Some(name), Some(file), None) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            let Some(epoch) = file
                .strip_suffix(".json")
                .and_then(|epoch| epoch.parse::<u64>().ok())
            else {
                continue;
            };
            if !name.starts_with("process-") || name == own {
                continue;
            }
            match chains.iter_mut().find(|(known, _)| known == name) {
                Some((_, epochs)) => epochs.push((epoch, object.key)),
                None => chains.push((name.to_owned(), vec![(epoch, object.key)])),
            }
        }
        let mut deleted = Vec::new();
        for (_, mut epochs) in chains {
            epochs.sort();
            let (_, newest) = epochs.last().expect("a chain has an epoch");
            let Some(record) = self.read(newest)? else {
                continue;
            };
            if self.over(&record) {
                for (_, key) in epochs {
                    self.store.delete(&key).map_err(store_error)?;
                    deleted.push(key);
                }
            }
        }
        Ok(deleted)
    }

    fn take_shared_open(&self, command: &str) -> Result<StoreHeld> {
        let token: u64 = rand::random();
        let key = shared_key(&format!(
            "{}-{}-{token:016x}",
            hostname(),
            std::process::id()
        ));
        let record = self.record(command, token, self.long_ttl);
        let bytes = serde_json::to_vec(&record).expect("a lease record serialises");
        self.store.put(&key, &bytes).map_err(store_error)?;
        // Written first, then the deletion looked for: one of the two sees
        // the other.
        if let Some((_, Some(exclusive))) = self.newest(OPEN)?
            && exclusive.holds(self.now())
        {
            let _ = self.store.delete(&key);
            let path = self.run.clone();
            return Err(match exclusive.command == CREATION_COMMAND {
                true => RunDirError::BeingCreated { path },
                false => RunDirError::BeingDeleted { path },
            });
        }
        self.remove_dead_shared_holders(&key);
        Ok(StoreHeld::start_shared(self.clone(), key, record))
    }

    /// Deletes the shared `open` objects of holders that stopped renewing a
    /// lease time before they expired or are known dead (killed processes:
    /// a live one renews every third of the lease time), but `own`. Best
    /// effort.
    fn remove_dead_shared_holders(&self, own: &str) {
        let prefix = format!("leases/{OPEN}/shared/");
        let Ok(objects) = self.store.list(&prefix) else {
            return;
        };
        for object in objects {
            if object.key == own {
                continue;
            }
            if let Ok(Some(record)) = self.read(&object.key)
                && !record.released
                && self.over(&record)
            {
                let _ = self.store.delete(&object.key);
            }
        }
    }

    fn take_exclusive_open(&self, command: &str) -> Result<StoreHeld> {
        let held = self.take(OPEN, command)?;
        let holders = self.shared_holders(None)?;
        if !holders.is_empty() {
            drop(held);
            return Err(RunDirError::InUse {
                path: self.run.clone(),
                holders,
            });
        }
        Ok(held)
    }
}

impl LeaseBackend for StoreLeases {
    fn acquire(&self, name: &str, mode: Mode, command: &str) -> Result<Box<dyn HeldLease>> {
        Ok(Box::new(match (name, mode) {
            (OPEN, Mode::Shared) => self.take_shared_open(command)?,
            (OPEN, Mode::Exclusive) => self.take_exclusive_open(command)?,
            // Only `open` is shared; any other lease has one holder.
            (_, _) => self.take(name, command)?,
        }))
    }

    fn acquire_all(&self) -> Result<Vec<Box<dyn HeldLease>>> {
        let mut held: Vec<Box<dyn HeldLease>> = vec![Box::new(self.take_exclusive_open("delete")?)];
        for name in self.chain_names()? {
            if name != OPEN {
                // An error here drops (releases) what was taken.
                held.push(Box::new(self.take(&name, "delete")?));
            }
        }
        Ok(held)
    }
}

/// The epoch a holder is at.
#[derive(Debug)]
struct Chain {
    name: String,
    epoch: u64,
    record: EpochRecord,
}

/// What a holder renews: its epoch chain, or its shared `open` object.
#[derive(Debug)]
enum Renewed {
    Chain(Mutex<Chain>),
    Shared {
        key: String,
        record: Mutex<EpochRecord>,
    },
}

/// A lease held in a store, renewed by a thread of its own.
#[derive(Debug)]
struct StoreHeld {
    state: Arc<HeldState>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug)]
struct HeldState {
    leases: StoreLeases,
    /// This lease's lease time.
    ttl: Duration,
    renewed: Renewed,
    lost: AtomicBool,
    stop: AtomicBool,
    /// Milliseconds since `started` of the start of the last successful
    /// renewal (its epoch cannot have existed before).
    last_renewal: AtomicU64,
    started: Instant,
}

impl HeldState {
    /// Renews once; whether the lease is still held.
    fn renew(&self) -> bool {
        let leases = &self.leases;
        let attempt = self.started.elapsed();
        let now = leases.now();
        match &self.renewed {
            Renewed::Chain(chain) => {
                let mut chain = chain.lock().unwrap_or_else(|p| p.into_inner());
                let mut record = chain.record.clone();
                record.renewed = now;
                record.expires = now + self.ttl.as_secs_f64();
                let bytes = serde_json::to_vec(&record).expect("a lease record serialises");
                let next = chain.epoch + 1;
                match leases.store.create(&epoch_key(&chain.name, next), &bytes) {
                    Ok(Created::New) => {
                        // Created, but was the epoch free because a later
                        // holder had deleted it (this one was paused through
                        // another's takeover and renewals)? Then a newer
                        // epoch is there: lost, and the stray epoch goes.
                        let known = match leases.epochs(&chain.name) {
                            Ok(known) => known,
                            Err(_) => return self.within_ttl(),
                        };
                        if known.iter().any(|&epoch| epoch > next) {
                            let _ = leases.store.delete(&epoch_key(&chain.name, next));
                            return false;
                        }
                        leases.delete_older_epochs(&chain.name, next, &known);
                        chain.epoch = next;
                        chain.record = record;
                    }
                    // Another process took the lease over.
                    Ok(Created::Exists) => return false,
                    // Tried again at the next tick; lost after the lease time.
                    Err(_) => return self.within_ttl(),
                }
            }
            Renewed::Shared { key, record } => {
                let mut record = record.lock().unwrap_or_else(|p| p.into_inner());
                record.renewed = now;
                record.expires = now + self.ttl.as_secs_f64();
                let bytes = serde_json::to_vec(&*record).expect("a lease record serialises");
                if leases.store.put(key, &bytes).is_err() {
                    return self.within_ttl();
                }
                // Every process at work sweeps what killed ones left (their
                // shared objects and their own leases) as they become
                // over, not only the next start. Best effort.
                leases.remove_dead_shared_holders(key);
                let _ = leases.remove_finished_process_leases();
            }
        }
        self.last_renewal
            .store(attempt.as_millis() as u64, Ordering::Relaxed);
        true
    }

    /// Time since the last successful renewal.
    fn since_renewal(&self) -> Duration {
        let last = Duration::from_millis(self.last_renewal.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last)
    }

    /// Whether the last renewal is recent enough that no one may have
    /// presumed this holder dead.
    fn within_ttl(&self) -> bool {
        self.since_renewal() < self.ttl * 9 / 10
    }

    /// Whether the lease was lost. A holder that renewed within half the
    /// lease time cannot have been presumed dead; one that did not (its
    /// process was paused, e.g. by SIGSTOP, or starved) renews now, which
    /// finds the next epoch taken if another process took over, rather than
    /// wait for its renewer, so that it never writes after losing the lease.
    fn is_lost(&self) -> bool {
        if self.lost.load(Ordering::Relaxed) {
            return true;
        }
        if self.since_renewal() < self.ttl / 2 {
            return false;
        }
        if self.renew() {
            return false;
        }
        self.lost.store(true, Ordering::Relaxed);
        true
    }

    /// Gives the lease back.
    fn release(&self) {
        let leases = &self.leases;
        match &self.renewed {
            Renewed::Chain(chain) => {
                let chain = chain.lock().unwrap_or_else(|p| p.into_inner());
                if chain.name.starts_with("process-") {
                    // Nobody else takes a process's own lease: nothing
                    // needs to know it was given back.
                    for epoch in chain.epoch.saturating_sub(1)..=chain.epoch {
                        let _ = leases.store.delete(&epoch_key(&chain.name, epoch));
                    }
                    return;
                }
                let mut record = chain.record.clone();
                record.released = true;
                record.renewed = leases.now();
                let bytes = serde_json::to_vec(&record).expect("a lease record serialises");
                // If that epoch exists, the lease was lost already.
                if let Ok(Created::New) = leases
                    .store
                    .create(&epoch_key(&chain.name, chain.epoch + 1), &bytes)
                {
                    let _ = leases.store.delete(&epoch_key(&chain.name, chain.epoch));
                    if chain.epoch > 1 {
                        let _ = leases
                            .store
                            .delete(&epoch_key(&chain.name, chain.epoch - 1));
                    }
                }
            }
            Renewed::Shared { key, .. } => {
                let _ = leases.store.delete(key);
            }
        }
    }
}

impl StoreHeld {
    fn start(leases: StoreLeases, ttl: Duration, chain: Chain) -> StoreHeld {
        Self::spawn(leases, ttl, Renewed::Chain(Mutex::new(chain)))
    }

    fn start_shared(leases: StoreLeases, key: String, record: EpochRecord) -> StoreHeld {
        let ttl = leases.long_ttl;
        Self::spawn(
            leases,
            ttl,
            Renewed::Shared {
                key,
                record: Mutex::new(record),
            },
        )
    }

    fn spawn(leases: StoreLeases, ttl: Duration, renewed: Renewed) -> StoreHeld {
        let period = ttl / 3;
        let state = Arc::new(HeldState {
            leases,
            ttl,
            renewed,
            lost: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            last_renewal: AtomicU64::new(0),
            started: Instant::now(),
        });
        let thread_state = Arc::clone(&state);
        let renewer = std::thread::Builder::new()
            .name("store-lease".into())
            .spawn(move || {
                let tick = Duration::from_millis(100).min(period);
                let mut attempted = Instant::now();
                while !thread_state.stop.load(Ordering::Relaxed) {
                    std::thread::sleep(tick);
                    // By the clock, not by counting ticks: a process resumed
                    // after a pause renews (or learns it lost the lease) at
                    // once. A failed attempt waits a period like a renewal.
                    if attempted.elapsed() < period {
                        continue;
                    }
                    attempted = Instant::now();
                    if thread_state.lost.load(Ordering::Relaxed) || !thread_state.renew() {
                        thread_state.lost.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            })
            .ok();
        StoreHeld { state, renewer }
    }
}

impl HeldLease for StoreHeld {
    fn is_lost(&self) -> bool {
        self.state.is_lost()
    }

    fn release(&mut self) {
        let Some(renewer) = self.renewer.take() else {
            return;
        };
        self.state.stop.store(true, Ordering::Relaxed);
        let _ = renewer.join();
        if !self.is_lost() {
            self.state.release();
        }
    }
}

impl Drop for StoreHeld {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_store::Location;

    fn leases(store: &Store, ttl: Duration) -> StoreLeases {
        StoreLeases::new(store.clone(), PathBuf::from("runs/x"), ttl, ttl)
    }

    /// What leases must do on any store.
    fn leases_work_on(store: &Store) {
        // A refusal waits for the holder's next renewal: a short role
        // lease time keeps that short; shared ones are a run's.
        let leases = || {
            StoreLeases::new(
                store.clone(),
                PathBuf::from("runs/x"),
                Duration::from_millis(1500),
                Duration::from_secs(60),
            )
        };
        let (a, b) = (leases(), leases());
        // One trainer at a time, named in the refusal.
        let mut trainer = a
            .acquire("trainer", Mode::Exclusive, "sumito train")
            .unwrap();
        let refused = b
            .acquire("trainer", Mode::Exclusive, "sumito trainer")
            .unwrap_err();
        let message = refused.to_string();
        assert!(matches!(refused, RunDirError::Busy { .. }), "{message}");
        assert!(message.contains("sumito train"), "{message}");
        // Given back, it is free at once, without waiting for the expiry.
        trainer.release();
        let again = b
            .acquire("trainer", Mode::Exclusive, "sumito trainer")
            .unwrap();
        assert!(!again.is_lost());
        // A process at work keeps the run from being deleted, and a
        // deletion keeps processes out.
        let open = a.acquire(OPEN, Mode::Shared, "sumito selfplay").unwrap();
        let second = b.acquire(OPEN, Mode::Shared, "sumito evaluate").unwrap();
        let refused = a.acquire_all().unwrap_err();
        assert!(
            matches!(&refused, RunDirError::InUse { holders, .. } if holders.len() == 2),
            "{refused}"
        );
        drop((open, second, again));
        let deleting = a.acquire_all().unwrap();
        let refused = b.acquire(OPEN, Mode::Shared, "sumito train").unwrap_err();
        assert!(
            matches!(refused, RunDirError::BeingDeleted { .. }),
            "{refused}"
        );
        drop(deleting);
        b.acquire(OPEN, Mode::Shared, "sumito train").unwrap();
    }

    #[test]
    fn leases_work_in_an_object_store_and_in_a_folder() {
        leases_work_on(&Store::open(&Location::parse("memory://leases").unwrap()).unwrap());
        let dir = crate::fsutil::testing::TempDir::new("store-leases");
        leases_work_on(&Store::open(&Location::Local(dir.path().join("run"))).unwrap());
    }

    #[test]
    fn leases_work_on_a_real_s3_server() {
        let server = sumito_store::testing::S3Server::start("leases");
        leases_work_on(&server.store("runs/leased"));
    }

    #[test]
    fn process_leases_leave_nothing_behind() {
        let store = Store::open(&Location::parse("memory://process-leases").unwrap()).unwrap();
        // Long enough that a live holder renews in time on a loaded machine.
        let short = Duration::from_secs(2);
        let leases = leases(&store, short);
        let lease_keys = || -> Vec<String> {
            store
                .list("leases/")
                .unwrap()
                .into_iter()
                .map(|object| object.key)
                .collect()
        };
        // Given back: its chain is gone at once.
        let mut given_back = leases
            .acquire("process-elsewhere-11", Mode::Exclusive, "sumito selfplay")
            .unwrap();
        given_back.release();
        assert_eq!(lease_keys(), Vec::<String>::new());
        // Of a killed process: removed once expired for a lease time, not
        // before; a live one and a role's chain are kept.
        let killed = leases
            .take("process-elsewhere-12", "sumito selfplay")
            .unwrap();
        killed.state.stop.store(true, Ordering::Relaxed);
        std::mem::forget(killed);
        let _alive = leases
            .acquire("process-elsewhere-13", Mode::Exclusive, "sumito selfplay")
            .unwrap();
        let mut trainer = leases
            .acquire("trainer", Mode::Exclusive, "sumito trainer")
            .unwrap();
        trainer.release();
        assert_eq!(
            leases.remove_finished_process_leases().unwrap(),
            Vec::<String>::new()
        );
        std::thread::sleep(short * 2 + Duration::from_millis(500));
        let removed = leases.remove_finished_process_leases().unwrap();
        assert_eq!(removed, vec![epoch_key("process-elsewhere-12", 1)]);
        let left = lease_keys();
        assert!(
            left.iter().any(|key| key.contains("process-elsewhere-13")),
            "{left:?}"
        );
        assert!(left.iter().any(|key| key.contains("/trainer/")), "{left:?}");
    }

    #[test]
    fn a_holder_that_stops_renewing_is_taken_over_and_learns_it_lost() {
        let store = Store::open(&Location::parse("memory://takeover").unwrap()).unwrap();
        let short = Duration::from_millis(600);
        let first = leases(&store, short);
        let held = first.take("trainer", "sumito train").unwrap();
        // The holder's renewer stops, as if its machine froze.
        let state = &held.state;
        state.stop.store(true, Ordering::Relaxed);
        std::thread::sleep(short + Duration::from_millis(300));
        let second = leases(&store, short)
            .acquire("trainer", Mode::Exclusive, "sumito train")
            .unwrap();
        // Resumed, its first check finds the epoch taken, before its
        // renewer runs again.
        assert!(held.is_lost());
        assert!(!state.renew());
        assert!(!second.is_lost());
    }

    fn keys(store: &Store, prefix: &str) -> Vec<String> {
        let mut keys: Vec<String> = store
            .list(prefix)
            .unwrap()
            .into_iter()
            .map(|object| object.key)
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn takeovers_leave_only_the_newest_epochs_and_a_holder_paused_through_them_lost() {
        let store = Store::open(&Location::parse("memory://stale-epochs").unwrap()).unwrap();
        let short = Duration::from_millis(600);
        // Renewals by hand here: the renewer threads stop at once.
        let take = || {
            let held = leases(&store, short)
                .take("trainer", "sumito train")
                .unwrap();
            held.state.stop.store(true, Ordering::Relaxed);
            held
        };
        // A holder that renewed a few times and was then frozen (killed).
        let first = take();
        for _ in 0..3 {
            assert!(first.state.renew());
        }
        assert_eq!(keys(&store, "leases/trainer/"), [epoch_key("trainer", 4)]);
        std::thread::sleep(short + Duration::from_millis(300));
        // The next holder takes over: the frozen one's epoch goes.
        let second = take();
        assert_eq!(keys(&store, "leases/trainer/"), [epoch_key("trainer", 5)]);
        assert!(second.state.renew() && second.state.renew());
        assert_eq!(keys(&store, "leases/trainer/"), [epoch_key("trainer", 7)]);
        // The frozen holder wakes: the epoch after its own is free, but it
        // lost the lease, and leaves nothing behind.
        assert!(!first.state.renew());
        assert!(first.is_lost());
        assert_eq!(keys(&store, "leases/trainer/"), [epoch_key("trainer", 7)]);
        assert!(!second.is_lost());
        drop(second);
        drop(first);
        // Given back: the released epoch alone says the lease is free.
        assert_eq!(keys(&store, "leases/trainer/"), [epoch_key("trainer", 8)]);
    }

    #[test]
    fn the_shared_objects_of_killed_processes_are_removed_by_the_next_start() {
        let store = Store::open(&Location::parse("memory://dead-shared").unwrap()).unwrap();
        let short = Duration::from_millis(500);
        let leases = leases(&store, short);
        let shared = || keys(&store, "leases/open/shared/");
        let killed = leases.take_shared_open("sumito selfplay").unwrap();
        killed.state.stop.store(true, Ordering::Relaxed);
        std::mem::forget(killed);
        let _alive = leases
            .acquire(OPEN, Mode::Shared, "sumito trainer")
            .unwrap();
        assert_eq!(shared().len(), 2);
        // Not before it is a lease time past its expiry...
        let _early = leases
            .acquire(OPEN, Mode::Shared, "sumito evaluate")
            .unwrap();
        assert_eq!(shared().len(), 3);
        std::thread::sleep(short * 2 + Duration::from_millis(300));
        // ...then the next start removes it, and no live holder's.
        let _late = leases
            .acquire(OPEN, Mode::Shared, "sumito evaluate")
            .unwrap();
        assert_eq!(shared().len(), 3, "{:?}", shared());
    }

    /// A process that ran on this host and is gone (killed), as its pid.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn a_killed_holder_of_this_host_has_its_objects_removed_at_once_by_the_next_start() {
        let store = Store::open(&Location::parse("memory://killed-here").unwrap()).unwrap();
        // Long lease times: only knowing the process gone removes them.
        let leases = leases(&store, Duration::from_secs(600));
        let pid = dead_pid();
        let mut record = leases.record("sumito trainer", 7, Duration::from_secs(600));
        record.pid = pid;
        let bytes = serde_json::to_vec(&record).unwrap();
        let process = format!("process-{}-{pid}", hostname());
        store.put(&epoch_key(&process, 1), &bytes).unwrap();
        let shared = shared_key(&format!("{}-{pid}-0000000000000007", hostname()));
        store.put(&shared, &bytes).unwrap();
        // A record without its namespace (an older sumito's) is left to
        // its expiry.
        let mut older = record.clone();
        older.pid_space = None;
        let older_key = epoch_key(&format!("process-{}-{pid}9", hostname()), 1);
        store
            .put(&older_key, &serde_json::to_vec(&older).unwrap())
            .unwrap();
        let _next = leases
            .acquire(OPEN, Mode::Shared, "sumito selfplay")
            .unwrap();
        assert_eq!(
            leases.remove_finished_process_leases().unwrap(),
            vec![epoch_key(&process, 1)]
        );
        assert!(store.get(&shared).unwrap().is_none());
        assert!(store.get(&older_key).unwrap().is_some());
    }

    #[test]
    fn a_process_at_work_sweeps_the_objects_of_killed_ones_as_they_expire() {
        let store = Store::open(&Location::parse("memory://swept").unwrap()).unwrap();
        let short = Duration::from_millis(300);
        let leases = leases(&store, short);
        let _working = leases
            .acquire(OPEN, Mode::Shared, "sumito trainer")
            .unwrap();
        // Another host's holder, killed after this process started.
        let mut record = leases.record("sumito evaluate", 3, short);
        record.host = "elsewhere".into();
        let bytes = serde_json::to_vec(&record).unwrap();
        let shared = shared_key("elsewhere-12-0000000000000003");
        store.put(&shared, &bytes).unwrap();
        store
            .put(&epoch_key("process-elsewhere-12", 4), &bytes)
            .unwrap();
        // Over a lease time past its expiry, the working process's next
        // renewal removes both.
        std::thread::sleep(short * 3 + Duration::from_millis(400));
        assert!(store.get(&shared).unwrap().is_none());
        assert!(
            store
                .get(&epoch_key("process-elsewhere-12", 4))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_run_being_created_is_told_from_one_being_deleted() {
        let store = Store::open(&Location::parse("memory://being-created").unwrap()).unwrap();
        let leases = leases(&store, Duration::from_secs(10));
        let creating = leases
            .acquire(OPEN, Mode::Exclusive, CREATION_COMMAND)
            .unwrap();
        let err = leases
            .acquire(OPEN, Mode::Shared, "sumito selfplay")
            .unwrap_err();
        assert!(matches!(err, RunDirError::BeingCreated { .. }), "{err}");
        drop(creating);
        let deleting = leases
            .acquire(OPEN, Mode::Exclusive, "sumito train")
            .unwrap();
        let err = leases
            .acquire(OPEN, Mode::Shared, "sumito selfplay")
            .unwrap_err();
        assert!(matches!(err, RunDirError::BeingDeleted { .. }), "{err}");
        drop(deleting);
        assert!(
            leases
                .acquire(OPEN, Mode::Shared, "sumito selfplay")
                .is_ok()
        );
    }

    #[test]
    fn a_holder_paused_but_not_taken_over_renews_at_its_first_check_and_goes_on() {
        let store = Store::open(&Location::parse("memory://paused").unwrap()).unwrap();
        let short = Duration::from_millis(600);
        let held = frozen(&leases(&store, short), "evaluator");
        std::thread::sleep(short + Duration::from_millis(300));
        assert!(!held.is_lost());
        // It renewed: a start must watch its new epoch for a whole lease
        // time (its renewer is stopped, so then it takes over).
        assert!(held.state.since_renewal() < short / 2);
        let started = Instant::now();
        let _taken = leases(&store, short)
            .acquire("evaluator", Mode::Exclusive, "sumito evaluate")
            .unwrap();
        assert!(started.elapsed() >= short, "{:?}", started.elapsed());
        assert!(held.is_lost());
    }

    /// A holder of `name` whose renewer is stopped, as if killed or frozen.
    fn frozen(leases: &StoreLeases, name: &str) -> StoreHeld {
        let held = leases.take(name, "sumito train").unwrap();
        held.state.stop.store(true, Ordering::Relaxed);
        held
    }

    #[test]
    fn one_start_takes_over_a_killed_holder_after_a_lease_time_and_refuses_a_live_one() {
        let store = Store::open(&Location::parse("memory://watch").unwrap()).unwrap();
        // Long enough that a live holder renews in time on a loaded machine.
        let ttl = Duration::from_millis(1500);
        let first = leases(&store, ttl);
        let alive = first
            .acquire("trainer", Mode::Exclusive, "sumito train")
            .unwrap();
        // Alive: refused as soon as it renews (every third of the lease
        // time), saying who holds it.
        let started = Instant::now();
        let refused = leases(&store, ttl)
            .acquire("trainer", Mode::Exclusive, "sumito trainer")
            .unwrap_err();
        assert!(started.elapsed() < ttl, "{:?}", started.elapsed());
        let message = refused.to_string();
        assert!(matches!(refused, RunDirError::Busy { .. }), "{message}");
        assert!(
            message.contains("sumito train") && message.ends_with("stop it first"),
            "{message}"
        );
        assert!(!alive.is_lost());
        // Killed: the next start watches its epoch a lease time, then takes
        // over; the old holder, if it wakes, has lost.
        let killed = frozen(&first, "evaluator");
        let started = Instant::now();
        let taken = leases(&store, ttl)
            .acquire("evaluator", Mode::Exclusive, "sumito evaluate")
            .unwrap();
        let waited = started.elapsed();
        assert!(waited >= ttl && waited < ttl * 2, "{waited:?}");
        assert!(killed.is_lost() && !taken.is_lost());
    }

    #[test]
    fn clock_skew_of_seconds_neither_lets_two_hold_a_lease_nor_delays_a_takeover() {
        let store = Store::open(&Location::parse("memory://skew").unwrap()).unwrap();
        let ttl = Duration::from_millis(1500);
        let skewed = |seconds: f64| {
            StoreLeases::new(
                store.clone(),
                PathBuf::from("runs/x"),
                ttl,
                Duration::from_secs(30),
            )
            .with_clock_offset(seconds)
        };
        let (behind, ahead) = (skewed(-4.0), skewed(4.0));
        // A live holder whose clock is 8 s behind the other's: by the
        // other's clock every epoch it writes expired seconds ago, yet it
        // is refused each time.
        let alive = behind
            .acquire("trainer", Mode::Exclusive, "sumito train")
            .unwrap();
        for _ in 0..3 {
            let refused = ahead
                .acquire("trainer", Mode::Exclusive, "sumito trainer")
                .unwrap_err();
            assert!(matches!(refused, RunDirError::Busy { .. }), "{refused}");
        }
        assert!(!alive.is_lost());
        // A killed holder whose clock is 8 s ahead: by the taker's clock
        // its epoch holds for 9.5 s more, yet it is taken over after one
        // lease time.
        let killed = frozen(&ahead, "evaluator");
        let started = Instant::now();
        let taken = behind
            .acquire("evaluator", Mode::Exclusive, "sumito evaluate")
            .unwrap();
        assert!(started.elapsed() < ttl * 2, "{:?}", started.elapsed());
        assert!(killed.is_lost() && !taken.is_lost());
    }
}
