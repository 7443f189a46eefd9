//! Fixed tables of the service's API documentation (service types and their series, server
//! indicators) plus the emulator's own vocabulary (monitoring points, fault texts, name parts).

/// How the values of one report field look.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Metric {
    /// A whole number around the base, following the daily load curve.
    Int(f64),
    /// A two-decimal number around the base, following the daily load curve.
    Dec(f64),
    /// A two-decimal percentage near the base, kept within 0..=100.
    Pct(f64),
    /// A whole number that does not move (configured limits such as max_connections).
    Const(f64),
}

pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) metric: Metric,
}

pub(crate) struct Series {
    pub(crate) name: &'static str,
    pub(crate) fields: &'static [Field],
}

pub(crate) struct ServiceType {
    pub(crate) name: &'static str,
    pub(crate) series: &'static [Series],
}

const fn f(name: &'static str, metric: Metric) -> Field {
    Field { name, metric }
}

const fn s(name: &'static str, fields: &'static [Field]) -> Series {
    Series { name, fields }
}

use Metric::{Const, Dec, Int, Pct};

/// The eight service types of the service report, with every series and field in the
/// order the service's documentation lists them.
pub(crate) const SERVICE_TYPES: &[ServiceType] = &[
    ServiceType {
        name: "apache",
        series: &[
            s("apache_rps", &[f("rps", Dec(12.5))]),
            s("apache_curr_reqs", &[f("curr_reqs", Int(9.0))]),
            s(
                "apache_curr_reqs_status",
                &[
                    f("s_R", Int(1.0)),
                    f("s_K", Int(4.0)),
                    f("s_W", Int(2.5)),
                    f("s_C", Int(0.6)),
                    f("s__", Int(40.0)),
                ],
            ),
        ],
    },
    ServiceType {
        name: "nginx",
        series: &[
            s("nginx_rps", &[f("rps", Dec(150.0))]),
            s("nginx_curr_reqs", &[f("curr_reqs", Int(60.0))]),
            s(
                "nginx_curr_reqs_status",
                &[
                    f("reading", Int(2.0)),
                    f("writing", Int(8.0)),
                    f("waiting", Int(50.0)),
                ],
            ),
            s("nginx_rpc", &[f("rps", Dec(3.5))]),
        ],
    },
    ServiceType {
        name: "lighttpd",
        series: &[
            s("lighttpd_rps", &[f("rps", Dec(35.0))]),
            s("lighttpd_curr_reqs", &[f("curr_reqs", Int(14.0))]),
            s(
                "lighttpd_curr_reqs_status",
                &[
                    f("s_R", Int(1.0)),
                    f("s_K", Int(3.0)),
                    f("s_W", Int(2.0)),
                    f("s_C", Int(0.5)),
                    f("s_", Int(30.0)),
                ],
            ),
        ],
    },
    ServiceType {
        name: "memcache",
        series: &[
            s("memcache_keyspace_ratio", &[f("keyspace_ratio", Pct(95.0))]),
            s("memcache_bytes", &[f("bytes", Int(52_428_800.0))]),
            s("memcache_curr_connections", &[f("curr_connections", Int(40.0))]),
            s("memcache_connected_sec", &[f("connected_sec", Dec(2.5))]),
            s("memcache_curr_times", &[f("curr_items", Int(120_000.0))]),
            s(
                "memcache_read_sec",
                &[f("read_sec", Dec(3200.0)), f("write_sec", Dec(1400.0))],
            ),
            s("memcache_mem_ratio", &[f("mem_ratio", Pct(40.0))]),
        ],
    },
    ServiceType {
        name: "mongodb",
        series: &[
            s("mongodb_globalLock_ratio", &[f("globalLock_ratio", Pct(0.8))]),
            s(
                "mongodb_globalLock_currentQueue_total",
                &[
                    f("globalLock_currentQueue_total", Int(2.0)),
                    f("globalLock_currentQueue_readers", Int(1.0)),
                    f("globalLock_currentQueue_writers", Int(1.0)),
                ],
            ),
            s(
                "mongodb_connections_current",
                &[
                    f("connections_current", Int(80.0)),
                    f("connections_available", Int(19_920.0)),
                ],
            ),
            s(
                "mongodb_indexCounters_missRatio",
                &[f("indexCounters_missRatio", Pct(0.5))],
            ),
            s(
                "mongodb_indexCounters_btree_accesses_sec",
                &[f("indexCounters_btree_accesses_sec", Dec(120.0))],
            ),
            s(
                "mongodb_opcounters_insert_sec",
                &[
                    f("opcounters_insert_sec", Dec(35.0)),
                    f("opcounters_query_sec", Dec(210.0)),
                    f("opcounters_update_sec", Dec(48.0)),
                    f("opcounters_delete_sec", Dec(4.0)),
                    f("opcounters_getmore_sec", Dec(12.0)),
                    f("opcounters_command_sec", Dec(90.0)),
                ],
            ),
            s(
                "mongodb_mem_resident",
                &[f("mem_resident", Int(2048.0)), f("mem_maped", Int(8192.0))],
            ),
            s("mongodb_page_faults_sec", &[f("page_faults_sec", Dec(0.3))]),
        ],
    },
    ServiceType {
        name: "mysql",
        series: &[
            s(
                "mysql_query_detail",
                &[
                    f("Com_change_db", Dec(0.5)),
                    f("Com_select", Dec(250.0)),
                    f("Com_update", Dec(30.0)),
                    f("Com_insert", Dec(40.0)),
                    f("Com_delete", Dec(5.0)),
                ],
            ),
            s("mysql_qpc", &[f("Connections", Dec(35.0))]),
            s(
                "mysql_connps",
                &[f("Connections", Dec(6.0)), f("Threads_created", Dec(0.2))],
            ),
            s("mysql_conncache_hitrate", &[f("Connections", Pct(97.0))]),
            s(
                "mysql_curr_conn",
                &[
                    f("max_connections", Const(500.0)),
                    f("Max_used_connections", Const(180.0)),
                    f("Threads_connected", Int(60.0)),
                    f("Threads_cached", Int(8.0)),
                    f("Threads_running", Int(4.0)),
                ],
            ),
            s("mysql_kcache_hitrate", &[f("Key_read_requests", Pct(99.5))]),
            s(
                "mysql_kcache_read",
                &[f("Key_read_requests", Dec(800.0)), f("Key_reads", Dec(4.0))],
            ),
            s(
                "mysql_qcache_usage",
                &[
                    f("query_cache_size", Const(67_108_864.0)),
                    f("Qcache_free_memory", Int(30_000_000.0)),
                ],
            ),
            s("mysql_qcache_hitrate", &[f("Qcache_hits", Pct(45.0))]),
            s(
                "mysql_qcache_querysum",
                &[f("Qcache_queries_in_cache", Int(12_000.0))],
            ),
            s(
                "mysql_tlock_locks",
                &[
                    f("Table_locks_immediate", Dec(120.0)),
                    f("Table_locks_waited", Dec(0.1)),
                ],
            ),
            s(
                "mysql_traffic",
                &[
                    f("Bytes_received", Dec(50_000.0)),
                    f("Bytes_sent", Dec(400_000.0)),
                ],
            ),
        ],
    },
    ServiceType {
        name: "redis",
        series: &[
            s("redis_used_memory", &[f("used_memory", Int(268_435_456.0))]),
            s("redis_commands_sec", &[f("commands_sec", Dec(6000.0))]),
            s("redis_keyspace_ratio", &[f("keyspace_ratio", Pct(92.0))]),
            s(
                "redis_connected_clients",
                &[
                    f("connected_clients", Int(50.0)),
                    f("connected_slaves", Const(1.0)),
                ],
            ),
            s("redis_connected_sec", &[f("connected_sec", Dec(20.0))]),
            s("redis_blocked_clients", &[f("blocked_clients", Int(0.3))]),
            s("redis_pubsub_channels", &[f("pubsub_channels", Const(3.0))]),
            s("redis_pubsub_patterns", &[f("pubsub_patterns", Const(1.0))]),
        ],
    },
    ServiceType {
        name: "tomcat",
        series: &[
            s("tomcat_free_memory", &[f("free_memory", Int(209_715_200.0))]),
            s(
                "tomcat_max_threads",
                &[
                    f("max_threads", Const(200.0)),
                    f("cur_thread", Int(40.0)),
                    f("cur_thread_b", Int(8.0)),
                ],
            ),
            s(
                "tomcat_processing_time_sec",
                &[f("processing_time_sec", Dec(120.0))],
            ),
            s(
                "tomcat_request_count_sec",
                &[f("request_count_sec", Dec(45.0)), f("error_count_sec", Dec(0.2))],
            ),
            s(
                "tomcat_bytes_received_sec",
                &[
                    f("bytes_received_sec", Dec(20_000.0)),
                    f("bytes_sent_sec", Dec(300_000.0)),
                ],
            ),
        ],
    },
];

/// Server indicators allowed in `task_type` for linux (`server_systype` 0).
pub(crate) const LINUX_INDICATORS: &[&str] =
    &["cpu", "load", "mem", "netio", "diskstore", "procsum", "diskio"];

/// Server indicators allowed in `task_type` for windows (`server_systype` 1).
pub(crate) const WINDOWS_INDICATORS: &[&str] =
    &["cpu_windows", "mem_windows", "netio", "diskstore", "procsum"];

/// A monitoring point of the account (the monitoring point list; site tasks use subsets).
pub(crate) struct Point {
    pub(crate) id: u32,
    /// City and carrier, as the service names its points.
    pub(crate) name: &'static str,
    pub(crate) isp_id: u32,
    pub(crate) isp_name: &'static str,
    /// The administrative division code of the city.
    pub(crate) location_code: &'static str,
    pub(crate) location_name: &'static str,
    pub(crate) china_region: &'static str,
    pub(crate) world_region: &'static str,
}

const fn point(
    id: u32,
    name: &'static str,
    (isp_id, isp_name): (u32, &'static str),
    (location_code, location_name, china_region): (&'static str, &'static str, &'static str),
) -> Point {
    Point {
        id,
        name,
        isp_id,
        isp_name,
        location_code,
        location_name,
        china_region,
        world_region: "亚洲",
    }
}

const TELECOM: (u32, &str) = (1, "电信");
const UNICOM: (u32, &str) = (2, "联通");
const MOBILE: (u32, &str) = (3, "移动");

/// The account's monitoring points (`GET /v2/site/monitors.json`, in this order).
pub(crate) const POINTS: &[Point] = &[
    point(1, "北京电信", TELECOM, ("110000", "北京", "华北")),
    point(2, "上海联通", UNICOM, ("310000", "上海", "华东")),
    point(3, "广州移动", MOBILE, ("440100", "广州", "华南")),
    point(4, "深圳电信", TELECOM, ("440300", "深圳", "华南")),
    point(5, "杭州联通", UNICOM, ("330100", "杭州", "华东")),
    point(6, "成都电信", TELECOM, ("510100", "成都", "西南")),
    point(7, "武汉移动", MOBILE, ("420100", "武汉", "华中")),
    point(8, "西安联通", UNICOM, ("610100", "西安", "西北")),
];

/// A user of the account. Their ids are the ids a task's `alert_setting` names (the service's
/// examples use 101 to 103).
pub(crate) struct Member {
    pub(crate) id: u32,
    /// The login.
    pub(crate) email: &'static str,
    pub(crate) name: &'static str,
    /// 0 paused, 1 normal, 2 deleted.
    pub(crate) status: u8,
    /// 1 admin, 2 advanced, 3 read-only.
    pub(crate) role: u8,
    /// The groups it belongs to.
    pub(crate) groups: &'static [u32],
}

const fn member(
    id: u32,
    email: &'static str,
    name: &'static str,
    (status, role): (u8, u8),
    groups: &'static [u32],
) -> Member {
    Member {
        id,
        email,
        name,
        status,
        role,
        groups,
    }
}

/// The users of the account (`GET /v2/user/lists.json`, in this order).
pub(crate) const USERS: &[Member] = &[
    member(101, "test@example.com", "演示用户", (1, 1), &[1]),
    member(102, "ops@example.com", "运维值班", (1, 2), &[1, 2]),
    member(103, "dev@example.com", "开发", (1, 3), &[2]),
    member(104, "former@example.com", "离职员工", (2, 3), &[]),
];

/// The user groups ("organizations"): id, name, parent (0: none). A task's
/// `alert_setting.organization` names one.
pub(crate) const GROUPS: &[(u32, &str, u32)] = &[(1, "运维部", 0), (2, "研发部", 0), (3, "数据库组", 2)];

/// Kinds of site task, as the site task list names them, with the status text of a good check.
pub(crate) const SITE_KINDS: &[(&str, &str)] = &[
    ("http", "HTTP OK"),
    ("https", "HTTPS OK"),
    ("ping", "PING OK"),
    ("dns", "DNS OK"),
];

/// The service types a service task may be created with, and the fields each needs besides
/// those of every type (the service's v2 documentation).
pub(crate) const SERVICE_CREATE_FIELDS: &[(&str, &[&str])] = &[
    ("apache", &["status_url"]),
    ("lighttpd", &["status_url"]),
    ("nginx", &["status_url"]),
    ("mongodb", &["status_url"]),
    ("redis", &["status_url"]),
    ("memcache", &["status_url"]),
    ("mysql", &["ip", "port", "user", "password"]),
    ("tomcat", &["status_url", "user", "password", "appname"]),
    ("iis", &["logPath"]),
    ("sqlserver", &["ip", "port", "user", "password", "appname"]),
    ("oracle", &["user", "password", "appname"]),
];

/// Name of the average pseudo point, key "0".
pub(crate) const AVERAGE_NAME: &str = "平均";

/// end_time of a fault that has not ended.
pub(crate) const ONGOING: &str = "未结束";

/// Fault causes, as the service words them.
pub(crate) const FAULT_CAUSES: &[&str] = &[
    "连接超时",
    "无法解析域名",
    "连接被拒绝",
    "HTTP 502 错误",
    "HTTP 503 错误",
    "响应内容不匹配",
];

/// The first seeded site tasks: id and check frequency in minutes (more, when configured,
/// take the frequencies of [`SITE_FREQUENCIES`] in turn).
pub(crate) const SITE_TASKS: &[(u32, u32)] = &[(20001, 5), (20002, 10), (20003, 15), (20004, 30), (20005, 1)];

/// Check frequencies of the site tasks beyond [`SITE_TASKS`], in turn.
pub(crate) const SITE_FREQUENCIES: &[u32] = &[5, 10, 1, 15, 30];

/// Service check frequencies in minutes.
pub(crate) const FREQUENCIES: &[u32] = &[1, 5, 10, 15, 30];

/// Middle parts of generated service task names (`mysql-main-02`).
pub(crate) const NAME_ROLES: &[&str] = &[
    "front", "main", "cache", "api", "edge", "backup", "session", "queue", "shop", "report",
];

/// Agents: id, name.
pub(crate) const AGENTS: &[(u32, &str)] = &[
    (501, "collector-bj-01"),
    (502, "collector-sh-02"),
    (503, "collector-gz-03"),
];

/// Lower bounds of the response-time distribution buckets, milliseconds; the last
/// bucket ends at [`TIMEOUT_MS`].
pub(crate) const BUCKETS: &[u32] = &[0, 100, 200, 300, 500, 1000, 2000, 5000, 10000];

/// The check timeout: no response time is larger.
pub(crate) const TIMEOUT_MS: u32 = 30000;
