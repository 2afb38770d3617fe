"""The task page colours each run by its outcome, as the rubric above it does (a counted fail is red, not green
because it counts), marks the counted run by its words and border, and says "one run" where an agent has a
single counted run instead of a bare dash in the Range column."""

from __future__ import annotations

import io
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

CHIP = re.compile(r'<a class="chip([^"]*)"[^>]*>(.*?)</a>', re.S)
RESULT = re.compile(r'<span data-figure="result">([^<]*)</span>')
MARK = re.compile(r'<span class="chip-mark">([^<]*)</span>')


@pytest.fixture
def demo(db):
    from django.core.management import call_command

    call_command("load_demo", "--no-users", stdout=io.StringIO())


def _chips(html: str) -> list[tuple[set[str], str, str]]:
    """Each chip's classes, result and first chip mark (the run that stands, or why it is not counted)."""
    out = []
    for classes, inside in CHIP.findall(html):
        result, mark = RESULT.search(inside), MARK.search(inside)
        out.append((set(classes.split()), result.group(1).strip() if result else "", mark.group(1) if mark else ""))
    return out


def test_runs_are_coloured_by_outcome_not_by_being_counted(demo, client):
    from leaderboard.models import Benchmark

    colour = {"pass": "good", "partial": "warn", "fail": "bad", "violation": "bad"}
    seen: dict[tuple[str, bool], int] = {}
    for task in Benchmark.objects.get(slug="artb").tasks.all():
        html = client.get(reverse("task", args=["artb", task.key])).content.decode()
        for classes, text, _ in _chips(html):
            outcome = text.split()[0] if text else ""
            if outcome in colour and "not-counted" not in classes:
                others = {"good", "warn", "bad"} - {colour[outcome]}
                assert colour[outcome] in classes and not classes & others, f"{task.key}: {text} is {classes}"
                seen[(outcome, "standing" in classes)] = seen.get((outcome, "standing" in classes), 0) + 1
    # The demo has counted passes and counted fails, and both are told apart.
    assert seen.get(("pass", True)) and seen.get(("fail", True)), seen


def test_a_single_counted_run_reads_one_run_in_the_range_column(demo, client):
    from leaderboard.models import Benchmark

    ranges = []
    for bench in Benchmark.objects.order_by("slug"):
        for task in bench.tasks.all():
            html = client.get(reverse("task", args=[bench.slug, task.key])).content.decode()
            ranges += re.findall(r'<td class="num"><span data-figure="range">([^<]*)</span>', html)
    assert "one run" in ranges, sorted(set(ranges))
    assert all(r == "one run" or r == "–" or re.search(r"\d", r) for r in ranges), set(ranges)


def test_the_weekly_task_page_says_one_run_for_each_single_run(demo, client):
    html = client.get(reverse("task", args=["weekly-shootout", "trip-plan"])).content.decode()
    rows = re.findall(r'<tr id="agent-[^"]*">.*?</tr>', html, flags=re.S)
    assert rows and all('data-figure="range">one run<' in row for row in rows if row.count('class="chip') == 1)
    assert 'data-figure="range">–<' not in html
