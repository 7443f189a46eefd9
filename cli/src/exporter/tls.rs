//! HTTPS for the exporter: a listener that hands `axum::serve` its connections once their TLS
//! handshake has ended, so that one server (its graceful shutdown included) serves both HTTP and
//! HTTPS. Each handshake runs in a task of its own, bounded in time: a client that connects and
//! says nothing, or too slowly, holds up no other.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How long a client has to complete its handshake. A scraper on the same network needs a few
/// round trips.
const HANDSHAKE: Duration = Duration::from_secs(10);

pub(crate) struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    /// The handshakes under way; each ends with its connection, or with nothing when it failed.
    handshakes: JoinSet<Option<(TlsStream<TcpStream>, SocketAddr)>>,
}

impl TlsListener {
    pub(crate) fn new(tcp: TcpListener, config: Arc<ServerConfig>) -> TlsListener {
        TlsListener {
            tcp,
            acceptor: TlsAcceptor::from(config),
            handshakes: JoinSet::new(),
        }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    // Cancel-safe, as axum's loop needs when shutdown comes: accepting and joining are; the
    // handshakes under way stay in the set (and end with it when the listener is dropped).
    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            tokio::select! {
                accepted = self.tcp.accept() => match accepted {
                    Ok((stream, peer)) => {
                        // As the plain server's: a scrape's answer is two writes (server.rs).
                        let _ = stream.set_nodelay(true);
                        let acceptor = self.acceptor.clone();
                        self.handshakes.spawn(async move {
                            match tokio::time::timeout(HANDSHAKE, acceptor.accept(stream)).await {
                                Ok(Ok(stream)) => Some((stream, peer)),
                                // Plain HTTP, a scanner, a client that refuses the certificate.
                                Ok(Err(error)) => {
                                    tracing::debug!("TLS handshake with {peer} failed: {error}");
                                    None
                                }
                                Err(_) => {
                                    tracing::debug!("TLS handshake with {peer} timed out");
                                    None
                                }
                            }
                        });
                    }
                    Err(error) => accept_failed(error).await,
                },
                Some(done) = self.handshakes.join_next(), if !self.handshakes.is_empty() => {
                    if let Ok(Some(connection)) = done {
                        return connection;
                    }
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// What axum's own TCP listener does when accepting fails: a connection that went away before
/// it was accepted is nothing; anything else (out of file descriptors) is logged, and accepting
/// pauses rather than spins.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!("accepting a connection failed: {error}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
