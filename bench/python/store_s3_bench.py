"""The store in a bucket against the store on disk: 120 service tasks x 30 settled days.

On S3 (moto's server on loopback) the storage requests are counted, by kind: a cold sync (an
empty prefix), a warm sync (nothing new: no report request, a LIST per kind and day), and a
read of the 30 days of the 120 tasks through the store (the bulk table call). Times against
moto measure moto, so for S3 the counts are the figures; on disk, the same three are timed.

Run with the release wheel and the release binary: `make store-s3-bench`.

    python bench/python/store_s3_bench.py --serve target/release/monapi
"""

from __future__ import annotations

import argparse
import collections
import datetime
import logging
import re
import shutil
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from moto.server import ThreadedMotoServer
from network import Server

import monapi
from bench import demo_credentials

TASKS = 120
DAYS = 30


class Requests(logging.Handler):
    """Counts the S3 requests moto's server logs, by kind (LIST, GET, PUT, HEAD, DELETE...)."""

    LINE = re.compile(r'"(\w+) (\S+) HTTP/')

    def __init__(self) -> None:
        super().__init__()
        self.counts: collections.Counter[str] = collections.Counter()

    def emit(self, record: logging.LogRecord) -> None:
        found = self.LINE.search(record.getMessage())
        if not found:
            return
        method, target = found.groups()
        kind = "LIST" if method == "GET" and "list-type=2" in target else method
        self.counts[kind] += 1

    def take(self) -> dict[str, int]:
        counts = dict(sorted(self.counts.items()))
        self.counts.clear()
        return counts


def timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", default="target/release/monapi", help="the monapi binary")
    args = parser.parse_args()

    server = Server(args.serve, "loopback")
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    s3.start()
    endpoint = f"http://127.0.0.1:{s3.get_host_and_port()[1]}"
    # moto checks no signature: the bucket is made with a plain request.
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/lake", method="PUT")).close()
    requests = Requests()
    werkzeug = logging.getLogger("werkzeug")
    werkzeug.addHandler(requests)
    werkzeug.setLevel(logging.INFO)
    werkzeug.propagate = False
    options = {
        "aws_endpoint_url": endpoint,
        "aws_access_key_id": "bench",
        "aws_secret_access_key": "bench",
        "aws_region": "us-east-1",
    }
    scratch = Path(tempfile.mkdtemp(prefix="monapi-store-s3-bench-"))
    today = datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=8))).date()
    end = today - datetime.timedelta(days=2)
    start = end - datetime.timedelta(days=DAYS - 1)
    print(f"{TASKS} service tasks x {DAYS} days ({start} to {end}), loopback")
    try:
        for where, store in (("s3", "s3://lake/bench"), ("disk", str(scratch / "store"))):
            client = monapi.Client(
                **demo_credentials(server.base_url),
                store=store,
                storage_options=options if where == "s3" else None,
            )
            requests.take()
            t_cold, cold = timed(lambda c=client: c.sync(start, end, kinds="service_report"))
            cold_requests = requests.take()
            t_warm, warm = timed(lambda c=client: c.sync(start, end, kinds="service_report"))
            warm_requests = requests.take()
            t_read, table = timed(
                lambda c=client: c.tables.service_reports(None, start_date=start, end_date=end)
            )
            read_requests = requests.take()
            assert cold["fetched"] == TASKS * DAYS and warm["fetched"] == 0
            assert warm["reused"] == TASKS * DAYS
            print(f"{where}: cold sync {t_cold:.2f} s, {cold['summary']}")
            print(f"{where}: warm sync {t_warm:.2f} s, {warm['summary']}")
            print(f"{where}: read of 30 days x 120 tasks {t_read:.2f} s, {table.num_rows} rows")
            if where == "s3":
                print(f"s3 requests: cold sync {cold_requests}")
                print(f"s3 requests: warm sync {warm_requests}")
                print(f"s3 requests: read {read_requests}")
            client.close()
    finally:
        s3.stop()
        server.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
