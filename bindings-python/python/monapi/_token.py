"""The token type: a dict that never shows its values."""

from __future__ import annotations

import datetime
from typing import Any

__all__ = ["Token"]


class Token(dict[str, Any]):
    """An OAuth token, as a plain dict whose ``repr`` shows only when it expires.

    Keys: ``access_token``, ``refresh_token``, ``expires_in`` (seconds, as the service
    sent it), ``expires_at`` (unix time, stamped when it arrived), ``token_type`` and
    ``scope``. Save it (``json.dumps(token)``) and pass it back as ``token=`` to resume
    without logging in.

    Examples
    --------
    >>> token = client.login()
    >>> token
    <monapi.Token bearer, expires 2026-11-22T10:00:00+00:00>
    >>> saved = json.dumps(token)
    >>> client = monapi.Client(token=json.loads(saved))
    """

    __slots__ = ()

    def __repr__(self) -> str:
        """``<monapi.Token bearer, expires ...>``: its type and expiry, never a secret."""
        expires_at = self.get("expires_at")
        if isinstance(expires_at, int):
            when = datetime.datetime.fromtimestamp(expires_at, tz=datetime.UTC)
            expiry = f"expires {when.isoformat()}"
        else:
            expiry = "expiry unknown"
        return f"<monapi.Token {self.get('token_type') or 'bearer'}, {expiry}>"

    __str__ = __repr__


class _Redacted(str):
    """A secret in a pickled client's state (its client secret, its password's MD5): the
    string itself, but its ``repr`` (and so the repr of the state) does not show it."""

    __slots__ = ()

    def __repr__(self) -> str:
        """``'[redacted]'``, whatever the secret."""
        return "'[redacted]'"
