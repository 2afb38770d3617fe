"""Schemathesis over the two upload operations with a valid key of the benchmark in the path (the whole-API
run in tests/api/test_api_schemathesis.py covers them without a key): generated bodies, files and form fields
get no server error, a documented status code and content type, and a body matching the schema."""

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

from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application()).include(
    method="POST", path_regex=r"/(bundle|inspect)$"
)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    # Mostly the key's own benchmark, so that the request gets past the key to the body.
    params = dict(path_parameters or {})
    return st.sampled_from(["upbench", "upbench", "upbench", params.get("slug", "x")]).map(
        lambda slug: {**params, "slug": slug}
    )


@pytest.fixture
def upload_key(transactional_db, settings) -> str:
    settings.API_RATE_LIMIT = 0
    settings.API_UPLOAD_RATE_LIMIT = 0
    bench = Benchmark.objects.create(slug="upbench", name="Up", methodology="scored")
    return api_key_create(name="schemathesis", benchmark=bench)[1]


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_upload_operations_conform_to_their_schema_with_a_key(case, upload_key):
    case.call_and_validate(headers={"Authorization": f"Bearer {upload_key}"}, checks=CHECKS)
