//! Where a store lives: a directory, or a prefix of a bucket (`s3://`, `gs://`, `az://`) reached
//! through `object_store`.
//!
//! An object store's requests go through the core's reqwest, built with the client's network
//! settings (its CA certificates, the system's trust store, its proxy, timeouts and user agent),
//! not through the reqwest `object_store` would bring: one HTTP stack, one set of rules for
//! company networks. Credentials, region and endpoint come from the cloud's own variables
//! (`AWS_*`, `GOOGLE_*`, `AZURE_*`, read as `object_store` reads them) and from the storage
//! options, which override them.
//!
//! The store's operations are blocking (they run on the blocking pool, beside the Parquet work):
//! an object store's request is a task of the runtime that opened it, waited for there.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::TryStreamExt;
use http_body_util::BodyExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpResponseBody,
    HttpService,
};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::path::Path as ObjectPath;
use object_store::{
    ClientOptions, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig,
};

use crate::location::{is_secret, StoreLocation};
use crate::network::{self, Proxy};
use crate::secret::Redactor;
use crate::{Error, Result};

/// What an object store's connection takes from the client: its network settings.
#[derive(Clone, Debug)]
pub(crate) struct Network {
    pub(crate) extra_ca_pem: Vec<u8>,
    pub(crate) proxy: Option<Proxy>,
    pub(crate) timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) user_agent: String,
    pub(crate) max_retries: usize,
}

/// A store's prefix in a bucket, and the runtime its requests are awaited on.
pub(crate) struct Objects {
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    /// The URL of the prefix, as errors show it.
    shown: String,
    redactor: Redactor,
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for Objects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Objects")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

impl Objects {
    /// The store at `url` with `options` (`object_store`'s configuration keys, e.g.
    /// `aws_endpoint_url`, `aws_region`, `azure_storage_account_name`), over `network`. It sends
    /// nothing: the first request is the first read or write.
    pub(crate) fn open(
        url: &reqwest::Url,
        options: &[(String, String)],
        network: &Network,
    ) -> Result<Objects> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            Error::invalid_input(
                None,
                "store",
                "an object store is opened from within a tokio runtime",
            )
        })?;
        let redactor = Redactor::default();
        let environment = std::env::vars().filter(|(name, _)| {
            ["AWS_", "AZURE_", "GOOGLE_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
        });
        for (key, value) in options.iter().cloned().chain(environment) {
            if is_secret(&key) {
                redactor.add(&value);
            }
        }
        let connector = Connector(network.clone());
        let retry = RetryConfig {
            max_retries: network.max_retries,
            ..RetryConfig::default()
        };
        check_options(url, options)?;
        // Each cloud's builder: its variables, the URL, then the options (checked above).
        macro_rules! built {
            ($builder:ty, $key:ty, $adjust:expr) => {{
                let mut builder = <$builder>::from_env().with_url(url.as_str());
                for (key, value) in options {
                    if let Ok(key) = key.to_ascii_lowercase().parse::<$key>() {
                        builder = builder.with_config(key, value);
                    }
                }
                let adjust: fn($builder) -> $builder = $adjust;
                adjust(builder)
                    .with_retry(retry)
                    .with_http_connector(connector)
                    .build()
                    .map(|store| Arc::new(store) as Arc<dyn ObjectStore>)
            }};
        }
        let built = match url.scheme() {
            "s3" | "s3a" => built!(AmazonS3Builder, AmazonS3ConfigKey, |builder| {
                // A plain-http endpoint the user named is used as named, as the AWS tools do.
                let endpoint = builder.get_config_value(&AmazonS3ConfigKey::Endpoint);
                let plain = endpoint.is_some_and(|e| e.starts_with("http://"));
                if plain {
                    builder.with_allow_http(true)
                } else {
                    builder
                }
            }),
            "gs" => built!(GoogleCloudStorageBuilder, GoogleConfigKey, |builder| builder),
            _ => built!(MicrosoftAzureBuilder, AzureConfigKey, |builder| builder),
        };
        let shown = StoreLocation::Object(url.clone()).to_string();
        let store = built.map_err(|error| Error::Store {
            path: shown.clone(),
            message: format!("cannot be opened: {}", redactor.redact(&chain(&error))),
        })?;
        let prefix = object_store::ObjectStoreScheme::parse(url)
            .map(|(_, path)| path)
            .unwrap_or_default();
        Ok(Objects {
            store,
            prefix,
            shown,
            redactor,
            runtime,
        })
    }

    /// The URL of `key` (relative to the store), as messages show it.
    pub(crate) fn shown(&self, key: &str) -> String {
        format!("{}/{key}", self.shown)
    }

    fn path(&self, key: &str) -> ObjectPath {
        key.split('/')
            .fold(self.prefix.clone(), |path, part| path.clone().join(part))
    }

    /// Runs `request` on the runtime that opened the store and waits for it, from the blocking
    /// pool. The request is a task of the runtime, not of this thread: when the runtime shuts
    /// down (the process ends, a sync given up halfway), it is dropped and this says so, rather
    /// than this thread driving timers of a runtime that is gone.
    fn wait<T: Send + 'static>(
        &self,
        request: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> object_store::Result<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.runtime.spawn(async move {
            let _ = answer.send(request.await);
        });
        answered.blocking_recv().unwrap_or_else(|_| {
            Err(object_store::Error::Generic {
                store: "monapi",
                source: "the runtime stopped before the request was answered".into(),
            })
        })
    }

    fn error(&self, key: &str, what: &str, error: &object_store::Error) -> Error {
        Error::Store {
            path: self.shown(key),
            message: format!("{what}: {}", self.redactor.redact(&chain(error))),
        }
    }

    /// The object's bytes; `None` when there is none.
    pub(crate) fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let (store, path) = (self.store.clone(), self.path(key));
        let got = self.wait(async move { store.get(&path).await?.bytes().await });
        match got {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(self.error(key, "could not be read", &error)),
        }
    }

    /// Writes `bytes` to `key` unless an object is there (one conditional PUT: `If-None-Match:
    /// *` on S3); `false` when one was.
    pub(crate) fn create(&self, key: &str, bytes: Vec<u8>) -> Result<bool> {
        let path = self.path(key);
        let options = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        let store = self.store.clone();
        let put = self.wait(async move {
            let payload = PutPayload::from(Bytes::from(bytes));
            store.put_opts(&path, payload, options).await
        });
        match put {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(error) => Err(self.error(key, "could not be written", &error)),
        }
    }

    /// Writes `bytes` to `key`, replacing the object there (one PUT: a reader sees the old
    /// object or the new one, never a part). Only a migration replaces a file.
    pub(crate) fn replace(&self, key: &str, bytes: Vec<u8>) -> Result<()> {
        let (store, path) = (self.store.clone(), self.path(key));
        let put = self.wait(async move { store.put(&path, PutPayload::from(Bytes::from(bytes))).await });
        put.map(drop)
            .map_err(|error| self.error(key, "could not be written", &error))
    }

    /// Moves `key` to `to` (a copy, then the removal); nothing when it is gone already.
    pub(crate) fn rename(&self, key: &str, to: &str) -> Result<()> {
        let (store, from, to_path) = (self.store.clone(), self.path(key), self.path(to));
        let moved = self.wait(async move {
            store.copy(&from, &to_path).await?;
            store.delete(&from).await
        });
        match moved {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(self.error(key, "could not be set aside", &error)),
        }
    }

    /// The keys under `dir` (relative to it), at any depth.
    pub(crate) fn list(&self, dir: &str) -> Result<Vec<String>> {
        let (store, prefix) = (self.store.clone(), self.path(dir));
        let listing = prefix.clone();
        let listed: object_store::Result<Vec<_>> =
            self.wait(async move { store.list(Some(&listing)).try_collect().await });
        let listed = listed.map_err(|error| self.error(dir, "could not be listed", &error))?;
        Ok(listed
            .into_iter()
            .filter_map(|meta| {
                let parts: Vec<String> = meta
                    .location
                    .prefix_match(&prefix)?
                    .map(|p| p.as_ref().to_string())
                    .collect();
                Some(parts.join("/"))
            })
            .collect())
    }
}

/// Checks that every name of `options` is an option of `url`'s kind of store.
///
/// # Errors
///
/// An [`Error::InvalidInput`] naming `storage_options` and the first name that is none.
pub(crate) fn check_options(url: &reqwest::Url, options: &[(String, String)]) -> Result<()> {
    for (key, _) in options {
        let key = key.to_ascii_lowercase();
        let known = match url.scheme() {
            "s3" | "s3a" => key.parse::<AmazonS3ConfigKey>().is_ok(),
            "gs" => key.parse::<GoogleConfigKey>().is_ok(),
            _ => key.parse::<AzureConfigKey>().is_ok(),
        };
        if !known {
            return Err(Error::invalid_input(
                None,
                "storage_options",
                format!(
                    "has {key:?}, which is not an option of {}:// stores (the store guide lists them)",
                    url.scheme()
                ),
            ));
        }
    }
    Ok(())
}

/// Every cause of `error`, joined.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Makes `object_store`'s HTTP clients from the core's reqwest and the client's network settings.
#[derive(Debug)]
struct Connector(Network);

impl HttpConnector for Connector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let network = &self.0;
        let allow_http = options
            .get_config_value(&object_store::ClientConfigKey::AllowHttp)
            .is_some_and(|value| value == "true");
        let builder = reqwest::Client::builder()
            .timeout(network.timeout)
            .connect_timeout(network.connect_timeout)
            .user_agent(network.user_agent.clone())
            .https_only(!allow_http)
            // Objects are kept as they are stored: no decoding of a Content-Encoding.
            .no_gzip()
            .no_deflate();
        let built = network::configure(builder, &network.extra_ca_pem, network.proxy.as_ref())
            .map_err(|error| error.to_string())
            .and_then(|builder| builder.build().map_err(|error| error.to_string()));
        match built {
            Ok(client) => Ok(HttpClient::new(Http(client))),
            Err(source) => Err(object_store::Error::Generic {
                store: "monapi",
                source: source.into(),
            }),
        }
    }
}

/// One HTTP exchange of `object_store`, sent by the core's reqwest.
#[derive(Debug)]
struct Http(reqwest::Client);

fn http_error(error: reqwest::Error) -> HttpError {
    let kind = if error.is_timeout() {
        HttpErrorKind::Timeout
    } else if error.is_connect() {
        HttpErrorKind::Connect
    } else if error.is_body() || error.is_decode() {
        HttpErrorKind::Interrupted
    } else if error.is_request() {
        HttpErrorKind::Request
    } else {
        HttpErrorKind::Unknown
    };
    HttpError::new(kind, error)
}

#[async_trait]
impl HttpService for Http {
    async fn call(&self, request: HttpRequest) -> std::result::Result<HttpResponse, HttpError> {
        let (parts, body) = request.into_parts();
        let url = reqwest::Url::parse(&parts.uri.to_string())
            .map_err(|e| HttpError::new(HttpErrorKind::Request, e))?;
        // A store's bodies are small (a task-day's file): whole, with their length.
        let body: Bytes = body.collect().await?.to_bytes();
        let mut sent = reqwest::Request::new(parts.method, url);
        *sent.headers_mut() = parts.headers;
        *sent.body_mut() = Some(reqwest::Body::from(body));
        let response = self.0.execute(sent).await.map_err(http_error)?;
        let response: http::Response<reqwest::Body> = response.into();
        let (parts, body) = response.into_parts();
        Ok(HttpResponse::from_parts(
            parts,
            HttpResponseBody::new(body.map_err(http_error)),
        ))
    }
}
