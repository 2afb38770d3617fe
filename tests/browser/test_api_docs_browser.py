"""The API docs in a real browser (Debian's Chromium through Playwright): reached from the footer of a site page,
Swagger UI reads the schema without a parser error and lists every operation, the uploads with their example
answer, at desktop and phone width."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import violations
from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_api_docs_are_linked_from_the_footer_and_render_their_operations(browser, live_server, size):
    page = browser.new_page(viewport=SIZES[size])
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live_server.url + "/")
    footer = page.locator("footer.site-footer")
    footer.get_by_role("link", name="API docs").click()
    expect(page).to_have_url(live_server.url + "/api/docs")

    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible()
    # 14 reads (the round's readings the newest), the two uploads and the two submission operations
    assert operations.count() == 18
    expect(page.locator(".opblock-get", has_text="/api/benchmarks/{slug}/rounds/{key}/readings")).to_be_visible()
    expect(page.get_by_text("Parser error")).to_have_count(0)
    expect(page.locator(".errors-wrapper")).to_have_count(0)
    upload = page.locator(".opblock-post", has_text="/api/benchmarks/{slug}/bundle")
    expect(upload).to_be_visible()
    upload.locator(".opblock-summary").click()
    expect(upload.locator(".responses-wrapper")).to_contain_text('"my-bench"')
    found = violations(page)
    assert not found, found
    assert not errors
    page.close()
