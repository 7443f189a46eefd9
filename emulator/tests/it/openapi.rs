//! Live responses of every endpoint, success and error, validate against openapi.yaml.

use std::collections::BTreeSet;

use monapi_emulator::{FaultKind, Faults, PastEndPage, Quirks};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::common::*;

fn document() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml");
    serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One JSON pointer token, escaped for use in a URI fragment.
fn escape(token: &str) -> String {
    token
        .replace('~', "~0")
        .replace('/', "~1")
        .replace('{', "%7B")
        .replace('}', "%7D")
}

/// Validates bodies against the response schemas of the document. The validator's root
/// is the whole document plus a `$ref` to the wanted schema, so the document's own
/// `#/components/...` references resolve.
struct Checker {
    doc: Value,
    seen: BTreeSet<(String, String, u16)>,
}

impl Checker {
    fn new() -> Self {
        Checker {
            doc: document(),
            seen: BTreeSet::new(),
        }
    }

    fn check(&mut self, template: &str, method: &str, reply: &Reply) {
        let status = reply.status.as_u16().to_string();
        let operation = &self.doc["paths"][template][method];
        assert!(operation.is_object(), "{method} {template} not documented");
        let direct = &operation["responses"][&status];
        assert!(direct.is_object(), "{method} {template} {status} not documented");
        let (response, pointer) = match direct["$ref"].as_str() {
            Some(reference) => {
                let name = reference.rsplit('/').next().unwrap();
                (
                    self.doc["components"]["responses"][name].clone(),
                    format!("#/components/responses/{name}/content/application~1json/schema"),
                )
            }
            None => (
                direct.clone(),
                format!(
                    "#/paths/{}/{method}/responses/{status}/content/application~1json/schema",
                    escape(template)
                ),
            ),
        };
        assert!(response["content"]["application/json"]["schema"].is_object());
        let mut root = self.doc.clone();
        root["$ref"] = json!(pointer);
        root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let validator = jsonschema::draft202012::options()
            .build(&root)
            .unwrap_or_else(|e| panic!("schema for {method} {template} {status}: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&reply.json)
            .take(5)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {template} {status}: {errors:#?}\nbody: {}",
            String::from_utf8_lossy(&reply.bytes[..reply.bytes.len().min(600)])
        );
        // Headers the document promises.
        if response["headers"]["Retry-After"].is_object() {
            assert!(reply.header("retry-after").is_some());
        }
        if response["headers"]["WWW-Authenticate"].is_object() {
            let challenge = reply.header("www-authenticate").unwrap_or_default();
            assert!(
                challenge.starts_with("Bearer realm=\"Service\", error=\"invalid_token\""),
                "{challenge}"
            );
        }
        self.seen
            .insert((template.to_string(), method.to_string(), reply.status.as_u16()));
    }
}

/// Bodies that break the schemas are reported, so the conformance test is not vacuous.
#[test]
fn the_checker_rejects_wrong_shapes() {
    let mut checker = Checker::new();
    let wrong = [
        ("/v2/service/lists.json", json!([{"task_id": 10001}])),
        (
            "/v2/agent/lists.json",
            json!({"501": {"name": "x", "agentUrl": {}, "plugin": []}}),
        ),
        (
            "/v2/service/report/{task_id}.json",
            json!({"apache_rps": [{"time": "00:00", "rps": 12.5}]}),
        ),
        (
            "/v2/site/respose_time_distribute/{task_id}.json",
            json!({"0": {"start": 0, "end": 100, "count": 1, "percent": 100}}),
        ),
        // Only the quirks' shapes of "nothing" pass, not any other object or list.
        (
            "/v2/service/lists.json",
            json!({"code": 1, "msg": "no more data"}),
        ),
        ("/v2/service/lists.json", json!({"a": 1})),
        ("/v2/agent/lists.json", json!([{}])),
        ("/v2/service/report/{task_id}.json", json!([[]])),
        (
            "/v2/site/report/{task_id}.json",
            json!({"0": {"name": "x", "uprate": [1], "fault": [], "resptime": []}}),
        ),
        ("/v2/site/respose_time_distribute/{task_id}.json", json!([0])),
    ];
    for (template, body) in wrong {
        let reply = Reply {
            status: StatusCode::OK,
            headers: Default::default(),
            bytes: body.to_string().into(),
            json: body,
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            checker.check(template, "get", &reply)
        }));
        assert!(result.is_err(), "{template} accepted a wrong body");
    }
}

#[tokio::test]
async fn every_endpoint_conforms_to_openapi() {
    let env = start().await;
    let mut checker = Checker::new();
    let token_path = "/v2/oauth/token.json";

    // Token endpoint.
    let tokens = env.password_grant().await;
    checker.check(token_path, "post", &tokens);
    let refreshed = env
        .refresh_grant(tokens.json["refresh_token"].as_str().unwrap())
        .await;
    checker.check(token_path, "post", &refreshed);
    let token = refreshed.json["access_token"].as_str().unwrap().to_string();
    checker.check(token_path, "post", &env.refresh_grant("nope").await);
    checker.check(
        token_path,
        "post",
        &env.token_request(&[("grant_type", "password")]).await,
    );
    checker.check(
        token_path,
        "post",
        &env.token_request(&[("grant_type", "x")]).await,
    );
    checker.check(
        token_path,
        "post",
        &env.token_request(&[
            ("grant_type", "password"),
            ("client_id", "a"),
            ("client_secret", "b"),
        ])
        .await,
    );
    // A wrong method is checked against the 405 documented on the path's operation.
    checker.check(
        token_path,
        "post",
        &env.request(Method::PUT, token_path, &[]).await,
    );

    // Create.
    let create_path = "/v2/server/create.json";
    let good = fixture("create_request.json");
    checker.check(create_path, "post", &env.create(&token, &good.to_string()).await);
    let mut bad = good.clone();
    bad[1]["frequency"] = json!("0");
    bad[0]["snmp_port"] = json!("0");
    checker.check(create_path, "post", &env.create(&token, &bad.to_string()).await);
    checker.check(create_path, "post", &env.create(&token, "{}").await);
    checker.check(create_path, "post", &env.create("expired", "[]").await);

    // Service create: a form, a JSON body, failed lines, a bad body.
    let service_create = "/v2/service/create.json";
    let batch = fixture("service_create_request.json");
    checker.check(
        service_create,
        "post",
        &env.create_service(&token, &batch.to_string()).await,
    );
    let json_body = env
        .http
        .post(env.url(service_create))
        .query(&[("access_token", &token)])
        .json(&batch)
        .send()
        .await
        .unwrap();
    checker.check(service_create, "post", &read_reply(json_body).await);
    let mut bad = batch.clone();
    bad[0]["status_url"] = json!("nope");
    checker.check(
        service_create,
        "post",
        &env.create_service(&token, &bad.to_string()).await,
    );
    checker.check(service_create, "post", &env.create_service(&token, "{}").await);
    checker.check(service_create, "post", &env.create_service("expired", "[]").await);

    // The lists the spec only names, as lists and keyed; a site task's settings.
    let named = [
        "/v2/site/lists.json",
        "/v2/site/monitors.json",
        "/v2/user/lists.json",
        "/v2/user/organization.json",
    ];
    for keyed_lists in [false, true] {
        env.emu.set_quirks(Quirks {
            keyed_lists,
            ..Quirks::default()
        });
        for path in named {
            checker.check(path, "get", &env.get_auth(&token, path, &[]).await);
            checker.check(path, "get", &env.get(path, &[]).await);
        }
    }
    env.emu.set_quirks(Quirks::default());
    checker.check(
        named[0],
        "get",
        &env.get_auth(&token, named[0], &[("page", "2")]).await,
    );
    checker.check(
        named[0],
        "get",
        &env.get_auth(&token, named[0], &[("page", "x")]).await,
    );
    let info = "/v2/site/info/{task_id}.json";
    for id in ["20001", "20005", "29999", "x"] {
        let path = format!("/v2/site/info/{id}.json");
        checker.check(info, "get", &env.get_auth(&token, &path, &[]).await);
    }

    // Lists.
    let lists = "/v2/service/lists.json";
    for page in ["1", "3", "4"] {
        checker.check(
            lists,
            "get",
            &env.get_auth(&token, lists, &[("page", page)]).await,
        );
    }
    checker.check(lists, "get", &env.get_auth(&token, lists, &[("page", "0")]).await);
    checker.check(lists, "get", &env.get(lists, &[]).await);
    let agents = "/v2/agent/lists.json";
    checker.check(agents, "get", &env.get_auth(&token, agents, &[]).await);
    checker.check(agents, "get", &env.get(agents, &[("access_token", "x")]).await);
    checker.check(agents, "get", &env.request(Method::POST, agents, &[]).await);

    // Service report: one task of every type, then the errors.
    let service = "/v2/service/report/{task_id}.json";
    let tasks = all_service_tasks(&env, &token).await;
    let mut types = BTreeSet::new();
    let day = [("start_date", "2026-05-01"), ("end_date", "2026-05-01")];
    for task in &tasks {
        if types.insert(task["task_type"].as_str().unwrap().to_string()) {
            let path = format!("/v2/service/report/{}.json", task["task_id"].as_str().unwrap());
            checker.check(service, "get", &env.get_auth(&token, &path, &day).await);
        }
    }
    assert_eq!(types.len(), 8);
    checker.check(
        service,
        "get",
        &env.get_auth(&token, "/v2/service/report/1.json", &[]).await,
    );
    checker.check(
        service,
        "get",
        &env.get_auth(&token, "/v2/service/report/10001.json", &[("end_date", "x")])
            .await,
    );
    checker.check(
        service,
        "get",
        &env.get("/v2/service/report/10001.json", &[]).await,
    );

    // Site report and distribution, today (ongoing fault) and a past range.
    let site = "/v2/site/report/{task_id}.json";
    let distribution = "/v2/site/respose_time_distribute/{task_id}.json";
    let past = [("start_date", "2026-01-01"), ("end_date", "2026-01-07")];
    for id in [20001, 20002, 20003, 20004, 20005] {
        let path = format!("/v2/site/report/{id}.json");
        checker.check(site, "get", &env.get_auth(&token, &path, &[]).await);
        checker.check(
            site,
            "get",
            &env.get_auth(&token, &path, &[("monitor", "0")]).await,
        );
        let path = format!("/v2/site/respose_time_distribute/{id}.json");
        checker.check(distribution, "get", &env.get_auth(&token, &path, &[]).await);
        checker.check(distribution, "get", &env.get_auth(&token, &path, &past).await);
    }
    checker.check(
        site,
        "get",
        &env.get_auth(&token, "/v2/site/report/20001.json", &past).await,
    );
    checker.check(
        site,
        "get",
        &env.get_auth(&token, "/v2/site/report/20001.json", &[("monitor", "77")])
            .await,
    );
    checker.check(
        site,
        "get",
        &env.get_auth(&token, "/v2/site/report/29999.json", &[]).await,
    );
    checker.check(site, "get", &env.get("/v2/site/report/20001.json", &[]).await);
    checker.check(
        distribution,
        "get",
        &env.get_auth(
            &token,
            "/v2/site/respose_time_distribute/20001.json",
            &[("start_date", "2026-13-01")],
        )
        .await,
    );
    checker.check(
        distribution,
        "get",
        &env.get_auth(&token, "/v2/site/respose_time_distribute/1.json", &[])
            .await,
    );

    // The quirks' shapes.
    for past_end_page in [PastEndPage::Object, PastEndPage::Null, PastEndPage::Status] {
        env.emu.set_quirks(Quirks {
            past_end_page,
            ..Quirks::default()
        });
        checker.check(lists, "get", &env.get_auth(&token, lists, &[("page", "4")]).await);
    }
    env.emu.set_quirks(Quirks {
        no_agents: true,
        no_checks: true,
        ..Quirks::default()
    });
    checker.check(agents, "get", &env.get_auth(&token, agents, &[]).await);
    checker.check(
        service,
        "get",
        &env.get_auth(&token, "/v2/service/report/10001.json", &day).await,
    );
    for monitor in [&[][..], &[("monitor", "0")]] {
        checker.check(
            site,
            "get",
            &env.get_auth(&token, "/v2/site/report/20002.json", monitor).await,
        );
    }
    checker.check(
        distribution,
        "get",
        &env.get_auth(&token, "/v2/site/respose_time_distribute/20002.json", &past)
            .await,
    );
    env.emu.set_quirks(Quirks::default());

    // Injected faults.
    env.emu
        .set_faults(Faults {
            next: vec![FaultKind::Error500, FaultKind::Error503, FaultKind::Error429],
            retry_after_secs: 1,
            ..Faults::default()
        })
        .unwrap();
    for _ in 0..3 {
        checker.check(agents, "get", &env.get_auth(&token, agents, &[]).await);
    }

    // Every path of the document was exercised, with success and error statuses.
    let doc = document();
    for (template, operations) in doc["paths"].as_object().unwrap() {
        for method in operations.as_object().unwrap().keys() {
            let statuses: Vec<u16> = checker
                .seen
                .iter()
                .filter(|(t, m, _)| t == template && m == method)
                .map(|(_, _, s)| *s)
                .collect();
            assert!(statuses.contains(&200), "{method} {template}: {statuses:?}");
            assert!(
                statuses.iter().any(|s| *s >= 400),
                "{method} {template}: {statuses:?}"
            );
        }
    }
}
