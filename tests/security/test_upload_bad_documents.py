"""Documents no bundle field can hold, sent from outside: through the upload API with a benchmark's key, and to
`manage.py import_bundle` as an editor runs it. Each is answered with a 4xx JSON body (or a clear error and a
non-zero exit) naming the problem, never a server error or a traceback, and nothing is stored."""

from __future__ import annotations

import json
import logging

import pytest
from django.test import Client

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Agent, Benchmark, Organization
from tests.security.test_upload_key_scope import _run, other_doc, published_doc, stored, upload_doc

pytestmark = pytest.mark.django_db


@pytest.fixture
def key() -> str:
    """The key of benchmark "sb" (a published round r1 of agent "alpha"), as test_upload_key_scope sets it up."""
    bundle_import(doc=published_doc())
    bundle_import(doc=other_doc())
    return api_key_create(name="CI", benchmark=Benchmark.objects.get(slug="sb"))[1]


@pytest.fixture(autouse=True)
def _quiet_errors():
    """A 500 would be logged with its traceback: the tests check the answer instead."""
    logging.getLogger("django.request").setLevel(logging.CRITICAL)
    yield
    logging.getLogger("django.request").setLevel(logging.NOTSET)


def send(body: str | bytes, key: str, **headers):
    client = Client(raise_request_exception=False)
    return client.post(
        "/api/benchmarks/sb/bundle",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
        **headers,
    )


def with_new_agent(name: str = "Gamma", organization: str = "Gamma Co") -> dict:
    doc = upload_doc()
    doc["agents"].append({"slug": "gamma", "name": name, "organization": organization})
    doc["rounds"][0]["entries"].append({"agent": "gamma"})
    doc["runs"].append(_run("g1", "r2", "gamma", "t1", 7))
    return doc


def _text(doc: dict) -> str:
    return json.dumps(doc)


def _tokens(value: str) -> str:
    """The upload with `tokens_input` written as the JSON literal `value` (json.dumps would write 1e30 as 1e+30)."""
    doc = upload_doc()
    doc["runs"][0]["tokens_input"] = 12345
    return _text(doc).replace('"tokens_input": 12345', f'"tokens_input": {value}')


DEEP = "[" * 100_000 + "]" * 100_000
BAD_BODIES = {
    "arrays nested 100,000 deep": (DEEP, "(body): nested too deeply"),
    "a 5,000-digit number": (_tokens("9" * 5000), "(body): a number has too many digits"),
    "1e30 as a token count": (_tokens("1e30"), "runs[0].tokens_input: must be an integer"),
    "10**30 as a token count": (_tokens("1" + "0" * 30), "runs[0].tokens_input: the number is too large"),
    "a token count past the column": (_tokens(str(2**63)), "runs[0].tokens_input: the number is too large"),
    "a test count past the column": (
        _text(upload_doc()).replace(
            '"tests_passed": 10, "tests_total": 10', '"tests_passed": 1, "tests_total": 3000000000'
        ),
        "runs[0].tests_total",
    ),
    "a cost past the column": (
        _text(upload_doc()).replace('"tests_total": 10', '"tests_total": 10, "cost_usd": 1e30'),
        "runs[0].cost_usd",
    ),
    "NaN": (_tokens("NaN"), "(body): not valid JSON (NaN is not a JSON number)"),
    "a float past 1e308": (_tokens("1e400"), "(body): the number 1e400 is too large"),
    "a lone surrogate in a new agent's name": (
        _text(with_new_agent(name="Gam\ud800ma")),
        "agents[1].name: contains a lone surrogate (\\ud800)",
    ),
    "a lone surrogate in a new organization": (_text(with_new_agent(organization="\udfff")), "agents[1].organization"),
    "a lone surrogate in a round key": (_text(upload_doc()).replace('"r2"', '"r\\ud800"'), "rounds[0].key"),
    "a lone surrogate in an object's key": (
        _text(upload_doc()).replace('"status": "draft"', '"\\ud800": 1, "status": "draft"'),
        "rounds[0]: a key contains a lone surrogate",
    ),
    "a NUL in a prompt": (
        _text(upload_doc()).replace('"Fix it."', '"Fix\\u0000 it."'),
        "tasks[0].prompt: contains a NUL",
    ),
    "encoded surrogates (not UTF-8)": (
        _text(upload_doc()).encode().replace(b'"Alpha"', b'"\xed\xa0\x80"'),
        "(body): not valid JSON (not UTF-8",
    ),
}


@pytest.mark.parametrize(("body", "named"), BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_it_answers_a_bad_body_with_a_422_naming_the_problem_and_stores_nothing(key, body, named):
    before = stored()
    res = send(body, key)
    assert res.status_code == 422, res.content[:300]
    assert res["Content-Type"].startswith("application/json")
    problems = res.json()["problems"]
    assert any(p.startswith(named) for p in problems), problems
    assert stored() == before
    assert not Organization.objects.filter(slug="gamma-co").exists()


@pytest.mark.parametrize("length", ["abc", "-5", "1e3", "١٢"])
def test_it_answers_a_content_length_that_is_not_a_number_with_a_400(key, length):
    before = stored()
    res = send(_text(with_new_agent()), key, CONTENT_LENGTH=length)
    assert res.status_code == 400, res.content[:300]
    assert res["Content-Type"].startswith("application/json")
    assert "Content-Length" in res.json()["detail"]
    assert stored() == before


def test_a_good_upload_still_stores_its_new_agent(key):
    res = send(_text(with_new_agent()), key)
    assert res.status_code == 200, res.content
    assert Agent.objects.get(slug="gamma").organization.name == "Gamma Co"


# --- manage.py import_bundle, as an editor runs it ------------------------------------------------------------


COMMAND_FILES = {
    "arrays nested 100,000 deep": (DEEP, "nested too deeply"),
    "a 5,000-digit number": (_tokens("9" * 5000), "a number has too many digits"),
    "a lone surrogate in a new agent's name": (
        _text(with_new_agent(name="\ud800")),
        "agents[1].name: contains a lone surrogate",
    ),
    "a lone surrogate in a prompt": (
        _text(upload_doc()).replace('"Fix it."', '"\\udc00"'),
        "tasks[0].prompt: contains a lone surrogate",
    ),
}


@pytest.mark.parametrize(("text", "named"), COMMAND_FILES.values(), ids=COMMAND_FILES.keys())
def test_the_import_command_prints_the_problem_and_exits_non_zero(key, run_command, tmp_path, capsys, text, named):
    path = tmp_path / "bundle.json"
    path.write_text(text, encoding="ascii")  # json.dumps writes a lone surrogate as its \u escape
    before = stored()
    status = run_command("import_bundle", str(path))
    err = capsys.readouterr().err
    assert status == 1
    assert named in err, err[-500:]
    assert "Traceback" not in err
    assert stored() == before
