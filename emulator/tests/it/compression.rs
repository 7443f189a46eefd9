//! Answers compressed as the request asks: every endpoint, gzip and deflate, the same bytes
//! as the identity answer once decompressed; cached reports compressed once; a corrupt gzip
//! body on demand.

use std::io::Read;

use flate2::read::{GzDecoder, ZlibDecoder};
use monapi_emulator::{Config, Encoding, FaultKind, Faults};
use reqwest::StatusCode;

use crate::common::*;

/// Every GET endpoint, with what it needs.
const ENDPOINTS: &[(&str, &[(&str, &str)])] = &[
    ("/v2/agent/lists.json", &[]),
    ("/v2/service/lists.json", &[]),
    (
        "/v2/service/report/10001.json",
        &[("start_date", "2026-01-01"), ("end_date", "2026-01-03")],
    ),
    (
        "/v2/site/report/20001.json",
        &[("start_date", "2026-01-01"), ("end_date", "2026-01-03")],
    ),
    ("/v2/site/respose_time_distribute/20001.json", &[]),
    ("/v2/site/lists.json", &[]),
    ("/v2/site/info/20001.json", &[]),
    ("/v2/site/monitors.json", &[]),
    ("/v2/user/lists.json", &[]),
    ("/v2/user/organization.json", &[]),
];

async fn get_encoded(env: &Env, token: &str, path: &str, query: &[(&str, &str)], accept: &str) -> Reply {
    let response = env
        .http
        .get(env.url(path))
        .query(query)
        .query(&[("access_token", token)])
        .header("accept-encoding", accept)
        .send()
        .await
        .unwrap();
    read_reply(response).await
}

fn decode(encoding: &str, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match encoding {
        "gzip" => GzDecoder::new(bytes).read_to_end(&mut out)?,
        "deflate" => ZlibDecoder::new(bytes).read_to_end(&mut out)?,
        other => panic!("unexpected encoding {other}"),
    };
    Ok(out)
}

#[tokio::test]
async fn every_endpoint_answers_compressed_what_it_answers_plain() {
    let env = start().await;
    let token = env.login().await;
    let mut compressed = 0;
    for (path, query) in ENDPOINTS {
        let plain = env.get_auth(&token, path, query).await;
        assert_eq!(plain.status, StatusCode::OK, "{path}");
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        for (accept, encoding) in [
            ("gzip, deflate", "gzip"),
            ("deflate", "deflate"),
            ("gzip;q=0, deflate", "deflate"),
        ] {
            let reply = get_encoded(&env, &token, path, query, accept).await;
            compressed += 1;
            assert_eq!(reply.status, StatusCode::OK, "{path}");
            assert_eq!(
                reply.header("content-encoding"),
                Some(encoding),
                "{path} {accept}"
            );
            assert_eq!(reply.header("vary"), Some("Accept-Encoding"));
            assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
            assert_eq!(
                reply.header("content-length"),
                Some(reply.bytes.len().to_string().as_str())
            );
            assert_eq!(
                decode(encoding, &reply.bytes).unwrap(),
                plain.bytes,
                "{path} {accept}"
            );
        }
        // Nothing the emulator offers: the answer as it is.
        let reply = get_encoded(&env, &token, path, query, "br, identity").await;
        assert_eq!(reply.header("content-encoding"), None);
        assert_eq!(reply.bytes, plain.bytes, "{path}");
    }
    assert_eq!(env.emu.counters().compressed, compressed);

    // Errors are compressed too, as a front end compresses every answer.
    let refused = get_encoded(&env, "not-a-token", "/v2/agent/lists.json", &[], "gzip").await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let body = decode("gzip", &refused.bytes).unwrap();
    assert!(serde_json::from_slice::<serde_json::Value>(&body).is_ok());
}

#[tokio::test]
async fn a_cached_report_is_compressed_once() {
    let env = start().await;
    let token = env.login().await;
    let (path, query) = ENDPOINTS[2];
    let first = get_encoded(&env, &token, path, query, "gzip").await;
    let again = get_encoded(&env, &token, path, query, "gzip").await;
    // The same bytes, not an equal compression done again (a cheap check of the cache).
    assert_eq!(first.bytes, again.bytes);
    assert!(first.bytes.len() * 3 < decode("gzip", &first.bytes).unwrap().len());
}

#[tokio::test]
async fn the_offered_encodings_are_configured() {
    let env = start_with(Config {
        compression: vec![Encoding::Deflate],
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let reply = get_encoded(&env, &token, "/v2/agent/lists.json", &[], "gzip, deflate").await;
    assert_eq!(reply.header("content-encoding"), Some("deflate"));

    let env = start_with(Config {
        compression: Vec::new(),
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let reply = get_encoded(&env, &token, "/v2/agent/lists.json", &[], "gzip, deflate").await;
    assert_eq!(reply.header("content-encoding"), None);
    assert_eq!(env.emu.counters().compressed, 0);
}

#[tokio::test]
async fn a_corrupt_gzip_body_is_sent_on_demand() {
    let env = start().await;
    let token = env.login().await;
    env.emu
        .set_faults(Faults {
            next: vec![FaultKind::CorruptGzip],
            ..Faults::default()
        })
        .unwrap();
    // Whatever the request accepts, as a broken front end would.
    let reply = get_encoded(&env, &token, "/v2/agent/lists.json", &[], "identity").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-encoding"), Some("gzip"));
    assert_eq!(&reply.bytes[..2], &[0x1f, 0x8b]);
    assert!(decode("gzip", &reply.bytes).is_err());
    // The next answer is whole again.
    let reply = get_encoded(&env, &token, "/v2/agent/lists.json", &[], "gzip").await;
    assert!(decode("gzip", &reply.bytes).is_ok());
}
