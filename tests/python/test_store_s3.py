"""The store in a bucket (``store="s3://…"``, ``storage_options=``) in Python, against moto's
S3 server on loopback: a sync, a warm sync that sends no report request, pickling, the
secrets, and the bucket read by pyarrow's ``S3FileSystem`` and by polars with the same
options."""

from __future__ import annotations

import datetime
import pickle
import urllib.request
from collections.abc import Iterator

import polars as pl
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pytest
from moto.server import ThreadedMotoServer

import monapi
from monapi.testing import Emulator

from helpers import zone

SERVICE = 10011
SITE = 20001
SECRET_KEY = "s3cr3t-never-shown-py-7c2b"


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    # moto checks no signature: the bucket is made with a plain request.
    urllib.request.urlopen(urllib.request.Request(f"{url}/lake", method="PUT")).close()
    yield url
    server.stop()


def options(endpoint: str) -> dict[str, str]:
    return {
        "aws_endpoint_url": endpoint,
        "aws_access_key_id": "test",
        "aws_secret_access_key": SECRET_KEY,
        "aws_region": "us-east-1",
    }


def days_ago(emulator: Emulator, n: int) -> datetime.date:
    return datetime.datetime.now(zone(emulator)).date() - datetime.timedelta(days=n)


def reports(emulator: Emulator) -> int:
    counters = emulator.counters()
    return int(counters["service_report"]) + int(counters["site_report"])


def test_a_sync_into_a_bucket_then_a_warm_one_and_every_reader_of_the_bucket(
    emulator: Emulator, client: monapi.Client, endpoint: str
) -> None:
    first, last = days_ago(emulator, 4), days_ago(emulator, 1)
    stored = emulator.client(
        store="s3://lake/py", storage_options=options(endpoint), settle=1, timeout=10.0
    )
    report = stored.sync(first, last, tasks=[SERVICE, SITE])
    assert (report["fetched"], report["reused"], report["failures"]) == (8, 0, [])

    before = reports(emulator)
    again = pickle.loads(pickle.dumps(stored)).sync(first, last, tasks=[SERVICE, SITE])
    assert (again["fetched"], again["reused"], again["rows"]) == (0, 8, 0)
    assert reports(emulator) == before, "a warm sync sends no report request"

    got = stored.tables.service_report(SERVICE, start_date=first, end_date=last).to_arrow()
    assert reports(emulator) == before, "the table call reads the bucket"
    want = client.tables.service_report(SERVICE, start_date=first, end_date=last).to_arrow()
    assert got.num_rows == want.num_rows > 0
    assert sorted(got.column("value").to_pylist()) == sorted(want.column("value").to_pylist())

    # pyarrow's own S3 filesystem, with the same endpoint and credentials.
    s3 = pafs.S3FileSystem(
        endpoint_override=endpoint,
        scheme="http",
        access_key="test",
        secret_key=SECRET_KEY,
        region="us-east-1",
    )
    dataset = ds.dataset(
        "lake/py/service_report", filesystem=s3, format="parquet", partitioning="hive"
    )
    table = dataset.to_table()
    assert table.num_rows == want.num_rows
    assert {str(d) for d in table.column("day").to_pylist()} == {
        (first + datetime.timedelta(days=n)).isoformat() for n in range(4)
    }

    # polars, with the storage options as object_store names them (its own reader).
    frame = pl.read_parquet(
        "s3://lake/py/service_report/**/*.parquet",
        storage_options=options(endpoint) | {"aws_allow_http": "true"},
        hive_partitioning=True,
    )
    assert frame.height == want.num_rows
    assert frame["value"].sum() == pytest.approx(sum(want.column("value").to_pylist()))


def test_storage_options_are_checked_and_their_secrets_never_show(
    emulator: Emulator, endpoint: str
) -> None:
    with pytest.raises(monapi.ValidationError) as raised:
        emulator.client(store="s3://lake/a", storage_options={"aws_no_such_option": "1"})
    assert raised.value.field == "storage_options"
    assert "aws_no_such_option" in str(raised.value)
    with pytest.raises(TypeError, match="storage_options"):
        emulator.client(store="s3://lake/a", storage_options={"aws_region": 1})
    with pytest.raises(monapi.ValidationError) as raised:
        emulator.client(store="ftp://lake/a")
    assert raised.value.field == "store"

    # A bucket that does not exist: a StoreError naming the store, no secret.
    client = emulator.client(store="s3://nowhere/a", storage_options=options(endpoint))
    with pytest.raises(monapi.StoreError) as failed:
        client.sync(days_ago(emulator, 2), days_ago(emulator, 1), tasks=[SERVICE])
    shown = f"{failed.value} {failed.value!r} {client!r} {client.__reduce__()!r}"
    assert "s3://nowhere/a/" in str(failed.value)
    assert SECRET_KEY not in shown
