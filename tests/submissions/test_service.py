"""The submission service on hand-made τ² submissions (tests/builders/tau2.py): the board reads the same
figures as the submission page, the default view hides flagged rows, recount reproduces the tier, a new
submission supersedes the old one, a best-of across models writes no runs, and an editor's verdicts."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client

from bundles.export import bundle_export
from leaderboard.models import Entry
from recompute.boards import compute_round_boards, round_document
from runs.models import Run
from scoring.recount import recount
from scoring.tiers import rows_in_view
from submissions.actions import submission_flag, submission_unflag, submission_verify
from submissions.models import Submission
from submissions.services import Upload, submit
from tests.builders import tau2 as t

pytestmark = pytest.mark.django_db


def _submit(w, files, *, org=None, agent="a-agent") -> Submission:
    return submit(
        benchmark=w.bench, organization=org or w.org_a, upload=Upload("tau2", files), via="command", agent=agent
    )


def _two_trials() -> dict[str, bytes]:
    # Rewards per task: 0 -> 1, 1; 1 -> 1, 0; 2 -> 0, 0.
    # pass^1 = (2/2 + 1/2 + 0/2) / 3 = 1/2 = 50.0%; pass^2 = (C(2,2)/C(2,2) + 0 + 0) / 3 = 1/3 = 33.3%;
    # pass@2 = (1 + (1 - C(1,2)/C(2,2)) + 0) / 3 = 2/3.
    sims = []
    for task, rewards in (("0", (1.0, 1.0)), ("1", (1.0, 0.0)), ("2", (0.0, 0.0))):
        sims += [t.simulation(task, r, trial=i, seed=(626729, 373753)[i]) for i, r in enumerate(rewards)]
    return t.files(t.declared_with(mini={"pass_1": 50.0, "pass_2": 33.3}), mini=t.results(sims, num_trials=2))


def _board(w) -> list[dict]:
    return compute_round_boards(round_document(w.track.round.id))["overall"]


def test_board_figure_equals_submission_figure():
    w = t.mini_world()
    sub = _submit(w, _two_trials())
    figs = {f["name"]: f for f in sub.figures}
    assert figs["mini pass^1"]["recomputed"] == pytest.approx(50.0) and figs["mini pass^1"]["agrees"] is True
    assert figs["mini pass^2"]["recomputed"] == pytest.approx(100 / 3) and figs["mini pass^2"]["agrees"] is True
    (row,) = _board(w)
    assert row["tier"] == sub.tier == "self-reported"
    assert row["pass_hat"]["mini"]["1"] * 100 == pytest.approx(figs["mini pass^1"]["recomputed"])
    assert row["pass_hat"]["mini"]["2"] * 100 == pytest.approx(figs["mini pass^2"]["recomputed"])
    assert row["pass_any"]["mini"]["2"] == pytest.approx(2 / 3)


def test_one_trial_boards_have_no_pass_k_columns():
    w = t.mini_world()
    _submit(w, t.files())
    (row,) = _board(w)
    assert row["tier"] == "self-reported" and "pass_hat" not in row


def test_default_view_hides_flagged():
    w = t.mini_world()
    _submit(w, t.files())  # 66.7 claimed, 66.667 recomputed: self-reported
    flagged = _submit(w, t.files(t.claim(70.0)), org=w.org_b, agent="b-agent")  # 70.0 claimed: differs
    assert flagged.tier == "flagged"
    rows = _board(w)
    assert {r["agent"]: r["tier"] for r in rows} == {"a-agent": "self-reported", "b-agent": "flagged"}
    shown = rows_in_view(rows, None)
    assert [(r["agent"], r["rank"]) for r in shown] == [("a-agent", 1)]
    assert [r["agent"] for r in rows_in_view(rows, "flagged")] == ["b-agent"]
    assert {r["agent"] for r in rows_in_view(rows, "all")} == {"a-agent", "b-agent"}


def test_recount_reproduces_the_tier_from_the_export():
    w = t.mini_world()
    _submit(w, t.files())
    _submit(w, t.files(t.claim(70.0)), org=w.org_b, agent="b-agent")
    doc = json.loads(json.dumps(bundle_export(benchmark=w.bench), default=str))
    entries = {e["agent"]: e for r in doc["rounds"] if r["key"] == "community" for e in r["entries"]}
    assert entries["b-agent"]["tier"] == "flagged" and entries["b-agent"]["submission"]
    (community,) = [r for r in recount(doc)["rounds"] if r["round"] == "community"]
    assert {r["agent"]: r["tier"] for r in community["boards"]["overall"]} == {
        "a-agent": "self-reported",
        "b-agent": "flagged",
    }


def test_a_new_submission_supersedes_the_old_one():
    w = t.mini_world()
    old = _submit(w, t.files())
    new = _submit(w, t.files())
    old.refresh_from_db()
    assert (old.status, new.status) == ("superseded", "live")
    keys = set(Run.objects.filter(entry__agent__slug="a-agent").values_list("key", flat=True))
    assert keys == {f"s{new.pk}-mini-{i}-t1" for i in range(3)}
    assert old.figures and old.checks  # the old record stays
    body = Client().get("/api/benchmarks/mini-tau/submissions").json()
    assert [(s["id"], s["status"]) for s in body] == [(new.pk, "live"), (old.pk, "superseded")]


def test_best_of_across_models_writes_no_runs_and_is_not_verifiable():
    w = t.mini_world()
    files = t.files(**{"a.json": t.results(t.baseline_sims()), "b.json": t.results(t.baseline_sims(), llm="m2")})
    sub = _submit(w, files)
    assert not Run.objects.filter(entry__agent__slug="a-agent").exists()
    assert sub.figures == [{"name": "mini pass^1", "claimed": 66.7, "recomputed": None, "agrees": None}]
    assert sub.tier == "flagged"


def test_editor_verifies_only_a_clean_submission_and_flags_with_a_reason():
    w = t.mini_world()
    editor = get_user_model().objects.create_superuser("ed", password="x")
    bad = _submit(w, t.files(t.claim(70.0)), org=w.org_b, agent="b-agent")
    with pytest.raises(ValidationError, match="mini pass\\^1: claimed 70.0"):
        submission_verify(submission=bad, by=editor, note="Reproduced", link="https://example.org/r")
    good = _submit(w, t.files())
    with pytest.raises(ValidationError):
        submission_verify(submission=good, by=editor, note="", link="")
    submission_verify(submission=good, by=editor, note="Reproduced on our runner", link="https://example.org/r")
    assert good.tier == "verified" and Entry.objects.get(round=good.round, agent=good.agent).tier == "verified"
    submission_flag(submission=good, by=editor, reason="Prompts differ from the paper", link="https://example.org/f")
    assert good.tier == "flagged"
    submission_unflag(submission=good, by=editor)
    assert good.tier == "self-reported"
    assert list(good.events.values_list("kind", flat=True)) == [
        "submitted",
        "checked",
        "verified",
        "flagged",
        "unflagged",
    ]


def test_api_lists_submissions_with_checks_and_figures_and_never_the_contact():
    w = t.mini_world()
    sub = _submit(w, t.files(t.declared_with(mini={"pass_1": 66.7}, other={"pass_1": 50.0})))
    answer = Client().get("/api/benchmarks/mini-tau/submissions")
    assert answer.status_code == 200
    (item,) = answer.json()
    assert item["id"] == sub.pk and (item["agent"], item["organization"], item["tier"]) == (
        "a-agent",
        "org-a",
        "self-reported",
    )
    # The schema's 6 required fields and the track's 5 protocol fields.
    assert item["checks"][0] == {
        "name": "declared_fields",
        "passed": True,
        "detail": "all 11 declared",
        "kind": "protocol",
    }
    assert item["figures"][1] == {"name": "other pass^1", "claimed": 50.0, "recomputed": None, "agrees": None}
    assert "team@example.org" not in answer.content.decode()
    assert Client().get("/api/benchmarks/mini-tau/submissions?tier=flagged").json() == []
