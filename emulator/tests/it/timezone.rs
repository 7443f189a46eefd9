//! The emulator's days, "today", clock times and the ongoing fault follow `Config::timezone`.

use chrono::{FixedOffset, NaiveDate, TimeZone, Timelike, Utc};
use monapi_emulator::{Config, SERVICE_TIMEZONE};
use serde_json::Value;

use crate::common::*;

fn zone(hours: i32) -> FixedOffset {
    FixedOffset::east_opt(hours * 3600).unwrap()
}

fn local_midnight(day: &str, timezone: FixedOffset) -> i64 {
    NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_local_timezone(timezone)
        .unwrap()
        .timestamp()
}

fn first_check(report: &Value) -> i64 {
    report["0"]["uprate"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn the_default_zone_is_the_services() {
    assert_eq!(Config::default().timezone, zone(8));
    assert_eq!(SERVICE_TIMEZONE.to_string(), "+08:00");
    let env = start().await;
    assert_eq!(env.emu.timezone(), zone(8));
    let token = env.login().await;
    let query = [
        ("start_date", "2026-11-01"),
        ("end_date", "2026-11-01"),
        ("monitor", "0"),
    ];
    let report = env.get_auth(&token, "/v2/site/report/20001.json", &query).await;
    // 2026-11-01 00:00 in Beijing is 2026-10-31 16:00 UTC.
    assert_eq!(first_check(&report.json), 1_793_462_400);
    assert_eq!(
        first_check(&report.json),
        Utc.with_ymd_and_hms(2026, 10, 31, 16, 0, 0).unwrap().timestamp()
    );
}

#[tokio::test]
async fn days_start_at_local_midnight_in_any_zone() {
    let day = "2026-11-01";
    let query = [("start_date", day), ("end_date", day), ("monitor", "0")];
    let mut by_zone = Vec::new();
    for hours in [-12, 0, 8, 14] {
        let env = start_with(Config {
            timezone: zone(hours),
            ..Config::default()
        })
        .await;
        let token = env.login().await;
        let site = env.get_auth(&token, "/v2/site/report/20001.json", &query).await;
        assert_eq!(
            first_check(&site.json),
            local_midnight(day, zone(hours)),
            "{hours}"
        );
        assert_eq!(site.json["0"]["uprate"].as_object().unwrap().len(), 288);
        // A service report reads the same whatever the zone: HH:MM are local clock times.
        let service = env
            .get_auth(&token, "/v2/service/report/10001.json", &query[..2])
            .await;
        by_zone.push(service.bytes);
    }
    assert!(by_zone.windows(2).all(|pair| pair[0] == pair[1]));
}

#[tokio::test]
async fn today_the_task_list_and_the_ongoing_fault_follow_the_zone() {
    // Fourteen hours ahead of UTC and twelve behind are always on different days.
    for hours in [14, -12] {
        let timezone = zone(hours);
        let today = Utc::now().with_timezone(&timezone).date_naive();
        // The stressed world's ongoing fault, with the clock late enough for it to have begun.
        let evening = today.and_hms_opt(23, 59, 59).unwrap();
        let env = start_with(Config {
            timezone,
            world: monapi_emulator::World::Stressed,
            now: Some(evening.and_local_timezone(timezone).unwrap().with_timezone(&Utc)),
            ..Config::default()
        })
        .await;
        assert_eq!(env.emu.today(), today);
        let token = env.login().await;
        let text = today.format("%Y-%m-%d").to_string();
        let explicit = [("start_date", text.as_str()), ("end_date", text.as_str())];
        let implicit = env.get_auth(&token, "/v2/site/report/20003.json", &[]).await;
        if env.emu.today() == today {
            let explicit = env
                .get_auth(&token, "/v2/site/report/20003.json", &explicit)
                .await;
            assert_eq!(implicit.bytes, explicit.bytes, "{hours}: no dates means today");
        }
        let ongoing: Vec<i64> = implicit
            .json
            .as_object()
            .unwrap()
            .values()
            .filter_map(|point| point["fault"].as_object())
            .flat_map(|faults| faults.values())
            .filter(|fault| fault["end_time"] == "未结束")
            .map(|fault| fault["start_time"].as_str().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ongoing.len(), 1, "{hours}");
        let began = timezone.timestamp_opt(ongoing[0], 0).unwrap();
        assert_eq!(began.date_naive(), today, "{hours}");
        assert!((6..12).contains(&began.hour()), "{hours}: began at {began}");

        let page = env.get_auth(&token, "/v2/service/lists.json", &[]).await;
        let yesterday = (today - chrono::Days::new(1)).format("%Y-%m-%d").to_string();
        let enabled = page
            .json
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["task_status"] == "启用" && t["frequency"] == "5")
            .unwrap();
        assert_eq!(enabled["last_check_time"], format!("{yesterday} 23:55:00"));
    }
}
