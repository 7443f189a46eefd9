//! An Azure Blob server on loopback for the store's tests: Azurite, from the project's npm
//! dev dependencies (`tests/support/azurite_server.mjs`, run by `node`), in memory, on a free
//! port, with the containers asked for. It stops when dropped.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct AzureServer {
    pub port: u16,
    child: Child,
}

/// Azurite's account and key: the emulator's public constants.
pub const ACCOUNT: &str = "devstoreaccount1";
pub const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

impl AzureServer {
    pub fn start(containers: &[&str]) -> AzureServer {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut command = Command::new("node");
        command
            .arg(root.join("tests/support/azurite_server.mjs"))
            .args(containers)
            .stderr(Stdio::inherit());
        let (child, port) = super::moto::start_server(command, "make node-env installs Azurite");
        AzureServer { port, child }
    }

    /// The storage options of a client of this server (the account's endpoint, path-style).
    pub fn options(&self) -> [(&'static str, String); 4] {
        [
            ("azure_storage_account_name", ACCOUNT.to_string()),
            ("azure_storage_account_key", KEY.to_string()),
            (
                "azure_storage_endpoint",
                format!("http://127.0.0.1:{}/{ACCOUNT}", self.port),
            ),
            ("azure_allow_http", "true".to_string()),
        ]
    }
}

impl Drop for AzureServer {
    /// Closes the script's standard input, which stops Azurite (a child of the script, which a
    /// kill of the script would leave running); kills it after 5 s.
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
