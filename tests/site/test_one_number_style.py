"""#32.5: numbers read the same on every page: tokens (2.16M), times (10m 46s), money ($0.002, never $0.00),
through `pages.formatting` (the templates use its filters from `pages.templatetags.formats`)."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.urls import reverse

from pages.formatting import fmt_money, fmt_seconds, fmt_tokens

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(db):
    from django.core.management import call_command

    call_command("load_demo", "--no-users", stdout=io.StringIO())


def test_the_formats_by_hand():
    # 2,160,000 / 1,000,000 = 2.16 -> "2.16M"; 646 s = 10 x 60 + 46 -> "10m 46s"; 0.002 is under 0.1 -> 3 places.
    assert (fmt_tokens(2_160_000), fmt_seconds(646), fmt_money(Decimal("0.002"))) == ("2.16M", "10m 46s", "$0.002")
    assert fmt_money(Decimal("4.79")) == "$4.79"


def test_a_half_is_rounded_up_as_a_reader_rounds_it():
    from pages.formatting import fmt_pct, fmt_range, fmt_score

    # An outcomes overall of 29 points over 20 tested tasks: 29 / 40 x 10 = 7.25 -> "7.3" (to even, "7.2"); a
    # checks overall of 44.5 -> "44.5" and its range 44.5-85.5 read as its scores do, "44.5–85.5" (a scored range
    # 0.705-1.0 "0.71–1.00", never whole numbers "1–1"); a scored pass rate of 0.125 -> 0.13,
    # a weekly pass rate of 1 in 8 -> 12.5% -> "13%"; 0.145 (a decimal a reader reads as such) -> "15%".
    assert fmt_score(29 / 40 * 10, "outcomes") == "7.3"
    assert fmt_score(5.25, "outcomes") == "5.3" and fmt_score(3.75, "outcomes") == "3.8"
    assert fmt_score(44.5, "checks") == "44.5" and fmt_range(44.5, 85.5, "checks") == "44.5–85.5"
    assert fmt_range(0.705, 1.0, "scored") == "0.71–1.00"
    assert fmt_score(0.125, "scored") == "0.13"
    assert fmt_score(1 / 8, "weekly") == "13%" and fmt_pct(0.145) == "15%"
    assert fmt_score(-0.0, "outcomes") == "0.0"


def test_money_time_and_vote_ratings_round_a_half_up_too():
    from pages.formatting import fmt_rating

    # $1.005 -> "$1.01" and $0.125 -> "$0.13" (to even: "$1.00", "$0.12"); $1,234.5 keeps its thousands comma;
    # 90.5 s -> 91 s = "1m 31s" (to even: "1m 30s"); 0.125 s -> "0.13s".
    assert (fmt_money(1.005), fmt_money(0.125), fmt_money(1234.5)) == ("$1.01", "$0.13", "$1,234.50")
    assert (fmt_seconds(90.5), fmt_seconds(0.125)) == ("1m 31s", "0.13s")
    # A rating of 1000.5 in 980.5-1010.6: each end shown as it rounds (981 and 1011, the rating 1001), and the
    # "+x/-y" read off the shown figures, so 1001 + 10 = 1011 and 1001 - 20 = 981 as the interval says.
    shown = fmt_rating({"rating": 1000.5, "ci_low": 980.5, "ci_high": 1010.6, "votes": 12, "few_votes": True})
    assert shown is not None
    assert (shown["text"], shown["plus"], shown["minus"]) == ("1001", "+10", "−20")
    assert shown["title"] == "95% interval 981–1011, 12 votes"
    # A mark's time in the search index reads as the run page writes it: 90.5 s -> "1m 31s".
    from runs.services.search import _at

    assert (_at(90.5), fmt_seconds(90.5)) == ("1m 31s", "1m 31s")
    # The ratings' chart writes its rows as the board does: 1000.5 in 980.5-1010.5 reads 1001, 981-1011.
    from pages.intervals import _chart

    row = {"agent": "a", "name": "A", "value": 1000.5, "low": 980.5, "high": 1010.5, "rank_ub": 1}
    (drawn,) = _chart("rating-chart", "Vote rating", [row], None, {}, None)["rows"]
    assert (drawn["value_text"], drawn["low_text"], drawn["high_text"]) == ("1001", "981", "1011")


def test_a_runs_tokens_time_and_cost_read_the_same_on_its_run_page_and_its_agents_round_page(demo, client):
    from runs.models import Run

    run = Run.objects.filter(
        round__benchmark__slug="artb", round__status="published", status="completed"
    ).select_related("round__benchmark", "entry__agent")[0]
    # tokens_input + tokens_output (+ cache writes) make the run's total; set them so the total is 2,160,000.
    Run.objects.filter(pk=run.pk).update(
        tokens_input=2_000_000, tokens_output=160_000, tokens_cache_write=0, wall_seconds=646, cost_usd=Decimal("0.002")
    )
    bench, rnd = run.round.benchmark.slug, run.round.key
    run_page = client.get(reverse("run", args=[bench, rnd, run.key])).content.decode()
    agent_page = client.get(reverse("round_agent", args=[bench, rnd, run.entry.agent.slug])).content.decode()
    for html in (run_page, agent_page):
        assert "2.16M" in html and "10m 46s" in html and "$0.002" in html
        assert "$0.00<" not in html and "646 s" not in html and "2,160,000" not in html


def test_the_median_runs_tokens_and_time_read_the_same_on_the_board_and_the_run_page(demo, client):
    from runs.models import Run
    from snapshots.models import BoardSnapshot

    snap = BoardSnapshot.objects.filter(round__benchmark__slug="appbench", kind="boards").order_by("-id")[0]
    boards = snap.data.get("tasks") or {}
    row = next(r for rows in boards.values() for r in rows if r.get("median_run"))
    run = Run.objects.select_related("round").get(round=snap.round, key=row["median_run"])
    board = client.get(reverse("board", args=["appbench"]) + "?tab=tasks").content.decode()
    page = client.get(reverse("run", args=["appbench", run.round.key, run.key])).content.decode()
    for text in (fmt_tokens(run.tokens), fmt_seconds(run.wall_seconds)):
        assert text in page and text != "–"
    assert fmt_seconds(run.wall_seconds) in board or fmt_tokens(run.tokens) in board
