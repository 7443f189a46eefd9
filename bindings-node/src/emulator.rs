//! `NativeEmulator`: the bundled emulator of the service, in-process on its own thread
//! (`monapi_emulator::Emulator::spawn_thread`), behind the JavaScript `Emulator` of `index.js`.

use std::sync::Mutex;
use std::time::Duration;

use monapi_emulator::{Config, ConfigError, Emulator, FaultKind, Faults, PastEndPage, Quirks, TimeUnit};
use napi::bindgen_prelude::{Either, PromiseRaw};
use napi::Env;
use napi_derive::napi;

use crate::boundary::{guard, spawn};
use crate::client::id;
use crate::errors::{invalid_input, Failure, Fields, Result, Settled};

/// Start-up settings (types checked by the JavaScript layer).
#[napi(object)]
#[derive(Default)]
pub struct NativeEmulatorOptions {
    /// Seed of the generated data, as a decimal string (it may exceed 2^53).
    pub seed: Option<String>,
    /// Lifetime of access tokens, in seconds.
    pub token_ttl: Option<f64>,
    /// Delay before every answer, in milliseconds.
    pub latency_ms: Option<f64>,
    /// Number of seeded service tasks.
    pub service_tasks: Option<u32>,
    /// Number of seeded site tasks.
    pub site_tasks: Option<u32>,
    /// Lifetime of refresh tokens, in seconds.
    pub refresh_token_ttl: Option<f64>,
    /// Fault settings (types checked by the JavaScript layer).
    pub faults: Option<NativeFaults>,
    /// The time zone of its days, as an offset from UTC (`+08:00`, `UTC`).
    pub timezone: Option<String>,
    /// Quirks (types checked by the JavaScript layer).
    pub quirks: Option<NativeQuirks>,
    /// Serve HTTPS with a private CA made at start.
    pub tls: Option<bool>,
    /// The encodings answers are compressed with (`gzip`, `deflate`), in order of preference.
    pub compression: Option<Vec<String>>,
    /// The modelled link's bandwidth, in Mbit/s.
    pub bandwidth_mbps: Option<f64>,
    /// The modelled link's round trip, in milliseconds.
    pub rtt_ms: Option<f64>,
    /// The world of the site reports: `realistic` (the default) or `stressed`.
    pub world: Option<String>,
    /// Fix the clock at this instant (RFC 3339, or a local date and time in its zone).
    pub now: Option<String>,
}

/// The emulator's fault settings as JavaScript names them (`FaultSettings` in index.d.ts);
/// the emulator checks the shares.
#[napi(object)]
#[derive(Default)]
pub struct NativeFaults {
    #[napi(js_name = "error500")]
    pub error_500: Option<f64>,
    #[napi(js_name = "error503")]
    pub error_503: Option<f64>,
    #[napi(js_name = "error429")]
    pub error_429: Option<f64>,
    pub retry_after_secs: Option<u32>,
    pub drop_connection: Option<f64>,
    pub truncated_body: Option<f64>,
    pub malformed_body: Option<f64>,
    pub corrupt_gzip: Option<f64>,
    /// Fault kinds by the emulator's names (`error500`, `drop_connection`, ...).
    pub next: Option<Vec<String>>,
}

/// The JavaScript name of a setting the emulator names in snake_case (`faults.error_503` is
/// `faults.error503`, `drop_connection` is `dropConnection`).
fn js_name(field: &str) -> String {
    let mut name = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        match c {
            '_' => upper = true,
            '.' => {
                upper = false;
                name.push(c);
            }
            _ if upper => {
                upper = false;
                name.extend(c.to_uppercase());
            }
            _ => name.push(c),
        }
    }
    name
}

/// A setting the emulator refused, as INVALID_INPUT naming it as JavaScript does.
fn refused(error: ConfigError) -> Failure {
    invalid_input(&js_name(error.field()), error.rule())
}

fn faults(settings: NativeFaults) -> Result<Faults> {
    let next = settings
        .next
        .unwrap_or_default()
        .iter()
        .map(|name| name.parse::<FaultKind>())
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| refused(e.within("faults")))?;
    Ok(Faults {
        error_500: settings.error_500.unwrap_or_default(),
        error_503: settings.error_503.unwrap_or_default(),
        error_429: settings.error_429.unwrap_or_default(),
        retry_after_secs: settings.retry_after_secs.unwrap_or_default().into(),
        drop_connection: settings.drop_connection.unwrap_or_default(),
        truncated_body: settings.truncated_body.unwrap_or_default(),
        malformed_body: settings.malformed_body.unwrap_or_default(),
        corrupt_gzip: settings.corrupt_gzip.unwrap_or_default(),
        next,
    })
}

/// The emulator's quirks as JavaScript names them (`Quirks` in index.d.ts); the emulator
/// checks the values.
#[napi(object)]
#[derive(Default)]
pub struct NativeQuirks {
    /// `array`, `object`, `null` or `status`.
    pub past_end_page: Option<String>,
    pub no_agents: Option<bool>,
    pub no_checks: Option<bool>,
    pub keyed_lists: Option<bool>,
    pub rotating_refresh_tokens: Option<bool>,
}

fn quirks(quirks: NativeQuirks) -> Result<Quirks> {
    let past_end_page = match quirks.past_end_page {
        None => PastEndPage::default(),
        Some(name) => name
            .parse()
            .map_err(|e: ConfigError| refused(e.within("quirks")))?,
    };
    Ok(Quirks {
        past_end_page,
        no_agents: quirks.no_agents.unwrap_or_default(),
        no_checks: quirks.no_checks.unwrap_or_default(),
        keyed_lists: quirks.keyed_lists.unwrap_or_default(),
        rotating_refresh_tokens: quirks.rotating_refresh_tokens.unwrap_or_default(),
    })
}

/// The demo account every emulator registers.
#[napi(object)]
pub struct DemoAccount {
    pub client_id: String,
    pub client_secret: String,
    pub username: String,
    pub password: String,
}

/// The demo account (`demo_id` / `demo_secret`, `test@example.com` / `123456`).
#[napi(catch_unwind)]
pub fn demo_account() -> DemoAccount {
    DemoAccount {
        client_id: monapi_emulator::DEMO_CLIENT_ID.into(),
        client_secret: monapi_emulator::DEMO_CLIENT_SECRET.into(),
        username: monapi_emulator::DEMO_USERNAME.into(),
        password: monapi_emulator::DEMO_PASSWORD.into(),
    }
}

/// A latency in milliseconds (`latencyMs`, `setLatency(ms)`), by the emulator's rule.
pub(crate) fn latency(field: &str, ms: f64) -> Result<Duration> {
    monapi_emulator::latency(field, ms, TimeUnit::Milliseconds).map_err(refused)
}

/// A token lifetime in seconds (`tokenTtl`, `setTokenTtl(seconds)`), by the emulator's rule.
pub(crate) fn token_ttl(field: &str, seconds: f64) -> Result<Duration> {
    monapi_emulator::token_ttl(field, seconds, TimeUnit::Seconds).map_err(refused)
}

/// A running emulator on 127.0.0.1 (a free port), on an OS thread of its own.
#[napi]
pub struct NativeEmulator {
    inner: Mutex<Option<Emulator>>,
    base_url: String,
    /// The private CA (PEM, and its file), when serving HTTPS.
    ca: Option<(String, String)>,
    timezone: String,
}

impl Drop for NativeEmulator {
    /// A forgotten emulator is dropped by its finalizer, on the JavaScript main thread.
    /// Dropping a `monapi_emulator::Emulator` signals the shutdown and joins the server
    /// thread, which lets in-flight requests run for up to its grace period (a second): that
    /// wait happens on a short-lived thread of its own, so the main thread never blocks.
    fn drop(&mut self) {
        let emulator = self.inner.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(emulator) = emulator {
            // If no thread can be started, the closure (and the emulator) is dropped here:
            // the old, blocking behaviour, rather than a leak of the server.
            let _ = std::thread::Builder::new()
                .name("monapi-emulator-drop".into())
                .spawn(move || drop(emulator));
        }
    }
}

#[napi]
impl NativeEmulator {
    /// Starts an emulator.
    #[napi(catch_unwind, factory)]
    pub fn start(env: Env, options: NativeEmulatorOptions) -> napi::Result<NativeEmulator> {
        guard(&env, || {
            let mut config = Config::default();
            if let Some(seed) = options.seed {
                config.seed = seed
                    .parse()
                    .map_err(|_| invalid_input("seed", "must be a non-negative integer"))?;
            }
            if let Some(ttl) = options.token_ttl {
                config.token_ttl = token_ttl("tokenTtl", ttl)?;
            }
            if let Some(ms) = options.latency_ms {
                config.latency = latency("latencyMs", ms)?;
            }
            if let Some(n) = options.service_tasks {
                config.service_tasks = n as usize;
            }
            if let Some(n) = options.site_tasks {
                config.site_tasks = n as usize;
            }
            if let Some(ttl) = options.refresh_token_ttl {
                config.refresh_token_ttl = token_ttl("refreshTokenTtl", ttl)?;
            }
            if let Some(settings) = options.faults {
                config.faults = faults(settings)?;
            }
            if let Some(settings) = options.quirks {
                config.quirks = quirks(settings)?;
            }
            config.tls = options.tls.unwrap_or(false);
            if let Some(names) = options.compression {
                config.compression = monapi_emulator::encodings(&names).map_err(refused)?;
            }
            if let Some(mbps) = options.bandwidth_mbps {
                config.bandwidth_mbps =
                    Some(monapi_emulator::bandwidth("bandwidthMbps", mbps).map_err(refused)?);
            }
            if let Some(ms) = options.rtt_ms {
                config.rtt = monapi_emulator::rtt("rttMs", ms, TimeUnit::Milliseconds).map_err(refused)?;
            }
            if let Some(text) = options.timezone {
                config.timezone = monapi::input::timezone(&text)?;
            }
            if let Some(name) = options.world {
                config.world = name.parse().map_err(refused)?;
            }
            if let Some(text) = options.now {
                config.now = Some(monapi_emulator::instant("now", &text, config.timezone).map_err(refused)?);
            }
            config.check().map_err(refused)?;
            let emulator = Emulator::spawn_thread(config).map_err(|e| {
                Failure::from(Fields {
                    code: "CONNECTION",
                    message: format!("the emulator cannot listen on 127.0.0.1: {e}"),
                    ..Fields::default()
                })
            })?;
            let ca = emulator
                .ca_pem()
                .zip(emulator.ca_path())
                .map(|(pem, path)| (pem.to_string(), path.display().to_string()));
            Ok(NativeEmulator {
                ca,
                base_url: emulator.base_url().to_string(),
                timezone: emulator.timezone().to_string(),
                inner: Mutex::new(Some(emulator)),
            })
        })
    }

    fn with<T>(&self, f: impl FnOnce(&Emulator) -> T) -> Result<T> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let emulator = inner
            .as_ref()
            .ok_or_else(|| invalid_input("emulator", "is stopped"))?;
        Ok(f(emulator))
    }

    /// `http://127.0.0.1:PORT`.
    #[napi(catch_unwind, getter)]
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// The private CA's certificate (PEM), when serving HTTPS.
    #[napi(catch_unwind, getter)]
    pub fn ca_pem(&self) -> Option<String> {
        self.ca.as_ref().map(|(pem, _)| pem.clone())
    }

    /// The file holding the private CA's certificate, when serving HTTPS.
    #[napi(catch_unwind, getter)]
    pub fn ca_path(&self) -> Option<String> {
        self.ca.as_ref().map(|(_, path)| path.clone())
    }

    /// The time zone of its days, e.g. `+08:00`.
    #[napi(catch_unwind, getter)]
    pub fn timezone(&self) -> String {
        self.timezone.clone()
    }

    /// The world of its site reports, `realistic` or `stressed`.
    #[napi(catch_unwind)]
    pub fn world(&self, env: Env) -> napi::Result<String> {
        guard(&env, || self.with(|e| e.world().name().to_string()))
    }

    /// Its clock's reading, milliseconds since the epoch (for a `Date`).
    #[napi(catch_unwind)]
    pub fn now_ms(&self, env: Env) -> napi::Result<f64> {
        guard(&env, || self.with(|e| e.now().timestamp_millis() as f64))
    }

    /// Fixes its clock at `now` (RFC 3339, or a local date and time in its zone), or with
    /// `null` makes it follow the system clock.
    #[napi(catch_unwind)]
    pub fn set_now(&self, env: Env, now: Option<String>) -> napi::Result<()> {
        guard(&env, || {
            let timezone = self.with(|e| e.timezone())?;
            let now = now
                .map(|text| monapi_emulator::instant("now", &text, timezone))
                .transpose()
                .map_err(refused)?;
            self.with(|e| e.set_now(now))?.map_err(refused)
        })
    }

    /// Fixes its clock `seconds` later: the new reading, milliseconds since the epoch.
    #[napi(catch_unwind)]
    pub fn advance(&self, env: Env, seconds_: f64) -> napi::Result<f64> {
        guard(&env, || {
            let by = token_ttl("seconds", seconds_)?;
            let now = self.with(|e| e.advance(by))?.map_err(refused)?;
            Ok(now.timestamp_millis() as f64)
        })
    }

    /// Whether `stop()` was called.
    #[napi(catch_unwind, getter)]
    pub fn stopped(&self) -> bool {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    /// Request counters as JSON.
    #[napi(catch_unwind)]
    pub fn counters(&self, env: Env) -> napi::Result<String> {
        guard(&env, || {
            let counters = self.with(|e| e.counters())?;
            serde_json::to_string(&counters).map_err(|e| invalid_input("counters", &e.to_string()))
        })
    }

    /// Lifetime of access tokens issued from now on, in seconds.
    #[napi(catch_unwind)]
    pub fn set_token_ttl(&self, env: Env, seconds_: f64) -> napi::Result<()> {
        guard(&env, || {
            let ttl = token_ttl("seconds", seconds_)?;
            self.with(|e| e.set_token_ttl(ttl))
        })
    }

    /// Delay before every answer from now on, in milliseconds.
    #[napi(catch_unwind)]
    pub fn set_latency(&self, env: Env, ms: f64) -> napi::Result<()> {
        guard(&env, || {
            let latency = latency("ms", ms)?;
            self.with(|e| e.set_latency(latency))
        })
    }

    /// Replaces the fault settings.
    #[napi(catch_unwind)]
    pub fn set_faults(&self, env: Env, settings: NativeFaults) -> napi::Result<()> {
        guard(&env, || {
            let faults = faults(settings)?;
            self.with(|e| e.set_faults(faults))?
                .map_err(|e| refused(e.within("faults")))
        })
    }

    /// Replaces the quirks (left-out ones are off).
    #[napi(catch_unwind)]
    pub fn set_quirks(&self, env: Env, settings: NativeQuirks) -> napi::Result<()> {
        guard(&env, || {
            let quirks = quirks(settings)?;
            self.with(|e| e.set_quirks(quirks))
        })
    }

    /// Every access token issued so far expires now.
    #[napi(catch_unwind)]
    pub fn expire_tokens(&self, env: Env) -> napi::Result<()> {
        guard(&env, || self.with(|e| e.expire_tokens()))
    }

    /// Every refresh token becomes invalid.
    #[napi(catch_unwind)]
    pub fn revoke_refresh_tokens(&self, env: Env) -> napi::Result<()> {
        guard(&env, || self.with(|e| e.revoke_refresh_tokens()))
    }

    /// Every refresh token issued so far expires now.
    #[napi(catch_unwind)]
    pub fn expire_refresh_tokens(&self, env: Env) -> napi::Result<()> {
        guard(&env, || self.with(|e| e.expire_refresh_tokens()))
    }

    /// Back to the state at start.
    #[napi(catch_unwind)]
    pub fn reset(&self, env: Env) -> napi::Result<()> {
        guard(&env, || self.with(|e| e.reset()))
    }

    /// Created server tasks as stored, as JSON.
    #[napi(catch_unwind)]
    pub fn server_tasks(&self, env: Env) -> napi::Result<String> {
        guard(&env, || {
            let tasks = self.with(|e| e.server_tasks())?;
            serde_json::to_string(&tasks).map_err(|e| invalid_input("serverTasks", &e.to_string()))
        })
    }

    /// Created service tasks as stored, as JSON.
    #[napi(catch_unwind)]
    pub fn created_service_tasks(&self, env: Env) -> napi::Result<String> {
        guard(&env, || {
            let tasks = self.with(|e| e.created_service_tasks())?;
            serde_json::to_string(&tasks).map_err(|e| invalid_input("createdServiceTasks", &e.to_string()))
        })
    }

    /// Site task `taskId` fails from now on, at every monitoring point: the unix time of its
    /// first failed check (the faults' `start_time`).
    #[napi(catch_unwind)]
    pub fn fail_site(&self, env: Env, task_id: Either<f64, String>) -> napi::Result<f64> {
        guard(&env, || {
            let task_id = monapi::input::task_id(id(&task_id))?;
            let start = self.with(|e| e.fail_site(task_id))?.map_err(refused)?;
            Ok(start as f64)
        })
    }

    /// Ends the failure of site task `taskId`: the unix time of its first check up again (the
    /// faults' `end_time`), or `null` when it was not failing.
    #[napi(catch_unwind)]
    pub fn recover_site(&self, env: Env, task_id: Either<f64, String>) -> napi::Result<Option<f64>> {
        guard(&env, || {
            let task_id = monapi::input::task_id(id(&task_id))?;
            let end = self.with(|e| e.recover_site(task_id))?.map_err(refused)?;
            Ok(end.map(|end| end as f64))
        })
    }

    /// Seeded task `taskId` (a service or a site task) is taken out of the account: whether
    /// anything changed.
    #[napi(catch_unwind)]
    pub fn remove_task(&self, env: Env, task_id: Either<f64, String>) -> napi::Result<bool> {
        guard(&env, || {
            let task_id = monapi::input::task_id(id(&task_id))?;
            self.with(|e| e.remove_task(task_id))?.map_err(refused)
        })
    }

    /// Removed task `taskId` is back: whether anything changed.
    #[napi(catch_unwind)]
    pub fn restore_task(&self, env: Env, task_id: Either<f64, String>) -> napi::Result<bool> {
        guard(&env, || {
            let task_id = monapi::input::task_id(id(&task_id))?;
            self.with(|e| e.restore_task(task_id))?.map_err(refused)
        })
    }

    /// Stops the server and waits for its thread (at most about a second). Idempotent.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn stop<'e>(&self, env: &'e Env) -> napi::Result<PromiseRaw<'e, Settled<()>>> {
        // Taken now, so that the emulator counts as stopped as soon as stop() returns.
        let emulator = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take();
        spawn(env, async move {
            if let Some(emulator) = emulator {
                emulator.stop().await;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_durations_are_invalid_input_not_panics() {
        for value in [
            1e30,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -1.0,
            4_294_967_296.0,
        ] {
            let failure = token_ttl("tokenTtl", value).unwrap_err();
            assert_eq!(failure.code, "INVALID_INPUT");
            assert_eq!(failure.field.as_deref(), Some("tokenTtl"));
            assert!(failure.message.contains("from 0 to 4294967295"));
        }
        for value in [1e300, f64::MAX, f64::INFINITY, f64::NAN, -0.5, 2_147_483_648.0] {
            let failure = latency("ms", value).unwrap_err();
            assert_eq!(failure.field.as_deref(), Some("ms"));
            assert!(failure.message.contains("from 0 to 2147483647"));
        }
        assert_eq!(
            token_ttl("tokenTtl", 4_294_967_295.0).unwrap().as_secs(),
            4_294_967_295
        );
        assert_eq!(latency("latencyMs", 1500.0).unwrap(), Duration::from_millis(1500));
        assert_eq!(latency("latencyMs", 0.0).unwrap(), Duration::ZERO);
    }
}
