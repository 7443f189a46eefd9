"""The samples of docs/guides/errors.md, in the order of the page: run whole, in one interpreter,
by tests/python/test_docs.py against the emulator (MONAPI_* set). What lies outside the regions
checks what the samples gave."""

# --8<-- [start:branch]
import time

import monapi

client = monapi.Client(timeout=30, max_retries=3)  # the defaults are 30 s and 2 retries


def report_or_none(task_id: int) -> dict[str, list[dict[str, str]]] | None:
    try:
        return client.service_report(task_id)
    except monapi.ApiError as error:  # the service refused the call: no retry helps
        print(f"task {task_id}: {error.code} {error.status_code}: {error.message}")
        return None
    except (monapi.TimeoutError, monapi.ConnectionError):
        # Already retried max_retries times with backoff: the service or the network is down.
        time.sleep(60)
        return client.service_report(task_id)


print(report_or_none(999999))
# --8<-- [end:branch]

assert report_or_none(10001)

# --8<-- [start:codes]
try:
    client.site_report(20001, start_date="2026-02-30")
except monapi.MonapiError as error:  # every error of monapi; its class says which
    print(type(error).__name__, "-", error)
# --8<-- [end:codes]
