//! The roles of a run on an S3-compatible object store, as separate
//! processes (the S3 server `sumito-s3-test-server` on 127.0.0.1, started by the test):
//! one trainer, two self-play workers and one evaluator share
//! `s3://bucket/run`; a second trainer is refused while the first lives; the
//! first is killed with `kill -9` and replaced once its lease expires,
//! without losing a game; a corrupted and a truncated game object are
//! skipped with a warning naming them; games of both workers are trained on.
//! A run rides out the store's outage (the server killed and restarted).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sumito_store::testing::S3Server;

use crate::common;
use crate::training;

use common::Scratch;
use training::{SUMITO, text, tiny_config};

const RUN: &str = "s3://bucket/run";
/// Self-play of the tiny config far outruns its trainer: the workers stop
/// at this many games, and so does the trainer once it has read them.
const GAMES: u32 = 1500;

/// `sumito ROLE --no-progress --run-dir s3://bucket/run EXTRA...`, with the
/// server's credentials and endpoint in the environment and a cache folder
/// of the test's own.
fn role(server: &S3Server, cache: &Path, name: &str, extra: &[&str]) -> Command {
    let mut command = Command::new(SUMITO);
    command
        .args([name, "--no-progress", "--run-dir", RUN])
        .args(extra)
        .env("OMP_WAIT_POLICY", "PASSIVE")
        .env("SUMITO_CACHE_DIR", cache)
        .envs(server.settings());
    command
}

/// `command` started with its output into the file `output` (a pipe that
/// nobody reads would stop a long-running role once full).
fn spawn(mut command: Command, output: &Path) -> Child {
    let file = std::fs::File::create(output).unwrap();
    command
        .stdout(Stdio::from(file.try_clone().unwrap()))
        .stderr(Stdio::from(file))
        .spawn()
        .unwrap()
}

/// The process id in the newest epoch of the trainer's lease.
fn trainer_lease_holder(server: &S3Server) -> Option<u64> {
    let store = server.store("run");
    let newest = store.list("leases/trainer/").unwrap().into_iter().last()?;
    let record: serde_json::Value =
        serde_json::from_slice(&store.get(&newest.key).unwrap()?).unwrap();
    record["pid"].as_u64()
}

/// The keys of the game objects in the run.
fn games(server: &S3Server) -> Vec<String> {
    server
        .store("run")
        .list("replay/")
        .unwrap()
        .into_iter()
        .map(|object| object.key)
        // The container's files, and a file of the form before it.
        .filter(|key| key.ends_with(".replay") || key.ends_with(".game"))
        .collect()
}

/// The process id in a game's name (`MILLIS-HOST-PID-N.replay`).
fn writer_pid(key: &str) -> u32 {
    let name = key.rsplit('/').next().unwrap();
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let parts: Vec<&str> = stem.rsplitn(3, '-').collect();
    parts[1].parse().unwrap()
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Kills the processes it names when dropped (a failing test leaves none
/// running).
struct KillOnDrop(Vec<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = Command::new("kill")
                .args(["-9", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Waits for `child` to exit, failing if it takes longer than `limit`.
fn stops_within(child: &mut Child, what: &str, limit: Duration) {
    let asked = Instant::now();
    wait_until(&format!("{what} to stop"), limit, || {
        child.try_wait().unwrap().is_some()
    });
    eprintln!("{what} stopped {:?} after the signal", asked.elapsed());
}

fn kill(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn roles_on_an_object_store_share_one_run_and_a_killed_trainer_is_replaced() {
    let server = S3Server::start("roles");
    let scratch = Scratch::new("object-store-roles");
    let cache = scratch.0.join("cache");
    // A budget of games, not generations: self-play runs far ahead of such
    // a tiny net's training, and each game is trained on less.
    let config = tiny_config(&scratch.0, 1000);
    let text_of_config = std::fs::read_to_string(&config)
        .unwrap()
        .replace("generations = 1000", &format!("games = {GAMES}"))
        .replace("samples_per_position = 1.0", "samples_per_position = 0.1");
    std::fs::write(&config, text_of_config).unwrap();
    let config = config.to_str().unwrap();
    let log = |name: &str| scratch.0.join(format!("{name}.out"));

    let mut trainer = spawn(
        role(&server, &cache, "trainer", &["--config", config]),
        &log("trainer"),
    );
    let mut reaper = KillOnDrop(vec![trainer.id()]);
    let store = server.store("run");
    wait_until("the run's first model", Duration::from_secs(60), || {
        store.list("models/best/").unwrap().len() == 1
    });

    // A second trainer is refused, naming the one that holds the role.
    let second = role(&server, &cache, "trainer", &[]).output().unwrap();
    assert!(!second.status.success());
    let message = text(&second);
    assert!(
        message.contains("trainer role") && message.contains("held by"),
        "{message}"
    );

    let workers = [
        spawn(role(&server, &cache, "selfplay", &[]), &log("selfplay-1")),
        spawn(role(&server, &cache, "selfplay", &[]), &log("selfplay-2")),
    ];
    let mut evaluator = spawn(role(&server, &cache, "evaluate", &[]), &log("evaluate"));
    reaper
        .0
        .extend(workers.iter().map(Child::id).chain([evaluator.id()]));
    // Killed while the games come in.
    wait_until("games", Duration::from_secs(120), || {
        !games(&server).is_empty()
    });

    assert!(
        trainer.try_wait().unwrap().is_none(),
        "the first trainer finished before it could be killed"
    );
    kill(&trainer, "KILL");
    let killed_at = Instant::now();
    trainer.wait().unwrap();
    let before_kill = games(&server).len();

    // A corrupted game (a whole object with garbage in it) and a truncated
    // one (cut short behind the server's back: its size and checksum no
    // longer match what the writer recorded).
    store
        .put(
            "replay/model-000000/0000000000001-elsewhere-1-000000.game",
            b"SUMITOG\0 not a game",
        )
        .unwrap();
    let victim = games(&server).into_iter().last().unwrap();
    let on_disk = server.root.0.join("bucket/run").join(&victim);
    let bytes = std::fs::read(&on_disk).unwrap();
    std::fs::write(&on_disk, &bytes[..bytes.len() / 2]).unwrap();

    // A start that waits to take the role over stops on SIGINT while it
    // watches, cleanly and at once (its signal handler is installed before
    // it opens the run).
    let waiting_path = log("waiting");
    let mut waiting = spawn(role(&server, &cache, "trainer", &[]), &waiting_path);
    reaper.0.push(waiting.id());
    std::thread::sleep(Duration::from_secs(3));
    assert!(waiting.try_wait().unwrap().is_none());
    kill(&waiting, "INT");
    stops_within(
        &mut waiting,
        "a start waiting for the lease",
        Duration::from_secs(5),
    );
    let said = std::fs::read_to_string(&waiting_path).unwrap();
    assert!(waiting.wait().unwrap().success(), "{said}");
    assert!(
        said.contains("stopped on request before the role began"),
        "{said}"
    );

    // One start replaces the killed trainer: it watches the lease go
    // unrenewed for the role lease time (10 s), then takes it over.
    let output_path = log("replacement");
    let mut replacement = spawn(role(&server, &cache, "trainer", &[]), &output_path);
    reaper.0.push(replacement.id());
    wait_until(
        "the replacement to take the trainer lease",
        Duration::from_secs(40),
        || {
            assert!(
                replacement.try_wait().unwrap().is_none(),
                "the replacement stopped: {}",
                std::fs::read_to_string(&output_path).unwrap()
            );
            trainer_lease_holder(&server) == Some(u64::from(replacement.id()))
        },
    );
    let took = killed_at.elapsed();
    let said = std::fs::read_to_string(&output_path).unwrap();
    assert!(
        said.contains("the trainer lease of") && said.contains("taking it over"),
        "{said}"
    );
    assert!(took >= Duration::from_secs(10), "{took:?}");
    eprintln!("the killed trainer was replaced {took:?} after the kill");
    let deadline = Instant::now() + Duration::from_secs(300);
    while replacement.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = replacement.kill();
            panic!(
                "the replacement trainer did not finish; it said:\n{}\n{} games in the run",
                std::fs::read_to_string(&output_path).unwrap(),
                games(&server).len()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let finished = replacement.wait().unwrap();
    let output = std::fs::read_to_string(&output_path).unwrap();
    assert!(finished.success(), "{output}");
    assert!(output.contains("budget spent"), "{output}");
    for name in [
        "0000000000001-elsewhere-1-000000.game",
        victim.rsplit('/').next().unwrap(),
    ] {
        assert!(
            output.contains("warning: skipped replay file") && output.contains(name),
            "{name} not reported: {output}"
        );
    }
    // The replacement read the games up to the budget, every one played
    // before the kill included (but the truncated one).
    let all = games(&server).len() as u64;
    let read: u64 = output
        .lines()
        .filter_map(|line| line.strip_prefix("read "))
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .next()
        .unwrap_or_else(|| panic!("no count of games read: {output}"));
    assert!(
        read as usize + 1 >= before_kill && read >= u64::from(GAMES),
        "{read} games read of {all}, {before_kill} before the kill"
    );
    // Games of both workers.
    let pids: std::collections::BTreeSet<u32> =
        games(&server).iter().map(|key| writer_pid(key)).collect();
    assert!(
        workers.iter().all(|worker| pids.contains(&worker.id())),
        "{pids:?}"
    );

    // A worker still at work stops within 5 s of SIGTERM, the other when
    // its budget is spent; the evaluator within 5 s of SIGINT.
    let mut workers = workers.into_iter();
    let mut first = workers.next().unwrap();
    if first.try_wait().unwrap().is_none() {
        kill(&first, "TERM");
        stops_within(&mut first, "the self-play worker", Duration::from_secs(5));
    }
    assert!(first.wait().unwrap().success());
    for mut worker in workers {
        wait_until(
            "a worker to spend the budget",
            Duration::from_secs(60),
            || worker.try_wait().unwrap().is_some(),
        );
        assert!(worker.wait().unwrap().success());
    }
    kill(&evaluator, "INT");
    stops_within(&mut evaluator, "the evaluator", Duration::from_secs(5));
    assert!(evaluator.wait().unwrap().success());

    // A trainer given a larger budget reads the games, trains, waits for
    // more, and stops within 5 s of SIGINT, its state written on the way
    // out over the version it wrote at its start (the fence against a
    // trainer taken over).
    let larger = std::fs::read_to_string(config).unwrap().replace(
        &format!("games = {GAMES}"),
        &format!("games = {}", GAMES * 2),
    );
    let larger_config = scratch.0.join("larger.toml");
    std::fs::write(&larger_config, larger).unwrap();
    let output_path = log("last-trainer");
    let mut last = spawn(
        role(
            &server,
            &cache,
            "trainer",
            &["--config", larger_config.to_str().unwrap()],
        ),
        &output_path,
    );
    reaper.0.push(last.id());
    wait_until("the last trainer to start", Duration::from_secs(60), || {
        trainer_lease_holder(&server) == Some(u64::from(last.id()))
    });
    std::thread::sleep(Duration::from_secs(2));
    kill(&last, "INT");
    stops_within(&mut last, "the trainer", Duration::from_secs(5));
    let said = std::fs::read_to_string(&output_path).unwrap();
    assert!(last.wait().unwrap().success(), "{said}");
    let state: serde_json::Value =
        serde_json::from_slice(&store.get("trainer/state.json").unwrap().unwrap()).unwrap();
    let holder = state["holder"].as_str().unwrap_or_default().to_owned();
    assert!(
        holder.contains(&format!("-{}-", last.id())),
        "{holder}: {said}"
    );
    assert!(!store.list("models/best/").unwrap().is_empty());
    assert!(!store.list("logs/").unwrap().is_empty());
    // Every process removed its working folder.
    let left: Vec<_> = std::fs::read_dir(cache.join("runs"))
        .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_run_rides_out_an_outage_of_its_object_store() {
    let mut server = S3Server::start("outage");
    let scratch = Scratch::new("store-outage");
    let generations = 6;
    let config = tiny_config(&scratch.0, generations);
    let output = scratch.0.join("train.txt");
    let mut child = spawn(
        role(
            &server,
            &scratch.0.join("cache"),
            "train",
            &["--config", config.to_str().unwrap()],
        ),
        &output,
    );
    let _guard = KillOnDrop(vec![child.id()]);
    // Once the run is under way (its first games stored), the store goes
    // away for 10 s: longer than the client's own retries (about a second).
    wait_until("the first games", Duration::from_secs(120), || {
        !games(&server).is_empty()
    });
    server.stop();
    std::thread::sleep(Duration::from_secs(10));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run stopped during the outage: {}",
        std::fs::read_to_string(&output).unwrap()
    );
    server.restart();
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the run did not finish");
        std::thread::sleep(Duration::from_millis(200));
    };
    let said = std::fs::read_to_string(&output).unwrap();
    assert!(status.success(), "{said}");
    // Said once that it waits, once that the store is back.
    assert_eq!(said.matches("is unreachable (").count(), 1, "{said}");
    assert_eq!(said.matches("is reachable again").count(), 1, "{said}");
    let keys: Vec<String> = server
        .store("run")
        .list("")
        .unwrap()
        .into_iter()
        .map(|object| object.key)
        .collect();
    let evaluated = keys
        .iter()
        .filter(|key| key.starts_with("evaluations/gen-"))
        .count();
    assert_eq!(evaluated, generations as usize, "{keys:?}");
}
