"""A pytest plugin for mutmut's parallel mutant runs of a Django target: each run takes a free slot and uses
that slot's own test database and cache keys, so two mutants tested at once never disturb each other (a mutant
would otherwise die of the other run's rows or rate-limit counters, not of a test).

mutmut forks one process per mutant from a server that has already imported Django (its warm-up collects the
tests), so the slot cannot come from the environment at import time: it is taken in `pytest_configure`, before
pytest-django sets up the test database, and held (an exclusive `flock` on `<MUTATE_SLOT_DIR>/<n>.lock`) until
the session ends or the process exits. Slot n's database is `test_<name>_mut<n>`, created and migrated by its
first run; later runs reuse it without checking the migrations again (`<n>.ready` marks it made, and `make
mutate` removes the marks when it copies the checkout anew). Its cache keys carry `-mut<n>`. Active only when
MUTATE_SLOTS is set (by `make mutate`).
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import pytest

_ran_key = pytest.StashKey[bool]()
_held: dict[int, int] = {}  # process id -> its slot's lock file descriptor, kept open until the process exits
_base: dict[str, str] = {}  # the database name and cache key prefix as configured
_dirty: dict[int, Path] = {}  # process id -> the mark of its session in progress


def _take_slot(directory: Path, slots: int) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + 600
    while True:
        for n in range(slots):
            fd = os.open(directory / f"{n}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            _held[os.getpid()] = fd
            return n
        if time.monotonic() > deadline:
            raise RuntimeError(f"no free mutation slot of {slots} in {directory} after 10 minutes")
        time.sleep(0.2)


def pytest_configure(config) -> None:
    slots = int(os.environ.get("MUTATE_SLOTS") or 0)
    # The fork server's warm-up only collects: it must not hold a slot its children would inherit.
    if not slots or config.option.collectonly or os.getpid() in _held:
        return
    from django.conf import settings

    n = _take_slot(Path(os.environ.get("MUTATE_SLOT_DIR", "/tmp/mutate-slots")), slots)
    db, cache = settings.DATABASES["default"], settings.CACHES["default"]
    # The names as configured, kept from the first session of the process (or of the process it was forked
    # from): a later session in the same process starts from them, not from the names the last one set.
    _base.setdefault("name", db["NAME"])
    _base.setdefault("prefix", cache.get("KEY_PREFIX", ""))
    # In place: the connection handler holds these same dictionaries.
    db["NAME"] = _base["name"]
    db.setdefault("TEST", {})["NAME"] = f"test_{_base['name']}_mut{n}"
    cache["KEY_PREFIX"] = f"{_base['prefix']}-mut{n}"
    directory = Path(os.environ.get("MUTATE_SLOT_DIR", "/tmp/mutate-slots"))
    ready, dirty = directory / f"{n}.ready", directory / f"{n}.dirty"
    if ready.exists():
        # A session that did not end (a mutant's run stopped at its timeout) may have left the rows of a
        # transactional test behind: this one empties the database first.
        _reuse_without_migrate(db["TEST"]["NAME"], flush=dirty.exists())
        dirty.touch()
        _dirty[os.getpid()] = dirty
    else:
        config.add_cleanup(lambda: ready.touch() if _set_up_ok(config) else None)
    from django.core.cache import caches

    try:
        del caches._connections.default  # a cache made before the slot was known keeps the old prefix
    except AttributeError:
        pass


def _set_up_ok(config) -> bool:
    # The slot's database was made by this session and the session got as far as running tests.
    return config.stash.get(_ran_key, False)


def _reuse_without_migrate(name: str, *, flush: bool) -> None:
    """Point the connection at the slot's existing test database instead of letting Django check every
    migration again (about 9 s a session, most of a killed mutant's run): the mutants never change a
    migration, and `make mutate` removes the ready marks when it copies the checkout anew."""
    import django.test.utils
    from django.db import connections

    def setup_databases(**_kwargs):
        connection = connections["default"]
        connection.close()
        connection.settings_dict["NAME"] = name
        from django.conf import settings

        settings.DATABASES["default"]["NAME"] = name
        connection.ensure_connection()
        if flush:
            from django.core.management import call_command

            call_command("flush", interactive=False, verbosity=0)
        return []

    django.test.utils.setup_databases = setup_databases


def pytest_runtest_call(item) -> None:
    item.config.stash[_ran_key] = True


def pytest_unconfigure(config) -> None:
    # A session run in a long-lived process (mutmut's own stats run) gives its slot back for the mutants.
    dirty = _dirty.pop(os.getpid(), None)
    if dirty is not None:
        dirty.unlink(missing_ok=True)
    fd = _held.pop(os.getpid(), None)
    if fd is not None:
        os.close(fd)
