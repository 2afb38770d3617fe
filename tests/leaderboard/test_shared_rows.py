"""Agents and organizations are shared by every benchmark that enters them: importing one benchmark never changes
another's published board silently. A field a bundle leaves out keeps its stored value; a real change to a row a
published round reads is refused unless an editor confirms it, and then those rounds are recomputed and logged."""

from __future__ import annotations

import copy
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bundles.importer import bundle_import
from leaderboard.models import Agent, Benchmark, ChangelogEntry, Organization
from recompute.boards import snapshot_recompute, snapshots_sweep
from scoring.bundle import BundleError
from snapshots.models import BoardSnapshot
from tests.builders.review import make_user

pytestmark = pytest.mark.django_db

CLAUDE = {"slug": "claude-code", "name": "Claude Code", "organization": "Anthropic", "primary_language": "en"}


def outcomes_doc(slug: str, agent: dict) -> dict:
    """An outcomes benchmark with one published round: the shared agent ran two core tasks, t1 in English (passed)
    and t2 in Chinese (failed), two agreeing verdicts each."""

    def verdicts(outcome: str) -> list[dict]:
        return [{"role": "tester", "outcome": outcome, "note": "as recorded"}, {"role": "second", "outcome": outcome}]

    return {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "outcomes", "params": {"preview_hours": 0}},
        "agents": [copy.deepcopy(agent)],
        "tasks": [{"key": k, "title": k, "version": "1.0", "kind": "core", "prompt": "Do it."} for k in ("t1", "t2")],
        "rounds": [
            {
                "key": "r1",
                "status": "published",
                "published_at": "2026-09-01T12:00:00Z",
                "entries": [{"agent": agent["slug"]}],
            }
        ],
        "runs": [
            {
                "id": f"{slug}-{task}",
                "round": "r1",
                "agent": agent["slug"],
                "task": task,
                "status": "completed",
                "language": lang,
                "verdicts": verdicts(outcome),
            }
            for task, lang, outcome in (("t1", "en", "pass"), ("t2", "zh", "fail"))
        ],
    }


def overall(bench: str) -> tuple[float, str]:
    """The shared agent's published overall score on `bench`'s round and the name its board shows."""
    snapshots_sweep(older_than_seconds=0)
    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)
    snap = BoardSnapshot.objects.get(round__benchmark__slug=bench, round__key="r1", kind="boards")
    (row,) = snap.data["overall"]
    return row["overall"], row["name"]


def stale(bench: str) -> bool:
    return BoardSnapshot.objects.get(round__benchmark__slug=bench, round__key="r1", kind="boards").stale


# With primary language en, overall counts only t1 (t2 ran in zh: seed 000 §2, "reported separately and do not
# change the main score"): a pass, 2 points of the 2 possible over the 1 task tested -> 2 / 2 * 10 = 10.0.
# With no primary language both runs count: pass 2 + fail 0 of 2 * 2 possible -> 2 / 4 * 10 = 5.0.
EN_SCORE, ANY_SCORE = 10.0, 5.0


def test_a_field_a_bundle_leaves_out_keeps_its_stored_value():
    bundle_import(doc=outcomes_doc("artb", CLAUDE))
    assert overall("artb") == (EN_SCORE, "Claude Code")
    # Another benchmark names the agent without its language or organization (a bundle requires a name).
    bundle_import(doc=outcomes_doc("abl", {"slug": "claude-code", "name": "Claude Code"}))
    agent = Agent.objects.get(slug="claude-code")
    assert (agent.name, agent.primary_language, agent.organization.name) == ("Claude Code", "en", "Anthropic")
    assert not stale("artb")
    assert overall("artb") == (EN_SCORE, "Claude Code")
    assert not ChangelogEntry.objects.filter(round__benchmark__slug="artb").exists()


# Both orders: the first benchmark's published board is unchanged by the second's import unless the change is
# confirmed; then it turns stale, is recomputed with the change, and its changelog says what, why, who and when.
FIRST_EN = (CLAUDE, {"slug": "claude-code", "name": "Claude Code CLI", "primary_language": None}, EN_SCORE, ANY_SCORE)
FIRST_ANY = ({"slug": "claude-code", "name": "Claude Code CLI"}, CLAUDE, ANY_SCORE, EN_SCORE)


@pytest.mark.parametrize(("first_agent", "second_agent", "before", "after"), [FIRST_EN, FIRST_ANY])
def test_two_benchmarks_sharing_an_agent_in_either_order(first_agent, second_agent, before, after):
    bundle_import(doc=outcomes_doc("first", first_agent))
    name_before = first_agent["name"]
    assert overall("first") == (before, name_before)

    with pytest.raises(BundleError) as refused:
        bundle_import(doc=outcomes_doc("second", second_agent))
    text = "\n".join(refused.value.problems)
    assert "agents[0].name" in text and "agents[0].primary_language" in text
    assert "first/r1" in text and "--update-shared-agents" in text
    # Nothing of the second bundle was written, and the first board is as published.
    assert not Benchmark.objects.filter(slug="second").exists()
    assert not stale("first")
    assert overall("first") == (before, name_before)

    editor = make_user("ed", "Editors")
    bundle_import(doc=outcomes_doc("second", second_agent), update_shared=True, by=editor)
    assert stale("first")
    assert overall("first") == (after, second_agent["name"])
    (entry,) = ChangelogEntry.objects.filter(round__benchmark__slug="first")
    assert "agent claude-code: name 'Claude Code" in entry.what and "primary_language" in entry.what
    assert "second" in entry.what and entry.why and entry.who == editor and entry.who_role == "editor"
    assert entry.created_at is not None
    # The second benchmark's own round was new: it has no correction to log.
    assert not ChangelogEntry.objects.filter(round__benchmark__slug="second").exists()


def test_an_organization_renamed_by_another_benchmark_is_refused_then_logged():
    bundle_import(doc=outcomes_doc("first", CLAUDE))
    # The same organization (slug "anthropic") spelled another way by a second benchmark's bundle.
    other = {**CLAUDE, "organization": "ANTHROPIC"}
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=outcomes_doc("second", other))
    assert any("organization anthropic" in p and "first/r1" in p for p in refused.value.problems)
    assert Organization.objects.get(slug="anthropic").name == "Anthropic"
    bundle_import(doc=outcomes_doc("second", other), update_shared=True)
    assert Organization.objects.get(slug="anthropic").name == "ANTHROPIC"
    assert ChangelogEntry.objects.filter(round__benchmark__slug="first", what__contains="organization").exists()


def test_moving_an_agent_to_another_organization_is_a_change():
    bundle_import(doc=outcomes_doc("first", CLAUDE))
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=outcomes_doc("second", {**CLAUDE, "organization": "Someone Else"}))
    assert any(p.startswith("agents[0].organization") for p in refused.value.problems)
    assert Agent.objects.get(slug="claude-code").organization.name == "Anthropic"
    assert not Organization.objects.filter(name="Someone Else").exists()


def test_a_benchmarks_own_settings_change_its_published_board_only_when_confirmed():
    doc = outcomes_doc("first", CLAUDE)
    bundle_import(doc=doc)
    changed = copy.deepcopy(doc)
    changed["benchmark"]["name"] = "Renamed"
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=changed)
    assert any(p.startswith("benchmark.name") and "first/r1" in p for p in refused.value.problems)
    assert Benchmark.objects.get(slug="first").name == "Bench first"
    bundle_import(doc=changed, update_shared=True)
    assert Benchmark.objects.get(slug="first").name == "Renamed"
    assert ChangelogEntry.objects.filter(round__benchmark__slug="first", what__contains="benchmark first").exists()


def test_an_agent_in_no_published_round_changes_freely():
    doc = outcomes_doc("first", CLAUDE)
    doc["rounds"][0].update(status="draft", published_at=None)
    bundle_import(doc=doc)
    bundle_import(doc=outcomes_doc("second", {"slug": "claude-code", "name": "Claude Code CLI"}))
    assert Agent.objects.get(slug="claude-code").name == "Claude Code CLI"


def test_the_command_refuses_without_the_flag_and_takes_it(tmp_path):
    bundle_import(doc=outcomes_doc("first", CLAUDE))
    path = tmp_path / "second.json"
    path.write_text(json.dumps(outcomes_doc("second", {**CLAUDE, "name": "Claude Code CLI"})))
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_bundle", str(path), stdout=StringIO(), stderr=err)
    assert "first/r1" in err.getvalue() and "nothing written" in err.getvalue()
    assert Agent.objects.get(slug="claude-code").name == "Claude Code"
    call_command("import_bundle", str(path), "--update-shared-agents", stdout=StringIO(), stderr=StringIO())
    assert Agent.objects.get(slug="claude-code").name == "Claude Code CLI"


def test_the_admin_import_page_has_the_confirmation_box(client):
    bundle_import(doc=outcomes_doc("first", CLAUDE))
    second = outcomes_doc("second", {**CLAUDE, "name": "Claude Code CLI"})
    bundle_import(doc={**second, "agents": [CLAUDE]})  # the second benchmark exists, agent unchanged
    bench = Benchmark.objects.get(slug="second")
    editor = make_user("ed", "Editors")
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    url = f"/admin/leaderboard/benchmark/{bench.pk}/import/"

    def post(**extra):
        from django.core.files.uploadedfile import SimpleUploadedFile

        upload = SimpleUploadedFile("second.json", json.dumps(second).encode(), content_type="application/json")
        return client.post(url, {"kind": "bundle", "files": upload, **extra}, follow=True)

    page = post()
    assert "nothing was written" in page.content.decode() and "first/r1" in page.content.decode()
    assert Agent.objects.get(slug="claude-code").name == "Claude Code"
    assert "Update shared rows" in page.content.decode()
    post(update_shared="on")
    assert Agent.objects.get(slug="claude-code").name == "Claude Code CLI"
    entry = ChangelogEntry.objects.get(round__benchmark__slug="first")
    assert entry.who == editor
