//! Answers decoded as they arrive: the tables and typed reports read while the body crosses a
//! paced link are exactly what the whole body gives; a body that breaks or arrives corrupt
//! half-way is read again from its start, without rows doubled; a decoder never outlives its
//! call.

use chrono::NaiveDate;
use monapi::{table, DateRange, Monitor, Request, ServiceReport, SiteReport};
use monapi_emulator::{Config, Emulator, FaultKind};

use crate::common::*;

fn week() -> DateRange {
    let start = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
    DateRange::new(start, NaiveDate::from_ymd_opt(2026, 11, 7).unwrap())
}

/// An emulator whose answers arrive gzipped (its default) over a link slow enough that the
/// client reads them member by member as they arrive.
async fn paced() -> Emulator {
    emulator_with(Config {
        bandwidth_mbps: Some(20.0),
        ..Config::default()
    })
    .await
}

#[tokio::test]
async fn tables_read_as_they_arrive_equal_the_whole_body() {
    let emu = paced().await;
    let client = client(&emu);
    let tz = client.timezone();
    let service = Request::ServiceReport {
        task_id: 10001,
        range: week(),
    };
    let body = client.execute(&service).await.unwrap().body().clone();
    assert!(body.len() > 1_000_000, "several hundred pieces: {}", body.len());
    let whole = table::service_report(10001, &body, week().start.unwrap(), tz).unwrap();
    assert!(whole.num_rows() > 100_000);
    assert_eq!(
        client.tables().service_report(10001, week()).await.unwrap(),
        whole
    );

    let site = Request::SiteReport {
        task_id: 20001,
        range: week(),
        monitor: Monitor::All,
    };
    let body = client.execute(&site).await.unwrap().body().clone();
    assert_eq!(
        client
            .tables()
            .site_report(20001, week(), Monitor::All)
            .await
            .unwrap(),
        table::site_report(20001, &body, tz).unwrap()
    );

    let distribution = Request::ResponseTimeDistribution {
        task_id: 20001,
        range: week(),
    };
    let body = client.execute(&distribution).await.unwrap().body().clone();
    assert_eq!(
        client
            .tables()
            .response_time_distribution(20001, week())
            .await
            .unwrap(),
        table::response_time_distribution(20001, &body).unwrap()
    );
}

#[tokio::test]
async fn typed_reports_read_as_they_arrive_equal_the_whole_body() {
    let emu = paced().await;
    let client = client(&emu);
    let service = Request::ServiceReport {
        task_id: 10001,
        range: week(),
    };
    let whole: ServiceReport = client.execute(&service).await.unwrap().json().unwrap();
    assert_eq!(client.service_report(10001, week()).await.unwrap(), whole);
    let site = Request::SiteReport {
        task_id: 20001,
        range: week(),
        monitor: Monitor::All,
    };
    let whole: SiteReport = client.execute(&site).await.unwrap().json().unwrap();
    assert_eq!(
        client.site_report(20001, week(), Monitor::All).await.unwrap(),
        whole
    );
}

#[tokio::test]
async fn a_body_broken_half_way_is_read_again_from_its_start() {
    let emu = paced().await;
    let client = client(&emu);
    let expected = client.tables().service_report(10001, week()).await.unwrap();
    let typed = client.service_report(10001, week()).await.unwrap();
    for fault in [
        FaultKind::TruncatedBody,
        FaultKind::CorruptGzip,
        FaultKind::DropConnection,
    ] {
        emu.set_faults(next_faults(&[fault])).unwrap();
        let before = emu.counters().service_report;
        assert_eq!(
            client.tables().service_report(10001, week()).await.unwrap(),
            expected,
            "{fault:?}"
        );
        assert_eq!(
            emu.counters().service_report,
            before + 2,
            "{fault:?}: retried once"
        );
        emu.set_faults(next_faults(&[fault])).unwrap();
        assert_eq!(
            client.service_report(10001, week()).await.unwrap(),
            typed,
            "{fault:?}"
        );
    }
}

/// A site report cut into pieces as it arrives, its points and their maps opened: the
/// pieces rebuild exactly the whole body, and the maps were opened.
#[tokio::test]
async fn a_report_cut_into_opened_objects_rebuilds_the_whole_body() {
    use serde_json::{Map, Value};
    let emu = paced().await;
    let client = client(&emu);
    let site = Request::SiteReport {
        task_id: 20001,
        range: week(),
        monitor: Monitor::All,
    };
    let decoder = monapi::Decoder::new(false, |_| Ok((Value::Null, 0))).with_members(|members| {
        let mut open = vec![(String::new(), Map::new())];
        let mut opened = 0;
        while let Some(piece) = members.next_object_piece()? {
            match piece {
                monapi::Piece::Members(text) => {
                    let run: Map<String, Value> = serde_json::from_str(text)?;
                    open.last_mut().unwrap().1.extend(run);
                }
                monapi::Piece::Open(key) => {
                    opened += 1;
                    open.push((serde_json::from_str(key)?, Map::new()));
                }
                monapi::Piece::Close => {
                    let (key, object) = open.pop().unwrap();
                    open.last_mut().unwrap().1.insert(key, Value::Object(object));
                }
            }
        }
        Ok((Value::Object(open.pop().unwrap().1), opened))
    });
    let (raw, (rebuilt, opened)) = client.execute_decoded(&site, &decoder).await.unwrap();
    let whole: Value = serde_json::from_slice(raw.body()).unwrap();
    assert!(
        raw.body().len() > 2_000_000,
        "read as it arrives: {}",
        raw.body().len()
    );
    assert_eq!(rebuilt, whole);
    let points = whole.as_object().unwrap().len();
    assert!(
        opened >= 3 * points,
        "each point and its uprate and resptime maps: {opened}"
    );
}

/// The decoder of an attempt that broke half-way has ended before the next attempt's decoder
/// begins, so that a language's decoder tells the attempts apart by their order alone (Python
/// builds each attempt's objects from the pieces that follow its start).
#[tokio::test]
async fn a_broken_attempt_s_decoder_ends_before_the_next_attempt_s_begins() {
    use std::sync::{Arc, Mutex};
    let emu = paced().await;
    let client = client(&emu);
    let events: Arc<Mutex<Vec<(usize, &str)>>> = Arc::default();
    let seen = events.clone();
    let decoder = monapi::Decoder::new(false, |_| Ok(())).with_members(move |members| {
        let attempt = {
            let mut events = seen.lock().unwrap();
            let attempt = events.iter().filter(|(_, what)| *what == "begins").count() + 1;
            events.push((attempt, "begins"));
            attempt
        };
        // A slow reader: when the body breaks, what had arrived still waits for it.
        let mut read = || {
            while members.next_object_piece()?.is_some() {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Ok(())
        };
        let outcome = read();
        seen.lock().unwrap().push((attempt, "ends"));
        outcome
    });
    let start = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
    let month = Request::ServiceReport {
        task_id: 10001,
        range: DateRange::new(start, NaiveDate::from_ymd_opt(2026, 11, 30).unwrap()),
    };
    client.login().await.unwrap();
    emu.set_faults(next_faults(&[FaultKind::TruncatedBody])).unwrap();
    client.execute_decoded(&month, &decoder).await.unwrap();
    assert_eq!(
        *events.lock().unwrap(),
        [(1, "begins"), (1, "ends"), (2, "begins"), (2, "ends")]
    );
}
