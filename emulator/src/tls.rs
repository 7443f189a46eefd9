//! HTTPS: a private certificate authority made at start, and a certificate for the listening
//! address signed by it, as a company's own CA would sign its internal services. Clients trust
//! the emulator only when given the CA's PEM (nothing is installed anywhere).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

/// The TLS side of an emulator serving HTTPS.
pub(crate) struct Tls {
    pub(crate) acceptor: TlsAcceptor,
    /// The CA's certificate, PEM.
    pub(crate) ca_pem: String,
    /// A file holding [`Tls::ca_pem`], removed when the emulator is dropped.
    pub(crate) ca_file: CaFile,
}

/// The file the CA's PEM is written to, for clients that take a path.
pub(crate) struct CaFile(PathBuf);

impl CaFile {
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for CaFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn io_error(error: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("cannot set up the emulator's TLS: {error}"))
}

/// A fresh CA and a certificate for `addr` (its IP address, `localhost`, and `127.0.0.1`
/// when it listens on every address), with the CA's PEM written to a file.
pub(crate) fn generate(addr: SocketAddr) -> std::io::Result<Tls> {
    let mut ca_params = CertificateParams::default();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "monapi emulator private CA");
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca =
        CertifiedIssuer::self_signed(ca_params, KeyPair::generate().map_err(io_error)?).map_err(io_error)?;

    let mut names = vec![addr.ip().to_string(), "localhost".to_string()];
    if addr.ip().is_unspecified() {
        names.push(IpAddr::V4(Ipv4Addr::LOCALHOST).to_string());
    }
    let mut params = CertificateParams::new(names).map_err(io_error)?;
    params
        .distinguished_name
        .push(DnType::CommonName, "monapi emulator");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let key = KeyPair::generate().map_err(io_error)?;
    let certificate = params.signed_by(&key, &ca).map_err(io_error)?;

    let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(io_error)?
        .with_no_client_auth()
        .with_single_cert(
            vec![certificate.der().clone(), ca.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(io_error)?;
    // The emulator speaks HTTP/1.1 only.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];

    let ca_pem = ca.pem();
    let path = std::env::temp_dir().join(format!(
        "monapi-emulator-ca-{}-{}.pem",
        std::process::id(),
        addr.port()
    ));
    std::fs::write(&path, &ca_pem)?;
    Ok(Tls {
        acceptor: TlsAcceptor::from(Arc::new(config)),
        ca_pem,
        ca_file: CaFile(path),
    })
}
