//! An S3 server on loopback for the store's tests: moto's server mode
//! (`tests/support/moto_server.py`, run by the python of `.venv/`, or `MONAPI_TEST_PYTHON`), on a
//! free port, with the buckets asked for. It stops when dropped.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

pub struct S3Server {
    pub port: u16,
    child: Child,
}

/// The secret key the tests give; it must never show.
pub const SECRET_KEY: &str = "s3cr3t-never-shown-4d1e";

impl S3Server {
    pub fn start(buckets: &[&str]) -> S3Server {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let python = std::env::var_os("MONAPI_TEST_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(".venv/bin/python"));
        let mut command = Command::new(&python);
        command
            .arg(root.join("tests/support/moto_server.py"))
            .args(buckets)
            .stderr(Stdio::null());
        let (child, port) = start_server(command, "make python-env installs moto");
        S3Server { port, child }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// An object's URL for plain HTTP requests (moto checks no signature).
    pub fn object_url(&self, bucket: &str, key: &str) -> String {
        format!("{}/{bucket}/{key}", self.endpoint())
    }

    /// An object's bytes (an unsigned GET: the script lets anyone read the test buckets).
    pub async fn get(&self, bucket: &str, key: &str) -> bytes::Bytes {
        let answer = reqwest::get(self.object_url(bucket, key)).await.unwrap();
        answer.error_for_status().unwrap().bytes().await.unwrap()
    }

    /// Flips a byte in the middle of an object (as a bad disk or a hand would); returns its
    /// bytes as they were.
    pub async fn garble(&self, bucket: &str, key: &str) -> bytes::Bytes {
        let whole = self.get(bucket, key).await;
        let mut garbled = whole.to_vec();
        let middle = garbled.len() / 2;
        garbled[middle] ^= 0x55;
        self.put(bucket, key, garbled).await;
        whole
    }

    /// Writes an object (an unsigned PUT, as for [`get`](S3Server::get)).
    pub async fn put(&self, bucket: &str, key: &str, bytes: Vec<u8>) {
        let put = reqwest::Client::new()
            .put(self.object_url(bucket, key))
            .body(bytes);
        put.send().await.unwrap().error_for_status().unwrap();
    }

    /// The keys under `prefix` in `bucket`, sorted (one page: the tests' stores are small).
    pub async fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        let url = format!("{}/{bucket}?list-type=2&prefix={prefix}", self.endpoint());
        let body = reqwest::get(url).await.unwrap().text().await.unwrap();
        let mut keys: Vec<String> = body
            .split("<Key>")
            .skip(1)
            .filter_map(|part| {
                part.split_once("</Key>")
                    .map(|(key, _)| key.replace("&amp;", "&"))
            })
            .collect();
        keys.sort();
        keys
    }
}

/// Starts a test server's script, which prints its port on its first line and serves until its
/// standard input closes; `hint` says what installs it.
pub fn start_server(mut command: Command, hint: &str) -> (Child, u16) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} ({hint}): {e}"));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{command:?} printed {line:?}, not its port"));
    (child, port)
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
