//! One shape for the service's empty answers, whatever PHP made of them.
//!
//! The service is a PHP application: `json_encode` writes an empty array as `[]` whether the
//! array stands for a list or for an object keyed by ids. So an account without agents gets
//! `[]` for the agent list, a period without checks `[]` for a distribution, and a page past the
//! end of the task list may come as `[]`, `{}` or `null`. Here every answer gets the shape the
//! service's documentation describes, before any language sees it:
//!
//! - where the documentation describes an object keyed by id (the agent list, a service report,
//!   a site report and its points' `uprate`, `resptime` and `fault`, a distribution), an empty
//!   `[]` becomes `{}`, and so does a whole answer of `null`. The bytes are patched in place
//!   (`null` as `{}` and two spaces, the same length) at the positions a small structural scan
//!   finds (never by searching text, which could touch a string value). A point's `null`
//!   (`"fault": null`: no fault) is left as the service wrote it;
//! - a page of the service task list is a list: `{}` and `null` become `[]` (an empty page),
//!   and any other value is refused;
//! - the lists whose shape the service does not document (a page of the site task list, the
//!   monitoring points, the users, the user groups) may come as a list or as a PHP keyed array
//!   (an object keyed by ids, as the agent list is): both are kept as sent, and an empty one
//!   (`[]`, `{}`, `null`) is `[]`; [`records`] gives either as a list.

use bytes::Bytes;

use crate::Endpoint;

/// The members of a site report's monitoring point that are keyed maps.
const POINT_MAPS: [&[u8]; 3] = [b"uprate", b"resptime", b"fault"];

/// `body` with empty keyed maps as `{}` and an empty task page as `[]`; an error text for a
/// task page that is not a list.
pub(crate) fn normalize(endpoint: &Endpoint, body: Bytes) -> Result<Bytes, &'static str> {
    match endpoint {
        Endpoint::ServiceTasks => task_page(body),
        Endpoint::Agents | Endpoint::ServiceReport | Endpoint::ResponseTimeDistribution => {
            let patches = empty_map(&body, skip_ws(&body, 0)).map_or_else(Vec::new, |patch| vec![patch]);
            Ok(patch(body, &patches))
        }
        Endpoint::SiteReport => {
            let patches = site_report(&body);
            Ok(patch(body, &patches))
        }
        Endpoint::SiteTasks | Endpoint::Monitors | Endpoint::Users | Endpoint::UserGroups => {
            record_list(body)
        }
        _ => Ok(body),
    }
}

/// Whether a whole answer of `null` is an empty answer of `endpoint` (an empty task page or
/// keyed map), rather than a body that is not what the operation answers.
pub(crate) fn takes_null(endpoint: &Endpoint) -> bool {
    matches!(
        endpoint,
        Endpoint::ServiceTasks
            | Endpoint::SiteTasks
            | Endpoint::Monitors
            | Endpoint::Users
            | Endpoint::UserGroups
            | Endpoint::Agents
            | Endpoint::ServiceReport
            | Endpoint::SiteReport
            | Endpoint::ResponseTimeDistribution
    )
}

/// A page of the service task list: a list as it is, `{}` and `null` as `[]`.
fn task_page(body: Bytes) -> Result<Bytes, &'static str> {
    let text = body.trim_ascii();
    match text {
        [b'[', ..] => Ok(body),
        b"null" => Ok(Bytes::from_static(b"[]")),
        [b'{', inside @ .., b'}'] if inside.trim_ascii().is_empty() => Ok(Bytes::from_static(b"[]")),
        [b'{', ..] => Err("expected a list of tasks, got an object that is not empty"),
        _ => Err("expected a list of tasks"),
    }
}

/// A list of records, or an object keyed by ids, as sent; an empty one (`{}`, `null`) as
/// `[]`.
fn record_list(body: Bytes) -> Result<Bytes, &'static str> {
    let text = body.trim_ascii();
    match text {
        b"null" => Ok(Bytes::from_static(b"[]")),
        [b'{', inside @ .., b'}'] if inside.trim_ascii().is_empty() => Ok(Bytes::from_static(b"[]")),
        [b'[' | b'{', ..] => Ok(body),
        _ => Err("expected a list (or an object keyed by ids)"),
    }
}

/// The records of a normalized list body as a JSON list: a list as it is, an object keyed by
/// ids as the list of its values, in order.
pub(crate) fn records(body: &Bytes) -> Bytes {
    let start = skip_ws(body, 0);
    if body.get(start) != Some(&b'{') {
        return body.clone();
    }
    let mut values = Vec::new();
    let _ = members(body, start, |_, value| {
        if let Some(end) = skip_value(body, value) {
            values.push(&body[value..end]);
        }
    });
    let mut list = Vec::with_capacity(body.len());
    list.push(b'[');
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            list.push(b',');
        }
        list.extend_from_slice(value);
    }
    list.push(b']');
    Bytes::from(list)
}

/// How many items the list `body` holds (a task page, already normalized: a list, or an
/// object keyed by ids). A malformed body gives some count; its decoder reports it.
pub(crate) fn count_items(body: &[u8]) -> usize {
    let mut i = skip_ws(body, 0);
    if body.get(i) == Some(&b'{') {
        let mut count = 0;
        let _ = members(body, i, |_, _| count += 1);
        return count;
    }
    if body.get(i) != Some(&b'[') {
        return 0;
    }
    i = skip_ws(body, i + 1);
    if body.get(i) == Some(&b']') {
        return 0;
    }
    let mut count = 0;
    while i < body.len() {
        count += 1;
        let Some(end) = skip_value(body, i) else {
            return count;
        };
        i = skip_ws(body, end);
        if body.get(i) != Some(&b',') {
            return count;
        }
        i = skip_ws(body, i + 1);
    }
    count
}

/// The empty maps where a site report has keyed maps: the report itself (`[]` or `null`) and
/// each point's [`POINT_MAPS`] (`[]`).
fn site_report(body: &[u8]) -> Vec<Patch> {
    let start = skip_ws(body, 0);
    if let Some(patch) = empty_map(body, start) {
        return vec![patch];
    }
    // Most reports hold no array at all: no scan.
    if memchr::memchr(b'[', body).is_none() {
        return Vec::new();
    }
    let mut patches = Vec::new();
    let whole = members(body, start, |_, point| {
        let _ = members(body, point, |key, value| {
            if POINT_MAPS.contains(&key) {
                patches.extend(empty_array(body, value));
            }
        });
    });
    // A malformed body is left as it is, for its decoder to report.
    if whole.is_none() {
        patches.clear();
    }
    patches
}

/// Calls `visit(key, value_start)` for each member of the object at `start` (its `{`), and
/// returns the position after the object; `None` if it is not a well-formed object.
fn members(body: &[u8], start: usize, mut visit: impl FnMut(&[u8], usize)) -> Option<usize> {
    if body.get(start) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(body, start + 1);
    if body.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        let key_end = skip_string(body, i)?;
        let key = &body[i + 1..key_end - 1];
        i = skip_ws(body, key_end);
        if body.get(i) != Some(&b':') {
            return None;
        }
        let value = skip_ws(body, i + 1);
        visit(key, value);
        i = skip_ws(body, skip_value(body, value)?);
        match body.get(i) {
            Some(b',') => i = skip_ws(body, i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// An empty map as PHP may write it, to be written `{}`.
#[derive(Debug, PartialEq)]
enum Patch {
    /// An empty array: the positions of its `[` and `]`.
    EmptyArray(usize, usize),
    /// `null`, at this position.
    Null(usize),
}

/// The empty array (`[`, whitespace, `]`) that starts at `start`.
fn empty_array(body: &[u8], start: usize) -> Option<Patch> {
    if body.get(start) != Some(&b'[') {
        return None;
    }
    let end = skip_ws(body, start + 1);
    (body.get(end) == Some(&b']')).then_some(Patch::EmptyArray(start, end))
}

/// The empty answer that starts at `start`: an empty array, or `null` as the whole body.
fn empty_map(body: &[u8], start: usize) -> Option<Patch> {
    if body[start.min(body.len())..].trim_ascii() == b"null" {
        return Some(Patch::Null(start));
    }
    empty_array(body, start)
}

/// `body` with each of `patches` written `{}` (the same length: `null` becomes `{}  `).
fn patch(body: Bytes, patches: &[Patch]) -> Bytes {
    if patches.is_empty() {
        return body;
    }
    let mut bytes = body.to_vec();
    for patch in patches {
        match *patch {
            Patch::EmptyArray(start, end) => {
                bytes[start] = b'{';
                bytes[end] = b'}';
            }
            Patch::Null(start) => bytes[start..start + 4].copy_from_slice(b"{}  "),
        }
    }
    Bytes::from(bytes)
}

fn skip_ws(body: &[u8], mut i: usize) -> usize {
    while body.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// The position after the string that starts at `start` (its opening quote). A plain loop:
/// the strings of these answers are short, where it beats a vectorised search (bench/RESULTS.md,
/// "Choices measured in the code").
fn skip_string(body: &[u8], start: usize) -> Option<usize> {
    if body.get(start) != Some(&b'"') {
        return None;
    }
    let mut i = start + 1;
    loop {
        match body.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// The position after the value that starts at `start`.
fn skip_value(body: &[u8], start: usize) -> Option<usize> {
    match body.get(start)? {
        b'"' => skip_string(body, start),
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut i = start;
            while let Some(&b) = body.get(i) {
                match b {
                    b'"' => {
                        i = skip_string(body, i)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            // A number, true, false or null: up to the next delimiter.
            let len = body[start..]
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}') || b.is_ascii_whitespace())
                .unwrap_or(body.len() - start);
            Some(start + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(text: &str) -> String {
        let body = normalize(&Endpoint::SiteReport, Bytes::from(text.to_string())).unwrap();
        String::from_utf8(body.to_vec()).unwrap()
    }

    #[test]
    fn site_report_maps() {
        assert_eq!(site("[]"), "{}");
        assert_eq!(site(" [ ] "), " { } ");
        let text = r#"{"0":{"name":"[]","uprate":[],"fault":[ ],"resptime":[],"x":[]},"3":{"uprate":{"1":{"uprate":"1"}},"resptime":[]}}"#;
        assert_eq!(
            site(text),
            r#"{"0":{"name":"[]","uprate":{},"fault":{ },"resptime":{},"x":[]},"3":{"uprate":{"1":{"uprate":"1"}},"resptime":{}}}"#
        );
        // A string holding what looks like a key and an empty array is left alone.
        let tricky = r#"{"0":{"name":"\"uprate\":[]","uprate":{"1":{"uprate":"[]"}},"fault":null}}"#;
        assert_eq!(site(tricky), tricky);
        // A point's null is the service's own word (no fault), left as written.
        let nulls = r#"{"0":{"fault":null,"uprate":null}}"#;
        assert_eq!(site(nulls), nulls);
        assert_eq!(site(" null\n"), " {}  \n");
        // Malformed bodies are left for the decoder.
        assert_eq!(site(r#"{"0":{"uprate":[]"#), r#"{"0":{"uprate":[]"#);
        assert_eq!(site(r#"{"0":[1,[]]}"#), r#"{"0":[1,[]]}"#);
    }

    #[test]
    fn top_level_maps() {
        for endpoint in [
            Endpoint::Agents,
            Endpoint::ServiceReport,
            Endpoint::ResponseTimeDistribution,
        ] {
            for empty in ["[]", "null"] {
                let body = Bytes::from_static(empty.as_bytes());
                assert_eq!(normalize(&endpoint, body).unwrap().trim_ascii(), b"{}");
            }
            let report = Bytes::from_static(br#"{"apache_rps":[]}"#);
            assert_eq!(normalize(&endpoint, report.clone()).unwrap(), report);
        }
        let raw = Endpoint::Raw("GET /v2/site/lists.json".into());
        assert_eq!(&normalize(&raw, Bytes::from_static(b"[]")).unwrap()[..], b"[]");
    }

    #[test]
    fn task_pages() {
        let page =
            |text: &'static str| normalize(&Endpoint::ServiceTasks, Bytes::from_static(text.as_bytes()));
        for empty in ["[]", "{}", " { } ", "null", " null\n"] {
            assert_eq!(&page(empty).unwrap()[..], b"[]", "{empty:?}");
        }
        assert!(page(r#"{"0":{"task_id":"1"}}"#)
            .unwrap_err()
            .contains("not empty"));
        assert!(page(r#""x""#).is_err());
        assert!(page("7").is_err());
        assert!(page("").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(count_items(b"[]"), 0);
        assert_eq!(count_items(b" [ ] "), 0);
        assert_eq!(count_items(br#"[{"a":"x,]"},{"b":[1,2]}, 3 ,"s"]"#), 4);
        assert_eq!(count_items(br#"[{"a":"\"}"}]"#), 1);
        assert_eq!(count_items(b"{}"), 0);
    }
}

/// Properties of [`normalize`] on generated answers (proptest; seed 14, 256 cases each: a
/// failure prints the smallest failing answer, and `cargo test -p monapi --lib shape::` runs
/// the same cases again).
#[cfg(test)]
mod properties {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};
    use serde_json::{json, Value};

    use super::*;
    use crate::{Distribution, ServiceReport, SiteReport};

    fn config() -> Config {
        Config {
            cases: 256,
            rng_seed: RngSeed::Fixed(14),
            failure_persistence: None,
            ..Config::default()
        }
    }

    /// Any JSON value, keys often those of a site report.
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[\\[\\]{}\"\\\\a-z0-9 :,]{0,8}".prop_map(Value::String),
        ];
        let key = prop_oneof![
            prop::sample::select(vec![
                "uprate", "resptime", "fault", "name", "0", "1", "[]", "null"
            ])
            .prop_map(String::from),
            "[a-z0-9\"\\\\\\[\\]]{0,6}",
        ];
        leaf.prop_recursive(4, 48, 5, move |inner| {
            prop_oneof![
                Just(json!([])),
                Just(json!({})),
                Just(Value::Null),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// What PHP may write for an empty map.
    fn is_empty_map(value: &Value) -> bool {
        value.is_null() || value.as_array().is_some_and(Vec::is_empty)
    }

    /// The answer as `normalize` should leave it, computed on the parsed value.
    fn expected(endpoint: &Endpoint, value: &Value) -> Value {
        if is_empty_map(value) {
            return json!({});
        }
        let mut value = value.clone();
        if *endpoint == Endpoint::SiteReport {
            for point in value
                .as_object_mut()
                .into_iter()
                .flat_map(|report| report.values_mut())
            {
                for (key, map) in point.as_object_mut().into_iter().flatten() {
                    if POINT_MAPS.contains(&key.as_bytes()) && map.as_array().is_some_and(Vec::is_empty) {
                        *map = json!({});
                    }
                }
            }
        }
        value
    }

    const KEYED: [Endpoint; 4] = [
        Endpoint::Agents,
        Endpoint::ServiceReport,
        Endpoint::SiteReport,
        Endpoint::ResponseTimeDistribution,
    ];

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn never_panics_on_any_bytes(body in prop::collection::vec(any::<u8>(), 0..48)) {
            for endpoint in KEYED.iter().chain([&Endpoint::ServiceTasks, &Endpoint::Token]) {
                let _ = normalize(endpoint, Bytes::from(body.clone()));
            }
            let _ = count_items(&body);
        }

        #[test]
        fn empty_maps_become_objects_and_nothing_else_changes(value in json_value(), pretty in any::<bool>()) {
            let text = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) }.unwrap();
            for endpoint in &KEYED {
                let body = normalize(endpoint, Bytes::from(text.clone())).unwrap();
                prop_assert_eq!(body.len(), text.len());
                let normalized: Value = serde_json::from_slice(&body).unwrap();
                prop_assert_eq!(&normalized, &expected(endpoint, &value), "{} of {}", endpoint, text);
            }
            // The typed forms read an answer alike, however its empty maps were written.
            let typed = |body: &[u8]| {
                (
                    serde_json::from_slice::<SiteReport>(body).ok(),
                    serde_json::from_slice::<ServiceReport>(body).ok(),
                    serde_json::from_slice::<Distribution>(body).ok(),
                )
            };
            let site = normalize(&Endpoint::SiteReport, Bytes::from(text.clone())).unwrap();
            prop_assert_eq!(typed(text.as_bytes()).0, typed(&site).0, "{}", text);
        }

        #[test]
        fn task_pages_are_lists_or_refused(value in json_value()) {
            let text = serde_json::to_string(&value).unwrap();
            let page = normalize(&Endpoint::ServiceTasks, Bytes::from(text.clone()));
            match &value {
                Value::Array(_) => prop_assert_eq!(page.unwrap(), Bytes::from(text)),
                Value::Null => prop_assert_eq!(page.unwrap(), Bytes::from_static(b"[]")),
                Value::Object(members) if members.is_empty() => prop_assert_eq!(page.unwrap(), Bytes::from_static(b"[]")),
                _ => prop_assert!(page.is_err()),
            }
        }
    }
}
