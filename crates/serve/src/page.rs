//! One page's WebSocket as the server reads it: its messages in order, those
//! that come while a search runs kept to be answered after it (a bounded
//! number), and the server's pings that keep an open page from counting as
//! silent. A page that goes is noticed while the server waits for anything.

use std::collections::VecDeque;
use std::time::Duration;

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};

use crate::protocol::ServerMessage;
use crate::session::error;

/// How often the server pings a page: a browser answers by itself, which
/// keeps an open page's connection from counting as silent.
const PING_EVERY: Duration = Duration::from_secs(20);
/// Messages a page may send while one of its searches runs; they are
/// answered in order after it. More are refused.
const MAX_QUEUED: usize = 16;

/// What a page's analysis needs of the page: to send it a message, and to
/// wait for work while reading it. [`Page`] is the socket's; a test's page
/// is silent and answers nothing.
pub(crate) trait PageLink {
    /// Sends `message`; `false` once the page is gone.
    fn send(&mut self, message: &ServerMessage) -> impl Future<Output = bool>;
    /// [`Page::until_message`].
    fn until_message<T>(
        &mut self,
        work: impl Future<Output = T>,
    ) -> impl Future<Output = Option<Option<T>>>;
    /// [`Page::wait`].
    fn wait<T>(&mut self, work: impl Future<Output = T>) -> impl Future<Output = Option<T>>;
}

impl PageLink for Page {
    fn send(&mut self, message: &ServerMessage) -> impl Future<Output = bool> {
        Page::send(self, message)
    }
    fn until_message<T>(
        &mut self,
        work: impl Future<Output = T>,
    ) -> impl Future<Output = Option<Option<T>>> {
        Page::until_message(self, work)
    }
    fn wait<T>(&mut self, work: impl Future<Output = T>) -> impl Future<Output = Option<T>> {
        Page::wait(self, work)
    }
}

/// One page's socket: what it sent but was not answered yet, and its pings.
pub(crate) struct Page {
    socket: WebSocket,
    queued: VecDeque<Utf8Bytes>,
    /// Messages refused because too many were queued.
    refused: usize,
    ping: tokio::time::Interval,
}

impl Page {
    pub(crate) fn new(socket: WebSocket) -> Page {
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Page {
            socket,
            queued: VecDeque::new(),
            refused: 0,
            ping,
        }
    }

    pub(crate) async fn send(&mut self, message: &ServerMessage) -> bool {
        match serde_json::to_string(message) {
            Ok(text) => self.socket.send(Message::Text(text.into())).await.is_ok(),
            Err(_) => false,
        }
    }

    /// The page's next message; `None` once it is gone.
    pub(crate) async fn next(&mut self) -> Option<Utf8Bytes> {
        if self.refused > 0 {
            let refused = std::mem::take(&mut self.refused);
            let message = error(format!(
                "{refused} messages were refused: at most {MAX_QUEUED} may wait while a search runs"
            ));
            if !self.send(&message).await {
                return None;
            }
        }
        if let Some(text) = self.queued.pop_front() {
            return Some(text);
        }
        loop {
            tokio::select! {
                incoming = self.socket.recv() => match incoming {
                    Some(Ok(Message::Text(text))) => return Some(text),
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
                    Some(Ok(_)) => {} // pings, pongs, binary
                },
                _ = self.ping.tick() => {
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    /// Whether messages of the page wait their turn.
    pub(crate) fn has_queued(&self) -> bool {
        !self.queued.is_empty()
    }

    /// Waits for `work` until the page sends a message (kept to be
    /// answered in turn): `Some(Some(done))` when `work` finished first,
    /// `Some(None)` when a message came first (or waits already), `None`
    /// when the page went. A search ends this way the moment the page moves
    /// on or asks it to stop, not at its next update. `work` must be safe to
    /// drop unfinished (a channel's `recv`).
    pub(crate) async fn until_message<T>(
        &mut self,
        work: impl Future<Output = T>,
    ) -> Option<Option<T>> {
        if self.has_queued() {
            return Some(None);
        }
        tokio::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return Some(Some(done)),
                incoming = self.socket.recv() => match incoming {
                    Some(Ok(Message::Text(text))) => {
                        self.queued.push_back(text);
                        return Some(None);
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
                    Some(Ok(_)) => {}
                },
                _ = self.ping.tick() => {
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    /// Waits for `work` while still reading the page, so that a page that
    /// goes is noticed at once; its messages meanwhile wait their turn.
    /// `None` when the page went first.
    pub(crate) async fn wait<T>(&mut self, work: impl Future<Output = T>) -> Option<T> {
        tokio::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return Some(done),
                incoming = self.socket.recv() => match incoming {
                    Some(Ok(Message::Text(text))) => {
                        if self.queued.len() < MAX_QUEUED {
                            self.queued.push_back(text);
                        } else {
                            self.refused += 1;
                        }
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
                    Some(Ok(_)) => {}
                },
                _ = self.ping.tick() => {
                    if self.socket.send(Message::Ping(Default::default())).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }
}
