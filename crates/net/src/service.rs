//! The batched inference service: many threads (self-play workers, arena
//! games) ask for evaluations at once; a worker thread gathers their
//! requests into batches and runs one forward pass per batch.
//!
//! A caller encodes its positions itself (in parallel with the others), sends
//! them with a reply channel and blocks on it; the worker waits for the first
//! request, then keeps collecting until it holds `max_batch` positions, until
//! `max_wait_ms` have passed, or until every client is waiting on it
//! (whichever comes first), runs the model, and answers every request with its
//! own rows. Nothing busy-waits: both sides block on channels.
//!
//! A service may run several workers, each with its own copy of the network
//! (KataGo's server threads): while one runs a forward pass, the next takes
//! the waiting requests. With a client that splits each evaluation into as
//! many requests ([`InferenceClient::with_parallel_requests`]), a single
//! search then uses every core: the small batches of one game are too small
//! for libtorch's own threads to share (on two cores one search ran 1.05×
//! faster with two intra-op threads than with one), but two forward passes
//! of one thread each run side by side.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sumito_engine::Position;

use crate::NetError;
use crate::config::{InferenceConfig, NetShape, SymmetryMode};
use crate::evaluate::{
    NetOutput, PackedModel, PositionEvaluator, Utilities, evaluate_with, run_packed,
};
use crate::model::OutputColumns;
use sumito_game::GameKind;

type Reply = Result<Vec<f32>, String>;

struct Request {
    inputs: Vec<f32>,
    rows: usize,
    reply: SyncSender<Reply>,
}

enum Message {
    Evaluate(Request),
    Stop,
}

#[derive(Debug, Default)]
struct Shared {
    /// Live clients: when this many requests are waiting, nobody else can
    /// send one, so the worker stops waiting.
    clients: AtomicUsize,
    batches: AtomicU64,
    rows: AtomicU64,
    requests: AtomicU64,
}

/// Counters of the service since it started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceStats {
    /// Forward passes run.
    pub batches: u64,
    /// Positions (rows) evaluated.
    pub rows: u64,
    /// Requests answered.
    pub requests: u64,
}

impl ServiceStats {
    pub fn mean_batch(&self) -> f64 {
        self.rows as f64 / self.batches.max(1) as f64
    }
}

/// Owns the worker threads. Dropping it stops them; clients still alive
/// then get [`NetError::Service`] errors.
#[derive(Debug)]
pub struct InferenceService {
    sender: Sender<Message>,
    shared: Arc<Shared>,
    symmetry: SymmetryMode,
    shape: NetShape,
    workers: Vec<JoinHandle<()>>,
}

/// A handle for one calling thread; cheap to clone. Give each thread its own
/// clone: the service counts clients to know when everybody is waiting.
#[derive(Debug)]
pub struct InferenceClient {
    sender: Sender<Message>,
    shared: Arc<Shared>,
    pub(crate) symmetry: SymmetryMode,
    /// Weights of the predicted and of the actual marble difference in the
    /// values the search gets ([`Utilities`]); 0 by default.
    pub(crate) utilities: Utilities,
    /// Each evaluation is sent as this many requests (at most one per
    /// position), all sent before the first answer is awaited.
    parallel_requests: usize,
    shape: NetShape,
}

impl InferenceService {
    /// Starts one worker thread, which takes ownership of `model`.
    pub fn start<M: PackedModel + 'static>(
        model: M,
        config: &InferenceConfig,
    ) -> Result<InferenceService, NetError> {
        InferenceService::start_replicas(vec![model], config)
    }

    /// Starts one worker thread per model in `replicas` (copies of one
    /// network), which take turns at the requests. On the CPU each worker of
    /// several computes with its share of the cores (one each on a machine
    /// with as many cores as workers), so that their forward passes run side
    /// by side instead of crowding each other.
    pub fn start_replicas<M: PackedModel + 'static>(
        replicas: Vec<M>,
        config: &InferenceConfig,
    ) -> Result<InferenceService, NetError> {
        config.validate()?;
        let device = config.device.resolve()?;
        let Some(first) = replicas.first() else {
            return Err(NetError::Service(
                "an inference service needs at least one copy of the network".to_owned(),
            ));
        };
        let shape = first.shape();
        for model in &replicas {
            if model.device() != device {
                return Err(NetError::Config {
                    key: "inference.device",
                    problem: format!(
                        "is {}, but the model was loaded on {:?}",
                        config.device,
                        model.device()
                    ),
                });
            }
            if model.shape() != shape {
                return Err(NetError::Service(
                    "the copies of an inference service's network differ in their inputs or outputs"
                        .to_owned(),
                ));
            }
        }
        let count = replicas.len();
        let threads_each = (count > 1 && device == tch::Device::Cpu).then(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            (cores / count).max(1)
        });
        let (sender, receiver) = mpsc::channel();
        let receiver = Arc::new(Mutex::new(receiver));
        let shared = Arc::new(Shared::default());
        let max_batch = config.max_batch;
        let max_wait = Duration::from_secs_f64(config.max_wait_ms / 1000.0);
        let mut workers = Vec::with_capacity(count);
        for (index, model) in replicas.into_iter().enumerate() {
            let receiver = Arc::clone(&receiver);
            let worker_shared = Arc::clone(&shared);
            let spawned = std::thread::Builder::new()
                .name(format!("sumito-inference-{index}"))
                .spawn(move || {
                    if let Some(threads) = threads_each {
                        // libtorch's intra-op thread count is kept per thread
                        // (OpenMP's), so this sets this worker's only.
                        tch::set_num_threads(i32::try_from(threads).unwrap_or(1));
                    }
                    serve(&model, &receiver, &worker_shared, max_batch, max_wait);
                });
            match spawned {
                Ok(worker) => workers.push(worker),
                Err(err) => {
                    for _ in &workers {
                        let _ = sender.send(Message::Stop);
                    }
                    for worker in workers {
                        let _ = worker.join();
                    }
                    return Err(NetError::Service(format!(
                        "cannot start the worker thread: {err}"
                    )));
                }
            }
        }
        Ok(InferenceService {
            sender,
            shared,
            symmetry: config.symmetry,
            shape,
            workers,
        })
    }

    /// Worker threads (copies of the network) of this service.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// A new client handle.
    pub fn client(&self) -> InferenceClient {
        self.shared.clients.fetch_add(1, Ordering::SeqCst);
        InferenceClient {
            sender: self.sender.clone(),
            shared: Arc::clone(&self.shared),
            symmetry: self.symmetry,
            utilities: Utilities::default(),
            parallel_requests: 1,
            shape: self.shape,
        }
    }

    pub fn stats(&self) -> ServiceStats {
        ServiceStats {
            batches: self.shared.batches.load(Ordering::Relaxed),
            rows: self.shared.rows.load(Ordering::Relaxed),
            requests: self.shared.requests.load(Ordering::Relaxed),
        }
    }
}

impl Drop for InferenceService {
    fn drop(&mut self) {
        // Each worker stops at the first `Stop` it takes.
        for _ in &self.workers {
            let _ = self.sender.send(Message::Stop);
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

impl Clone for InferenceClient {
    fn clone(&self) -> Self {
        self.shared.clients.fetch_add(1, Ordering::SeqCst);
        InferenceClient {
            sender: self.sender.clone(),
            shared: Arc::clone(&self.shared),
            symmetry: self.symmetry,
            utilities: self.utilities,
            parallel_requests: self.parallel_requests,
            shape: self.shape,
        }
    }
}

impl Drop for InferenceClient {
    fn drop(&mut self) {
        self.shared.clients.fetch_sub(1, Ordering::SeqCst);
    }
}

impl InferenceClient {
    /// The same client with the search's values shifted by `weight` times
    /// the predicted marble difference (see `crate::search`).
    #[must_use]
    pub fn with_score_utility(mut self, weight: f32) -> InferenceClient {
        self.utilities.score = weight;
        self
    }

    /// The same client with the search's values shifted by `weight` times
    /// the marble difference of the position evaluated (see
    /// `crate::search`).
    #[must_use]
    pub fn with_material_utility(mut self, weight: f32) -> InferenceClient {
        self.utilities.material = weight;
        self
    }

    /// The same client sending each evaluation of several positions as
    /// `requests` requests at once (split as evenly as possible), so that a
    /// service with that many workers runs them side by side: one search
    /// then uses several cores.
    #[must_use]
    pub fn with_parallel_requests(mut self, requests: usize) -> InferenceClient {
        self.parallel_requests = requests.max(1);
        self
    }

    /// The game of the service's network (its outputs).
    pub fn game(&self) -> GameKind {
        self.shape.game
    }

    /// The inputs and outputs of the service's network.
    pub fn shape(&self) -> NetShape {
        self.shape
    }

    /// Evaluates `rows` encoded positions (`inputs.len() == rows *
    /// self.shape().input_len()`) and returns their packed outputs (`rows *
    /// self.game().packed_len()` floats); blocks until the batch that holds
    /// them has run.
    pub fn run_encoded(&self, inputs: Vec<f32>, rows: usize) -> Result<Vec<f32>, NetError> {
        let input_len = self.shape.input_len();
        assert_eq!(
            inputs.len(),
            rows * input_len,
            "inputs must hold {rows} encoded positions"
        );
        let parts = self.parallel_requests.min(rows).max(1);
        if parts == 1 {
            return self.receive(self.send(inputs, rows)?);
        }
        let mut answers = Vec::with_capacity(parts);
        let mut start = 0;
        for part in 0..parts {
            let part_rows = rows / parts + usize::from(part < rows % parts);
            let end = start + part_rows;
            answers.push(self.send(
                inputs[start * input_len..end * input_len].to_vec(),
                part_rows,
            )?);
            start = end;
        }
        let mut outputs = Vec::with_capacity(rows * self.shape.game.packed_len());
        for answer in answers {
            outputs.extend(self.receive(answer)?);
        }
        Ok(outputs)
    }

    /// Sends one request; its answer comes on the returned channel.
    fn send(&self, inputs: Vec<f32>, rows: usize) -> Result<Receiver<Reply>, NetError> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.sender
            .send(Message::Evaluate(Request {
                inputs,
                rows,
                reply,
            }))
            .map_err(|_| service_stopped())?;
        Ok(answer)
    }

    fn receive(&self, answer: Receiver<Reply>) -> Result<Vec<f32>, NetError> {
        answer
            .recv()
            .map_err(|_| service_stopped())?
            .map_err(NetError::Service)
    }
}

fn service_stopped() -> NetError {
    NetError::Service("the inference service has stopped".to_owned())
}

impl PositionEvaluator for InferenceClient {
    fn evaluate_positions(&self, positions: &[Position]) -> Result<Vec<NetOutput>, NetError> {
        evaluate_with(
            positions,
            self.symmetry,
            self.shape.push_off_planes,
            |inputs, rows| self.run_encoded(inputs.to_vec(), rows),
        )
    }
}

/// The worker loop; returns when the service is dropped.
fn serve<M: PackedModel>(
    model: &M,
    receiver: &Mutex<Receiver<Message>>,
    shared: &Shared,
    max_batch: usize,
    max_wait: Duration,
) {
    let mut carried: Option<Request> = None;
    let mut batch: Vec<Request> = Vec::new();
    let mut inputs: Vec<f32> = Vec::new();
    let mut stop = false;
    while !stop {
        // The worker that holds the receiver gathers the next batch; the
        // others wait for it here, or run their forward passes meanwhile.
        let receiver = receiver
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let first = match carried.take() {
            Some(request) => request,
            None => match receiver.recv() {
                Ok(Message::Evaluate(request)) => request,
                Ok(Message::Stop) | Err(_) => return,
            },
        };
        let mut rows = first.rows;
        batch.push(first);
        let deadline = Instant::now() + max_wait;
        while rows < max_batch && batch.len() < shared.clients.load(Ordering::SeqCst) {
            let message = match receiver.try_recv() {
                Ok(message) => message,
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    match receiver.recv_timeout(left) {
                        Ok(message) => message,
                        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
                    }
                }
            };
            match message {
                Message::Stop => {
                    stop = true;
                    break;
                }
                Message::Evaluate(request) if rows + request.rows > max_batch => {
                    carried = Some(request);
                    break;
                }
                Message::Evaluate(request) => {
                    rows += request.rows;
                    batch.push(request);
                }
            }
        }
        drop(receiver);
        inputs.clear();
        for request in &batch {
            inputs.extend_from_slice(&request.inputs);
        }
        // A panic inside libtorch (e.g. out of memory on the GPU) fails this
        // batch's requests, not the service.
        let result =
            std::panic::catch_unwind(AssertUnwindSafe(|| run_packed(model, &inputs, rows)))
                .unwrap_or_else(|panic| {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_else(|| "unknown panic".to_owned());
                    Err(NetError::Service(format!(
                        "forward pass panicked: {message}"
                    )))
                });
        shared.batches.fetch_add(1, Ordering::Relaxed);
        shared.rows.fetch_add(rows as u64, Ordering::Relaxed);
        shared
            .requests
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        match result {
            Ok(outputs) => {
                let mut offset = 0;
                for request in batch.drain(..) {
                    let end = offset + request.rows * model.game().packed_len();
                    let _ = request.reply.send(Ok(outputs[offset..end].to_vec()));
                    offset = end;
                }
            }
            Err(err) => {
                let message = err.to_string();
                for request in batch.drain(..) {
                    let _ = request.reply.send(Err(message.clone()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::tests::sample_positions;
    use crate::evaluate::DirectEvaluator;
    use crate::model::PolicyValueNet;
    use crate::model::tests::tiny_config;
    use tch::Device;

    fn close(a: &NetOutput, b: &NetOutput) -> bool {
        let near = |x: f32, y: f32| (x - y).abs() <= 1e-4 * (1.0 + x.abs().max(y.abs()));
        a.logits.len() == b.logits.len()
            && a.logits.iter().zip(&b.logits).all(|(&x, &y)| near(x, y))
            && a.wdl.iter().zip(&b.wdl).all(|(&x, &y)| near(x, y))
            && near(a.marble_diff, b.marble_diff)
    }

    /// A service on a tiny network, and the direct evaluation of `positions`.
    fn service_and_direct_outputs(
        positions: &[Position],
        max_batch: usize,
        max_wait_ms: f64,
    ) -> (InferenceService, Vec<NetOutput>) {
        let direct = DirectEvaluator::new(
            PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap(),
            SymmetryMode::None,
        );
        let expected = direct.evaluate_positions(positions).unwrap();
        let config = InferenceConfig {
            max_batch,
            max_wait_ms,
            ..InferenceConfig::default()
        };
        let service = InferenceService::start(direct.into_inner(), &config).unwrap();
        (service, expected)
    }

    #[test]
    fn concurrent_callers_each_get_their_own_result() {
        let positions = sample_positions(64, 7);
        let (service, expected) = service_and_direct_outputs(&positions, 16, 20.0);
        std::thread::scope(|scope| {
            for thread in 0..8 {
                let client = service.client();
                let (positions, expected) = (&positions, &expected);
                scope.spawn(move || {
                    for request in 0..50 {
                        let index = (thread * 50 + request * 7) % positions.len();
                        let output = client
                            .evaluate_positions(&positions[index..=index])
                            .unwrap();
                        assert!(
                            close(&output[0], &expected[index]),
                            "thread {thread} request {request}"
                        );
                    }
                });
            }
        });
        let stats = service.stats();
        assert_eq!(stats.requests, 400);
        assert_eq!(stats.rows, 400);
        assert!(
            stats.batches < 400,
            "requests were never batched: {stats:?}"
        );
    }

    #[test]
    fn large_and_mixed_requests_are_split_back_correctly() {
        let positions = sample_positions(40, 8);
        let (service, expected) = service_and_direct_outputs(&positions, 8, 5.0);
        std::thread::scope(|scope| {
            // One request larger than max_batch, and several of mixed sizes.
            for (start, end) in [(0, 20), (20, 23), (23, 24), (24, 40)] {
                let client = service.client();
                let (positions, expected) = (&positions, &expected);
                scope.spawn(move || {
                    let outputs = client.evaluate_positions(&positions[start..end]).unwrap();
                    for (output, expected) in outputs.iter().zip(&expected[start..end]) {
                        assert!(close(output, expected));
                    }
                });
            }
        });
        assert_eq!(service.stats().rows, 40);
    }

    #[test]
    fn workers_answer_a_split_evaluation_as_one_forward_pass_would() {
        let positions = sample_positions(13, 21);
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let direct = DirectEvaluator::new(net.replica().unwrap(), SymmetryMode::None);
        let expected = direct.evaluate_positions(&positions).unwrap();
        let replicas = vec![net.replica().unwrap(), net];
        let service =
            InferenceService::start_replicas(replicas, &InferenceConfig::default()).unwrap();
        assert_eq!(service.workers(), 2);
        let client = service.client().with_parallel_requests(3);
        let outputs = client.evaluate_positions(&positions).unwrap();
        assert_eq!(outputs.len(), positions.len());
        for (output, expected) in outputs.iter().zip(&expected) {
            assert!(close(output, expected));
        }
        // One position cannot be split; 13 went as 5 + 4 + 4.
        let single = client.evaluate_positions(&positions[..1]).unwrap();
        assert!(close(&single[0], &expected[0]));
        let stats = service.stats();
        assert_eq!((stats.requests, stats.rows), (4, 14));
    }

    /// A network whose forward passes wait (up to 10 s) until `wanted` of
    /// them run at once, and which records the most it saw.
    struct Rendezvous {
        net: PolicyValueNet,
        running: Arc<(Mutex<(usize, usize)>, std::sync::Condvar)>,
        wanted: usize,
    }

    impl PackedModel for Rendezvous {
        fn device(&self) -> Device {
            Device::Cpu
        }

        fn forward_packed(&self, input: &tch::Tensor) -> Result<tch::Tensor, NetError> {
            let (lock, changed) = &*self.running;
            let mut state = lock.lock().unwrap();
            state.0 += 1;
            state.1 = state.1.max(state.0);
            changed.notify_all();
            let (mut state, _) = changed
                .wait_timeout_while(state, Duration::from_secs(10), |state| {
                    state.1 < self.wanted
                })
                .unwrap();
            state.0 -= 1;
            drop(state);
            Ok(self.net.forward_packed(input))
        }
    }

    #[test]
    fn the_workers_run_the_parts_of_one_evaluation_side_by_side() {
        let running = Arc::new((Mutex::new((0, 0)), std::sync::Condvar::new()));
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let replicas = (0..2)
            .map(|_| Rendezvous {
                net: net.replica().unwrap(),
                running: Arc::clone(&running),
                wanted: 2,
            })
            .collect();
        let service =
            InferenceService::start_replicas(replicas, &InferenceConfig::default()).unwrap();
        let client = service.client().with_parallel_requests(2);
        client.evaluate_positions(&sample_positions(16, 5)).unwrap();
        assert_eq!(
            running.0.lock().unwrap().1,
            2,
            "the two halves did not run at the same time"
        );
    }

    #[test]
    fn a_service_needs_a_network() {
        let message = InferenceService::start_replicas(
            Vec::<PolicyValueNet>::new(),
            &InferenceConfig::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(message.contains("at least one copy"), "{message}");
    }

    #[test]
    fn a_model_on_another_device_is_refused() {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let config = InferenceConfig {
            device: crate::DeviceSpec::Cuda(0),
            ..InferenceConfig::default()
        };
        // Without CUDA the device itself is refused; with it, the mismatch.
        let message = InferenceService::start(net, &config)
            .unwrap_err()
            .to_string();
        assert!(message.contains("cuda:0"), "{message}");
    }

    #[test]
    fn clients_of_a_stopped_service_get_an_error() {
        let net = PolicyValueNet::new(&tiny_config(), Device::Cpu).unwrap();
        let service = InferenceService::start(net, &InferenceConfig::default()).unwrap();
        let client = service.client();
        let positions = sample_positions(1, 9);
        assert_eq!(client.evaluate_positions(&positions).unwrap().len(), 1);
        drop(service);
        let message = client
            .evaluate_positions(&positions)
            .unwrap_err()
            .to_string();
        assert!(message.contains("stopped"), "{message}");
    }
}
