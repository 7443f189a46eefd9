"""`monapi exporter` checked by a real Prometheus (Debian's package, installed by `make`).

Prometheus runs on loopback with examples/prometheus/prometheus.yml, scraping the exporter,
which talks to the emulator. The configuration is the example's with its commented-out HTTPS
and basic-auth settings made live, and three changes a test needs: the exporter's address,
one-second scrape and evaluation intervals, and the site-down alert's `for` of 5 minutes
shortened to 2 seconds (examples/prometheus/rules.test.yml checks the 5 minutes with
promtool). The exporter takes the example's web-config.yml, with a certificate the test makes
(openssl) and the bcrypt hash of the test's password in place of its placeholder: Prometheus
scrapes it over HTTPS as that user. Then, through Prometheus's HTTP API:

- the values it stored equal what monapi's tables give (the 1-day uptime ratio of each site
  and point is the mean availability of the day's checks up to the last one exported);
- `promtool check metrics` passes on the exposition, `promtool check rules` and
  `promtool test rules` on the rules;
- every query of the Grafana dashboard (examples/grafana/monapi.json) returns data;
- the site-down alert fires after the emulator's knob makes a site fail;
- no alert of the example rules fires on the emulator's default world (sites up at almost
  every check), checked by `promtool test rules` over the series the exporter served.
"""

from __future__ import annotations

import base64
import datetime
import json
import pathlib
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import bcrypt
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import yaml

import monapi
from monapi.testing import Emulator

from helpers import (
    DEMO_PASSWORD,
    DEMO_PASSWORD_MD5,
    DEMO_SECRET,
    ROOT,
    demo_env,
    leaks,
    monapi_binary,
    zone,
)

EXAMPLES = ROOT / "examples"
SITES = range(20001, 20006)
# The password Prometheus scrapes the exporter with.
SCRAPE_PASSWORD = "scrape-me-7f3a"
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], seconds: float = 90.0) -> T:
    """`probe()`'s first answer that is not None, tried every 0.2 s for at most `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = probe()
        except OSError:
            answer = None
        if answer is not None:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def http_get(
    url: str, headers: dict[str, str] | None = None, context: ssl.SSLContext | None = None
) -> bytes:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=30, context=context) as answer:
        body: bytes = answer.read()
        return body


def uncommented(text: str, keys: tuple[str, ...]) -> str:
    """`text` with its commented-out settings `keys` made live: each `# key:` line and the
    `#   ` lines under it."""
    lines, live = [], False
    for line in text.splitlines():
        body = line.lstrip()
        indent = line[: len(line) - len(body)]
        if body.startswith("# ") and body[2:].split(":")[0] in keys:
            live = True
        elif not body.startswith("#   "):
            live = False
        lines.append(indent + body[2:] if live else line)
    return "\n".join(lines) + "\n"


def self_signed(certificate: pathlib.Path, key: pathlib.Path) -> None:
    """A certificate for 127.0.0.1 and its key (PEM), by openssl."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "2", "-subj", "/CN=monapi-exporter-test",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip


class Exporter:
    """`monapi exporter --listen 127.0.0.1:0` against `emulator`; its stderr collected. With
    `ca_file` it is scraped over HTTPS trusting that certificate, with `user` (and
    `SCRAPE_PASSWORD`) as basic auth."""

    def __init__(
        self,
        emulator: Emulator,
        *args: str,
        ca_file: pathlib.Path | None = None,
        user: str | None = None,
    ) -> None:
        env = demo_env(emulator)
        command = [monapi_binary(), "exporter", "--listen", "127.0.0.1:0", *args]
        self.process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        self.stderr: list[str] = []
        listening = threading.Event()
        self.url = ""
        self.context = ssl.create_default_context(cafile=str(ca_file)) if ca_file else None
        self.headers: dict[str, str] = {}
        # What the exporter must never say or serve, besides the account's.
        self.secrets: list[str] = []
        if user is not None:
            self.secrets.append(SCRAPE_PASSWORD)
            token = base64.b64encode(f"{user}:{SCRAPE_PASSWORD}".encode()).decode()
            self.headers["Authorization"] = f"Basic {token}"

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.stderr.append(line)
                prefix = "monapi exporter listening on "
                # A log line: its time and level, then the message.
                if prefix in line:
                    self.url = line.split(prefix, 1)[1].split("/metrics")[0]
                    listening.set()

        threading.Thread(target=read, daemon=True).start()
        assert listening.wait(60), "".join(self.stderr)
        self.address = self.url.split("://")[1]

    def metrics(self) -> str:
        return http_get(f"{self.url}/metrics", self.headers, self.context).decode()

    def refresh_now(self) -> None:
        self.process.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


class Prometheus:
    """A Prometheus server on loopback, its data in `directory`."""

    def __init__(self, config: pathlib.Path, directory: pathlib.Path) -> None:
        # Prometheus says nothing of the port it got for :0; a free port is picked first.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.log = open(directory / "prometheus.log", "w")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={config}",
                f"--storage.tsdb.path={directory / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_for("Prometheus to be ready", lambda: http_get(f"{self.url}/-/ready") or None, 60)

    def api(self, path: str, **params: str) -> Any:
        url = f"{self.url}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        answer = json.loads(http_get(url))
        assert answer["status"] == "success", answer
        return answer["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        data = self.api("query", query=expr)
        result: list[dict[str, Any]] = data["result"]
        return result

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self.log.close()


@pytest.fixture
def stack(emulator: Emulator, tmp_path: pathlib.Path) -> Iterator[tuple[Exporter, Prometheus]]:
    # The example's web configuration, its files made in the test's folder under the names it
    # gives (relative to it), and a hash of the test's password in place of its placeholder.
    web = yaml.safe_load((EXAMPLES / "prometheus" / "web-config.yml").read_text())
    assert set(web) == {"tls_server_config", "basic_auth_users"}
    (user,) = web["basic_auth_users"]
    hashed = bcrypt.hashpw(SCRAPE_PASSWORD.encode(), bcrypt.gensalt(4)).decode()
    web["basic_auth_users"][user] = hashed
    tls = web["tls_server_config"]
    self_signed(tmp_path / tls["cert_file"], tmp_path / tls["key_file"])
    (tmp_path / "web-config.yml").write_text(yaml.safe_dump(web))
    exporter = Exporter(
        emulator,
        *("--slo", "0.999", "--service", "10001", "10011"),
        *("--web-config-file", str(tmp_path / "web-config.yml")),
        ca_file=tmp_path / tls["cert_file"],
        user=user,
    )
    assert exporter.url.startswith("https://"), exporter.url
    exporter.secrets.append(hashed)
    rules = yaml.safe_load((EXAMPLES / "prometheus" / "rules.yml").read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == "MonapiSiteDown":
                assert rule["for"] == "5m"
                rule["for"] = "2s"
    (tmp_path / "rules.yml").write_text(yaml.safe_dump(rules))
    example = (EXAMPLES / "prometheus" / "prometheus.yml").read_text()
    config = yaml.safe_load(uncommented(example, ("scheme", "tls_config", "basic_auth")))
    assert config["rule_files"] == ["rules.yml"]
    assert config["scrape_configs"][0]["static_configs"] == [{"targets": ["localhost:39126"]}]
    # The scrape settings of the example's web configuration: its files, relative to
    # prometheus.yml, in the test's folder too.
    scrape = config["scrape_configs"][0]
    assert scrape["scheme"] == "https"
    assert scrape["tls_config"]["ca_file"] == tls["cert_file"]
    assert scrape["basic_auth"]["username"] == user
    (tmp_path / scrape["basic_auth"]["password_file"]).write_text(SCRAPE_PASSWORD)
    config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    config["scrape_configs"][0]["scrape_timeout"] = "1s"
    config["scrape_configs"][0]["static_configs"] = [{"targets": [exporter.address]}]
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    prometheus = Prometheus(tmp_path / "prometheus.yml", tmp_path)
    try:
        yield exporter, prometheus
    finally:
        prometheus.stop()
        exporter.stop()


def labels_of(sample: dict[str, Any]) -> tuple[int, int]:
    metric = sample["metric"]
    return int(metric["task_id"]), int(metric["monitor_id"])


def test_prometheus_stores_what_the_tables_give_and_the_site_down_alert_fires(
    emulator: Emulator, client: monapi.Client, stack: tuple[Exporter, Prometheus]
) -> None:
    exporter, prometheus = stack
    # Scraped, after a refresh that succeeded, with every site.
    wait_for(
        "a scrape of a refreshed exporter",
        lambda: (
            prometheus.query("monapi_up == 1 and on() count(monapi_site_task_info) == 5") or None
        ),
    )
    # Prometheus scraped it over HTTPS with the password; without it /metrics is refused, and
    # the probes stay open.
    with pytest.raises(urllib.error.HTTPError) as refused:
        http_get(f"{exporter.url}/metrics", context=exporter.context)
    assert refused.value.code == 401
    assert refused.value.headers["WWW-Authenticate"] == 'Basic realm="monapi exporter"'
    assert http_get(f"{exporter.url}/health", context=exporter.context) == b'{"status":"ok"}'

    # The 1-day uptime ratio of each site and point equals the mean availability of today's
    # checks, up to the last check the exporter saw (a new check may have come since).
    ratios = {
        labels_of(s): float(s["value"][1])
        for s in prometheus.query('monapi_site_uptime_ratio{window="1d"}')
    }
    lasts = {
        labels_of(s): float(s["value"][1])
        for s in prometheus.query("monapi_site_last_check_timestamp_seconds")
    }
    today = datetime.datetime.now(zone(emulator)).date()
    seen = 0
    for task in SITES:
        availability = pa.table(
            client.tables.site_report(task, start_date=today, end_date=today).availability
        )
        for monitor in set(availability.column("monitor_id").to_pylist()):
            last = lasts[(task, monitor)]
            rows = availability.filter(
                pc.and_(
                    pc.equal(availability["monitor_id"], monitor),
                    pc.less_equal(pc.cast(availability["time"], pa.int64()), int(last)),
                )
            )
            mean = pc.mean(rows["uprate"]).as_py() / 100
            assert ratios[(task, monitor)] == pytest.approx(mean, abs=1e-9), (task, monitor)
            seen += 1
    assert seen == len(ratios) > 5 * 4

    # promtool: the exposition, the rules and their unit tests.
    exposition = exporter.metrics()
    checked = subprocess.run(
        ["promtool", "check", "metrics"],
        input=exposition,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for command in (["check", "rules", "rules.yml"], ["test", "rules", "rules.test.yml"]):
        done = subprocess.run(
            ["promtool", *command],
            cwd=EXAMPLES / "prometheus",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    # Every query of the Grafana dashboard returns data (its variables: every site, every
    # service, Grafana's rate interval).
    dashboard = json.loads((EXAMPLES / "grafana" / "monapi.json").read_text())
    queries = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert len(queries) >= 10
    wait_for(
        "two scrapes for rate()",
        lambda: prometheus.query("count_over_time(monapi_up[1m]) >= 3") or None,
    )
    for query in queries:
        expr = (
            query.replace("$site", ".*").replace("$service", ".*").replace("$__rate_interval", "1m")
        )
        assert prometheus.query(expr), query
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            metric, label = (
                variable["definition"].removeprefix("label_values(").rstrip(")").split(", ")
            )
            assert prometheus.api(f"label/{label}/values", **{"match[]": metric}), variable["name"]

    # The site-down alert: inactive, then firing once a site fails and a refresh saw it.
    def alerts(state: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = prometheus.api("alerts")["alerts"]
        return [
            a for a in found if a["labels"]["alertname"] == "MonapiSiteDown" and a["state"] == state
        ]

    assert not alerts("firing") and not alerts("pending")
    emulator.fail_site(20003)
    exporter.refresh_now()
    firing = wait_for("the site-down alert", lambda: alerts("firing") or None)
    assert [(a["labels"]["task_id"], a["labels"]["monitor_id"]) for a in firing] == [("20003", "0")]
    assert "is down from every monitoring point" in firing[0]["annotations"]["summary"]

    # No secret in what the exporter said or served.
    said = "".join(exporter.stderr) + exporter.metrics()
    for secret in (DEMO_PASSWORD, DEMO_SECRET, DEMO_PASSWORD_MD5, *exporter.secrets):
        assert not leaks(secret, said), secret


def exposition_samples(exposition: str, prefixes: tuple[str, ...]) -> dict[str, float]:
    """The samples of the exposition whose metric name starts with one of `prefixes`, as
    ``{'name{labels}': value}`` (the series as written, which PromQL reads back)."""
    samples: dict[str, float] = {}
    for line in exposition.splitlines():
        if line.startswith("#") or not line.startswith(prefixes):
            continue
        series, _, value = line.rpartition(" ")
        if value in ("NaN", "+Inf", "-Inf"):
            continue
        samples[series] = float(value)
    return samples


def quiet_moment(emulator: Emulator, today: datetime.date) -> str:
    """Sets the emulator's clock at the first of today's hours from 10:02 to 22:02 at which
    every check of every site's points in the two hours before was up, and answers it."""
    with emulator.client(timeout=10.0) as client:
        for hour in range(10, 23):
            now = f"{today} {hour:02}:02"
            emulator.set_now(now)
            since = emulator.now - datetime.timedelta(hours=2)
            down = 0
            for task in SITES:
                availability = pa.table(
                    client.tables.site_report(task, start_date=today, end_date=today).availability
                )
                times = availability.column("time")
                after = pa.scalar(since.replace(microsecond=0), type=times.type)
                recent = availability.filter(pc.greater_equal(times, after))
                down += len(recent.filter(pc.less(recent.column("uprate"), 100.0)))
            if down == 0:
                return now
    raise AssertionError(f"no quiet hour on {today} from 10:02 to 22:02 (seed 42)")


def test_the_example_alerts_stay_quiet_on_the_default_world(tmp_path: pathlib.Path) -> None:
    # The emulator's clock fixed at 10:02 of the system's day in its zone: the exporter asks for
    # the system's days, and what it gets no longer depends on the hour the test runs.
    beijing = datetime.timezone(datetime.timedelta(hours=8))
    today = datetime.datetime.now(beijing).date()
    with Emulator(now=f"{today} 10:02") as emulator:
        assert emulator.world == "realistic" and zone(emulator) == beijing
        # The default world has a rare real fault (a site's every few days to weeks), which
        # rightly alerts: the clock is put at the first hour of the day from 10:02 on at which
        # every point of every site has been up for the last two hours, so that the test does
        # not depend on the date it runs (a fault lasts an hour at most: one is found).
        now = quiet_moment(emulator, today)
        exporter = Exporter(emulator, "--slo", "0.999")
        try:
            scraped = wait_for(
                "a refreshed exposition with every site",
                lambda: (
                    metrics
                    if "monapi_up 1" in (metrics := exporter.metrics())
                    and metrics.count("monapi_site_up{") >= 5
                    else None
                ),
            )
        finally:
            exporter.stop()
    samples = exposition_samples(scraped, ("monapi_site_", "monapi_up"))
    assert any(name.startswith("monapi_site_availability_ratio{") for name in samples)

    # Each value held for two hours (longer than every window and `for` of the rules), every
    # alert of rules.yml evaluated after it: none fires.
    rules_file = EXAMPLES / "prometheus" / "rules.yml"
    rules = yaml.safe_load(rules_file.read_text())
    alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
    assert "MonapiSiteErrorBudgetBurn" in alerts and "MonapiSiteDown" in alerts
    test = {
        "rule_files": [str(rules_file)],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [
                    {"series": series, "values": f"{value!r}x120"}
                    for series, value in sorted(samples.items())
                ],
                "alert_rule_test": [
                    {"eval_time": "119m", "alertname": alert, "exp_alerts": []} for alert in alerts
                ],
            }
        ],
    }
    path = tmp_path / "default_world.test.yml"
    path.write_text(yaml.safe_dump(test, allow_unicode=True))
    done = subprocess.run(
        ["promtool", "test", "rules", str(path)], capture_output=True, text=True, timeout=120
    )
    down = {
        s: v for s, v in samples.items() if s.startswith("monapi_site_availability_ratio") and v < 1
    }
    assert done.returncode == 0, (
        f"the emulator's clock at {now} (seed 42): points not up {down}\n{done.stdout}{done.stderr}"
    )
