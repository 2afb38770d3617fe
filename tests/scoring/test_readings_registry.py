"""The open questions of the methodology registry (`scoring.readings`): the nine a reading of the seeds found, each
with the seed's own words quoted exactly, the site's reading and another; listed in docs/methodology-choices.md as
the registry generates them; and every one a parameter the scoring code reads."""

import re
from pathlib import Path

import pytest

import scoring.readings as registry
from scoring import methodologies
from scoring.readings import (
    ALL_OTHER,
    BY_ID,
    QUESTIONS,
    SEEDS,
    Readings,
    parse_readings,
    variants,
)
from scripts.readings_doc import DOC_END, DOC_START, choices_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_it_lists_the_nine_open_questions_by_methodology():
    assert {(q.id, q.methodology) for q in QUESTIONS} == {
        ("infra-error", "checks"),
        ("spread", "checks"),
        ("missing-usage", "checks"),
        ("time-limit-default", "checks"),
        ("overall-mean", "scored"),
        ("heuristic-cap", "scored"),
        ("unsupported", "outcomes"),
        ("weekly-review", "weekly"),
        ("interventions", "weekly"),
    }
    for key, m in methodologies.REGISTRY.items():
        assert m.questions == tuple(q for q in QUESTIONS if q.methodology == key)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_each_question_quotes_its_seed_exactly(question):
    assert question.words
    for seed, text in question.words:
        assert text in (ROOT / "docs" / "seeds" / SEEDS[seed]).read_text(encoding="utf-8"), (seed, text)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_each_question_has_the_sites_reading_and_another(question):
    values = [r.value for r in question.readings]
    assert question.alternatives and len(set(values)) == len(values)
    assert all(r.says for r in question.readings)


def test_methodology_choices_lists_the_questions_as_the_registry_has_them():
    text = (ROOT / "docs" / "methodology-choices.md").read_text(encoding="utf-8")
    assert text.count(DOC_START) == 1 and text.count(DOC_END) == 1
    listed = DOC_START + text.split(DOC_START, 1)[1].split(DOC_END, 1)[0] + DOC_END + "\n"
    assert listed == choices_markdown(), "run .venv/bin/python scripts/readings_doc.py"


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_each_question_is_read_by_its_methodologys_scoring_code(question):
    # The constant naming the question is asked in the scoring module of its methodology (the one code path).
    constant = next(name for name, value in vars(registry).items() if name.isupper() and value == question.id)
    source = (ROOT / "scoring" / f"{question.methodology}.py").read_text(encoding="utf-8")
    assert re.search(rf"\b{constant}\b", source), constant


def test_variants_are_each_other_reading_alone_then_all_together():
    assert [key for key, _ in variants("weekly")] == [
        "weekly-review=tester-alone",
        "interventions=sum-of-runs",
        ALL_OTHER,
    ]
    together = dict(variants("weekly"))[ALL_OTHER]
    assert together.value("weekly-review") == "tester-alone" and together.value("interventions") == "sum-of-runs"
    assert [key for key, _ in variants("outcomes")] == ["unsupported=left-out"]


def test_readings_refuse_what_the_registry_does_not_hold():
    with pytest.raises(ValueError, match="no open question 'nope'"):
        Readings.of({"nope": "x"})
    with pytest.raises(ValueError, match="infra-error: no reading 'maybe'.*left-out, zero"):
        Readings.of({"infra-error": "maybe"})
    with pytest.raises(ValueError, match="weekly has no open question 'infra-error'"):
        parse_readings(["infra-error=zero"], "weekly")
    with pytest.raises(ValueError, match="ID=VALUE"):
        parse_readings(["infra-error"], "checks")
    assert parse_readings(["infra-error=left-out"], "checks").is_site
    assert BY_ID["infra-error"].site.value == "left-out"
