"""Browser tests drive Debian's Chromium (/usr/bin/chromium, installed by `make test`) through Playwright's
sync API. Playwright never downloads a browser here; a missing Chromium is an error, not a skip."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture
def browser(monkeypatch):
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test around it are safe.
    # Set per test, not at import, so it never leaks into other tests' subprocesses.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is missing: `make chromium` installs Debian's package"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
