"""Browser tests drive Debian's Chromium (/usr/bin/chromium, installed by `make test`) through Playwright's
sync API. Playwright never downloads a browser here; a missing Chromium is an error, not a skip."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAILURES = ROOT / "var" / "browser-failures"
CHROMIUM = "/usr/bin/chromium"
# The two window sizes every page is checked at: a desktop and a phone.
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
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
def browser(monkeypatch, request):
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test around it are safe.
    # Set per test, not at import, so it never leaks into other tests' subprocesses.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Chromium is missing: `make chromium` installs Debian's package"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        if getattr(request.node, "call_failed", False):
            _keep_what_the_pages_showed(request.node.name, browser)
        browser.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when == "call" and outcome.get_result().failed:
        item.call_failed = True


def _keep_what_the_pages_showed(test: str, browser) -> None:
    """A failed browser test leaves each open page's address, HTML and screenshot under var/browser-failures/
    (and prints where), so a failure seen once in CI can be read afterwards."""
    FAILURES.mkdir(parents=True, exist_ok=True)
    for i, page in enumerate(page for context in browser.contexts for page in context.pages):
        stem = FAILURES / f"{test}-{i}"
        try:
            stem.with_suffix(".html").write_text(f"<!-- {page.url} -->\n{page.content()}")
            page.screenshot(path=str(stem.with_suffix(".png")), full_page=True)
        except Exception as exc:  # noqa: BLE001 - a page that cannot be read any more: say so, go on
            print(f"could not keep page {i} of {test}: {exc}")
            continue
        print(f"page {i} of {test} was at {page.url}; kept in {stem}.html and .png")


@pytest.fixture
def demo(transactional_db):
    """The demo's five benchmarks, loaded and computed (no accounts)."""
    import io

    from django.core.management import call_command

    call_command("load_demo", "--no-users", stdout=io.StringIO())
