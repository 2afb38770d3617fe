"""Reading the environment: small typed helpers used only by settings."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true or false)")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def database_from_url(url: str, base_dir: Path) -> dict:
    """`postgres://user:pass@host:port/name` or `sqlite:///relative/or//absolute/path`."""
    parsed = urlparse(url)
    if parsed.scheme in ("postgres", "postgresql", "pgsql"):
        options = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")) or "postgres",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
            "TEST": {"NAME": options.pop("test_name", None) or None},
        }
    if parsed.scheme == "sqlite":
        path = url[len("sqlite://") :]
        if path.startswith("/"):
            path = path[1:] if not path.startswith("//") else path[1:]
        name = Path(path) if Path(path).is_absolute() else base_dir / path
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(name),
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported (postgres or sqlite)")
