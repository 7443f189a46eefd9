//! Partial create, decode and transport errors, and no secret in any of them.

use std::time::Duration;

use crate::common::*;
use monapi::{DateRange, Error, ErrorKind, ServerTask, SystemType};
use monapi_emulator::{FaultKind, Faults};

fn task(name: &str) -> ServerTask {
    ServerTask::new(name, "192.168.1.10", "203.0.113.10", SystemType::Linux)
}

#[tokio::test]
async fn partial_create_names_the_failed_line_and_keeps_the_others() {
    let emu = emulator().await;
    let client = client(&emu);
    let mut unknown_plugin = task("uses-a-missing-plugin");
    unknown_plugin.use_agent = true;
    unknown_plugin.plugin_task_uselist_id = vec!["999999".into()];
    let err = client
        .create_server_tasks(&[task("a"), unknown_plugin, task("c")])
        .await
        .unwrap_err();
    let Error::PartialCreate(partial) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(partial.err_key, "1");
    assert_eq!(partial.failed_indices, vec![1]);
    assert_eq!((partial.submitted, partial.created()), (3, 2));
    assert!(partial.err_content.contains("999999"), "{}", partial.err_content);
    let text = err.to_string();
    assert!(
        text.contains("task 1 failed") && text.contains("the other 2 of 3 tasks were created"),
        "{text}"
    );
    let names: Vec<_> = emu
        .server_tasks()
        .iter()
        .map(|t| t["server_name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(err.status(), Some(400));
}

#[tokio::test]
async fn a_malformed_body_is_a_decode_error_with_a_snippet() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(0).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::MalformedBody])).unwrap();
    let err = client.agents().await.unwrap_err();
    match &err {
        Error::Decode {
            endpoint, snippet, ..
        } => {
            assert_eq!(*endpoint, monapi::Endpoint::Agents);
            assert!(!snippet.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(emu.counters().agents, 1);
}

#[tokio::test]
async fn a_typed_decode_error_names_the_path() {
    let emu = emulator().await;
    let client = client(&emu);
    // A service report decoded as a distribution does not fit.
    let raw = client
        .execute(&monapi::Request::ServiceReport {
            task_id: 10001,
            range: DateRange::today(),
        })
        .await
        .unwrap();
    let err = raw.json::<monapi::Distribution>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode);
    assert!(
        err.to_string().contains("GET /v2/service/report/{task_id}.json"),
        "{err}"
    );
}

#[tokio::test]
async fn timeout_is_its_own_kind() {
    let emu = emulator().await;
    let client = builder(&emu)
        .timeout(Duration::from_millis(300))
        .max_retries(0)
        .build()
        .unwrap();
    client.login().await.unwrap();
    emu.set_latency(Duration::from_secs(2));
    let err = client.agents().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err:?}");
}

#[tokio::test]
async fn a_call_with_its_own_timeout_overrides_the_clients() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(0).build().unwrap();
    client.login().await.unwrap();
    emu.set_latency(Duration::from_millis(1500));
    let quick = client.with_timeout(Duration::from_millis(200)).unwrap();
    let err = quick.agents().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err:?}");
    assert_eq!(err.timeout(), Some(Duration::from_millis(200)));
    // The client itself keeps its own (30 s), and shares the token with the copy.
    client.agents().await.unwrap();
    assert_eq!(emu.counters().token, 1);
    let zero = client.with_timeout(Duration::ZERO).unwrap_err();
    assert_eq!(zero.field(), Some("timeout"));
}

#[tokio::test]
async fn connection_refused_is_a_connection_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = builder_at(&format!("http://127.0.0.1:{port}"))
        .max_retries(1)
        .build()
        .unwrap();
    let err = client.agents().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Connection, "{err:?}");
    // Where the connection went, so that a wrong base_url or port shows.
    let message = err.to_string();
    // Then the cause, in the operating system's words, without the names of the HTTP stack's
    // layers it passed through.
    let refused = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap_err();
    let expected = format!("could not connect to 127.0.0.1:{port}: tcp connect error: {refused}");
    assert!(message.ends_with(&expected), "{message}");
    assert_no_secret(&format!("{err} {err:?}"), &[]);
}

#[tokio::test]
async fn an_empty_answer_is_named_empty_and_shows_no_snippet() {
    // A PHP service that dies before it writes gives 200 and nothing: an answer no emulator
    // fault gives, so a listener of this test's own answers the one request (no retries) so.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answering = std::thread::spawn(move || {
        for stream in listener.incoming().take(1) {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut request).unwrap();
            std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .unwrap();
        }
    });
    let client = builder_at(&format!("http://127.0.0.1:{port}"))
        .max_retries(0)
        .build()
        .unwrap();
    let err = client.agents().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Decode, "{err:?}");
    assert_eq!(err.snippet(), Some(""));
    assert_eq!(
        err.to_string(),
        "POST /v2/oauth/token.json: could not decode the answer: the answer is empty"
    );
    answering.join().unwrap();
}

#[tokio::test]
async fn a_body_cut_short_names_the_cause_without_the_http_stack_s_layers() {
    let emu = emulator().await;
    let client = builder(&emu).max_retries(0).build().unwrap();
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::TruncatedBody])).unwrap();
    let message = client.agents().await.unwrap_err().to_string();
    let (said, cause) = message
        .split_once("the connection closed before the whole answer arrived (")
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(said, "GET /v2/agent/lists.json: connection failed: ");
    for layer in [
        "error decoding response body",
        "body error",
        "error reading a body",
    ] {
        assert!(!cause.contains(layer), "{message}");
    }
    assert!(cause.len() > 1 && cause.ends_with(')'), "{message}");
}

#[tokio::test]
async fn no_secret_in_any_error_or_debug_output() {
    let emu = emulator().await;
    let client = client(&emu);
    let token = client.login().await.unwrap();
    let access = token.access_token.expose().to_string();
    let refresh = token.refresh_token.as_ref().unwrap().expose().to_string();
    let secrets = [access.as_str(), refresh.as_str(), "s3cret-phrase", "db-s3cret-pw"];

    let mut bad = task("x");
    bad.snmp_v = monapi::SnmpVersion::V3;
    bad.snmp_user = "u".into();
    bad.snmp_pass = "s3cret-phrase".into();
    bad.frequency = 0;
    // A service task's password: a task the core refuses, and one the service refuses.
    let mut database = monapi::NewServiceTask::new("db", monapi::ServiceType::Mysql);
    database.ip = Some("10.0.0.7".into());
    database.port = Some(0);
    database.user = Some("monitor".into());
    database.password = Some("db-s3cret-pw".into());
    let mut refused_by_service = database.clone();
    refused_by_service.port = Some(3306);
    refused_by_service.use_agent = true;
    refused_by_service.plugin_task_uselist_id = vec!["999999".into()];
    let mut texts = vec![
        format!("{client:?}"),
        format!("{token:?}"),
        format!("{bad:?}"),
        format!("{database:?}"),
    ];
    let mut collect = |err: Error| texts.push(format!("{err} || {err:?}"));

    collect(
        builder(&emu)
            .client_secret("wrong-secret")
            .build()
            .unwrap()
            .login()
            .await
            .unwrap_err(),
    );
    collect(
        builder(&emu)
            .password("wrong-password")
            .build()
            .unwrap()
            .login()
            .await
            .unwrap_err(),
    );
    collect(
        client
            .service_report(424242, DateRange::today())
            .await
            .unwrap_err(),
    );
    collect(client.create_server_tasks(&[bad]).await.unwrap_err());
    collect(client.create_service_tasks(&[database]).await.unwrap_err());
    let partial = client
        .create_service_tasks(&[refused_by_service])
        .await
        .unwrap_err();
    assert_eq!(partial.kind(), ErrorKind::PartialCreate, "{partial:?}");
    collect(partial);
    for fault in [
        FaultKind::MalformedBody,
        FaultKind::TruncatedBody,
        FaultKind::DropConnection,
        FaultKind::Error500,
    ] {
        emu.set_faults(next_faults(&[fault; 3])).unwrap();
        collect(client.agents().await.unwrap_err());
    }
    emu.set_faults(Faults::default()).unwrap();
    emu.set_latency(Duration::from_secs(2));
    let slow = builder(&emu)
        .timeout(Duration::from_millis(200))
        .max_retries(0)
        .token(token.clone())
        .build()
        .unwrap();
    collect(slow.agents().await.unwrap_err());
    emu.set_latency(Duration::ZERO);
    emu.expire_tokens();
    emu.revoke_refresh_tokens();
    let no_password = monapi::Client::builder()
        .base_url(emu.base_url())
        .client_id(CLIENT_ID)
        .client_secret(CLIENT_SECRET)
        .token(token)
        .build()
        .unwrap();
    collect(no_password.agents().await.unwrap_err());

    assert!(texts.len() >= 15);
    for text in &texts {
        assert_no_secret(text, &secrets);
    }
}
