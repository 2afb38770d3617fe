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


SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
CONSOLE_BACKEND = "django.core.mail.backends.console.EmailBackend"


def mailers(*, host: str, port: int, username: str, password: str, use_tls: bool, timeout: int) -> dict:
    """Django's MAILERS: SMTP to `host` when one is given (production), else the console (`make serve`), where
    the sign-up's link is read."""
    if not host:
        return {"default": {"BACKEND": CONSOLE_BACKEND}}
    options = dict(host=host, port=port, username=username, password=password, use_tls=use_tls, timeout=timeout)
    return {"default": {"BACKEND": SMTP_BACKEND, "OPTIONS": options}}


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


# The stored files, one named storage per kind (settings.STORAGES). Each kind keeps its own prefix in its names
# ("evidence/...", "app-builds/...", "transcripts/..."), so all of them can share one bucket.
FILE_STORAGES = ("evidence", "app_builds", "transcripts", "submissions")
S3_BACKEND = "storages.backends.s3.S3Storage"
# STORAGE_URL's query keys, as django-storages names the S3 backend's options (a few short names allowed).
_S3_ALIASES = {"region": "region_name", "endpoint": "endpoint_url", "prefix": "location"}


def file_storages(url: str) -> dict[str, dict]:
    """The named file storages: the local disk under MEDIA_ROOT without `url`; with
    `s3://bucket/optional/prefix?endpoint_url=...&region_name=...`, django-storages' S3 backend for every kind.
    Files stay private in the bucket (no ACL, signed URLs only): the site itself serves them. Credentials come
    from the query (access_key, secret_key) or, better, from the usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
    environment or an instance role, as boto3 finds them."""
    if not url:
        return {name: {"BACKEND": "django.core.files.storage.FileSystemStorage"} for name in FILE_STORAGES}
    parsed = urlparse(url)
    if parsed.scheme != "s3" or not parsed.hostname:
        raise ImproperlyConfigured(f"STORAGE_URL={url!r}: expected s3://bucket?endpoint_url=...&region_name=...")
    options: dict = {
        "bucket_name": parsed.netloc.rsplit("@", 1)[-1],
        "default_acl": None,
        "querystring_auth": True,
        "file_overwrite": False,  # a second file of the same name gets a name of its own, as on the disk
    }
    if parsed.path.strip("/"):
        options["location"] = parsed.path.strip("/")
    for key, values in parse_qs(parsed.query).items():
        value: object = values[-1]
        key = _S3_ALIASES.get(key, key)
        if value in ("true", "false"):
            value = value == "true"
        options[key] = value
    return {name: {"BACKEND": S3_BACKEND, "OPTIONS": dict(options)} for name in FILE_STORAGES}
