"""The guides the API docs page links to: docs/api.md and docs/inspect.md as site pages, and nothing else of the
checkout."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_api_docs_page_links_its_guide_and_the_guide_is_a_site_page(client):
    docs = client.get("/api/docs").content.decode()
    assert '<a href="/api/docs/api.md">docs/api.md</a>' in docs
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in docs
    guide = client.get("/api/docs/api.md")
    assert guide.status_code == 200 and guide["Content-Type"].startswith("text/html")
    html = guide.content.decode()
    assert "<h1>The API</h1>" in html and 'class="site-footer"' in html
    assert '<a href="inspect.md">inspect.md</a>' in html  # the guide's own link, to the other served guide
    assert client.get("/api/docs/inspect.md").status_code == 200


@pytest.mark.parametrize("name", ["security", "..%2Fapi", "README", "..%2F..%2Fconfig%2Fsettings"])
def test_no_other_file_is_served_as_a_guide(client, name):
    assert client.get(f"/api/docs/{name}.md").status_code == 404
