//! The fuzz targets (`fuzz/` at the repository's root) and their entry points: the decoders of
//! what the network and the disk send, as the client runs them, reachable from outside the
//! crate. Each target's body is one function here ([`answers`], [`tables`], [`arriving`],
//! [`store`]), so that libFuzzer (`make -f mk/fuzz.mk fuzz-run`) and the suite's short form
//! (`core/tests/it/fuzz.rs`: the seeds and their seeded mutations) run the same code. Not part
//! of the API (hidden from the documentation). An error is fine; a panic (or an overflow: the
//! targets build with debug assertions, as the tests do) is a bug.

use bytes::Bytes;
use serde::de::DeserializeOwned;

use super::de::Records;
use crate::{
    Agents, CreatedTask, Distribution, Endpoint, MonitorPoint, ServiceReport, ServiceTask, SiteReport,
    SiteTask, Token, User, UserGroup,
};

/// Reads `body` as the answer of `endpoint`, as a call does once the body has arrived: PHP's
/// empty forms reshaped (`shape.rs`), then decoded into the endpoint's model, a list's records
/// counted and listed as the pages do. The error says why it did not read.
pub fn answer(endpoint: &Endpoint, body: &[u8]) -> Result<(), String> {
    let body = crate::shape::normalize(endpoint, Bytes::copy_from_slice(body)).map_err(String::from)?;
    match endpoint {
        Endpoint::Token => typed::<Token>(&body),
        Endpoint::CreateServerTasks | Endpoint::CreateServiceTasks => typed::<Vec<CreatedTask>>(&body),
        Endpoint::ServiceTasks => {
            let _ = crate::shape::count_items(&body);
            typed::<Vec<ServiceTask>>(&crate::shape::records(&body))
        }
        Endpoint::Agents => typed::<Agents>(&body),
        Endpoint::ServiceReport => typed::<ServiceReport>(&body),
        Endpoint::SiteReport => typed::<SiteReport>(&body),
        Endpoint::ResponseTimeDistribution => typed::<Distribution>(&body),
        Endpoint::SiteTasks => {
            let _ = crate::shape::count_items(&body);
            typed::<Vec<SiteTask>>(&crate::shape::records(&body))?;
            typed::<Records<SiteTask>>(&body)
        }
        Endpoint::SiteTask => typed::<SiteTask>(&body),
        Endpoint::Monitors => typed::<Records<MonitorPoint>>(&body),
        Endpoint::Users => typed::<Records<User>>(&body),
        Endpoint::UserGroups => typed::<Records<UserGroup>>(&body),
        Endpoint::Raw(_) => typed::<serde_json::Value>(&body),
    }
}

/// `body` as `T`, the way [`RawResponse::json`](crate::RawResponse::json) reads it.
fn typed<T: DeserializeOwned>(body: &[u8]) -> Result<(), String> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize::<_, T>(&mut deserializer)
        .map_err(|e| format!("at `{}`: {}", e.path(), e.inner()))?;
    deserializer.end().map_err(|e| e.to_string())
}

/// Reads one stored file of `kind` (its bytes already written at
/// [`Store::file`](crate::store::Store::file) of `task_id` and `day`) as a read of the store
/// does: its rows, or the file set aside. The error is the store's (the file could not be read
/// or set aside).
#[cfg(feature = "arrow")]
pub fn stored_file(
    store: &crate::store::Store,
    kind: crate::store::StoreKind,
    task_id: u64,
    day: chrono::NaiveDate,
) -> crate::Result<()> {
    store.read(kind, task_id, day).map(drop)
}

/// Target `answers`: every endpoint's answer decoded from `body`, and its JSON form.
pub fn answers(body: &[u8]) {
    for endpoint in Endpoint::ALL {
        let _ = answer(endpoint, body);
    }
    let _ = answer(&Endpoint::Raw("GET /v2/raw.json".into()), body);
    let _ = serde_json::from_slice::<serde_json::Value>(body);
}

/// Target `tables`: every table built whole from `data`: a service report (its first day and
/// time zone taken from the input's first bytes, to the extremes), a site report, a
/// distribution, the task lists and the monitoring points.
#[cfg(feature = "arrow")]
pub fn tables(data: &[u8]) {
    use crate::table;
    use chrono::{Days, FixedOffset, NaiveDate};
    let Some((head, body)) = data.split_first_chunk::<6>() else {
        return;
    };
    // The first day: any of the years 1 to 9999 (what a date range can name); the time zone:
    // any offset chrono takes.
    let days = u32::from_le_bytes([head[0], head[1], head[2], 0]) % 3_652_059;
    let start = NaiveDate::from_ymd_opt(1, 1, 1).expect("a date") + Days::new(u64::from(days));
    let seconds = i32::from(i16::from_le_bytes([head[3], head[4]])) * 3 % 86_400;
    let timezone = FixedOffset::east_opt(seconds).unwrap_or(crate::SERVICE_TIMEZONE);
    let task_id = u64::from(head[5]) << 56;
    let _ = table::service_report(task_id, body, start, timezone);
    let _ = table::site_report(task_id, body, timezone);
    let _ = table::response_time_distribution(task_id, body);
    if let Ok(tasks) = serde_json::from_slice::<Vec<ServiceTask>>(body) {
        let _ = table::service_tasks(&tasks, timezone);
    }
    if let Ok(tasks) = serde_json::from_slice::<Vec<SiteTask>>(body) {
        let _ = table::site_tasks(&tasks, timezone);
    }
    if let Ok(points) = serde_json::from_slice::<Vec<MonitorPoint>>(body) {
        let _ = table::monitors(&points);
    }
}

/// Target `arriving`: a body (after a header of cuts) read as it arrives, cut at the points
/// the header chooses: its members one by one, its pieces opened to a depth in runs, and the
/// report tables built from them, which must be those built from the whole body when they
/// build (a difference panics).
#[cfg(feature = "arrow")]
pub fn arriving(data: &[u8]) {
    use crate::arriving::{Decoder, Members};
    let Some((&[cuts, depth, run], rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let cuts = usize::from(cuts % 8);
    let Some((points, body)) = rest.split_at_checked(cuts * 2) else {
        return;
    };
    let mut at: Vec<usize> = points
        .chunks(2)
        .map(|p| usize::from(u16::from_le_bytes([p[0], p[1]])) % (body.len() + 1))
        .collect();
    at.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for cut in at.into_iter().chain([body.len()]) {
        pieces.push(Bytes::copy_from_slice(&body[from..cut]));
        from = cut;
    }
    let (depth, run_bytes) = (u32::from(depth % 5), usize::from(run) * 4);
    if let Some(mut members) = Members::from_pieces(pieces.clone()) {
        while let Ok(Some(_)) = members.next_member() {}
    }
    if let Some(mut members) = Members::from_pieces(pieces.clone()) {
        while let Ok(Some(_)) = members.next_piece(depth.max(1), run_bytes) {}
    }
    /// What `decoder` builds from the members, when it builds, is what it builds from the body.
    fn same<T: PartialEq + std::fmt::Debug>(decoder: &Decoder<T>, pieces: &[Bytes], body: &[u8]) {
        let Some(mut members) = Members::from_pieces(pieces.to_vec()) else {
            return;
        };
        if let Some(Ok(built)) = decoder.read_members(&mut members) {
            let whole = decoder.read(body);
            assert_eq!(whole.as_ref().ok(), Some(&built), "whole: {whole:?}");
        }
    }
    let start = chrono::NaiveDate::from_ymd_opt(2026, 11, 1).expect("a date");
    same(
        &Decoder::service_table(7, start, crate::SERVICE_TIMEZONE),
        &pieces,
        body,
    );
    same(&Decoder::site_tables(7, crate::SERVICE_TIMEZONE), &pieces, body);
}

/// Target `store`: a store file of any bytes (its kind chosen by the first byte) read as a
/// read of the store under `root` reads it: its rows, or the file set aside; never a panic.
#[cfg(feature = "arrow")]
pub fn store(root: &std::path::Path, data: &[u8]) {
    use crate::store::{Store, StoreKind};
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let kind = StoreKind::ALL[usize::from(which) % StoreKind::ALL.len()];
    let store = Store::open(root, crate::SERVICE_TIMEZONE).expect("a store in a writable directory");
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 1).expect("a date");
    let file = store.file(kind, 1, day);
    std::fs::create_dir_all(file.parent().expect("a file in a directory")).expect("a writable directory");
    std::fs::write(&file, bytes).expect("a writable directory");
    let _ = stored_file(&store, kind, 1, day);
    // What did not read was set aside: keep the directory from filling up.
    let _ = std::fs::remove_dir_all(root.join(".corrupt"));
    let _ = std::fs::remove_file(&file);
}
