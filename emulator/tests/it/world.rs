//! The worlds of the site reports (`Config::world`): the realistic default, whose sites are up
//! at almost every check, and the stressed one, with faults in every report; both seeded.

use monapi_emulator::{instant, Config, World, SERVICE_TIMEZONE};
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::*;

const ONGOING: &str = "未结束";

/// Twenty sites (as the exporter's run that found the old world's alerts), the clock at the
/// end of November 2026: the 30 days of November are complete.
fn month(world: World, seed: u64) -> Config {
    Config {
        seed,
        world,
        site_tasks: 20,
        now: Some(instant("now", "2026-11-30 23:59:59", SERVICE_TIMEZONE).unwrap()),
        ..Config::default()
    }
}

const NOVEMBER: [(&str, &str); 2] = [("start_date", "2026-11-01"), ("end_date", "2026-11-30")];

/// The average's availability at each check of November, in order of time.
async fn availability(env: &Env, token: &str, task: u32) -> Vec<f64> {
    let path = format!("/v2/site/report/{task}.json");
    let query = [NOVEMBER[0], NOVEMBER[1], ("monitor", "0")];
    let reply = env.get_auth(token, &path, &query).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    let uprate = reply.json["0"]["uprate"].as_object().unwrap();
    let mut checks: Vec<(i64, f64)> = uprate
        .iter()
        .map(|(ts, record)| {
            let rate = record["uprate"].as_str().unwrap().parse().unwrap();
            (ts.parse().unwrap(), rate)
        })
        .collect();
    checks.sort_by_key(|&(ts, _)| ts);
    checks.into_iter().map(|(_, rate)| rate).collect()
}

/// The runs of checks with some point down: (how many, the longest in checks).
fn episodes(rates: &[f64]) -> (usize, usize) {
    let (mut count, mut longest, mut run) = (0, 0, 0);
    for &rate in rates {
        if rate < 100.0 {
            run += 1;
            if run == 1 {
                count += 1;
            }
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    (count, longest)
}

fn mean(rates: &[f64]) -> f64 {
    rates.iter().sum::<f64>() / rates.len() as f64
}

/// (task id, minutes between checks) of the twenty sites: 5, 10, 15, 30, 1, then 5, 10, 1,
/// 15, 30 in turn.
fn sites() -> Vec<(u32, i64)> {
    let first = [5, 10, 15, 30, 1];
    let then = [5, 10, 1, 15, 30];
    (0..20)
        .map(|i| {
            let minutes = if i < 5 { first[i] } else { then[(i - 5) % 5] };
            (20001 + i as u32, minutes)
        })
        .collect()
}

#[tokio::test]
async fn the_default_world_is_up_at_almost_every_check_with_rare_short_faults() {
    let env = start_with(month(World::default(), 42)).await;
    assert_eq!(env.emu.world(), World::Realistic);
    let token = env.login().await;
    let mut faults = 0;
    for (task, minutes) in sites() {
        let rates = availability(&env, &token, task).await;
        assert_eq!(rates.len() as i64, 30 * 1440 / minutes, "{task}");
        let uptime = mean(&rates);
        assert!(uptime > 99.0, "site {task}: mean uptime {uptime}");
        let up = rates.iter().filter(|&&rate| rate == 100.0).count() as f64 / rates.len() as f64;
        assert!(up > 0.99, "site {task}: {up} of its checks with every point up");
        // A fault every 4 to 30 days: a handful a month, none over an hour.
        let (count, longest) = episodes(&rates);
        assert!(count <= 12, "site {task}: {count} faults in 30 days");
        assert!(
            longest as i64 * minutes <= 60,
            "site {task}: a fault of {longest} checks"
        );
        faults += count;
    }
    // Rare, yet there: the world still shows what a fault looks like.
    assert!(
        (20..=120).contains(&faults),
        "{faults} faults in 30 days over 20 sites"
    );
}

#[tokio::test]
async fn the_default_world_has_plausible_response_times() {
    let env = start_with(month(World::default(), 42)).await;
    let token = env.login().await;
    for task in [20001, 20002, 20005] {
        let path = format!("/v2/site/respose_time_distribute/{task}.json");
        let buckets = env.get_auth(&token, &path, &NOVEMBER).await.json;
        let count = |low: u64| {
            buckets
                .as_object()
                .unwrap()
                .values()
                .filter(|bucket| bucket["start"].as_u64().unwrap() >= low)
                .map(|bucket| bucket["count"].as_u64().unwrap())
                .sum::<u64>()
        };
        let (all, slow, very_slow) = (count(0), count(1000), count(5000));
        assert!(all > 0);
        assert!(
            (slow as f64) < 0.01 * all as f64,
            "site {task}: {slow} of {all} over 1 s"
        );
        assert_eq!(very_slow, 0, "site {task}: checks over 5 s");
    }
}

#[tokio::test]
async fn the_stressed_world_keeps_its_faults() {
    let env = start_with(month(World::Stressed, 42)).await;
    assert_eq!(env.emu.world(), World::Stressed);
    let token = env.login().await;
    for (task, _) in sites() {
        let rates = availability(&env, &token, task).await;
        let (count, _) = episodes(&rates);
        assert!(count >= 10, "site {task}: only {count} faults in 30 days");
        // Today (the clock's day) one point has been down since a morning hour, and is still.
        let path = format!("/v2/site/report/{task}.json");
        let report = env.get_auth(&token, &path, &[]).await.json;
        let ongoing: Vec<&Value> = report
            .as_object()
            .unwrap()
            .values()
            .filter_map(|point| point["fault"].as_object())
            .flat_map(|faults| faults.values())
            .filter(|fault| fault["end_time"] == ONGOING)
            .collect();
        assert_eq!(ongoing.len(), 1, "site {task}");
        let last = report["0"]["uprate"]
            .as_object()
            .unwrap()
            .iter()
            .max_by_key(|(ts, _)| ts.parse::<i64>().unwrap())
            .map(|(_, record)| record["uprate"].as_str().unwrap().parse::<f64>().unwrap())
            .unwrap();
        assert!(last < 100.0, "site {task}: its last check had every point up");
    }
}

#[tokio::test]
async fn each_world_is_the_same_for_a_seed_and_another_for_another_seed() {
    for world in [World::Realistic, World::Stressed] {
        let mut bodies = Vec::new();
        for seed in [7, 7, 8] {
            let env = start_with(month(world, seed)).await;
            let token = env.login().await;
            let reply = env
                .get_auth(&token, "/v2/site/report/20001.json", &NOVEMBER)
                .await;
            bodies.push(reply.bytes);
        }
        assert_eq!(bodies[0], bodies[1], "{world:?}");
        assert_ne!(bodies[0], bodies[2], "{world:?}");
    }
}

#[tokio::test]
async fn the_worlds_differ_and_are_named() {
    assert_eq!("realistic".parse(), Ok(World::Realistic));
    assert_eq!(World::Stressed.to_string(), "stressed");
    let error = "quiet".parse::<World>().unwrap_err();
    assert_eq!(error.field(), "world");
    assert_eq!(error.rule(), "must be one of realistic, stressed, got \"quiet\"");
}
