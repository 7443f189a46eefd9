//! The accept loop. Hand-written over hyper rather than `axum::serve` because faults
//! need to close a TCP connection without a response (or mid-body), which a handler
//! cannot do: each connection task listens for a close signal that the fault layer
//! finds in the request's extensions.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use crate::app::App;

/// How long a stopping server lets in-flight requests finish.
const GRACE: Duration = Duration::from_secs(1);

/// Closes the connection that carried a request, without answering it.
#[derive(Clone)]
pub(crate) struct ConnectionControl(Arc<Notify>);

impl ConnectionControl {
    pub(crate) fn close(&self) {
        // notify_one keeps a permit, so a close before the task waits is not lost.
        self.0.notify_one();
    }
}

/// Serves until `shutdown` turns true (or its sender is gone), then lets open
/// connections finish within [`GRACE`]. With `tls`, every connection starts with a TLS
/// handshake (in its own task, so a slow or refused handshake holds up no other).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    app: Arc<App>,
    tls: Option<TlsAcceptor>,
    shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    let mut stop = shutdown.clone();
    loop {
        tokio::select! {
            _ = stopped(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    app.connection_accepted();
                    // Small responses must not wait for Nagle's algorithm.
                    let _ = stream.set_nodelay(true);
                    connections.spawn(handshake(stream, tls.clone(), router.clone(), app.link.rtt(), shutdown.clone()));
                }
                Err(error) => {
                    // E.g. out of file descriptors: pause instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

/// Serves one accepted connection, after the TLS handshake when there is one (a client that
/// refuses the certificate ends the connection there, before any request). Each handshake
/// costs the modelled link's round trip first: TCP's, then TLS 1.3's.
async fn handshake(
    stream: TcpStream,
    tls: Option<TlsAcceptor>,
    router: Router,
    rtt: Duration,
    shutdown: watch::Receiver<bool>,
) {
    tokio::time::sleep(rtt).await;
    match tls {
        None => connection(stream, router, shutdown).await,
        Some(acceptor) => {
            tokio::time::sleep(rtt).await;
            if let Ok(stream) = acceptor.accept(stream).await {
                connection(stream, router, shutdown).await;
            }
        }
    }
}

async fn connection<S>(stream: S, router: Router, mut shutdown: watch::Receiver<bool>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let control = ConnectionControl(Arc::new(Notify::new()));
    let service = {
        let control = control.clone();
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(control.clone());
            router.clone().oneshot(request)
        })
    };
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    // Returning drops `conn` and with it the socket: that is how a fault closes it.
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = control.0.notified() => {}
        _ = stopped(&mut shutdown) => {
            conn.as_mut().graceful_shutdown();
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = control.0.notified() => {}
                _ = tokio::time::sleep(GRACE) => {}
            }
        }
    }
}

/// Resolves once shutdown is requested or the emulator handle is gone.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    // The guard that `wait_for` returns is not Send: drop it here.
    let _ = shutdown.wait_for(|stop| *stop).await;
}
