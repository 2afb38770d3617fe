"""Bad input answers 4xx JSON with a clear message, never a server error; the schema and the docs page are
served, the docs with no CDN."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.usefixtures("no_rate_limit")


@pytest.mark.parametrize(
    ("url", "status", "detail"),
    [
        ("/api/benchmarks/nope", 404, "no benchmark 'nope'"),
        ("/api/benchmarks/nope/runs", 404, "no benchmark 'nope'"),
        ("/api/benchmarks/demo/tasks/nope", 404, "no task 'nope' in demo"),
        ("/api/benchmarks/demo/rounds/nope/board", 404, "no published round 'nope' in demo"),
        ("/api/agents/nope", 404, "no agent 'nope'"),
        ("/api/benchmarks/demo/runs/r1/a%00b", 404, "no such run"),
        ("/api/nowhere", 404, "no API endpoint at /api/nowhere; see /api/docs"),
        ("/api/", 404, "no API endpoint at /api/; see /api/docs"),
    ],
)
def test_unknown_things_answer_404_json(demo, client, url, status, detail):
    r = client.get(url)
    assert r.status_code == status
    assert r.json()["detail"] == detail


@pytest.mark.parametrize(
    "url",
    ["/api/benchmarks/bad%20slug", "/api/benchmarks/%00", "/api/agents/" + "a" * 101, "/api/benchmarks/demo/rounds/-x"],
)
def test_malformed_keys_answer_422_before_any_query(db, client, url, django_assert_num_queries):
    with django_assert_num_queries(0):
        r = client.get(url)
    assert r.status_code == 422
    assert r.json()["detail"].startswith("path.")


def test_writes_are_not_allowed(demo, client):
    assert client.post("/api/benchmarks", {}).status_code == 405


def test_the_openapi_schema_lists_every_endpoint(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    assert set(paths) == {
        "/api/benchmarks",
        "/api/benchmarks/{slug}",
        "/api/benchmarks/{slug}/rounds",
        "/api/benchmarks/{slug}/rounds/{key}",
        "/api/benchmarks/{slug}/rounds/{key}/board",
        "/api/benchmarks/{slug}/rounds/{key}/readings",
        "/api/benchmarks/{slug}/ratings",
        "/api/benchmarks/{slug}/bundle",
        "/api/benchmarks/{slug}/inspect",
        "/api/benchmarks/{slug}/submissions",
        "/api/benchmarks/{slug}/tasks",
        "/api/benchmarks/{slug}/tasks/{key}",
        "/api/benchmarks/{slug}/runs",
        "/api/benchmarks/{slug}/runs/{round}/{run_key}",
        "/api/agents",
        "/api/agents/{slug}",
    }
    # The two uploads and a submission are the only operations that are not reads.
    writes = {(p, m) for p, ops in paths.items() for m in ops if m != "get"}
    assert writes == {
        ("/api/benchmarks/{slug}/bundle", "post"),
        ("/api/benchmarks/{slug}/inspect", "post"),
        ("/api/benchmarks/{slug}/submissions", "post"),
    }


def test_the_docs_page_loads_swagger_from_this_site(client):
    r = client.get("/api/docs")
    assert r.status_code == 200
    html = r.content.decode()
    assert "cdn" not in html.lower()
    assert "/api/docs/assets/swagger-ui-bundle.js" in html
    assert "<script>" not in html  # no inline script: settings travel as a JSON script element
    for name in ("swagger-ui-bundle.js", "swagger-ui-init.js", "swagger-ui.css", "favicon.svg"):
        asset = client.get(f"/api/docs/assets/{name}")
        assert asset.status_code == 200, name
        assert b"".join(asset.streaming_content)


def test_only_the_docs_assets_are_served(client):
    assert client.get("/api/docs/assets/swagger-ui-bundle.js.map").status_code == 404
    assert client.get("/api/docs/assets/..%2F..%2F__init__.py").status_code == 404


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    duplicated = sorted({k for k in keys if keys.count(k) > 1})
    assert not duplicated, f"duplicated keys in the schema: {duplicated}"
    return dict(pairs)


def test_the_openapi_schema_text_has_no_duplicated_key(client):
    # Swagger UI refuses a schema with a key twice ("Parser error: duplicated mapping key") and shows nothing.
    text = client.get("/api/openapi.json").content.decode()
    schema = json.loads(text, object_pairs_hook=_refuse_duplicates)
    for path in ("/api/benchmarks/{slug}/bundle", "/api/benchmarks/{slug}/inspect"):
        ok = schema["paths"][path]["post"]["responses"]["200"]
        assert ok["content"]["application/json"]["example"]["benchmark"] == "my-bench"
        assert "schema" in ok["content"]["application/json"]
