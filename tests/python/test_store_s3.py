"""The store in a bucket (``store="s3://…"``, ``storage_options=``) in Python, against moto's
S3 server on loopback: a sync, a warm sync that sends no report request, pickling, the
secrets; the bucket read by pyarrow's ``S3FileSystem``, by polars with the same options and
by Dask through s3fs, each read giving the rows and sums of ``monapi export``; and
examples/dask_sync.py's workers syncing into one bucket."""

from __future__ import annotations

import datetime
import os
import pathlib
import pickle
import urllib.request
from collections.abc import Iterator
from typing import Any

import dask.dataframe as dd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pytest
from moto.server import ThreadedMotoServer

import monapi
from monapi.testing import Emulator

from helpers import demo_env, zone
from store_checks import (
    KINDS,
    assert_read_as_exported,
    canonical,
    exported_kinds,
    run_dask_example,
)

SERVICE = 10011
SITE = 20001
SECRET_KEY = "s3cr3t-never-shown-py-7c2b"
# dask 2026.8's Parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")


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


def test_a_sync_into_a_bucket_then_a_warm_one_that_sends_no_report_request(
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


def s3_filesystem(endpoint: str) -> pafs.S3FileSystem:
    """pyarrow's own S3 filesystem, with the endpoint and credentials of ``options``."""
    return pafs.S3FileSystem(
        endpoint_override=endpoint,
        scheme="http",
        access_key="test",
        secret_key=SECRET_KEY,
        region="us-east-1",
    )


def bucket_readers(endpoint: str, prefix: str, kind: str) -> dict[str, Any]:
    """The dataset of ``kind`` under ``s3://lake/PREFIX`` as pyarrow's ``S3FileSystem``,
    polars (``storage_options`` as object_store names them, its own reader) and Dask (through
    s3fs, ``storage_options`` as botocore names them) read it, Hive partitions and all."""
    url = f"s3://lake/{prefix}/{kind}"
    frame = pl.read_parquet(
        f"{url}/**/*.parquet",
        storage_options=options(endpoint) | {"aws_allow_http": "true"},
        hive_partitioning=True,
    )
    s3fs_options = {
        "endpoint_url": endpoint,
        "key": "test",
        "secret": SECRET_KEY,
        "client_kwargs": {"region_name": "us-east-1"},
    }
    rows = dd.read_parquet(url, storage_options=s3fs_options).compute()
    dataset = ds.dataset(
        f"lake/{prefix}/{kind}",
        filesystem=s3_filesystem(endpoint),
        format="parquet",
        partitioning="hive",
    )
    return {
        "pyarrow": dataset.to_table(),
        "polars": frame.to_arrow(),
        "dask": pa.Table.from_pandas(rows, preserve_index=False),
    }


def test_every_reader_of_the_bucket_gets_the_rows_and_sums_of_monapi_export(
    endpoint: str, tmp_path: pathlib.Path
) -> None:
    services, sites = [SERVICE, 10014], [SITE, 20002]
    # The stressed world: faults in every site report, so no kind is empty.
    with Emulator(world="stressed") as emulator:
        first, last = days_ago(emulator, 4), days_ago(emulator, 2)
        stored = emulator.client(
            store="s3://lake/read", storage_options=options(endpoint), settle=1, timeout=10.0
        )
        report = stored.sync(first, last, tasks=[*services, *sites])
        assert (report["fetched"], report["failed"]) == (12, 0)
        env = demo_env(emulator)
        want = exported_kinds(env, services, sites, first, last, tmp_path)
    for kind in KINDS:
        assert want[kind].num_rows > 0, kind
        for reader, got in bucket_readers(endpoint, "read", kind).items():
            assert_read_as_exported(got, want[kind], kind, (reader, kind))


def test_the_dask_example_syncs_into_a_bucket_as_one_process_does(
    endpoint: str, tmp_path: pathlib.Path
) -> None:
    """examples/dask_sync.py with ``--store s3://…``: its two workers sync their shares of the
    tasks into one bucket, the bucket's credentials and endpoint in the ``AWS_*`` variables
    (which monapi and s3fs read alike), and the bucket holds what one process's sync wrote."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONAPI_", "AWS_"))}
    env |= {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_REGION": "us-east-1",
    }
    with Emulator(service_tasks=6) as emulator:
        first, last = days_ago(emulator, 4), days_ago(emulator, 2)
        done = run_dask_example(emulator.base_url, "s3://lake/dask", first, last, tmp_path, env)
        alone = emulator.client(
            store="s3://lake/alone", storage_options=options(endpoint), settle=1, timeout=10.0
        ).sync(first, last, kinds="service_report")
    assert alone["fetched"] == 18 and alone["failed"] == 0
    assert "6 service tasks" in done.stdout
    assert f"synced: 18 task-days fetched, 0 reused, {alone['rows']} rows" in done.stdout
    s3 = s3_filesystem(endpoint)

    def stored(prefix: str) -> tuple[list[str], Any]:
        """The keys of the prefix's service reports, and their rows."""
        files = s3.get_file_info(pafs.FileSelector(f"lake/{prefix}", recursive=True))
        keys = sorted(f.path.removeprefix(f"lake/{prefix}/") for f in files if f.is_file)
        dataset = ds.dataset(
            f"lake/{prefix}/service_report", filesystem=s3, format="parquet", partitioning="hive"
        )
        return keys, dataset.to_table()

    (dask_keys, dask_rows), (alone_keys, alone_rows) = stored("dask"), stored("alone")
    # One file per task and day, and store.json; nothing half-written, nothing twice.
    assert dask_keys == alone_keys and len(dask_keys) == 19
    assert dask_rows.num_rows == alone_rows.num_rows == alone["rows"] > 0
    assert canonical(dask_rows).equals(canonical(alone_rows))
    assert f"store: {alone['rows']} rows of 6 tasks" in done.stdout
