//! The batched inference service: many threads (self-play workers, arena
//! games) ask for evaluations at once; one worker thread gathers their
//! requests into batches and runs one forward pass per batch.
//!
//! A caller encodes its positions itself (in parallel with the others), sends
//! them with a reply channel and blocks on it; the worker waits for the first
//! request, then keeps collecting until it holds `max_batch` positions, until
//! `max_wait_ms` have passed, or until every client is waiting on it
//! (whichever comes first), runs the model, and answers every request with its
//! own rows. Nothing busy-waits: both sides block on channels.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sumito_engine::Position;

use crate::NetError;
use crate::config::{InferenceConfig, NetGame, SymmetryMode};
use crate::evaluate::{NetOutput, PackedModel, PositionEvaluator, evaluate_with, run_packed};

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

/// Owns the worker thread. Dropping it stops the worker; clients still alive
/// then get [`NetError::Service`] errors.
#[derive(Debug)]
pub struct InferenceService {
    sender: Sender<Message>,
    shared: Arc<Shared>,
    symmetry: SymmetryMode,
    game: NetGame,
    worker: Option<JoinHandle<()>>,
}

/// A handle for one calling thread; cheap to clone. Give each thread its own
/// clone: the service counts clients to know when everybody is waiting.
#[derive(Debug)]
pub struct InferenceClient {
    sender: Sender<Message>,
    shared: Arc<Shared>,
    pub(crate) symmetry: SymmetryMode,
    /// Weight of the predicted marble difference in the values the search
    /// gets (`crate::search::with_score_utility`); 0 by default.
    pub(crate) score_utility: f32,
    game: NetGame,
}

impl InferenceService {
    /// Starts the worker thread, which takes ownership of `model`.
    pub fn start<M: PackedModel + 'static>(
        model: M,
        config: &InferenceConfig,
    ) -> Result<InferenceService, NetError> {
        config.validate()?;
        let device = config.device.resolve()?;
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
        let game = model.game();
        let (sender, receiver) = mpsc::channel();
        let shared = Arc::new(Shared::default());
        let worker_shared = Arc::clone(&shared);
        let max_batch = config.max_batch;
        let max_wait = Duration::from_secs_f64(config.max_wait_ms / 1000.0);
        let worker = std::thread::Builder::new()
            .name("sumito-inference".to_owned())
            .spawn(move || serve(&model, &receiver, &worker_shared, max_batch, max_wait))
            .map_err(|err| NetError::Service(format!("cannot start the worker thread: {err}")))?;
        Ok(InferenceService {
            sender,
            shared,
            symmetry: config.symmetry,
            game,
            worker: Some(worker),
        })
    }

    /// A new client handle.
    pub fn client(&self) -> InferenceClient {
        self.shared.clients.fetch_add(1, Ordering::SeqCst);
        InferenceClient {
            sender: self.sender.clone(),
            shared: Arc::clone(&self.shared),
            symmetry: self.symmetry,
            score_utility: 0.0,
            game: self.game,
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
        let _ = self.sender.send(Message::Stop);
        if let Some(worker) = self.worker.take() {
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
            score_utility: self.score_utility,
            game: self.game,
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
        self.score_utility = weight;
        self
    }

    /// The game of the service's network (its inputs and outputs).
    pub fn game(&self) -> NetGame {
        self.game
    }

    /// Evaluates `rows` encoded positions (`inputs.len() == rows *
    /// self.game().input_len()`) and returns their packed outputs (`rows *
    /// self.game().packed_len()` floats); blocks until the batch that holds
    /// them has run.
    pub fn run_encoded(&self, inputs: Vec<f32>, rows: usize) -> Result<Vec<f32>, NetError> {
        assert_eq!(
            inputs.len(),
            rows * self.game.input_len(),
            "inputs must hold {rows} encoded positions"
        );
        let (reply, answer) = mpsc::sync_channel(1);
        let stopped = || NetError::Service("the inference service has stopped".to_owned());
        self.sender
            .send(Message::Evaluate(Request {
                inputs,
                rows,
                reply,
            }))
            .map_err(|_| stopped())?;
        answer
            .recv()
            .map_err(|_| stopped())?
            .map_err(NetError::Service)
    }
}

impl PositionEvaluator for InferenceClient {
    fn evaluate_positions(&self, positions: &[Position]) -> Result<Vec<NetOutput>, NetError> {
        evaluate_with(positions, self.symmetry, |inputs, rows| {
            self.run_encoded(inputs.to_vec(), rows)
        })
    }
}

/// The worker loop; returns when the service is dropped.
fn serve<M: PackedModel>(
    model: &M,
    receiver: &Receiver<Message>,
    shared: &Shared,
    max_batch: usize,
    max_wait: Duration,
) {
    let mut carried: Option<Request> = None;
    let mut batch: Vec<Request> = Vec::new();
    let mut inputs: Vec<f32> = Vec::new();
    let mut stop = false;
    while !stop {
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
