"""Reading the files the management commands are given, with a clear error for each way a file can be wrong."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import CommandError


def read_json(name: str | Path):
    """The parsed JSON document in the file `name`; CommandError naming the file when it is missing, not
    UTF-8 or not JSON."""
    path = Path(name)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CommandError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise CommandError(f"{name}: a folder, not a file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CommandError(f"{name}: not valid JSON ({exc})") from None
