"""Shared by the attacks from outside."""

import pytest
from django.core.management import ManagementUtility
from django.db import connections


@pytest.fixture
def run_command(monkeypatch):
    """`manage.py ...` in this process (so on the test database), returning its exit status: a command that
    fails with a CommandError prints it and exits 1; any other exception escapes (a traceback) and fails the
    test. The command closes its database connections when it ends; here that would close the test's own."""
    monkeypatch.setattr(connections, "close_all", lambda: None)

    def run(*argv: str) -> int:
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except SystemExit as exc:
            return int(exc.code or 0)
        return 0

    return run
