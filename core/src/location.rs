//! Where a client's store is ([`StoreLocation`]), and which of its storage options are secrets.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Where a store is: what `store` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreLocation {
    /// A directory (a path, or a `file://` URL).
    Local(PathBuf),
    /// A prefix in a bucket or container: an `s3://`, `s3a://`, `gs://`, `az://`, `abfs://` or
    /// `abfss://` URL (credentials never in it: they come from the environment or the options).
    Object(reqwest::Url),
}

/// The rule of `store`, in every error about its value.
const STORE_RULE: &str =
    "must be a directory, or a URL: file://, s3://bucket/prefix, gs://bucket/prefix or az://container/prefix";

impl StoreLocation {
    /// What `text` names: a URL of a scheme monapi knows (`file://` is a directory), or a
    /// directory (anything without `://`).
    ///
    /// ```
    /// use monapi::StoreLocation;
    /// assert!(matches!(StoreLocation::parse("data/monapi")?, StoreLocation::Local(_)));
    /// assert!(matches!(StoreLocation::parse("s3://lake/monapi")?, StoreLocation::Object(_)));
    /// assert_eq!(StoreLocation::parse("ftp://lake/a").unwrap_err().field(), Some("store"));
    /// # Ok::<(), monapi::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An [`Error::InvalidInput`] naming `store`: an empty text, a URL that does not parse, of
    /// another scheme, without a bucket, or with a user, password, query or fragment (credentials
    /// go in the environment or the storage options, where they are never shown).
    pub fn parse(text: &str) -> Result<StoreLocation> {
        if text.trim().is_empty() {
            return Err(Error::invalid_input(None, "store", STORE_RULE));
        }
        if !text.contains("://") {
            return Ok(StoreLocation::Local(PathBuf::from(text)));
        }
        let invalid = |why: &str| Error::invalid_input(None, "store", format!("{STORE_RULE}; {why}"));
        let url = reqwest::Url::parse(text).map_err(|_| invalid("this URL does not parse"))?;
        // Azure's `abfss://container@account.dfs.core.windows.net/` names its container as a user.
        let user_allowed = matches!(url.scheme(), "abfs" | "abfss" | "az" | "azure");
        if (!url.username().is_empty() && !user_allowed)
            || url.password().is_some()
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(invalid(
                "a URL with a user, password, query or fragment is refused (credentials go in the environment or the storage options)",
            ));
        }
        match url.scheme() {
            "file" => url
                .to_file_path()
                .map(StoreLocation::Local)
                .map_err(|()| invalid("this file:// URL names no local path")),
            "s3" | "s3a" | "gs" | "az" | "abfs" | "abfss" | "azure" => {
                if url.host_str().is_none_or(str::is_empty) {
                    return Err(invalid("the URL names no bucket (s3://bucket/prefix)"));
                }
                Ok(StoreLocation::Object(url))
            }
            other => Err(invalid(&format!("{other}:// is not one of them"))),
        }
    }

    /// What a path names: itself, unless its text is a URL (`s3://lake/a`, given where a path
    /// is taken).
    ///
    /// # Errors
    ///
    /// Those of [`parse`](StoreLocation::parse).
    pub fn from_path(path: &Path) -> Result<StoreLocation> {
        match path.to_str() {
            Some(text) if text.contains("://") => StoreLocation::parse(text),
            _ if path.as_os_str().is_empty() => StoreLocation::parse(""),
            _ => Ok(StoreLocation::Local(path.to_path_buf())),
        }
    }
}

impl fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreLocation::Local(path) => write!(f, "{}", path.display()),
            StoreLocation::Object(url) => f.write_str(url.as_str().trim_end_matches('/')),
        }
    }
}

/// Whether an option's value is a secret (never shown): keys, tokens, secrets, passwords and
/// signatures, not their ids.
pub(crate) fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    !key.ends_with("_id")
        && [
            "secret",
            "token",
            "password",
            "key",
            "sas",
            "signature",
            "credential",
        ]
        .iter()
        .any(|word| key.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_a_directory_or_a_url_of_a_known_scheme() {
        assert_eq!(
            StoreLocation::parse("data/a").unwrap(),
            StoreLocation::Local("data/a".into())
        );
        assert_eq!(
            StoreLocation::parse("file:///tmp/a").unwrap(),
            StoreLocation::Local("/tmp/a".into())
        );
        for url in [
            "s3://lake/a",
            "s3a://lake",
            "gs://lake/a/b",
            "az://box/a",
            "abfss://box@acct.dfs.core.windows.net/a",
        ] {
            assert!(
                matches!(StoreLocation::parse(url).unwrap(), StoreLocation::Object(_)),
                "{url}"
            );
        }
        for bad in [
            "",
            " ",
            "ftp://lake/a",
            "s3:///a",
            "s3://key:secret@lake/a",
            "s3://lake/a?x=1",
            "http://host/a",
        ] {
            let error = StoreLocation::parse(bad).unwrap_err();
            assert_eq!(error.field(), Some("store"), "{bad}");
            assert!(!error.to_string().contains("secret"), "{error}");
        }
        assert_eq!(
            StoreLocation::parse("s3://lake/a/").unwrap().to_string(),
            "s3://lake/a"
        );
    }

    #[test]
    fn the_values_of_keys_tokens_and_secrets_are_secrets_their_ids_are_not() {
        for key in [
            "aws_secret_access_key",
            "AWS_SESSION_TOKEN",
            "azure_storage_account_key",
            "azure_storage_sas_key",
            "google_service_account_key",
            "aws_sse_customer_key_base64",
        ] {
            assert!(is_secret(key), "{key}");
        }
        for key in [
            "aws_access_key_id",
            "aws_region",
            "aws_endpoint_url",
            "azure_storage_account_name",
            "aws_sse_kms_key_id",
            "allow_http",
        ] {
            assert!(!is_secret(key), "{key}");
        }
    }
}
