"""The samples of docs/guides/credentials.md, in the order of the page: run whole, in one
interpreter, by tests/python/test_docs.py against the emulator (MONAPI_* set, the working
directory a fresh one). What lies outside the regions checks what the samples gave."""

# --8<-- [start:save]
import json
import os
import pathlib

import monapi

TOKEN_FILE = pathlib.Path("monapi-token.json")


def save(token: monapi.Token) -> None:
    """Called with each new token, on one of monapi's threads: keep it short."""
    TOKEN_FILE.write_text(json.dumps(dict(token)))
    os.chmod(TOKEN_FILE, 0o600)  # a token is a secret


saved = json.loads(TOKEN_FILE.read_text()) if TOKEN_FILE.exists() else None
client = monapi.Client(token=saved, on_token=save)
client.agents()  # logs in only when there was no saved token, or it could not be renewed
print(client.token)  # shows the expiry only, never the token itself
# --8<-- [end:save]

assert TOKEN_FILE.exists() and "access_token" not in repr(client.token)
client.close()

# The same lines again, as a script run a second time: the saved token is used, no login.
saved = json.loads(TOKEN_FILE.read_text())
resumed = monapi.Client(token=saved, on_token=save)
resumed.agents()
assert dict(resumed.token)["access_token"] == saved["access_token"]

# Secrets in files (the suite writes the demo account's there first, as a deployment would).
pathlib.Path("secrets").mkdir(mode=0o700)
pathlib.Path("secrets/password").write_text(os.environ["MONAPI_PASSWORD"] + "\n")
pathlib.Path("secrets/client_secret").write_text(os.environ["MONAPI_CLIENT_SECRET"] + "\n")
del os.environ["MONAPI_PASSWORD"], os.environ["MONAPI_CLIENT_SECRET"]

# --8<-- [start:files]
client = monapi.Client(
    password_file="secrets/password",  # read once; a trailing newline is dropped
    client_secret_file="secrets/client_secret",
)
client.agents()
# --8<-- [end:files]
assert client.token is not None
client.close()
