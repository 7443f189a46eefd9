"""A client of the bundled emulator, for readers with no account (docs/getting-started/analyst.md
and docs/guides/emulator.md); run by tests/python/test_docs.py."""

# --8<-- [start:try]
from monapi.testing import Emulator

emulator = Emulator(site_tasks=6)  # the service's API on 127.0.0.1, a free port, a made-up account
client = emulator.client()  # a monapi.Client of its demo account
print(len(client.tables.site_tasks()), "sites")
# --8<-- [end:try]

assert len(client.tables.site_tasks()) == 6
