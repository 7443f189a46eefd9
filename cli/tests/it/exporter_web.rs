//! `monapi exporter --web-config-file`: who may scrape. HTTPS with a certificate the test makes,
//! basic auth on `/metrics` with a bcrypt hash the test makes, the probes open, plain HTTP
//! refused on the HTTPS port; and bad configurations refused at start (exit 2) naming the
//! problem, never a hash. The binary runs against an emulator on loopback.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use monapi_emulator::{Config, Emulator};
use reqwest::StatusCode;

use crate::export::monapi;
use crate::exporter::{scratch, Exporter};

const USER: &str = "prometheus";
const PASSWORD: &str = "scrape-me-7f3a";
const CHALLENGE: &str = r#"Basic realm="monapi exporter""#;

/// A certificate for 127.0.0.1 and its key, as PEM.
fn certificate() -> (String, String) {
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    (made.cert.pem(), made.signing_key.serialize_pem())
}

/// The cheapest cost: the test's exporter is a debug build, and the cost changes nothing of
/// what is checked.
fn hash(password: &str) -> String {
    bcrypt::hash(password, 4).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A client that trusts `certificate` (PEM) alone. It asks for gzip, and its decoder reads one
/// gzip member only: the scrape's answer must be one (the exporter's own metrics, checked below,
/// follow the data's in it).
fn client(certificate: Option<&str>) -> reqwest::Client {
    let mut builder = reqwest::Client::builder().timeout(Duration::from_secs(30));
    if let Some(pem) = certificate {
        builder = builder
            .tls_built_in_root_certs(false)
            .add_root_certificate(reqwest::Certificate::from_pem(pem.as_bytes()).unwrap());
    }
    builder.build().unwrap()
}

/// `GET url` with these credentials: the status, the `WWW-Authenticate` header and the body.
async fn get(
    client: &reqwest::Client,
    url: &str,
    credentials: Option<(&str, &str)>,
) -> (StatusCode, Option<String>, String) {
    let mut request = client.get(url);
    if let Some((user, password)) = credentials {
        request = request.basic_auth(user, Some(password));
    }
    let answer = request.send().await.unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let challenge = answer
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .map(|v| v.to_str().unwrap().to_string());
    (answer.status(), challenge, answer.text().await.unwrap())
}

/// `/ready` answered 200: the first refresh has ended (bounded: two minutes).
async fn ready(client: &reqwest::Client, base: &str, exporter: &Exporter) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while get(client, &format!("{base}/ready"), None).await.0 != StatusCode::OK {
        assert!(
            Instant::now() < deadline,
            "never ready: {}",
            exporter.stderr.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[test]
fn https_and_basic_auth_guard_metrics_and_leave_the_probes_open() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let dir = scratch("web-https");
    let (cert, key) = certificate();
    write(&dir, "exporter.crt", &cert);
    write(&dir, "exporter.key", &key);
    let hashed = hash(PASSWORD);
    // The files relative to the configuration's directory, which is not the exporter's.
    let config = write(
        &dir,
        "web.yml",
        &format!(
            "tls_server_config:\n  cert_file: exporter.crt\n  key_file: exporter.key\n\
             basic_auth_users:\n  {USER}: {hashed}\n  other: {}\n",
            hash("another-one")
        ),
    );
    assert_ne!(std::env::current_dir().unwrap(), dir);
    let exporter = Exporter::start(
        &emulator,
        &["--web-config-file", config.to_str().unwrap(), "--site", "20001"],
    );
    let base = format!("https://{}", exporter.address);
    let metrics = format!("{base}/metrics");
    let trusting = client(Some(&cert));
    runtime().block_on(async {
        // No credentials, a wrong password, another user's password, an unknown user: 401.
        for credentials in [
            None,
            Some((USER, "wrong")),
            Some(("other", PASSWORD)),
            Some(("nobody", PASSWORD)),
            Some((USER, "")),
        ] {
            let (status, challenge, body) = get(&trusting, &metrics, credentials).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{credentials:?}");
            assert_eq!(challenge.as_deref(), Some(CHALLENGE), "{credentials:?}");
            assert!(!body.contains("monapi_"), "{body}");
        }
        // The probes and the page need none.
        ready(&trusting, &base, &exporter).await;
        for path in ["/health", "/ready", "/"] {
            let (status, challenge, _) = get(&trusting, &format!("{base}{path}"), None).await;
            assert_eq!((status, challenge), (StatusCode::OK, None), "{path}");
        }
        // The right password, twice (the second remembered), gives the metrics.
        for _ in 0..2 {
            let (status, _, body) = get(&trusting, &metrics, Some((USER, PASSWORD))).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert!(body.contains("\nmonapi_up 1\n"), "{body}");
            assert!(body.contains("monapi_site_up{"), "{body}");
        }

        // A client that does not trust the certificate is refused by its own TLS.
        let untrusting = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        let refused = untrusting.get(format!("{base}/health")).send().await;
        assert!(refused.is_err(), "{refused:?}");
        // Plain HTTP on the HTTPS port gets no HTTP answer.
        let plain = client(None)
            .get(format!("http://{}/health", exporter.address))
            .send()
            .await;
        assert!(plain.is_err(), "plain HTTP was answered: {plain:?}");
    });
    let answer = raw_http(exporter.address, "/health");
    assert!(
        !answer.starts_with(b"HTTP/"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );

    let stderr = exporter.stderr.lock().unwrap().clone();
    assert!(
        stderr.contains(&format!(
            "listening on https://{}/metrics (basic auth",
            exporter.address
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains(PASSWORD) && !stderr.contains(&hashed),
        "{stderr}"
    );
}

/// What the server sends back to a plain HTTP/1.0 request, until it closes the connection.
fn raw_http(address: SocketAddr, path: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // One write: `write!` writes each piece of the format on its own, and a TLS server may
    // reset the connection on the first piece, failing the next write.
    let request = format!("GET {path} HTTP/1.0\r\nHost: test\r\n\r\n");
    let mut answer = Vec::new();
    // A reset after the TLS alert (even before the whole request was written) is an answer too.
    if stream.write_all(request.as_bytes()).is_ok() {
        let _ = stream.read_to_end(&mut answer);
    }
    answer
}

#[test]
fn basic_auth_alone_keeps_plain_http() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let dir = scratch("web-plain");
    let config = write(
        &dir,
        "web.yml",
        &format!("basic_auth_users:\n  {USER}: {}\n", hash(PASSWORD)),
    );
    let exporter = Exporter::start(
        &emulator,
        &["--web-config-file", config.to_str().unwrap(), "--site", "20001"],
    );
    let base = format!("http://{}", exporter.address);
    let plain = client(None);
    runtime().block_on(async {
        let (status, challenge, _) = get(&plain, &format!("{base}/metrics"), None).await;
        assert_eq!(
            (status, challenge.as_deref()),
            (StatusCode::UNAUTHORIZED, Some(CHALLENGE))
        );
        let (status, _, _) = get(&plain, &format!("{base}/metrics"), Some((USER, PASSWORD))).await;
        assert_eq!(status, StatusCode::OK);
        let (status, _, _) = get(&plain, &format!("{base}/health"), None).await;
        assert_eq!(status, StatusCode::OK);
    });
}

/// `monapi exporter --listen 127.0.0.1:0 --web-config-file FILE` (or with `FILE` in
/// `MONAPI_WEB_CONFIG_FILE`), which must end within a minute: its exit code and stderr.
fn refused(emulator: &Emulator, config: &Path, variable: bool) -> (Option<i32>, String) {
    let mut command = monapi(emulator);
    command.args(["exporter", "--listen", "127.0.0.1:0"]);
    if variable {
        command.env("MONAPI_WEB_CONFIG_FILE", config);
    } else {
        command.arg("--web-config-file").arg(config);
    }
    let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{}: the exporter started", config.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (status.code(), stderr)
}

#[test]
fn a_bad_web_configuration_exits_2_naming_the_problem_before_any_request() {
    let emulator = Emulator::spawn_thread(Config::default()).unwrap();
    let dir = scratch("web-bad");
    let (cert, key) = certificate();
    let (_, other_key) = certificate();
    write(&dir, "exporter.crt", &cert);
    write(&dir, "exporter.key", &key);
    write(&dir, "other.key", &other_key);
    let good = hash(PASSWORD);
    let md5 = "5f4dcc3b5aa765d61d8327deb882cf99";
    let users = format!("basic_auth_users:\n  {USER}: {good}\n");
    let tls = "tls_server_config:\n  cert_file: exporter.crt\n  key_file: exporter.key\n";
    let cases: Vec<(&str, String, Vec<String>)> = vec![
        (
            "missing-cert.yml",
            format!("tls_server_config:\n  cert_file: gone.crt\n  key_file: exporter.key\n{users}"),
            vec![
                format!("tls_server_config.cert_file {}", dir.join("gone.crt").display()),
                "cannot read it".into(),
            ],
        ),
        (
            "client-auth.yml",
            format!("{tls}  client_auth_type: RequireAndVerifyClientCert\n{users}"),
            vec![
                "tls_server_config.client_auth_type is not supported".into(),
                "client certificates".into(),
            ],
        ),
        (
            "unknown-key.yml",
            format!("{tls}{users}basic_auth_user:\n  alice: {good}\n"),
            vec!["basic_auth_user is not a key of the web configuration".into()],
        ),
        (
            "md5.yml",
            format!("{tls}basic_auth_users:\n  {USER}: {md5}\n"),
            vec![format!("basic_auth_users.{USER} is not a bcrypt hash")],
        ),
        (
            "other-key.yml",
            format!("tls_server_config:\n  cert_file: exporter.crt\n  key_file: other.key\n{users}"),
            vec!["cannot serve together".into()],
        ),
        (
            "not-a-cert.yml",
            format!("tls_server_config:\n  cert_file: exporter.key\n  key_file: exporter.key\n{users}"),
            vec!["holds no certificate".into()],
        ),
    ];
    for (i, (name, text, expected)) in cases.into_iter().enumerate() {
        let config = write(&dir, name, &text);
        // Every other one through the variable, as a container would give it.
        let (code, stderr) = refused(&emulator, &config, i % 2 == 1);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("web configuration {}", config.display())),
            "{name}: {stderr}"
        );
        for part in expected {
            assert!(stderr.contains(&part), "{name}: {part:?} not in {stderr}");
        }
        for secret in [good.as_str(), md5, "PRIVATE KEY"] {
            assert!(!stderr.contains(secret), "{name}: {secret} shows: {stderr}");
        }
    }
    let (code, stderr) = refused(&emulator, &dir.join("absent.yml"), false);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("absent.yml: cannot read it"), "{stderr}");
    assert_eq!(
        emulator.counters().token,
        0,
        "nothing is asked before the file is read"
    );
}
