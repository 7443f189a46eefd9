"""Testing helpers: the bundled emulator of the monitoring service.

:class:`Emulator` runs a faithful, stateful emulator of the service inside this process
(on ``127.0.0.1`` and a free port), with the demo account and knobs for tests: token
lifetime, latency, injected faults, request counters, a site that fails from now on
(:meth:`Emulator.fail_site`, :meth:`Emulator.recover_site`), a task taken out of the account
and brought back (:meth:`Emulator.remove_task`, :meth:`Emulator.restore_task`), a clock that
reports never go past (``now=``, :meth:`Emulator.set_now`, :meth:`Emulator.advance`), and the
world of its site reports (``world="realistic"``, the default: sites up at almost every check;
``"stressed"``: faults in every report).

Examples
--------
>>> from monapi.testing import Emulator
>>> with Emulator() as emulator:
...     client = emulator.client()
...     tasks = client.service_tasks()
...     emulator.counters()["service_tasks"]
1

As a pytest fixture:

>>> import pytest
>>> @pytest.fixture
... def emulator():
...     with Emulator() as emulator:
...         yield emulator
"""

from monapi._native import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    DEMO_PASSWORD,
    DEMO_USERNAME,
    Emulator,
)

__all__ = [
    "DEMO_CLIENT_ID",
    "DEMO_CLIENT_SECRET",
    "DEMO_PASSWORD",
    "DEMO_USERNAME",
    "Emulator",
]
