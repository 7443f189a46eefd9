//! The network settings a company network needs: which certificates are trusted, which proxy
//! carries the calls, and how many connections one client opens. Their environment variables
//! and the words of their errors live here, once, for every language.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

use crate::{Error, Result, Secret};

/// The package a client serves. It decides which environment variables name extra CA
/// certificates (each ecosystem's own, besides `MONAPI_CA_BUNDLE`, `SSL_CERT_FILE` and
/// `SSL_CERT_DIR`) and how the fix is worded when a server's certificate is not trusted.
///
/// ```
/// use monapi::Language;
/// assert_eq!(Language::Python.ca_variables(), ["MONAPI_CA_BUNDLE", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"]);
/// assert_eq!(Language::Node.ca_variables(), ["MONAPI_CA_BUNDLE", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Language {
    /// The Rust crate.
    #[default]
    Rust,
    /// The Python package (`REQUESTS_CA_BUNDLE` is read too).
    Python,
    /// The Node package (`NODE_EXTRA_CA_CERTS` is read too).
    Node,
    /// The `monapi` command.
    Cli,
}

impl Language {
    /// The variables naming a PEM file of CA certificates to trust besides the system's, in
    /// the order they are read (every one that is set is used). `SSL_CERT_DIR` (directories
    /// of certificates) is read too, by every language.
    pub fn ca_variables(self) -> Vec<&'static str> {
        let mut names = vec!["MONAPI_CA_BUNDLE", "SSL_CERT_FILE"];
        match self {
            Language::Python => names.push("REQUESTS_CA_BUNDLE"),
            Language::Node => names.push("NODE_EXTRA_CA_CERTS"),
            Language::Rust | Language::Cli => {}
        }
        names
    }

    /// The default `User-Agent` of a client serving this language (`monapi-python/0.1.0`).
    ///
    /// ```
    /// assert!(monapi::Language::Node.user_agent().starts_with("monapi-node/"));
    /// ```
    pub fn user_agent(self) -> String {
        let package = match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::Node => "node",
            Language::Cli => "cli",
        };
        format!("monapi-{package}/{}", env!("CARGO_PKG_VERSION"))
    }

    /// How this language's caller adds a CA: its option and its usual variable.
    fn ca_hint(self) -> &'static str {
        match self {
            Language::Rust => {
                "give its certificate with ClientBuilder::ca_bundle (a PEM file) or set SSL_CERT_FILE"
            }
            Language::Python => {
                "give its certificate with ca_bundle= (a PEM file) or set SSL_CERT_FILE or REQUESTS_CA_BUNDLE"
            }
            Language::Node => {
                "give its certificate with the caBundle option (a PEM file) or set NODE_EXTRA_CA_CERTS"
            }
            Language::Cli => "give its certificate with --ca-bundle (a PEM file) or set SSL_CERT_FILE",
        }
    }
}

/// Extra CA certificates to trust, besides the system's: a PEM file, or PEM text.
///
/// ```
/// let bundle = monapi::CaBundle::Path("/etc/company/ca.pem".into());
/// assert_eq!(format!("{bundle:?}"), "Path(\"/etc/company/ca.pem\")");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub enum CaBundle {
    /// A file of one or more PEM certificates.
    Path(PathBuf),
    /// PEM text of one or more certificates.
    Pem(Vec<u8>),
}

impl fmt::Debug for CaBundle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaBundle::Path(path) => f.debug_tuple("Path").field(path).finish(),
            CaBundle::Pem(pem) => write!(f, "Pem({} bytes)", pem.len()),
        }
    }
}

/// Which proxy carries the calls, when given (not giving one means the environment's:
/// `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`, upper or lower case).
///
/// `Debug` never shows the proxy's password.
///
/// ```
/// let proxy = monapi::Proxy::Url(monapi::Secret::new("http://me:hunter2@proxy.corp:3128"));
/// assert_eq!(format!("{proxy:?}"), "Url(\"http://me:[redacted]@proxy.corp:3128/\")");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub enum Proxy {
    /// Every call goes through this proxy (`http://` or `https://`, with a user and password
    /// if it needs them), whatever the environment says.
    Url(Secret),
    /// No proxy, whatever the environment says.
    Off,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proxy::Url(url) => f.debug_tuple("Url").field(&shown_url(url.expose())).finish(),
            Proxy::Off => f.write_str("Off"),
        }
    }
}

/// A proxy URL with its password replaced (an unparsable one is not shown at all).
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => {
            let shown = parsed.to_string();
            match parsed.password() {
                // The password as the URL writes it (percent-encoded), between `:` and `@`.
                Some(password) => shown.replacen(
                    &format!(":{password}@"),
                    &format!(":{}@", crate::secret::REDACTED),
                    1,
                ),
                None => shown,
            }
        }
        Err(_) => crate::secret::REDACTED.to_string(),
    }
}

/// Where the calls' connections go, for the error of one that could not be made: the service's
/// `host:port`, or the proxy's when one is given (its host and port only: its URL may hold a
/// password). Without one, a proxy variable of the environment (`env`, which reqwest reads as
/// well) may carry the calls, unless `NO_PROXY` spares the host: both are named.
pub(crate) fn connection_target(
    base_url: &str,
    proxy: Option<&Proxy>,
    env: &dyn Fn(&str) -> Option<String>,
) -> String {
    let address = |url: &reqwest::Url| match (url.host_str(), url.port_or_known_default()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        _ => String::new(),
    };
    let service = reqwest::Url::parse(base_url)
        .map(|url| address(&url))
        .unwrap_or_default();
    match proxy {
        Some(Proxy::Url(url)) => {
            let proxy = reqwest::Url::parse(url.expose()).map(|url| address(&url));
            format!("the proxy {}", proxy.unwrap_or_default())
        }
        Some(Proxy::Off) => service,
        None => {
            let variables: &[&str] = match base_url.starts_with("https:") {
                true => &["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"],
                false => &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"],
            };
            match variables
                .iter()
                .find(|name| env(name).is_some_and(|v| !v.trim().is_empty()))
            {
                Some(name) => format!("{service} (or the proxy {name} names)"),
                None => service,
            }
        }
    }
}

/// A checked proxy URL: http or https, a host, nothing but a user and password besides.
pub(crate) fn check_proxy(url: &Secret) -> Result<reqwest::Url> {
    let refused = |rule: &str| Error::invalid_input(None, "proxy", rule.to_string());
    let parsed = reqwest::Url::parse(url.expose())
        .map_err(|_| refused("must be an http or https URL, e.g. http://proxy.example.com:3128"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return Err(refused(
            "must be an http or https URL with a host, e.g. http://proxy.example.com:3128",
        ));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() || !matches!(parsed.path(), "" | "/") {
        return Err(refused(
            "must be the proxy's address only (scheme, user and password, host, port), without a path or query",
        ));
    }
    Ok(parsed)
}

/// Certificates from the places the caller named (the option, then the variables), as PEM
/// text of each in turn. A file that cannot be read or holds no certificate is an error
/// naming where it came from.
pub(crate) fn extra_certificates(
    option: Option<&CaBundle>,
    language: Language,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<u8>> {
    let mut pem = Vec::new();
    if let Some(bundle) = option {
        let field = "ca_bundle";
        let bytes = match bundle {
            CaBundle::Path(path) => read_bundle(path, field)?,
            CaBundle::Pem(bytes) => bytes.clone(),
        };
        certificates_in(
            &bytes,
            field,
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
        )?;
        append(&mut pem, &bytes);
    }
    // A file named by two variables (SSL_CERT_FILE and REQUESTS_CA_BUNDLE often name the
    // same bundle) is read once.
    let mut named = HashSet::new();
    for variable in language.ca_variables() {
        if let Some(path) = env(variable)
            && named.insert(path.clone())
        {
            let path = Path::new(&path);
            let bytes = read_checked(path, || {
                let bytes = read_bundle(path, variable)?;
                certificates_in(&bytes, variable, "names a file that holds no PEM certificate")?;
                Ok(beyond_system(&bytes))
            })?;
            pem.extend_from_slice(&bytes);
        }
    }
    if let Some(dirs) = env("SSL_CERT_DIR") {
        for dir in std::env::split_paths(&dirs).filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                return Err(Error::invalid_input(
                    None,
                    "SSL_CERT_DIR",
                    format!("names {} which is not a directory", dir.display()),
                ));
            }
            let bytes = read_checked(&dir, || {
                certificate_directory(&dir).map(|pem| beyond_system(&pem))
            })?;
            pem.extend_from_slice(&bytes);
        }
    }
    Ok(pem)
}

/// Every file of certificates in `dir`, as OpenSSL reads such a directory (others, such as a
/// README or a key, are skipped).
fn certificate_directory(dir: &Path) -> Result<Vec<u8>> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| unreadable("SSL_CERT_DIR", dir, &e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
        .collect();
    entries.sort();
    let mut pem = Vec::new();
    for path in entries {
        if let Ok(bytes) = std::fs::read(&path)
            && certificates_in(&bytes, "SSL_CERT_DIR", "").is_ok()
        {
            append(&mut pem, &bytes);
        }
    }
    Ok(pem)
}

/// The certificates of `pem` that the system store does not hold, each once: nothing, where the
/// variables name the system's own bundle and directory, so that no client parses those again.
/// A block that cannot be read is kept, for the TLS set-up to report.
fn beyond_system(pem: &[u8]) -> Vec<u8> {
    const END: &str = "-----END CERTIFICATE-----";
    let system = system_roots();
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for block in String::from_utf8_lossy(pem).split_inclusive(END) {
        let Some(start) = block.find("-----BEGIN CERTIFICATE-----") else {
            continue;
        };
        let block = &block[start..];
        match CertificateDer::from_pem_slice(block.as_bytes()) {
            Ok(der) if system.ders.contains(der.as_ref()) || !seen.insert(der.to_vec()) => {}
            _ => append(&mut kept, block.as_bytes()),
        }
    }
    kept
}

/// What `read` gives for `path` (a file or a directory), read once per process while the
/// path keeps its length and time of change: every client reads the certificate variables,
/// and where they name the system's bundle and directory (as many images set them) reading
/// and checking them again took ten milliseconds a client. A directory's time changes when a
/// file is added, removed or renamed into it, as `update-ca-certificates` does.
fn read_checked(path: &Path, read: impl FnOnce() -> Result<Vec<u8>>) -> Result<Arc<Vec<u8>>> {
    /// A path's length and time of change, and what was read there.
    struct Known {
        stamp: (u64, Option<std::time::SystemTime>),
        bytes: Arc<Vec<u8>>,
    }
    static KNOWN: Mutex<Option<HashMap<PathBuf, Known>>> = Mutex::new(None);
    let stamp = std::fs::metadata(path)
        .ok()
        .map(|meta| (meta.len(), meta.modified().ok()));
    let known = |cache: &mut Option<HashMap<PathBuf, Known>>| {
        let known = cache.get_or_insert_default().get(path)?;
        (Some(known.stamp) == stamp).then(|| known.bytes.clone())
    };
    if let Some(bytes) = known(&mut KNOWN.lock().unwrap_or_else(|e| e.into_inner())) {
        return Ok(bytes);
    }
    // Read with the lock released; a failed read is not kept.
    let bytes = Arc::new(read()?);
    if let Some(stamp) = stamp {
        let known = Known {
            stamp,
            bytes: bytes.clone(),
        };
        let mut cache = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        cache.get_or_insert_default().insert(path.to_path_buf(), known);
    }
    Ok(bytes)
}

fn append(pem: &mut Vec<u8>, bytes: &[u8]) {
    pem.extend_from_slice(bytes);
    if !bytes.ends_with(b"\n") {
        pem.push(b'\n');
    }
}

fn unreadable(field: &str, path: &Path, error: &std::io::Error) -> Error {
    let why = match error.kind() {
        std::io::ErrorKind::NotFound => "does not exist".to_string(),
        _ => format!("cannot be read ({error})"),
    };
    Error::invalid_input(None, field, format!("names {}, which {why}", path.display()))
}

fn read_bundle(path: &Path, field: &str) -> Result<Vec<u8>> {
    if path.is_dir() {
        return Err(Error::invalid_input(
            None,
            field,
            format!("names {}, a directory: give a PEM file", path.display()),
        ));
    }
    std::fs::read(path).map_err(|e| unreadable(field, path, &e))
}

/// The certificates of PEM text; none (or a damaged one) is an error with `rule`.
fn certificates_in(pem: &[u8], field: &str, rule: &str) -> Result<Vec<reqwest::Certificate>> {
    match reqwest::Certificate::from_pem_bundle(pem) {
        Ok(certificates) if !certificates.is_empty() => Ok(certificates),
        Ok(_) => Err(Error::invalid_input(None, field, rule.to_string())),
        Err(_) => Err(Error::invalid_input(
            None,
            field,
            "holds a damaged PEM certificate (it cannot be decoded)",
        )),
    }
}

/// The system's trusted certificates, read once per process: the operating system's store as
/// `rustls-native-certs` finds it (the distribution's bundle on Linux, the keychain on macOS,
/// the certificate store on Windows), keeping only those the TLS library can use (system
/// stores hold a few ancient ones it cannot).
struct SystemRoots {
    certificates: Vec<reqwest::Certificate>,
    /// Their DER forms: a certificate given again (`SSL_CERT_FILE` naming the system's own
    /// bundle, as many images set it) is not parsed and added a second time.
    ders: HashSet<Vec<u8>>,
}

fn system_roots() -> &'static SystemRoots {
    static ROOTS: OnceLock<SystemRoots> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = system_store(&|name| std::env::var_os(name));
        let mut usable = rustls::RootCertStore::empty();
        let mut roots = SystemRoots {
            certificates: Vec::new(),
            ders: HashSet::new(),
        };
        for der in found.certs {
            if usable.add(der.clone()).is_ok()
                && let Ok(certificate) = reqwest::Certificate::from_der(&der)
            {
                roots.certificates.push(certificate);
                roots.ders.insert(der.to_vec());
            }
        }
        roots
    })
}

/// The operating system's store. `rustls_native_certs::load_native_certs` reads
/// `SSL_CERT_FILE`/`SSL_CERT_DIR` *instead of* the store when either is set, as OpenSSL does;
/// monapi adds those files to the store (see `extra_certificates`), so with either set the store
/// is read from the system's own certificate directories. Where those cannot be found without
/// the variables (macOS, Windows), the bundled Mozilla roots stand in for the store.
fn system_store(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> rustls_native_certs::CertificateResult {
    let set = |name| env(name).is_some_and(|v| !v.is_empty());
    if !set("SSL_CERT_FILE") && !set("SSL_CERT_DIR") {
        return rustls_native_certs::load_native_certs();
    }
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let mut all = rustls_native_certs::CertificateResult::default();
        for dir in openssl_probe::candidate_cert_dirs() {
            all.certs
                .extend(rustls_native_certs::load_certs_from_paths(None, Some(dir)).certs);
        }
        all
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    {
        rustls_native_certs::CertificateResult::default()
    }
}

/// `builder` trusting the system's certificates (or the bundled Mozilla roots where the system
/// has none) plus `extra_pem`, going through `proxy` (or the environment's proxy when `None`).
pub(crate) fn configure(
    builder: reqwest::ClientBuilder,
    extra_pem: &[u8],
    proxy: Option<&Proxy>,
) -> Result<reqwest::ClientBuilder> {
    let system = system_roots();
    let mut builder = builder
        .tls_built_in_root_certs(false)
        .tls_built_in_webpki_certs(system.certificates.is_empty());
    for certificate in &system.certificates {
        builder = builder.add_root_certificate(certificate.clone());
    }
    // Each certificate once: the TLS library parses every one it is given, a millisecond for
    // a few dozen, at every client built.
    let mut added = HashSet::new();
    for der in CertificateDer::pem_slice_iter(extra_pem) {
        // Checked where it came from (see `extra_certificates`).
        let der = der.map_err(|_| {
            Error::invalid_input(
                None,
                "ca_bundle",
                "holds a damaged PEM certificate (it cannot be decoded)",
            )
        })?;
        if !system.ders.contains(der.as_ref()) && added.insert(der.to_vec()) {
            let certificate = reqwest::Certificate::from_der(&der).map_err(|_| {
                Error::invalid_input(None, "ca_bundle", "holds a certificate that cannot be read")
            })?;
            builder = builder.add_root_certificate(certificate);
        }
    }
    Ok(match proxy {
        None => builder,
        Some(Proxy::Off) => builder.no_proxy(),
        Some(Proxy::Url(url)) => {
            let parsed = check_proxy(url)?;
            let proxy = reqwest::Proxy::all(parsed).map_err(|_| {
                Error::invalid_input(None, "proxy", "must be an http or https URL".to_string())
            })?;
            builder.proxy(proxy)
        }
    })
}

/// Plain words for a certificate the client does not trust, with the fix, when `error` is
/// that; `None` for every other failure.
pub(crate) fn untrusted_certificate(
    error: &reqwest::Error,
    host: &str,
    language: Language,
) -> Option<String> {
    use rustls::CertificateError as C;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(err) = source {
        // An io::Error hides the error it wraps from `source()` (it gives that error's own
        // source): look inside it instead.
        let next = match err.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
        let rustls_error = err.downcast_ref::<rustls::Error>();
        if let Some(rustls::Error::InvalidCertificate(cause)) = rustls_error {
            let cause = match cause {
                C::UnknownIssuer => {
                    "it is signed by a certificate authority this machine does not trust (unknown issuer)"
                        .to_string()
                }
                C::Expired | C::ExpiredContext { .. } => "it has expired".to_string(),
                C::NotValidYet | C::NotValidYetContext { .. } => "it is not valid yet".to_string(),
                C::NotValidForName | C::NotValidForNameContext { .. } => {
                    format!("it is not issued for {host} (name mismatch)")
                }
                C::Revoked => "it has been revoked".to_string(),
                C::BadSignature => "its signature is wrong".to_string(),
                other => format!("it is not valid ({other:?})"),
            };
            return Some(format!(
                "the server's certificate for {host} is not trusted: {cause}. If this network uses \
                 its own certificate authority (a company CA, a TLS-inspecting proxy), {}",
                language.ca_hint()
            ));
        }
        source = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_checked_without_showing_them() {
        let refused = |url: &str| check_proxy(&Secret::new(url)).unwrap_err().to_string();
        for url in [
            "proxy.corp:3128",
            "socks5://p:1080",
            "http://u:pw-42@p:3128/path",
            "http://",
        ] {
            let message = refused(url);
            assert!(message.contains("proxy"), "{message}");
            assert!(!message.contains("pw-42"), "{message}");
        }
        assert!(check_proxy(&Secret::new("http://u:pw@proxy.corp:3128")).is_ok());
        assert!(check_proxy(&Secret::new("https://proxy.corp")).is_ok());
    }

    #[test]
    fn a_failed_connection_names_where_it_went_and_never_the_proxy_password() {
        let target = |base: &str, proxy: Option<Proxy>, variables: &[(&str, &str)]| {
            let env = |name: &str| {
                let found = variables.iter().find(|(key, _)| *key == name);
                found.map(|(_, value)| value.to_string())
            };
            connection_target(base, proxy.as_ref(), &env)
        };
        assert_eq!(target("http://127.0.0.1:8080", None, &[]), "127.0.0.1:8080");
        assert_eq!(
            target("https://api.example.com/", None, &[]),
            "api.example.com:443"
        );
        let password = Proxy::Url(Secret::new("http://me:pw-42@proxy.corp:3128"));
        assert_eq!(
            target("https://api.example.com", Some(password), &[]),
            "the proxy proxy.corp:3128"
        );
        let proxied = [
            ("HTTPS_PROXY", "http://me:pw-42@proxy.corp:3128"),
            ("HTTP_PROXY", " "),
        ];
        assert_eq!(
            target("https://api.example.com", None, &proxied),
            "api.example.com:443 (or the proxy HTTPS_PROXY names)"
        );
        // HTTP_PROXY is blank: a plain-HTTP service goes straight, as with the proxy turned off.
        assert_eq!(target("http://10.0.0.1", None, &proxied), "10.0.0.1:80");
        assert_eq!(
            target("https://api.example.com", Some(Proxy::Off), &proxied),
            "api.example.com:443"
        );
    }

    /// A bundle named by the variables is read once per process while it stays as it is, and
    /// again when it changes; two variables naming one file give its certificates once; the
    /// certificates the system store holds are left out.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_bundle_is_read_again_when_it_changes() {
        let ca = |_| {
            let config = monapi_emulator::Config {
                tls: true,
                ..Default::default()
            };
            let emulator = monapi_emulator::Emulator::spawn_thread(config).unwrap();
            emulator.ca_pem().unwrap().to_string()
        };
        let (first, second): (String, String) = (ca(1), ca(2));
        let system = std::fs::read_to_string("/etc/ssl/certs/ca-certificates.crt").unwrap();
        let path = std::env::temp_dir().join(format!("monapi-bundle-{}.pem", std::process::id()));
        let text = path.to_string_lossy().into_owned();
        let env = |name: &str| {
            ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"]
                .contains(&name)
                .then(|| text.clone())
        };
        let read = || String::from_utf8(extra_certificates(None, Language::Python, &env).unwrap()).unwrap();
        std::fs::write(&path, format!("{system}{first}")).unwrap();
        assert_eq!(
            read().trim(),
            first.trim(),
            "once, though named twice, and without the system's"
        );
        std::fs::write(&path, format!("{first}{second}")).unwrap();
        assert_eq!(read().trim(), format!("{first}{second}").trim());
        std::fs::write(&path, "no certificate\n").unwrap();
        let error = extra_certificates(None, Language::Python, &env).unwrap_err();
        assert_eq!(error.field(), Some("SSL_CERT_FILE"), "{error}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn the_system_store_is_read_when_ssl_cert_file_is_set() {
        let unset = system_store(&|_| None).certs;
        let with_variable =
            system_store(&|name| (name == "SSL_CERT_FILE").then(|| "/nonexistent/company-ca.pem".into()))
                .certs;
        assert!(
            unset.len() > 10,
            "this machine has a certificate store ({} found)",
            unset.len()
        );
        for certificate in &unset {
            assert!(with_variable.contains(certificate));
        }
    }
}
