//! The server's connections, bounded: at most a number of them open at
//! once, each closed when it stays silent too long. A connection that has
//! sent nothing yet is closed after a short wait (a browser sends its
//! request at once), one that has spoken after a longer one (the page's
//! socket answers the server's pings, so an open page never goes silent);
//! the HTTP layer itself closes one whose request headers do not come
//! whole in time (`server`). When every place is taken, an idle connection
//! makes room for the new one: the oldest that has not sent a byte yet,
//! else the oldest that is not in use (neither a request being answered nor
//! an open page: one sending its headers a byte at a time, or kept alive
//! between requests); if all are in use, the new one is closed. So a crowd
//! of silent or slow connections cannot keep the page from loading, and no
//! number of them exhausts the process's descriptors.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::serve::Listener;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// How long connections may stay silent.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// Before the first byte.
    pub first_byte: Duration,
    /// Between reads afterwards.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            first_byte: Duration::from_secs(10),
            idle: Duration::from_secs(60),
        }
    }
}

/// What the listener and a connection share.
#[derive(Debug, Default)]
struct Shared {
    /// Whether the connection has sent a byte.
    heard: AtomicBool,
    /// Requests being answered on it, and pages open on it.
    in_use: AtomicUsize,
    /// Set to close the connection from the listener.
    closed: AtomicBool,
    /// Who to wake when `closed` is set.
    waker: Mutex<Option<Waker>>,
}

impl Shared {
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Some(waker) = self.waker.lock().map(|mut w| w.take()).unwrap_or(None) {
            waker.wake();
        }
    }
}

/// A TCP listener that bounds its connections.
#[derive(Debug)]
pub struct GuardedListener {
    inner: TcpListener,
    cap: usize,
    timeouts: Timeouts,
    /// The open connections, oldest first.
    open: VecDeque<Weak<Shared>>,
}

impl GuardedListener {
    pub fn new(inner: TcpListener, cap: usize, timeouts: Timeouts) -> GuardedListener {
        GuardedListener {
            inner,
            cap: cap.max(1),
            timeouts,
            open: VecDeque::new(),
        }
    }

    /// Makes room for one more connection if it can; whether it could.
    fn make_room(&mut self) -> bool {
        self.open.retain(|c| c.strong_count() > 0);
        if self.open.len() < self.cap {
            return true;
        }
        let first = |idle: fn(&Shared) -> bool| {
            self.open
                .iter()
                .position(|c| c.upgrade().is_some_and(|c| idle(&c)))
        };
        let silent = first(|c| !c.heard.load(Ordering::SeqCst))
            .or_else(|| first(|c| c.in_use.load(Ordering::SeqCst) == 0));
        match silent {
            Some(index) => {
                if let Some(connection) = self.open.remove(index).and_then(|c| c.upgrade()) {
                    connection.close();
                }
                true
            }
            None => false,
        }
    }
}

impl Listener for GuardedListener {
    type Io = GuardedStream;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (GuardedStream, std::net::SocketAddr) {
        loop {
            let (stream, address) = match self.inner.accept().await {
                Ok(accepted) => accepted,
                Err(_) => {
                    // Out of descriptors or a connection reset before it was
                    // taken: wait a moment rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            if !self.make_room() {
                drop(stream); // every place is taken by a live connection
                continue;
            }
            // Small messages go out at once: without TCP_NODELAY a reply
            // waits for the peer's delayed acknowledgement (~40 ms on Linux).
            let _ = stream.set_nodelay(true);
            let shared = Arc::new(Shared::default());
            self.open.push_back(Arc::downgrade(&shared));
            let stream = GuardedStream {
                inner: stream,
                sleep: Box::pin(tokio::time::sleep(self.timeouts.first_byte)),
                idle: self.timeouts.idle,
                shared,
            };
            return (stream, address);
        }
    }

    fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection of a [`GuardedListener`]: reading fails once it stayed
/// silent too long or the listener closed it, which ends its connection.
#[derive(Debug)]
pub struct GuardedStream {
    inner: TcpStream,
    sleep: Pin<Box<Sleep>>,
    idle: Duration,
    shared: Arc<Shared>,
}

impl GuardedStream {
    /// The handle by which the server marks the connection in use.
    pub fn connection(&self) -> Connection {
        Connection(self.shared.clone())
    }
}

/// A connection as the server sees it, to mark it in use (a request being
/// answered, a page open on it) so that it is not taken for an idle one.
#[derive(Clone, Debug)]
pub struct Connection(Arc<Shared>);

impl Connection {
    /// Marks the connection in use until the guard is dropped.
    pub fn in_use(&self) -> InUse {
        self.0.in_use.fetch_add(1, Ordering::SeqCst);
        InUse(self.0.clone())
    }
}

/// A connection marked in use ([`Connection::in_use`]).
#[derive(Debug)]
pub struct InUse(Arc<Shared>);

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.in_use.fetch_sub(1, Ordering::SeqCst);
    }
}

impl AsyncRead for GuardedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.shared.closed.load(Ordering::SeqCst) {
            return Poll::Ready(Err(io::ErrorKind::ConnectionAborted.into()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.shared.heard.store(true, Ordering::SeqCst);
                    let next = Instant::now() + this.idle;
                    this.sleep.as_mut().reset(next);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => {
                if let Ok(mut waker) = this.shared.waker.lock() {
                    *waker = Some(cx.waker().clone());
                }
                // (Closed between the check above and the waker's storing.)
                if this.shared.closed.load(Ordering::SeqCst) {
                    return Poll::Ready(Err(io::ErrorKind::ConnectionAborted.into()));
                }
                match this.sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::ErrorKind::TimedOut.into())),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn listener(cap: usize, timeouts: Timeouts) -> (GuardedListener, std::net::SocketAddr) {
        let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = inner.local_addr().unwrap();
        (GuardedListener::new(inner, cap, timeouts), address)
    }

    /// Whether the server side closed `client` (a read gives end of file or
    /// an error within `wait`).
    async fn closed(client: &mut TcpStream, wait: Duration) -> bool {
        let mut byte = [0u8; 1];
        matches!(
            tokio::time::timeout(wait, client.read(&mut byte)).await,
            Ok(Ok(0) | Err(_))
        )
    }

    #[tokio::test]
    async fn silent_connections_time_out_and_make_room_for_new_ones() {
        let timeouts = Timeouts {
            first_byte: Duration::from_millis(300),
            idle: Duration::from_secs(30),
        };
        let (mut listener, address) = listener(2, timeouts).await;
        // The server side echoes nothing; it reads until its stream fails.
        let serve = |mut stream: GuardedStream| {
            tokio::spawn(async move {
                let mut buf = [0u8; 16];
                while let Ok(n) = stream.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                }
            })
        };
        let mut silent = TcpStream::connect(address).await.unwrap();
        let (stream, _) = listener.accept().await;
        serve(stream);
        let mut talking = TcpStream::connect(address).await.unwrap();
        talking.write_all(b"GET").await.unwrap();
        let (stream, _) = listener.accept().await;
        serve(stream);
        tokio::time::sleep(Duration::from_millis(50)).await;
        // The cap is reached: a third connection evicts the silent one, not
        // the one that spoke.
        let _third = TcpStream::connect(address).await.unwrap();
        let (stream, _) = listener.accept().await;
        serve(stream);
        assert!(closed(&mut silent, Duration::from_secs(5)).await);
        assert!(!closed(&mut talking, Duration::from_millis(500)).await);
        // Every place taken by connections that spoke: the oldest not in use
        // (one sending its headers a byte at a time) makes room, not one in
        // use (a page).
        let (mut crowded, address) = self::listener(2, timeouts).await;
        let mut page = TcpStream::connect(address).await.unwrap();
        page.write_all(b"G").await.unwrap();
        let (stream, _) = crowded.accept().await;
        let _page_in_use = stream.connection().in_use();
        serve(stream);
        let mut slow = TcpStream::connect(address).await.unwrap();
        slow.write_all(b"G").await.unwrap();
        let (stream, _) = crowded.accept().await;
        serve(stream);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let _fresh = TcpStream::connect(address).await.unwrap();
        let (stream, _) = crowded.accept().await;
        serve(stream);
        assert!(closed(&mut slow, Duration::from_secs(5)).await);
        assert!(!closed(&mut page, Duration::from_millis(500)).await);
        // A silent connection alone is closed after its first-byte wait.
        let mut alone = TcpStream::connect(address).await.unwrap();
        let (stream, _) = crowded.accept().await;
        serve(stream);
        assert!(closed(&mut alone, Duration::from_secs(5)).await);
    }
}
