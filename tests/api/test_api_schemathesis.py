"""Schemathesis against /api/openapi.json over the Django WSGI app: generated requests (valid and invalid)
to every operation get no server error, a documented status code and content type, and a body that matches
the documented schema.

The data is the small bundle of conftest.py, committed (transactional_db): the WSGI handler closes the
database connection at the end of each request, which a test wrapped in one transaction would not survive.
Random keys almost never name a stored row, so the hooks below swap generated keys for real ones (published
and unpublished) half of the time: the 200 responses get validated too, not only the 404s. The rate limit is
off here; it has its own tests.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from bundles.importer import bundle_import

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())

# Keys of the bundle in conftest.py, published (r1) and not (r2 preview, r3 draft).
ROUNDS = ["r1", "r2", "r3"]
TASKS = ["flight-compare", "email-reply"]
AGENTS = ["nimbus", "tianji", "hidden-agent"]
RUN_KEYS = [
    "r1-nimbus-flight",
    "r1-nimbus-email",
    "r1-tianji-flight",
    "r1-tianji-email",
    "r2-nimbus-flight",
    "r3-nimbus-flight",
]
# None leaves the filter out; it is listed often so that many filter combinations name existing runs.
RUN_FILTERS = {
    "round": [None, None, "r1", "r2"],
    "agent": [None, None, *AGENTS],
    "task": [None, *TASKS],
    "page": [None, None, 1, 2],
    "page_size": [None, None, 1, 200],
}


def _known(path: str, name: str) -> list | None:
    if name == "slug":
        return AGENTS if path.startswith("/api/agents") else ["demo"]
    if name == "key":
        return TASKS if "/tasks/" in path else ROUNDS
    return {"round": ROUNDS, "run_key": RUN_KEYS}.get(name)


def _mostly_known(value, known: list | None) -> st.SearchStrategy:
    """The generated value a quarter of the time, else a real one."""
    keep = st.just(value)
    if not known:
        return keep
    return st.integers(0, 3).flatmap(lambda i: keep if i == 0 else st.sampled_from(known))


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    path = context.operation.path if context.operation is not None else ""
    params = path_parameters or {}
    mixed = st.fixed_dictionaries({name: _mostly_known(value, _known(path, name)) for name, value in params.items()})
    if "run_key" not in params:
        return mixed
    # A run key only names a run within its own round: mostly pick a real (round, run) pair.
    pairs = st.sampled_from(RUN_KEYS).map(lambda key: {**params, "slug": "demo", "round": key[:2], "run_key": key})
    return st.integers(0, 2).flatmap(lambda i: mixed if i == 0 else pairs)


@schema.hook
def flatmap_query(context, query):
    query = dict(query or {})
    if context.operation is None or not context.operation.path.endswith("/runs"):
        return st.just(query)
    names = set(query) | set(RUN_FILTERS)
    return st.fixed_dictionaries({name: _mostly_known(query.get(name), RUN_FILTERS.get(name)) for name in names}).map(
        lambda q: {k: v for k, v in q.items() if v is not None}
    )


CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def committed_demo(transactional_db, bundle_doc, no_rate_limit):
    bundle_import(doc=bundle_doc)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_api_conforms_to_its_schema(case, committed_demo):
    case.call_and_validate(checks=CHECKS)
