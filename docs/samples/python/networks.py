"""The samples of docs/guides/networks.md, in the order of the page: run whole, in one
interpreter, by tests/python/test_docs.py (MONAPI_* set to the emulator's demo account). What
lies outside the regions checks what the samples gave."""

# --8<-- [start:ca]
import monapi
from monapi import testing

# The emulator over HTTPS, its certificate issued by a private CA made at start: as a company's
# own CA, or a TLS-inspecting proxy's, would be.
emulator = testing.Emulator(tls=True)
account = {
    "client_id": testing.DEMO_CLIENT_ID,
    "client_secret": testing.DEMO_CLIENT_SECRET,
    "username": testing.DEMO_USERNAME,
    "password": testing.DEMO_PASSWORD,
}
client = monapi.Client(base_url=emulator.base_url, ca_bundle=emulator.ca_path, **account)
print(len(client.agents()), "agents over", emulator.base_url.split(":")[0])
# --8<-- [end:ca]

assert emulator.base_url.startswith("https://")

# --8<-- [start:untrusted]
try:
    monapi.Client(base_url=emulator.base_url, **account).agents()  # the system's CAs only
except monapi.ConnectionError as error:
    print(error)  # names the host, the cause, and the option or variable to use
# --8<-- [end:untrusted]

# --8<-- [start:proxy]
via_proxy = monapi.Client(proxy="http://me:secret@proxy.corp:3128")  # every call through it
direct = monapi.Client(proxy=None)  # no proxy, whatever HTTPS_PROXY and the others say
# --8<-- [end:proxy]

assert "secret" not in repr(via_proxy)

# --8<-- [start:limits]
client = monapi.Client(max_connections=20, max_response_bytes=256 << 20)
# --8<-- [end:limits]
