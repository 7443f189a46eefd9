//! A small forwarding proxy on loopback, for the proxy tests: plain HTTP requests in absolute
//! form are passed on to their server, `CONNECT host:port` opens a tunnel. It counts the
//! connections it carried to a server, and refuses a client without the expected
//! `Proxy-Authorization` (HTTP 407).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub struct ForwardingProxy {
    pub addr: SocketAddr,
    forwarded: Arc<AtomicU64>,
    destinations: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl ForwardingProxy {
    /// A proxy that wants `user:password` (Basic), or nothing when `None`.
    pub async fn start(credentials: Option<(&str, &str)>) -> ForwardingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let forwarded = Arc::new(AtomicU64::new(0));
        let expected =
            credentials.map(|(user, password)| format!("Basic {}", base64(&format!("{user}:{password}"))));
        let destinations = Arc::new(Mutex::new(Vec::new()));
        let carried = Carried {
            forwarded: forwarded.clone(),
            destinations: destinations.clone(),
        };
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(carry(stream, expected.clone(), carried.clone()));
            }
        });
        ForwardingProxy {
            addr,
            forwarded,
            destinations,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Connections carried to a server so far.
    pub fn forwarded(&self) -> u64 {
        self.forwarded.load(Ordering::SeqCst)
    }

    /// The servers (`host:port`) of the connections carried so far.
    pub fn destinations(&self) -> Vec<String> {
        self.destinations.lock().unwrap().clone()
    }
}

/// What the proxy records of the connections it carries.
#[derive(Clone)]
struct Carried {
    forwarded: Arc<AtomicU64>,
    destinations: Arc<Mutex<Vec<String>>>,
}

impl Carried {
    fn record(&self, destination: &str) {
        self.forwarded.fetch_add(1, Ordering::SeqCst);
        self.destinations.lock().unwrap().push(destination.to_string());
    }
}

impl Drop for ForwardingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn carry(mut client: TcpStream, expected: Option<String>, carried: Carried) {
    // The request head: up to the blank line (bounded).
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16 * 1024 || client.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).to_string();
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_string();
    let authorized = match &expected {
        None => true,
        Some(want) => lines.any(|line| {
            line.split_once(':').is_some_and(|(name, value)| {
                name.eq_ignore_ascii_case("proxy-authorization") && value.trim() == want
            })
        }),
    };
    if !authorized {
        let _ = client
            .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return;
    }
    let mut parts = request_line.split(' ');
    let (method, target) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    if method == "CONNECT" {
        let Ok(mut server) = TcpStream::connect(target).await else {
            return;
        };
        carried.record(target);
        let _ = client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await;
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        return;
    }
    // Absolute form: http://host:port/path -> connect to host:port, send the path. Later
    // requests on this connection go to the same server unchanged (they are in absolute form,
    // which servers accept too).
    let Some(rest) = target.strip_prefix("http://") else {
        return;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let Ok(mut server) = TcpStream::connect(authority).await else {
        return;
    };
    carried.record(authority);
    let path = if path.is_empty() { "/" } else { path };
    let rewritten = text.replacen(target, path, 1);
    if server.write_all(rewritten.as_bytes()).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}

fn base64(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
