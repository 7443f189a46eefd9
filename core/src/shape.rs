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
//!   `[]` becomes `{}`. The two have the same length, so the bytes are patched in place at the
//!   positions a small structural scan finds (never by searching text, which could touch a
//!   string value);
//! - a page of the service task list is a list: `{}` and `null` become `[]` (an empty page),
//!   and any other value is refused.

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
            let patches = empty_array(&body, skip_ws(&body, 0)).map_or_else(Vec::new, |end| vec![end]);
            Ok(patch(body, &patches))
        }
        Endpoint::SiteReport => {
            let patches = site_report(&body);
            Ok(patch(body, &patches))
        }
        _ => Ok(body),
    }
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

/// How many items the list `body` holds (a task page, already normalized). A malformed body
/// gives some count; its decoder reports it.
pub(crate) fn count_items(body: &[u8]) -> usize {
    let mut i = skip_ws(body, 0);
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

/// The positions of `]` of the empty arrays where a site report has keyed maps: the report
/// itself and each point's [`POINT_MAPS`].
fn site_report(body: &[u8]) -> Vec<usize> {
    // Most reports hold no array at all: no scan.
    if memchr::memchr(b'[', body).is_none() {
        return Vec::new();
    }
    let start = skip_ws(body, 0);
    if let Some(end) = empty_array(body, start) {
        return vec![end];
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

/// If an empty array (`[`, whitespace, `]`) starts at `start`, the position of its `]`.
fn empty_array(body: &[u8], start: usize) -> Option<usize> {
    if body.get(start) != Some(&b'[') {
        return None;
    }
    let end = skip_ws(body, start + 1);
    (body.get(end) == Some(&b']')).then_some(end)
}

/// `body` with each empty array whose `]` is at one of `ends` turned into `{}` (same length).
fn patch(body: Bytes, ends: &[usize]) -> Bytes {
    if ends.is_empty() {
        return body;
    }
    let mut bytes = body.to_vec();
    for &end in ends {
        let start = bytes[..end]
            .iter()
            .rposition(|b| *b == b'[')
            .expect("an empty array");
        bytes[start] = b'{';
        bytes[end] = b'}';
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
/// the strings of these answers are short, where it beats a vectorised search (measured: 5.5
/// against 9.2 µs to count the 50 tasks of a page).
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
            assert_eq!(
                &normalize(&endpoint, Bytes::from_static(b"[]")).unwrap()[..],
                b"{}"
            );
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
