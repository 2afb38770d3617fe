"""Whether a service named by a URL answers: a TCP connection to its host and port, nothing more (no sign-in, no
query). Used before a test run, by `scripts/test_services.py` and `tests/conftest.py`, so that a server that is
not there is named in one line instead of a driver's traceback in the first test that touches it."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

DEFAULT_PORTS = {"postgres": 5432, "postgresql": 5432, "pgsql": 5432, "redis": 6379, "rediss": 6379}
# The settings that name a server, in the order a run needs them.
SERVICE_SETTINGS = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")


def address(url: str) -> tuple[str, int] | None:
    """The host and port a PostgreSQL or Redis URL connects to; None for anything else (SQLite, memory://)."""
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    return parts.hostname or "127.0.0.1", port or DEFAULT_PORTS[parts.scheme]


def answers(host: str, port: int, timeout: float = 2.0) -> bool:
    """True when something accepts a TCP connection on host:port within `timeout` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def shown(url: str) -> str:
    """The URL as it may be printed: its password, if any, replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def unreachable(name: str, url: str, timeout: float = 2.0) -> str | None:
    """A one-line message when the server `url` names (the setting `name`) does not answer; None when it does,
    or when the URL names no server to connect to."""
    where = address(url)
    if where is None or answers(*where, timeout=timeout):
        return None
    host, port = where
    return (
        f"{name}={shown(url)}: nothing answers on {host}:{port} "
        f"(start that server, or unset {name} and `make test` starts a throwaway one)"
    )


def unreachable_settings(environ: Mapping[str, str] | None = None, timeout: float = 2.0) -> list[str]:
    """The messages for every service setting of `environ` (default: this process's) whose server is down."""
    env = os.environ if environ is None else environ
    found = []
    for name in SERVICE_SETTINGS:
        url = env.get(name, "")
        message = unreachable(name, url, timeout) if url else None
        if message:
            found.append(message)
    return found
