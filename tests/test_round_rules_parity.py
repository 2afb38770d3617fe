"""Parity of the doors and the round rules (docs/doors.md): every door that writes runs, rounds, verdicts or
disputes asks every round rule of `scoring.round_rules` on the round as it would be stored, and every rule has
its tests sending the same violating change through each door (tests/runs/test_round_rules_doors.py).

The first test lists the doors and, for each, sends a change it takes while every rule's check is watched: a door
that stops asking the rules (or asks some of them only) fails it. The second lists the rules and the door tests of
each: a rule added without them fails it."""

from __future__ import annotations

import ast
import io
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, Round
from runs.models import Dispute, Run, Verdict
from runs.services import dispute_decide, dispute_file, round_enter_preview, verdict_record
from scoring import round_rules
from tests.builders import tau2
from tests.builders.admin import admin_form
from tests.builders.doors import stored
from tests.builders.review import BENCH, make_people, make_world
from tests.builders.weekly import disputed_week

ROOT = Path(__file__).resolve().parent.parent
QUIZ = ROOT / "fixtures" / "inspect-quiz.eval"


# --- the doors, each sending a change it takes -------------------------------------------------------------------


def _decided(w) -> None:
    for run in Run.objects.filter(round=w["round"]):
        at = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="as seen", now=at)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=at)


def _admin_post(client: Client, url: str, **changes: str) -> None:
    answer = client.post(url, {**admin_form(client, url), **changes})
    assert answer.status_code == 302, answer.content.decode()[-3000:]


def _action(client: Client, url: str, action: str, pk: int) -> str:
    # "post": the confirmation an action that asks first (publishing) is given.
    return client.post(url, {"action": action, "_selected_action": [pk], "post": "yes"}, follow=True).content.decode()


def run_form(w, client, tmp) -> Callable:
    client.force_login(w["editor"])
    return lambda: _admin_post(client, f"/admin/runs/run/{w['acme-trip'].pk}/change/", wall_seconds="120")


def round_form(w, client, tmp) -> Callable:
    client.force_login(w["editor"])
    return lambda: _admin_post(client, f"/admin/leaderboard/round/{w['round'].pk}/change/", name="Round one")


def verdict_form(w, client, tmp) -> Callable:
    client.force_login(w["tester"])
    url = f"/admin/runs/verdict/add/?run={w['acme-trip'].pk}&role=tester"
    form = {"run": str(w["acme-trip"].pk), "role": "tester", "outcome": "pass", "note": "Booked, no payment."}
    return lambda: _admin_post(client, url, **form)


def verdict_correction(w, client, tmp) -> Callable:
    _decided(w)
    client.force_login(w["editor"])
    verdict = Verdict.objects.get(run=w["acme-trip"], role="tester")
    return lambda: _admin_post(client, f"/admin/runs/verdict/{verdict.pk}/change/", note="Booked; no payment made.")


def _disputed(w) -> Dispute:
    _decided(w)
    round_enter_preview(round=w["round"], by=w["editor"])
    return dispute_file(run=w["acme-trip"], user=w["vendor"], reason="environment", note="The network was down.")


def vendor_dispute(w, client, tmp) -> Callable:
    _decided(w)
    round_enter_preview(round=w["round"], by=w["editor"])
    client.force_login(w["vendor"])
    url = f"/preview/{BENCH}/{w['round'].key}/runs/acme-trip/dispute/"

    def send():
        answer = client.post(url, {"reason": "environment", "note": "The network was down."})
        assert answer.status_code == 302, answer.content.decode()[-2000:]
        assert Dispute.objects.filter(run=w["acme-trip"]).exists()

    return send


def dispute_decision(w, client, tmp) -> Callable:
    dispute = _disputed(w)
    client.force_login(w["editor"])
    return lambda: _action(client, "/admin/runs/dispute/", "accept", dispute.pk)


def rerun_action(w, client, tmp) -> Callable:
    dispute = _disputed(w)
    dispute_decide(dispute=dispute, accept=True, by=w["editor"])
    client.force_login(w["editor"])

    def send():
        _action(client, "/admin/runs/run/", "create_reruns", w["acme-trip"].pk)
        assert Run.objects.filter(rerun_of=w["acme-trip"]).exists()

    return send


def weekly_rerun_action(w, client, tmp) -> Callable:
    """The re-run action on a weekly table's disputed run, with the start time it asks for (in the week)."""
    run = disputed_week(w["editor"])["run"]
    client.force_login(w["editor"])

    def send():
        form = {"action": "create_reruns", "_selected_action": [run.pk], "rerun_start": "Create the re-run"}
        client.post("/admin/runs/run/", {**form, f"started_at_{run.pk}": "2026-10-09T14:00"})
        assert Run.objects.filter(rerun_of=run).exists()

    return send


def preview_action(w, client, tmp) -> Callable:
    _decided(w)
    client.force_login(w["editor"])

    def send():
        _action(client, "/admin/leaderboard/round/", "enter_preview", w["round"].pk)
        assert Round.objects.get(pk=w["round"].pk).status == "preview"

    return send


def publish_action(w, client, tmp) -> Callable:
    _decided(w)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=49))
    client.force_login(w["editor"])

    def send():
        _action(client, "/admin/leaderboard/round/", "publish", w["round"].pk)
        assert Round.objects.get(pk=w["round"].pk).status == "published"

    return send


def _renamed() -> dict:
    doc = stored(BENCH)
    doc["rounds"][0]["name"] = "Round one"
    return doc


def import_command(w, client, tmp) -> Callable:
    path = tmp / "change.json"
    path.write_text(json.dumps(_renamed()))
    return lambda: call_command("import_bundle", str(path), stdout=io.StringIO())


def reimport(w, client, tmp) -> Callable:
    path = tmp / "download.json"
    path.write_text(json.dumps(stored(BENCH)))
    return lambda: call_command("import_bundle", str(path), stdout=io.StringIO())


def import_page(w, client, tmp) -> Callable:
    client.force_login(w["editor"])
    bench = Benchmark.objects.get(slug=BENCH)

    def send():
        upload = SimpleUploadedFile("change.json", json.dumps(_renamed()).encode(), content_type="application/json")
        page = client.post(f"/admin/leaderboard/benchmark/{bench.pk}/import/", {"kind": "bundle", "files": upload})
        assert page.status_code == 302

    return send


def upload_bundle(w, client, tmp) -> Callable:
    key = api_key_create(name="CI", benchmark=Benchmark.objects.get(slug=BENCH))[1]
    doc = stored(BENCH, upload=True)
    doc["rounds"][0]["name"] = "Round one"

    def send():
        answer = Client().post(
            f"/api/benchmarks/{BENCH}/bundle", json.dumps(doc), content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )  # fmt: skip
        assert answer.status_code == 200, answer.content

    return send


def upload_inspect(w, client, tmp) -> Callable:
    bench = Benchmark.objects.create(slug="quiz", name="Quiz", methodology="scored")  # Inspect scores are scored
    key = api_key_create(name="CI", benchmark=bench)[1]

    def send():
        with QUIZ.open("rb") as log:
            answer = Client().post(
                "/api/benchmarks/quiz/inspect", {"logs": [log], "round": "r1"}, HTTP_AUTHORIZATION=f"Bearer {key}"
            )
        assert answer.status_code == 200, answer.content

    return send


def inspect_command(w, client, tmp) -> Callable:
    return lambda: call_command(
        "import_inspect",
        str(QUIZ),
        benchmark="inspect-quiz",
        round_key="r1",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )


def submission(w, client, tmp) -> Callable:
    world = tau2.mini_world()

    def send():
        answer = Client().post(
            "/api/benchmarks/mini-tau/submissions",
            {"archive": SimpleUploadedFile("s.zip", tau2.zipped(tau2.files())), "agent": "a-agent"},
            HTTP_AUTHORIZATION=f"Bearer {world.key_a}",
        )
        assert answer.status_code == 201, answer.content

    return send


DOORS: dict[str, Callable] = {
    "admin: run form": run_form,
    "admin: round form": round_form,
    "admin: verdict form": verdict_form,
    "admin: verdict correction": verdict_correction,
    "site: a vendor's dispute": vendor_dispute,
    "admin: dispute decision": dispute_decision,
    "admin: re-run action": rerun_action,
    "admin: re-run action (weekly, its start time)": weekly_rerun_action,
    "admin: enter preview action": preview_action,
    "admin: publish action": publish_action,
    "import_bundle": import_command,
    "import_bundle of a download (re-import)": reimport,
    "admin: import page": import_page,
    "upload API: bundle": upload_bundle,
    "upload API: Inspect logs": upload_inspect,
    "import_inspect": inspect_command,
    "submission (API)": submission,
}


@pytest.fixture
def asked(monkeypatch) -> Callable[[], set[str]]:
    """Installs a watch on every rule's check once called: returns what the rules were asked since."""
    seen: set[str] = set()

    def watching(rule: round_rules.RoundRule) -> round_rules.RoundRule:
        def check(before, after):
            seen.add(rule.key)
            return rule.check(before, after)

        return replace(rule, check=check)

    def install() -> set[str]:
        monkeypatch.setattr(round_rules, "RULES", tuple(watching(r) for r in round_rules.RULES))
        return seen

    return install


@pytest.mark.django_db
@pytest.mark.parametrize("door", DOORS)
def test_each_door_asks_every_round_rule(door, asked, client, tmp_path):
    w = {**make_world(), **make_people()}
    send = DOORS[door](w, client, tmp_path)
    seen = asked()
    send()
    assert seen == set(round_rules.BY_KEY), f"{door} asked only {sorted(seen)}"


# --- the rules, each with its tests through the doors ------------------------------------------------------------

DOOR_TESTS = ROOT / "tests" / "runs" / "test_round_rules_doors.py"
RULE_TESTS = {
    "same_week": [
        "test_a_change_that_moves_the_week_is_refused_naming_the_runs_it_leaves_outside",
        "test_a_weekly_run_without_a_start_time_is_refused",
        "test_a_weekly_round_without_a_start_date_is_refused",
        "test_a_submitted_run_outside_the_week_or_without_a_start_time_is_refused",
        "test_inspect_logs_submitted_to_a_weekly_table_are_refused_by_the_same_week_rule",
    ],
    "rerun": [
        "test_a_rerun_after_a_rejected_dispute_is_refused",
        "test_a_second_rerun_is_refused_in_words_not_with_an_error",
        "test_a_submission_carrying_a_rerun_is_refused",
    ],
    "vendor_window": [
        "test_publication_before_the_vendor_window_has_passed_is_refused",
        "test_publication_by_an_import_with_no_preview_at_all_is_refused",
        "test_an_upload_never_publishes",
    ],
    "tester_note": ["test_a_tester_verdict_without_a_note_is_refused"],
    "effects_due": [
        "test_a_verdict_before_the_effects_are_due_is_refused",
        "test_an_imported_verdict_without_a_time_is_recorded_now_and_refused_before_the_due_time",
        "test_a_later_due_time_than_the_verdicts_is_refused_and_the_run_page_says_when_effects_were_due",
    ],
    "one_prompt": [
        "test_a_weekly_task_run_in_two_versions_is_refused",
        "test_a_submitted_run_of_another_version_of_a_weekly_task_is_refused",
    ],
}
# Each test's doors (its `door` parameter), by the door's name in the tests: every test sending a change through
# the admin and the three bundle doors, or saying why a door does not apply.
BUNDLE_DOORS = {"import_bundle", "admin import page", "upload API"}
# The rules a submission's runs can break, each with a test sending the change as a submission: a submission
# carries no verdicts, disputes or publication (`bundles.submission_mode`), so the tester's note, effects due and
# the vendor window are not its.
SUBMISSION_RULES = {"same_week", "rerun", "one_prompt"}


def _door_params(tree: ast.Module) -> dict[str, set[str]]:
    """Each test function of the module and the `door` values it is parametrized with."""
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
            continue
        doors: set[str] = set()
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("parametrize"):
                if ast.literal_eval(deco.args[0]) == "door":
                    listed = deco.args[1]
                    doors |= {e.value for e in ast.walk(listed) if isinstance(e, ast.Constant)}
                    if "BUNDLE_DOORS" in ast.unparse(listed):
                        doors |= BUNDLE_DOORS
        out[node.name] = doors
    return out


def test_every_round_rule_is_sent_through_the_admin_and_every_bundle_door():
    tests = _door_params(ast.parse(DOOR_TESTS.read_text()))
    assert set(RULE_TESTS) == set(round_rules.BY_KEY), "a round rule without its tests through the doors"
    for rule, names in RULE_TESTS.items():
        missing = [n for n in names if n not in tests]
        assert not missing, f"{rule}: no test {missing}"
        doors = set().union(*(tests[n] for n in names))
        admin = {d for d in doors if d.startswith("admin ") and d != "admin import page"}
        assert admin, f"{rule}: no admin door"
        # The upload API never publishes (an editor's step): its own refusal is tested instead.
        needed = BUNDLE_DOORS - ({"upload API"} if rule == "vendor_window" else set())
        assert needed <= doors, f"{rule}: not sent through {sorted(needed - doors)}"
        if rule in SUBMISSION_RULES:
            submitted = [n for n in names if "submi" in n or any(d.startswith("submission") for d in tests[n])]
            assert submitted, f"{rule}: not sent as a submission"
