//! Sharing files with the run's storage in a background thread, in the
//! order they were handed over: the trainer keeps training while its
//! checkpoint and candidate are uploaded to an object store, and what
//! depends on an upload (the state naming a checkpoint, the best model
//! naming a candidate) is queued after it, so readers never find a name
//! before what it names.
//!
//! A job that fails stops the queue: the jobs after it are dropped (their
//! order is what makes them safe), and the error is returned by the next
//! [`Uploader::submit`] or [`Uploader::finish`].
//!
//! A guarded queue ([`Uploader::guarded`]) asks its guard right before each
//! job (a role's leases: still held?): a process paused past its lease time
//! and resumed after another took its role over would otherwise go on
//! uploading what it had queued (a state naming its checkpoint over the new
//! holder's) before its next check; the guard's error stops the queue as a
//! failed job does.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{PipelineError, Result};

type Job = Box<dyn FnOnce() -> Result<()> + Send>;

/// Asked right before each job of a guarded queue: an error stops it.
pub type UploadGuard = Arc<dyn Fn() -> Result<()> + Send + Sync>;

/// Jobs waiting or running, the first error, and time spent.
#[derive(Default)]
struct Progress {
    unfinished: usize,
    failed: Option<PipelineError>,
    /// Time the thread spent on jobs, and how many it finished.
    busy: Duration,
    done: u64,
}

/// The queue and its thread; [`Uploader::finish`] waits for every job.
pub struct Uploader {
    jobs: Option<Sender<Job>>,
    progress: Arc<(Mutex<Progress>, Condvar)>,
    thread: Option<JoinHandle<()>>,
    /// How many jobs may wait before [`Uploader::submit`] waits for one to
    /// finish (a bound on the files kept for upload).
    max_unfinished: usize,
}

impl std::fmt::Debug for Uploader {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let progress = self.progress.0.lock().expect("uploader lock");
        formatter
            .debug_struct("Uploader")
            .field("unfinished", &progress.unfinished)
            .field("done", &progress.done)
            .finish()
    }
}

impl Uploader {
    /// A queue that lets `max_unfinished` jobs wait or run (at least 1).
    pub fn new(max_unfinished: usize) -> Uploader {
        Uploader::guarded(max_unfinished, Arc::new(|| Ok(())))
    }

    /// The same queue, asking `guard` right before each job.
    pub fn guarded(max_unfinished: usize, guard: UploadGuard) -> Uploader {
        let (jobs, queue) = channel::<Job>();
        let progress = Arc::new((Mutex::new(Progress::default()), Condvar::new()));
        let thread_progress = Arc::clone(&progress);
        let thread = std::thread::Builder::new()
            .name("uploader".to_owned())
            .spawn(move || {
                let (lock, changed) = &*thread_progress;
                for job in queue {
                    let skip = lock.lock().expect("uploader lock").failed.is_some();
                    let started = Instant::now();
                    let outcome = if skip {
                        Ok(())
                    } else {
                        guard().and_then(|()| job())
                    };
                    let mut progress = lock.lock().expect("uploader lock");
                    progress.busy += started.elapsed();
                    progress.unfinished -= 1;
                    progress.done += 1;
                    if let Err(err) = outcome {
                        progress.failed.get_or_insert(err);
                    }
                    changed.notify_all();
                }
            })
            .expect("spawning the uploader thread");
        Uploader {
            jobs: Some(jobs),
            progress,
            thread: Some(thread),
            max_unfinished: max_unfinished.max(1),
        }
    }

    /// Queues `job` after those queued before; first waits while
    /// `max_unfinished` jobs are unfinished. Returns the time it waited, or
    /// the error of a job that failed.
    pub fn submit(&self, job: impl FnOnce() -> Result<()> + Send + 'static) -> Result<Duration> {
        let waited = self.wait_until(|progress| progress.unfinished < self.max_unfinished)?;
        self.progress.0.lock().expect("uploader lock").unfinished += 1;
        self.jobs
            .as_ref()
            .expect("the queue lives as long as the uploader")
            .send(Box::new(job))
            .expect("the uploader thread runs while the queue lives");
        Ok(waited)
    }

    /// Waits until every queued job has finished; returns the time it
    /// waited, or the error of a job that failed.
    pub fn finish(&self) -> Result<Duration> {
        self.wait_until(|progress| progress.unfinished == 0)
    }

    /// Jobs finished, and the time the thread spent on them.
    pub fn work_done(&self) -> (u64, Duration) {
        let progress = self.progress.0.lock().expect("uploader lock");
        (progress.done, progress.busy)
    }

    fn wait_until(&self, ready: impl Fn(&Progress) -> bool) -> Result<Duration> {
        let started = Instant::now();
        let (lock, changed) = &*self.progress;
        let mut progress = lock.lock().expect("uploader lock");
        while progress.failed.is_none() && !ready(&progress) {
            progress = changed.wait(progress).expect("uploader lock");
        }
        match progress.failed.take() {
            Some(err) => {
                // Said once; the queue stays stopped.
                progress.failed = Some(PipelineError::Upload(
                    "an earlier upload failed (said above)".to_owned(),
                ));
                Err(err)
            }
            None => Ok(started.elapsed()),
        }
    }
}

impl Drop for Uploader {
    /// Lets the queued jobs finish (a dropped trainer shares what it
    /// saved); their errors were returned or are lost with the process.
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn jobs_run_in_order_and_finish_waits_for_them() {
        let uploader = Uploader::new(2);
        let order = Arc::new(Mutex::new(Vec::new()));
        for n in 0..5 {
            let order = Arc::clone(&order);
            uploader
                .submit(move || {
                    std::thread::sleep(Duration::from_millis(5));
                    order.lock().unwrap().push(n);
                    Ok(())
                })
                .unwrap();
        }
        uploader.finish().unwrap();
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(uploader.work_done().0, 5);
    }

    #[test]
    fn a_failed_job_stops_the_queue_and_is_returned_once() {
        let uploader = Uploader::new(4);
        let ran = Arc::new(AtomicUsize::new(0));
        let (go, wait) = std::sync::mpsc::channel::<()>();
        uploader
            .submit(move || {
                wait.recv().unwrap();
                Err(PipelineError::Upload("the store is gone".to_owned()))
            })
            .unwrap();
        let after = Arc::clone(&ran);
        // Queued behind the job that fails: dropped, not run.
        uploader
            .submit(move || {
                after.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .unwrap();
        go.send(()).unwrap();
        let first = uploader.finish().unwrap_err().to_string();
        let second = uploader.finish().unwrap_err().to_string();
        assert!(first.contains("the store is gone"), "{first}");
        assert!(second.contains("an earlier upload failed"), "{second}");
        assert!(uploader.submit(|| Ok(())).is_err());
        assert_eq!(ran.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn dropping_the_uploader_lets_queued_jobs_finish() {
        let ran = Arc::new(AtomicUsize::new(0));
        {
            let uploader = Uploader::new(8);
            for _ in 0..3 {
                let ran = Arc::clone(&ran);
                uploader
                    .submit(move || {
                        std::thread::sleep(Duration::from_millis(5));
                        ran.fetch_add(1, Ordering::Relaxed);
                        Ok(())
                    })
                    .unwrap();
            }
        }
        assert_eq!(ran.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_guarded_queue_runs_nothing_once_its_guard_refuses() {
        let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = Arc::clone(&lost);
        let uploader = Uploader::guarded(
            4,
            Arc::new(move || {
                if seen.load(Ordering::SeqCst) {
                    Err(PipelineError::LeaseLost("trainer".to_owned()))
                } else {
                    Ok(())
                }
            }),
        );
        let ran = Arc::new(AtomicUsize::new(0));
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let (started, running) = std::sync::mpsc::channel::<()>();
        let first = Arc::clone(&ran);
        uploader
            .submit(move || {
                first.fetch_add(1, Ordering::SeqCst);
                started.send(()).unwrap();
                wait.recv().unwrap();
                Ok(())
            })
            .unwrap();
        running.recv().unwrap();
        // The role is lost while the first job runs (the process paused
        // mid-upload and resumed after a takeover): the state queued
        // behind it is not written.
        let second = Arc::clone(&ran);
        uploader
            .submit(move || {
                second.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .unwrap();
        lost.store(true, Ordering::SeqCst);
        go.send(()).unwrap();
        let err = uploader.finish().unwrap_err();
        assert!(matches!(err, PipelineError::LeaseLost(_)), "{err}");
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }
}
