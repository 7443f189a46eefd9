//! Shapes of every endpoint against the fixtures, paging, reports over ranges, errors.

use std::collections::BTreeSet;

use monapi_emulator::{Config, World};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::*;

const TYPES: [&str; 8] = [
    "apache", "nginx", "lighttpd", "memcache", "mongodb", "mysql", "redis", "tomcat",
];

/// The documented series per service type, with their fields.
fn spec_series(kind: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    let table: &[(&str, &[&str])] = match kind {
        "apache" => &[
            ("apache_rps", &["rps"]),
            ("apache_curr_reqs", &["curr_reqs"]),
            ("apache_curr_reqs_status", &["s_R", "s_K", "s_W", "s_C", "s__"]),
        ],
        "nginx" => &[
            ("nginx_rps", &["rps"]),
            ("nginx_curr_reqs", &["curr_reqs"]),
            ("nginx_curr_reqs_status", &["reading", "writing", "waiting"]),
            ("nginx_rpc", &["rps"]),
        ],
        "lighttpd" => &[
            ("lighttpd_rps", &["rps"]),
            ("lighttpd_curr_reqs", &["curr_reqs"]),
            ("lighttpd_curr_reqs_status", &["s_R", "s_K", "s_W", "s_C", "s_"]),
        ],
        "memcache" => &[
            ("memcache_keyspace_ratio", &["keyspace_ratio"]),
            ("memcache_bytes", &["bytes"]),
            ("memcache_curr_connections", &["curr_connections"]),
            ("memcache_connected_sec", &["connected_sec"]),
            ("memcache_curr_times", &["curr_items"]),
            ("memcache_read_sec", &["read_sec", "write_sec"]),
            ("memcache_mem_ratio", &["mem_ratio"]),
        ],
        "mongodb" => &[
            ("mongodb_globalLock_ratio", &["globalLock_ratio"]),
            (
                "mongodb_globalLock_currentQueue_total",
                &[
                    "globalLock_currentQueue_total",
                    "globalLock_currentQueue_readers",
                    "globalLock_currentQueue_writers",
                ],
            ),
            (
                "mongodb_connections_current",
                &["connections_current", "connections_available"],
            ),
            ("mongodb_indexCounters_missRatio", &["indexCounters_missRatio"]),
            (
                "mongodb_indexCounters_btree_accesses_sec",
                &["indexCounters_btree_accesses_sec"],
            ),
            (
                "mongodb_opcounters_insert_sec",
                &[
                    "opcounters_insert_sec",
                    "opcounters_query_sec",
                    "opcounters_update_sec",
                    "opcounters_delete_sec",
                    "opcounters_getmore_sec",
                    "opcounters_command_sec",
                ],
            ),
            ("mongodb_mem_resident", &["mem_resident", "mem_maped"]),
            ("mongodb_page_faults_sec", &["page_faults_sec"]),
        ],
        "mysql" => &[
            (
                "mysql_query_detail",
                &[
                    "Com_change_db",
                    "Com_select",
                    "Com_update",
                    "Com_insert",
                    "Com_delete",
                ],
            ),
            ("mysql_qpc", &["Connections"]),
            ("mysql_connps", &["Connections", "Threads_created"]),
            ("mysql_conncache_hitrate", &["Connections"]),
            (
                "mysql_curr_conn",
                &[
                    "max_connections",
                    "Max_used_connections",
                    "Threads_connected",
                    "Threads_cached",
                    "Threads_running",
                ],
            ),
            ("mysql_kcache_hitrate", &["Key_read_requests"]),
            ("mysql_kcache_read", &["Key_read_requests", "Key_reads"]),
            ("mysql_qcache_usage", &["query_cache_size", "Qcache_free_memory"]),
            ("mysql_qcache_hitrate", &["Qcache_hits"]),
            ("mysql_qcache_querysum", &["Qcache_queries_in_cache"]),
            (
                "mysql_tlock_locks",
                &["Table_locks_immediate", "Table_locks_waited"],
            ),
            ("mysql_traffic", &["Bytes_received", "Bytes_sent"]),
        ],
        "redis" => &[
            ("redis_used_memory", &["used_memory"]),
            ("redis_commands_sec", &["commands_sec"]),
            ("redis_keyspace_ratio", &["keyspace_ratio"]),
            (
                "redis_connected_clients",
                &["connected_clients", "connected_slaves"],
            ),
            ("redis_connected_sec", &["connected_sec"]),
            ("redis_blocked_clients", &["blocked_clients"]),
            ("redis_pubsub_channels", &["pubsub_channels"]),
            ("redis_pubsub_patterns", &["pubsub_patterns"]),
        ],
        "tomcat" => &[
            ("tomcat_free_memory", &["free_memory"]),
            (
                "tomcat_max_threads",
                &["max_threads", "cur_thread", "cur_thread_b"],
            ),
            ("tomcat_processing_time_sec", &["processing_time_sec"]),
            (
                "tomcat_request_count_sec",
                &["request_count_sec", "error_count_sec"],
            ),
            (
                "tomcat_bytes_received_sec",
                &["bytes_received_sec", "bytes_sent_sec"],
            ),
        ],
        other => panic!("unknown type {other}"),
    };
    table.iter().map(|(s, f)| (*s, f.to_vec())).collect()
}

#[tokio::test]
async fn service_task_list_has_three_pages_of_strings() {
    let env = start().await;
    let token = env.login().await;
    let fixture_shape = shape(&fixture("service_tasks.json"));
    let mut ids = Vec::new();
    for (page, expected) in [("1", 50), ("2", 50), ("3", 20)] {
        let reply = env
            .get_auth(&token, "/v2/service/lists.json", &[("page", page)])
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
        let items = reply.json.as_array().unwrap();
        assert_eq!(items.len(), expected, "page {page}");
        assert_eq!(shape(&reply.json), fixture_shape, "page {page}");
        assert!(all_leaves_strings(&reply.json));
        ids.extend(
            items
                .iter()
                .map(|t| t["task_id"].as_str().unwrap().parse::<u64>().unwrap()),
        );
    }
    assert_eq!(ids, (10001..=10120).collect::<Vec<_>>());
    let beyond = env
        .get_auth(&token, "/v2/service/lists.json", &[("page", "4")])
        .await;
    assert_eq!(beyond.status, StatusCode::OK);
    assert_eq!(beyond.json, json!([]));
    assert_eq!(&beyond.bytes[..], b"[]");
    // Default page is 1.
    let default = env.get_auth(&token, "/v2/service/lists.json", &[]).await;
    let first = env
        .get_auth(&token, "/v2/service/lists.json", &[("page", "1")])
        .await;
    assert_eq!(default.bytes, first.bytes);
}

#[tokio::test]
async fn service_tasks_cover_every_type_with_a_one_minute_task() {
    let env = start().await;
    let token = env.login().await;
    let tasks = all_service_tasks(&env, &token).await;
    let time = regex_like_datetime;
    for kind in TYPES {
        assert!(
            task_of_type(&tasks, kind, "1").is_some(),
            "no 1-minute {kind} task"
        );
    }
    let mut statuses = BTreeSet::new();
    for task in &tasks {
        assert!(["1", "5", "10", "15", "30"].contains(&task["frequency"].as_str().unwrap()));
        assert!(TYPES.contains(&task["task_type"].as_str().unwrap()));
        assert!(time(task["last_check_time"].as_str().unwrap()), "{task}");
        assert!(!task["task_name"].as_str().unwrap().is_empty());
        statuses.insert(task["task_status"].as_str().unwrap().to_string());
    }
    assert!(statuses.contains("启用"));
    assert!(statuses.iter().all(|s| s == "启用" || s == "暂停"));
    // An enabled task last ran at yesterday's final check.
    let enabled = tasks
        .iter()
        .find(|t| t["task_status"] == "启用" && t["frequency"] == "5")
        .unwrap();
    assert_eq!(enabled["last_check_time"], format!("{} 23:55:00", yesterday()));
}

fn regex_like_datetime(text: &str) -> bool {
    text.len() == 19 && chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").is_ok()
}

#[tokio::test]
async fn service_task_count_follows_the_config() {
    let env = start_with(Config {
        service_tasks: 101,
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let page3 = env
        .get_auth(&token, "/v2/service/lists.json", &[("page", "3")])
        .await;
    assert_eq!(page3.json.as_array().unwrap().len(), 1);
    assert_eq!(page3.json[0]["task_id"], "10101");
}

#[tokio::test]
async fn bad_pages_are_400() {
    let env = start().await;
    let token = env.login().await;
    for page in ["0", "-1", "abc", "1.5", "", " 1", "99999999999999999999999"] {
        let reply = env
            .get_auth(&token, "/v2/service/lists.json", &[("page", page)])
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "page={page:?}");
        assert_eq!(reply.json["code"], json!(400));
        assert!(
            reply.json["msg"].as_str().unwrap().contains("page"),
            "{}",
            reply.json
        );
        assert_eq!(shape(&reply.json), shape(&fixture("api_error.json")));
    }
}

#[tokio::test]
async fn agents_match_the_fixture_shape() {
    let env = start_with(Config {
        download_url: "http://dl.example.test/".into(),
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let reply = env.get_auth(&token, "/v2/agent/lists.json", &[]).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(shape(&reply.json), shape(&fixture("agents.json")));
    assert!(all_leaves_strings(&reply.json));
    let agents = reply.json.as_object().unwrap();
    assert!(agents.len() >= 3);
    assert!(agents.keys().all(|k| is_digits(k)));
    let mut keys = BTreeSet::new();
    let mut use_ids = BTreeSet::new();
    let mut empty = 0;
    for agent in agents.values() {
        let windows = agent["agentUrl"]["windows"].as_str().unwrap();
        let linux = agent["agentUrl"]["linux"].as_str().unwrap();
        for url in [windows, linux] {
            assert!(url.starts_with("http://dl.example.test/agent/"), "{url}");
        }
        // The per-agent key is the same in both links.
        let key = windows.split('/').nth(5).unwrap();
        assert_eq!(key.len(), 16);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(linux.contains(key));
        keys.insert(key.to_string());
        let plugins = agent["plugin"].as_array().unwrap();
        empty += plugins.is_empty() as usize;
        for plugin in plugins {
            assert!(TYPES.contains(&plugin["plugin_name"].as_str().unwrap()));
            use_ids.insert(plugin["plugin_task_uselist_id"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(keys.len(), agents.len(), "keys differ per agent");
    assert_eq!(empty, 1, "one agent without plugins");
    assert!(use_ids.len() >= 3);
}

#[tokio::test]
async fn apache_report_matches_the_fixture() {
    let env = start().await;
    let token = env.login().await;
    let tasks = all_service_tasks(&env, &token).await;
    let apache = task_of_type(&tasks, "apache", "5")
        .or_else(|| task_of_type(&tasks, "apache", "1"))
        .unwrap();
    let path = format!("/v2/service/report/{}.json", apache["task_id"].as_str().unwrap());
    let day = yesterday();
    let reply = env
        .get_auth(&token, &path, &[("start_date", &day), ("end_date", &day)])
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    assert_eq!(shape(&reply.json), shape(&fixture("service_report_apache.json")));
}

#[tokio::test]
async fn every_service_type_reports_every_series_once_per_check() {
    let env = start().await;
    let token = env.login().await;
    let tasks = all_service_tasks(&env, &token).await;
    let day = "2026-03-10";
    for kind in TYPES {
        let task = task_of_type(&tasks, kind, "1").unwrap();
        let path = format!("/v2/service/report/{}.json", task["task_id"].as_str().unwrap());
        let reply = env
            .get_auth(&token, &path, &[("start_date", day), ("end_date", day)])
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{kind}");
        assert!(all_leaves_strings(&reply.json), "{kind}");
        let report = reply.json.as_object().unwrap();
        let series = spec_series(kind);
        let keys: Vec<_> = report.keys().map(String::as_str).collect();
        let expected: Vec<_> = series.iter().map(|(s, _)| *s).collect();
        assert_eq!(keys, expected, "{kind}");
        for (name, fields) in &series {
            let records = report[*name].as_array().unwrap();
            assert_eq!(records.len(), 1440, "{kind} {name}");
            for (i, record) in records.iter().enumerate() {
                let record = record.as_object().unwrap();
                let record_keys: Vec<_> = record.keys().map(String::as_str).collect();
                let mut want = vec!["time"];
                want.extend(fields.iter().copied());
                assert_eq!(record_keys, want, "{kind} {name}");
                assert_eq!(record["time"], format!("{:02}:{:02}", i / 60, i % 60));
                for field in fields.iter() {
                    let value = record[*field].as_str().unwrap();
                    let number: f64 = value.parse().unwrap_or_else(|_| panic!("{kind} {field}={value}"));
                    assert!(number >= 0.0);
                    if field.contains("ratio") || field.contains("Ratio") || name.contains("hitrate") {
                        assert!(number <= 100.0, "{kind} {field}={value}");
                    }
                }
            }
        }
        // Multi-megabyte for the one-minute tasks of the larger types.
        if kind == "mysql" {
            assert!(reply.bytes.len() > 1_000_000, "{}", reply.bytes.len());
        }
    }
}

#[tokio::test]
async fn multi_day_ranges_have_one_record_per_check() {
    let env = start().await;
    let token = env.login().await;
    let tasks = all_service_tasks(&env, &token).await;
    let (start, end) = ("2026-02-27", "2026-03-01"); // 3 days across a month end
    for freq in ["5", "15", "30"] {
        let Some(task) = tasks.iter().find(|t| t["frequency"] == freq) else {
            continue;
        };
        let path = format!("/v2/service/report/{}.json", task["task_id"].as_str().unwrap());
        let reply = env
            .get_auth(&token, &path, &[("start_date", start), ("end_date", end)])
            .await;
        let per_day = 1440 / freq.parse::<usize>().unwrap();
        for (name, records) in reply.json.as_object().unwrap() {
            let records = records.as_array().unwrap();
            assert_eq!(records.len(), 3 * per_day, "freq {freq} {name}");
            assert_eq!(records[0]["time"], "00:00");
            assert_eq!(records[per_day]["time"], "00:00");
        }
    }
    // Site report: one uprate and one resptime entry per check, timestamps in order.
    let reply = env
        .get_auth(
            &token,
            "/v2/site/report/20001.json",
            &[("start_date", start), ("end_date", end)],
        )
        .await;
    let first = day_start(start);
    for point in reply.json.as_object().unwrap().values() {
        let times: Vec<i64> = point["uprate"]
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.parse().unwrap())
            .collect();
        let expected: Vec<i64> = (0..3 * 288).map(|i| first + i * 300).collect();
        assert_eq!(times, expected);
        let resp_times: Vec<i64> = point["resptime"]
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.parse().unwrap())
            .collect();
        assert_eq!(resp_times, expected);
    }
    // Distribution: counts add up to the checks in range.
    let reply = env
        .get_auth(
            &token,
            "/v2/site/respose_time_distribute/20004.json",
            &[("start_date", start), ("end_date", end)],
        )
        .await;
    let total: u64 = reply
        .json
        .as_object()
        .unwrap()
        .values()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 3 * 48); // 20004 checks every 30 minutes
}

#[tokio::test]
async fn a_day_reads_the_same_in_any_range() {
    let env = start().await;
    let token = env.login().await;
    let one = env
        .get_auth(
            &token,
            "/v2/site/report/20002.json",
            &[
                ("start_date", "2026-03-02"),
                ("end_date", "2026-03-02"),
                ("monitor", "0"),
            ],
        )
        .await;
    let three = env
        .get_auth(
            &token,
            "/v2/site/report/20002.json",
            &[
                ("start_date", "2026-03-01"),
                ("end_date", "2026-03-03"),
                ("monitor", "0"),
            ],
        )
        .await;
    for (ts, value) in one.json["0"]["uprate"].as_object().unwrap() {
        assert_eq!(&three.json["0"]["uprate"][ts], value);
        assert_eq!(three.json["0"]["resptime"][ts], one.json["0"]["resptime"][ts]);
    }
}

#[tokio::test]
async fn site_report_matches_the_fixture_and_has_an_ongoing_fault_today() {
    let env = start_with(evening(World::Stressed)).await;
    let token = env.login().await;
    for site in [20001, 20002, 20003, 20004, 20005] {
        let path = format!("/v2/site/report/{site}.json");
        let reply = env.get_auth(&token, &path, &[]).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
        assert_eq!(
            shape(&reply.json),
            shape(&fixture("site_report.json")),
            "site {site}"
        );
        let points = reply.json.as_object().unwrap();
        assert_eq!(points.keys().next().unwrap(), "0");
        assert_eq!(points["0"]["name"], "平均");
        assert!(points["0"]["fault"].is_null());
        assert!(points.len() >= 4, "several points plus the average");
        let ids: Vec<u32> = points.keys().map(|k| k.parse().unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ordered ids");
        let null_points = points
            .iter()
            .filter(|(k, p)| *k != "0" && p["fault"].is_null())
            .count();
        assert!(null_points >= 1, "some point without faults");
        let ongoing: Vec<&Value> = points
            .values()
            .filter_map(|p| p["fault"].as_object())
            .flat_map(|f| f.values())
            .filter(|record| record["end_time"] == "未结束")
            .collect();
        assert_eq!(ongoing.len(), 1, "site {site}: exactly one ongoing fault today");
        for point in points.values() {
            assert!(
                point["name"].as_str().unwrap().chars().all(|c| !c.is_ascii()),
                "Chinese name"
            );
            check_faults_match_uprate(point);
        }
    }
}

/// Fault records are strings with count a number; uprate is 0.00 inside each fault and
/// 100.00 right before it.
fn check_faults_match_uprate(point: &Value) {
    let uprate = point["uprate"].as_object().unwrap();
    let Some(faults) = point["fault"].as_object() else {
        return;
    };
    let count = faults["count"].as_u64().unwrap();
    assert_eq!(faults.len() as u64, count + 1);
    for i in 0..count {
        let record = &faults[&i.to_string()];
        assert!(all_leaves_strings(record));
        let start = record["start_time"].as_str().unwrap();
        assert_eq!(uprate[start]["uprate"], "0.00", "down at fault start");
        assert!(
            record["diff_time"].as_str().unwrap().ends_with("钟")
                || record["diff_time"].as_str().unwrap().ends_with("时")
                || record["diff_time"].as_str().unwrap().ends_with("天")
        );
        let start: i64 = start.parse().unwrap();
        let before: Vec<_> = uprate
            .keys()
            .map(|k| k.parse::<i64>().unwrap())
            .filter(|t| *t < start)
            .collect();
        if let Some(prev) = before.last() {
            // Either up before the fault, or the previous fault ended right there.
            let up = uprate[&prev.to_string()]["uprate"] == "100.00";
            let prev_fault_ended = faults.values().any(|f| f["end_time"] == json!(start.to_string()));
            assert!(up || prev_fault_ended);
        }
        if let Some(end) = record["end_time"].as_str().filter(|e| is_digits(e))
            && let Some(value) = uprate.get(end)
        {
            assert_eq!(value["uprate"], "100.00", "up again at fault end");
        }
    }
}

#[tokio::test]
async fn past_ranges_have_no_ongoing_fault_but_have_faults() {
    let env = start_with(Config {
        world: World::Stressed,
        ..Config::default()
    })
    .await;
    let token = env.login().await;
    let reply = env
        .get_auth(
            &token,
            "/v2/site/report/20001.json",
            &[("start_date", "2026-01-01"), ("end_date", "2026-01-31")],
        )
        .await;
    let text = std::str::from_utf8(&reply.bytes).unwrap();
    assert!(!text.contains("未结束"));
    let faults: u64 = reply
        .json
        .as_object()
        .unwrap()
        .values()
        .filter_map(|p| p["fault"]["count"].as_u64())
        .sum();
    assert!(faults > 0, "a month has faults");
    // The average dips where a point is down.
    let average = reply.json["0"]["uprate"].as_object().unwrap();
    assert!(average.values().any(|v| v["uprate"] != "100.00"));
    assert!(
        average.values().all(|v| v["uprate"] != "0.00"),
        "a stable point keeps the average up"
    );
}

#[tokio::test]
async fn monitor_selects_points() {
    let env = start().await;
    let token = env.login().await;
    let day = yesterday();
    let path = "/v2/site/report/20003.json";
    let report = |monitor: Option<String>| {
        let (env, token, day) = (&env, &token, &day);
        async move {
            let mut query = vec![("start_date", day.as_str()), ("end_date", day.as_str())];
            if let Some(monitor) = &monitor {
                query.push(("monitor", monitor.as_str()));
            }
            env.get_auth(token, path, &query).await
        }
    };
    let all = report(None).await;
    let average = report(Some("0".into())).await;
    assert_eq!(
        average.json.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["0"]
    );
    assert_eq!(average.json["0"], all.json["0"]);
    let point_id = all.json.as_object().unwrap().keys().nth(2).unwrap().clone();
    let one = report(Some(point_id.clone())).await;
    assert_eq!(
        one.json.as_object().unwrap().keys().collect::<Vec<_>>(),
        [&point_id]
    );
    assert_eq!(one.json[&point_id], all.json[&point_id]);
    for bad in ["99", "abc", "-1", "", "+1", "1.0"] {
        let reply = report(Some(bad.into())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "monitor={bad}");
        assert!(reply.json["msg"].as_str().unwrap().contains("monitor"));
    }
    // A point of another task is not a point of this one.
    let ids_of = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>();
    let mut foreign = BTreeSet::new();
    for site in [20001, 20002, 20004, 20005] {
        let other = env
            .get_auth(
                &token,
                &format!("/v2/site/report/{site}.json"),
                &[("start_date", &day), ("end_date", &day)],
            )
            .await;
        foreign.extend(ids_of(&other.json).difference(&ids_of(&all.json)).cloned());
    }
    assert!(!foreign.is_empty(), "site tasks use different points");
    for id in foreign {
        let reply = report(Some(id.clone())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "monitor={id}");
    }
}

#[tokio::test]
async fn distribution_matches_the_fixture_and_counts_every_check() {
    let env = start().await;
    let token = env.login().await;
    let day = yesterday();
    for (site, per_day) in [(20001, 288), (20002, 144), (20005, 1440)] {
        let path = format!("/v2/site/respose_time_distribute/{site}.json");
        let reply = env
            .get_auth(&token, &path, &[("start_date", &day), ("end_date", &day)])
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
        assert_eq!(
            shape(&reply.json),
            shape(&fixture("response_time_distribution.json"))
        );
        let buckets = reply.json.as_object().unwrap();
        let mut total = 0;
        let mut percent = 0.0;
        let mut previous_end = 0;
        let mut widths = BTreeSet::new();
        for (key, bucket) in buckets {
            let start = bucket["start"].as_u64().unwrap();
            let end = bucket["end"].as_u64().unwrap();
            assert_eq!(key, &start.to_string());
            assert!(end > start && start >= previous_end, "ordered, non-overlapping");
            previous_end = end;
            widths.insert(end - start);
            let count = bucket["count"].as_u64().unwrap();
            assert!(count > 0, "empty buckets are absent");
            total += count;
            let text = bucket["percent"].as_str().unwrap();
            assert_eq!(text.split('.').nth(1).map(str::len), Some(2), "{text}");
            percent += text.parse::<f64>().unwrap();
        }
        assert_eq!(total, per_day, "site {site}");
        assert!((percent - 100.0).abs() < 0.1, "{percent}");
        assert!(widths.len() > 1 || buckets.len() == 1, "unequal widths");
    }
}

#[tokio::test]
async fn omitted_dates_mean_today() {
    let env = start_with(evening(World::Stressed)).await;
    let token = env.login().await;
    let today = today();
    let explicit = [("start_date", today.as_str()), ("end_date", today.as_str())];
    for path in [
        "/v2/service/report/10001.json",
        "/v2/site/report/20001.json",
        "/v2/site/respose_time_distribute/20001.json",
    ] {
        let implicit = env.get_auth(&token, path, &[]).await;
        let explicit = env.get_auth(&token, path, &explicit).await;
        assert_eq!(implicit.status, StatusCode::OK);
        // Unless the day changed between the two calls.
        if self::today() == today {
            assert_eq!(implicit.bytes, explicit.bytes, "{path}");
        }
    }
    // Only start_date: until today.
    let reply = env
        .get_auth(
            &token,
            "/v2/site/respose_time_distribute/20004.json",
            &[("start_date", &yesterday())],
        )
        .await;
    let total: u64 = reply
        .json
        .as_object()
        .unwrap()
        .values()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 2 * 48);
}

#[tokio::test]
async fn unknown_tasks_are_404() {
    let env = start().await;
    let token = env.login().await;
    let cases = [
        ("/v2/service/report/99999.json", "99999"),
        ("/v2/service/report/20001.json", "20001"), // a site task is not a service task
        ("/v2/service/report/10121.json", "10121"), // one past the seeded tasks
        ("/v2/site/report/10001.json", "10001"),
        ("/v2/site/report/20006.json", "20006"),
        ("/v2/site/respose_time_distribute/123.json", "123"),
    ];
    for (path, id) in cases {
        let reply = env.get_auth(&token, path, &[]).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            reply.json,
            json!({"code": 404, "msg": format!("task {id} not found")})
        );
        assert_eq!(reply.header("content-type"), Some(PHP_CONTENT_TYPE));
    }
}

#[tokio::test]
async fn malformed_dates_and_ranges_are_400() {
    let env = start().await;
    let token = env.login().await;
    let bad_dates = [
        "2026-1-01",
        "2026-02-30",
        "20261101",
        "2026/11/01",
        "abc",
        "",
        "2026-11-01 ",
        "2026-13-01",
    ];
    for path in [
        "/v2/service/report/10001.json",
        "/v2/site/report/20001.json",
        "/v2/site/respose_time_distribute/20001.json",
    ] {
        for param in ["start_date", "end_date"] {
            for value in bad_dates {
                let reply = env.get_auth(&token, path, &[(param, value)]).await;
                assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path} {param}={value:?}");
                assert_eq!(reply.json["code"], json!(400));
                assert!(
                    reply.json["msg"].as_str().unwrap().contains(param),
                    "{}",
                    reply.json
                );
            }
        }
        let reply = env
            .get_auth(
                &token,
                path,
                &[("start_date", "2026-03-02"), ("end_date", "2026-03-01")],
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST);
        assert!(reply.json["msg"].as_str().unwrap().contains("after"));
        // 367 days is too long.
        let reply = env
            .get_auth(
                &token,
                path,
                &[("start_date", "2025-01-01"), ("end_date", "2026-01-02")],
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}");
        assert!(reply.json["msg"].as_str().unwrap().contains("366"));
    }
    // 366 days is allowed (a 30-minute site task keeps the body small).
    let reply = env
        .get_auth(
            &token,
            "/v2/site/respose_time_distribute/20004.json",
            &[("start_date", "2025-01-01"), ("end_date", "2026-01-01")],
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let total: u64 = reply
        .json
        .as_object()
        .unwrap()
        .values()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 366 * 48);
}

#[tokio::test]
async fn bad_task_ids_methods_and_paths() {
    let env = start().await;
    let token = env.login().await;
    let reply = env.get_auth(&token, "/v2/service/report/abc.json", &[]).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.json["msg"].as_str().unwrap().contains("task id"));
    let reply = env.get_auth(&token, "/v2/site/report/.json", &[]).await;
    assert_eq!(reply.json, fixture("api_error.json"));
    let reply = env.get_auth(&token, "/v2/service/report/10001", &[]).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let reply = env.get_auth(&token, "/v2/nothing.json", &[]).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.json["code"], json!(404));
    let wrong_methods = [
        (Method::POST, "/v2/service/lists.json"),
        (Method::DELETE, "/v2/agent/lists.json"),
        (Method::PUT, "/v2/service/report/10001.json"),
        (Method::POST, "/v2/site/report/20001.json"),
        (Method::PATCH, "/v2/site/respose_time_distribute/20001.json"),
        (Method::GET, "/v2/server/create.json"),
        (Method::PUT, "/v2/oauth/token.json"),
    ];
    for (method, path) in wrong_methods {
        let reply = env
            .request(method.clone(), path, &[("access_token", &token)])
            .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_eq!(reply.json["code"], json!(405));
    }
}

#[tokio::test]
async fn report_values_look_like_their_metrics() {
    let env = start().await;
    let token = env.login().await;
    let tasks = all_service_tasks(&env, &token).await;
    let mysql = task_of_type(&tasks, "mysql", "1").unwrap();
    let path = format!("/v2/service/report/{}.json", mysql["task_id"].as_str().unwrap());
    let reply = env
        .get_auth(
            &token,
            &path,
            &[("start_date", "2026-03-10"), ("end_date", "2026-03-10")],
        )
        .await;
    let values = |series: &str, field: &str| -> Vec<f64> {
        reply.json[series]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[field].as_str().unwrap().parse().unwrap())
            .collect()
    };
    // A configured limit does not move; counts are whole; rates vary.
    let max = values("mysql_curr_conn", "max_connections");
    assert!(max.iter().all(|v| *v == max[0]));
    assert!(reply.json["mysql_curr_conn"][0]["Threads_connected"]
        .as_str()
        .unwrap()
        .bytes()
        .all(|b| b.is_ascii_digit()));
    let selects = values("mysql_query_detail", "Com_select");
    let distinct: BTreeSet<String> = selects.iter().map(|v| format!("{v:.2}")).collect();
    assert!(distinct.len() > 100);
    let hits = values("mysql_kcache_hitrate", "Key_read_requests");
    assert!(hits.iter().all(|v| (90.0..=100.0).contains(v)));
    // Busier in the afternoon than at night (daily curve).
    let mean =
        |range: std::ops::Range<usize>| selects[range.clone()].iter().sum::<f64>() / range.len() as f64;
    assert!(mean(780..900) > mean(60..180));
}
