//! A whole training run kept on an object store (the in-process memory
//! store: the same code path as S3 but for the transport, which the
//! end-to-end tests cover with a real S3 server): created, trained for two
//! generations, resumed, exported nothing locally but the working folder,
//! and deleted.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::run::{Location, RunCommand, RunOptions, start_or_resume, train};
use crate::rundir::RunDir;

fn tiny_config(generations: u32) -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(repo.join("configs/tiny.toml")).unwrap();
    let text = text.replace("generations = 2", &format!("generations = {generations}"));
    let dir = std::env::temp_dir().join(format!("sumito-object-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("tiny-{generations}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn quiet() -> RunOptions {
    RunOptions {
        progress: false,
        stop: Arc::new(AtomicBool::new(false)),
        print: false,
        resume: None,
    }
}

fn keys(run: &RunDir, prefix: &str) -> Vec<String> {
    run.store()
        .list(prefix)
        .unwrap()
        .into_iter()
        .map(|object| object.key)
        .collect()
}

#[test]
fn a_run_on_an_object_store_trains_resumes_and_is_deleted() {
    let location = Location::parse("memory://object-store-run").unwrap();
    let open = start_or_resume(&location, &tiny_config(2), false, RunCommand::Train).unwrap();
    assert!(!open.resumed);
    let work = open.run.root().to_owned();
    assert!(work.is_dir(), "the working folder {}", work.display());
    train(&open, &quiet()).unwrap();
    let run = open.run.clone();

    // Everything the loop made is an object of the store.
    assert_eq!(run.model_generations().unwrap(), [0, 1, 2]);
    for generation in [0, 1, 2] {
        let files = keys(&run, &format!("{}/", RunDir::model_key(generation)));
        assert!(
            files.iter().any(|key| key.ends_with("/manifest.json"))
                && files.iter().any(|key| key.ends_with(".safetensors")),
            "{files:?}"
        );
    }
    assert!(run.best().unwrap().is_some());
    assert!(!keys(&run, "models/best/").is_empty());
    assert!(
        run.get_json::<serde_json::Value>("trainer/state.json")
            .unwrap()
            .is_some()
    );
    assert!(!keys(&run, "trainer/ckpt-").is_empty());
    assert!(!keys(&run, "replay/model-000000/").is_empty());
    assert!(!run.evaluated_generations().unwrap().is_empty());
    assert!(run.get_text("elo.txt").unwrap().is_some());
    assert!(!keys(&run, "tensorboard/events.out.tfevents.").is_empty());
    let log = run.read_log().unwrap();
    assert!(log.contains("new run with"), "{log}");
    assert!(log.contains("candidate gen-2"), "{log}");
    // The trainer keeps one checkpoint: the one its state names.
    let checkpoints: std::collections::BTreeSet<String> = keys(&run, "trainer/ckpt-")
        .into_iter()
        .map(|key| key.split('/').nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(checkpoints.len(), 1, "{checkpoints:?}");
    drop(run);
    drop(open);
    assert!(!work.exists(), "the working folder outlived its run");

    // Resumed from the store alone (a fresh working folder), one more
    // generation.
    let open = start_or_resume(&location, &tiny_config(3), false, RunCommand::Train).unwrap();
    assert!(open.resumed);
    train(&open, &quiet()).unwrap();
    assert_eq!(open.run.model_generations().unwrap(), [0, 1, 2, 3]);
    let log = open.run.read_log().unwrap();
    assert!(log.contains("candidate gen-3"), "{log}");
    // A second trainer is refused while this one holds the role.
    let refused = start_or_resume(&location, &tiny_config(3), false, RunCommand::Train)
        .expect_err("a second trainer");
    assert!(refused.to_string().contains("held by"), "{refused}");
    let run = open.run.clone();
    drop(open);
    // Every process lease was given back whole: none is left behind.
    let process_leases: Vec<String> = keys(&run, "leases/")
        .into_iter()
        .filter(|key| key.contains("/process-"))
        .collect();
    assert_eq!(process_leases, Vec::<String>::new());
    drop(run);

    // --fresh deletes every object, then starts over.
    let open = start_or_resume(&location, &tiny_config(1), true, RunCommand::Train).unwrap();
    assert!(!open.resumed);
    assert_eq!(open.run.model_generations().unwrap(), Vec::<u32>::new());
    assert!(keys(&open.run, "replay/").is_empty());
    drop(open);
    RunDir::delete_at(&location).unwrap();
    assert!(!RunDir::exists_at(&location).unwrap());
}

/// A trainer whose role was taken over while a write of its state was
/// still to land (queued, or in flight when it paused) cannot write it over
/// the new holder's: each start writes its own state over the version it
/// read, and every later write is conditional on the version written last.
#[test]
fn a_trainer_taken_over_cannot_write_its_state_over_the_new_holders() {
    use crate::error::PipelineError;
    use crate::trainer::{TrainerRole, TrainerState};

    let location = Location::parse("memory://trainer-fence").unwrap();
    let open = start_or_resume(&location, &tiny_config(1), false, RunCommand::Train).unwrap();
    let (run, config) = (open.run.clone(), open.config.clone());
    crate::run::prepare(&run, &config).unwrap();
    // The guard of the leases would stop a holder that knows it lost them;
    // these two never learn it, as a paused process would not.
    let unaware: crate::uploader::UploadGuard = Arc::new(|| Ok(()));
    let mut old = TrainerRole::open(&run, &config, Arc::clone(&unaware)).unwrap();
    old.finish_uploads().unwrap();
    let mut new = TrainerRole::open(&run, &config, unaware).unwrap();
    let state = |run: &RunDir| {
        run.get_json::<TrainerState>("trainer/state.json")
            .unwrap()
            .unwrap()
    };
    let taken_over = state(&run);
    assert_eq!(taken_over.holder, new.state().holder);
    assert_ne!(old.state().holder, new.state().holder);

    // The old trainer's next state is refused, and says why.
    let before = || Ok(());
    let err = old
        .save_checkpoint(&before)
        .and_then(|()| old.finish_uploads())
        .unwrap_err();
    assert!(matches!(err, PipelineError::Overwritten { .. }), "{err}");
    assert!(
        err.to_string().contains("trainer role was taken over"),
        "{err}"
    );
    assert_eq!(state(&run), taken_over);

    // The new one writes on.
    new.save_checkpoint(&before).unwrap();
    new.finish_uploads().unwrap();
    assert_eq!(state(&run).checkpoint, new.state().checkpoint);
    assert!(new.state().checkpoint.is_some());
    drop((old, new, open));
    RunDir::delete_at(&location).unwrap();
}

/// A candidate decided with no step trained since the trainer's last
/// checkpoint (its training was done when a stop came before it was
/// written, and the run resumed) is counted in the trainer's state, so that
/// the next start neither makes it again nor overwrites it.
#[test]
fn a_candidate_without_a_step_since_the_checkpoint_is_counted_in_the_state() {
    use crate::trainer::{TrainerRole, TrainerState};

    let location = Location::parse("memory://candidate-without-a-step").unwrap();
    let open = start_or_resume(&location, &tiny_config(1), false, RunCommand::Train).unwrap();
    let (run, config) = (open.run.clone(), open.config.clone());
    crate::run::prepare(&run, &config).unwrap();
    let allowed: crate::uploader::UploadGuard = Arc::new(|| Ok(()));
    let before = || Ok(());
    let mut trainer = TrainerRole::open(&run, &config, Arc::clone(&allowed)).unwrap();
    trainer.save_checkpoint(&before).unwrap();
    trainer.finish_uploads().unwrap();
    let checkpoint = trainer.state().checkpoint.clone();
    assert!(checkpoint.is_some());
    drop(trainer);

    let mut trainer = TrainerRole::open(&run, &config, Arc::clone(&allowed)).unwrap();
    assert_eq!(trainer.write_candidate(true, &before).unwrap(), 1);
    trainer.finish_uploads().unwrap();
    let state = run
        .get_json::<TrainerState>("trainer/state.json")
        .unwrap()
        .unwrap();
    assert_eq!((state.generation, &state.checkpoint), (1, &checkpoint));
    drop(trainer);
    let trainer = TrainerRole::open(&run, &config, allowed).unwrap();
    assert_eq!(trainer.state().generation, 1);
    assert_eq!(run.model_generations().unwrap(), [0, 1]);
    drop((trainer, open));
    RunDir::delete_at(&location).unwrap();
}
