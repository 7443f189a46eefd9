"""TypedDicts of the results monapi returns as the service sent them (the faithful forms).

The raw methods of :class:`monapi.Client` and :class:`monapi.AsyncClient` return plain dicts
and lists with the API's own keys and values; these types name their keys for type checkers
(``mypy --strict`` knows ``report["0"]["name"]`` is a ``str``). They describe, they do not
convert: values stay what the service sent (mostly strings). :class:`Progress` is what a bulk
call's progress callback receives.

Examples
--------
>>> from monapi.types import ServiceTask
>>> tasks: list[ServiceTask] = client.service_tasks()
>>> names = [task["task_name"] for task in tasks]
"""

from __future__ import annotations

from typing import NotRequired, TypeAlias, TypedDict

from monapi._token import Token

__all__ = [
    "Agent",
    "AgentList",
    "AgentUrl",
    "Bucket",
    "CreatedTask",
    "Distribution",
    "Fault",
    "GroupRef",
    "MonitorPoint",
    "Plugin",
    "Progress",
    "ResponseTimeRecord",
    "ServiceReport",
    "ServiceTask",
    "SitePoint",
    "SiteReport",
    "SiteTask",
    "SiteTaskSettings",
    "Token",
    "TokenDict",
    "UprateRecord",
    "User",
    "UserGroup",
]


class ServiceTask(TypedDict):
    """One task of the service task list (``client.service_tasks()``); every value a
    string, as sent (``task_id`` ``"10001"``, ``frequency`` in minutes,
    ``last_check_time`` ``"YYYY-MM-DD HH:MM:SS"``)."""

    task_id: str
    task_name: str
    task_type: str
    frequency: str
    last_check_time: str
    task_status: str


class SiteTask(TypedDict):
    """One task of the site task list (``client.site_tasks()``, ``client.iter_site_tasks()``),
    values as sent (strings). The service does not publish these fields (they are those of
    the API's other generations): any may be missing, and others are kept."""

    task_id: str
    task_name: NotRequired[str]
    task_summary: NotRequired[str]
    task_type: NotRequired[str]
    task_create_time: NotRequired[str]
    frequency: NotRequired[str]
    task_status: NotRequired[str]
    group_id: NotRequired[str]
    last_resp_time: NotRequired[str]
    last_resp_result: NotRequired[str]
    last_resp_status: NotRequired[str]
    threshold_result: NotRequired[str]
    last_check_time: NotRequired[str]


class SitePointRef(TypedDict):
    """A monitoring point a site task uses."""

    monitor_id: str
    monitor_name: str


class SiteTaskSettings(SiteTask):
    """One site task's settings (``client.site_task(...)``): the listed fields and its points."""

    monitors: NotRequired[list[SitePointRef]]


class MonitorPoint(TypedDict):
    """A monitoring point (``client.monitors()``): its id keys site reports."""

    monitor_id: str
    monitor_name: NotRequired[str]
    isp_id: NotRequired[str]
    isp_name: NotRequired[str]
    location_code: NotRequired[str]
    location_name: NotRequired[str]
    china_region: NotRequired[str]
    world_region: NotRequired[str]


class GroupRef(TypedDict):
    """A group a user belongs to."""

    organization_id: str
    organization_name: str


class User(TypedDict):
    """A user of the account (``client.users()``): its id is what ``alert_setting`` names;
    ``user_status`` 0 paused, 1 normal, 2 deleted; ``role_id`` 1 admin, 2 advanced, 3
    read-only; times are unix seconds."""

    user_id: str
    user_email: NotRequired[str]
    user_name: NotRequired[str]
    user_status: NotRequired[str]
    mobile: NotRequired[str]
    telephone: NotRequired[str]
    signup_time: NotRequired[str]
    last_visit_time: NotRequired[str]
    role_id: NotRequired[str]
    organization: NotRequired[list[GroupRef]]


class UserGroup(TypedDict):
    """A user group (``client.user_groups()``): its id is what ``organization`` names."""

    organization_id: str
    organization_name: NotRequired[str]
    parent_organization_id: NotRequired[str]
    user_num: NotRequired[str]


class Plugin(TypedDict):
    """A plugin of an agent; ``plugin_task_uselist_id`` is what a server task's
    ``plugin_task_uselist_id`` takes."""

    plugin_id: str
    plugin_name: str
    plugin_task_uselist_id: str


class AgentUrl(TypedDict):
    """The download addresses of an agent."""

    windows: str
    linux: str


class Agent(TypedDict):
    """An agent of the agent list (``client.agents()``, keyed by agent id)."""

    name: str
    agentUrl: AgentUrl
    plugin: list[Plugin]


AgentList: TypeAlias = dict[str, Agent]
"""``client.agents()``: agents keyed by agent id."""


class CreatedTask(TypedDict):
    """One element of the answer of ``client.create_server_tasks(...)`` and
    ``client.create_service_tasks(...)``."""

    task_id: int


ServiceReport: TypeAlias = dict[str, list[dict[str, str]]]
"""``client.service_report(...)``: series name to records (field name to value, strings as
sent, e.g. ``{"time": "00:05", "rps": "12.5"}``)."""


class UprateRecord(TypedDict):
    """The availability of one check of a monitoring point (percent, as sent)."""

    uprate: str


class ResponseTimeRecord(TypedDict):
    """The response times of one check of a monitoring point (milliseconds, decimal
    strings as sent)."""

    resptime_max: str
    resptime_avg: str
    resptime_min: str
    resp_process_time: str
    resp_connect_time: str
    resp_dns_time: str
    resp_download_time: str


class Fault(TypedDict):
    """A fault of a monitoring point: unix times as strings; ``end_time`` is a text instead
    while the fault goes on."""

    start_time: str
    end_time: str
    diff_time: str
    fault_status: str
    current_fault_period: str


class SitePoint(TypedDict):
    """One monitoring point of a site report (the key ``"0"`` is the average).

    ``uprate`` and ``resptime`` are keyed by check time (unix time as a string); ``fault``
    is ``None`` without faults, else keyed by fault index (``"0"``, ``"1"`` ...) plus
    ``"count"`` (an int). PHP's ``[]`` for an empty object arrives as an empty dict.
    """

    name: str
    uprate: dict[str, UprateRecord]
    fault: dict[str, Fault | int] | None
    resptime: dict[str, ResponseTimeRecord]


SiteReport: TypeAlias = dict[str, SitePoint]
"""``client.site_report(...)``: monitoring points keyed by id (``"0"`` is the average)."""


class Bucket(TypedDict):
    """A bucket of a response-time distribution: bounds in milliseconds; numbers or strings
    as the service sent them (``percent`` a string with two decimals)."""

    start: int | str
    end: int | str
    count: int | str
    percent: str


Distribution: TypeAlias = dict[str, Bucket]
"""``client.response_time_distribution(...)``: buckets keyed by lower bound."""


class Progress(TypedDict):
    """How far a bulk call (``client.tables.service_reports``) has come, as its progress
    callback receives it: at the start (``done`` 0), then after each task."""

    done: int
    total: int
    failed: int
    bytes: int
    rows: int


class TokenDict(TypedDict):
    """The keys of a :class:`monapi.Token` (``client.login()``, ``client.token``): the
    token endpoint's answer plus ``expires_at``, the unix time it expires (stamped when it
    arrived; ``None`` when the service sent no ``expires_in``)."""

    access_token: str
    refresh_token: str | None
    expires_in: int
    expires_at: int | None
    token_type: str
    scope: str | None
