"""A published board never changes silently: admin edits go through the services, recompute the boards and
write the round's changelog; a published run is never deleted (seed 000 §6 "Corrections after publication
are logged in the round's CHANGELOG.md")."""

import pytest

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Agent, Benchmark, ChangelogEntry
from runs.models import Run, Verdict
from snapshots.models import BoardSnapshot
from tests.builders.review import make_people, make_world, publish_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def publish(w):
    publish_world(w)
    BoardSnapshot.objects.update(stale=False)


def stale() -> bool:
    return BoardSnapshot.objects.get(round__key="r1", kind="boards").stale


def test_deleting_a_published_run_in_the_admin_is_refused_with_a_message(client, w):
    publish(w)
    client.force_login(w["editor"])
    run = w["acme-trip"]
    response = client.post(f"/admin/runs/run/{run.pk}/delete/", {"post": "yes"}, follow=True)
    html = response.content.decode()
    assert "was not deleted" in html and "never deleted" in html
    assert Run.objects.filter(pk=run.pk).exists() and Verdict.objects.filter(run=run).count() == 2
    # the bulk action refuses too
    response = client.post(
        "/admin/runs/run/", {"action": "delete_selected", "_selected_action": [run.pk], "post": "yes"}, follow=True
    )
    assert "was not deleted" in response.content.decode()
    assert Run.objects.filter(pk=run.pk).exists()
    assert not stale() and not ChangelogEntry.objects.exists()


def test_deleting_a_draft_run_in_the_admin_recomputes_the_board(client, w):
    BoardSnapshot.objects.update(stale=False)
    client.force_login(w["editor"])
    run = w["acme-inbox"]
    response = client.post(f"/admin/runs/run/{run.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Run.objects.filter(pk=run.pk).exists()
    assert stale()


def test_deleting_a_published_verdict_is_not_permitted(client, w):
    publish(w)
    client.force_login(w["editor"])
    verdict = Verdict.objects.get(run=w["acme-trip"], role="tester")
    response = client.post(f"/admin/runs/verdict/{verdict.pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 403
    assert Verdict.objects.filter(pk=verdict.pk).exists()


def test_renaming_an_agent_of_a_published_round_asks_why_and_logs_it(client, w):
    publish(w)
    client.force_login(w["editor"])
    agent = Agent.objects.get(slug="acme-agent")
    form = {
        "name": "Acme Agent Pro",
        "slug": agent.slug,
        "organization": agent.organization_id,
        "primary_language": "en",
        "languages": "[]",
        "change_reason": "",
    }
    response = client.post(f"/admin/leaderboard/agent/{agent.pk}/change/", form)
    assert response.status_code == 200 and "say why" in response.content.decode()
    assert Agent.objects.get(pk=agent.pk).name == "Acme Agent" and not stale()
    form["change_reason"] = "The vendor's product name."
    assert client.post(f"/admin/leaderboard/agent/{agent.pk}/change/", form).status_code == 302
    assert Agent.objects.get(pk=agent.pk).name == "Acme Agent Pro"
    entry = ChangelogEntry.objects.get(round=w["round"])
    assert entry.what == "Agent acme-agent: name: Acme Agent -> Acme Agent Pro"
    assert (entry.why, entry.who, entry.who_role) == ("The vendor's product name.", w["editor"], "editor")
    assert entry.created_at is not None
    assert stale()


def test_changing_a_benchmark_parameter_logs_it_and_recomputes(client, w):
    publish(w)
    client.force_login(w["editor"])
    bench = Benchmark.objects.get(slug="artb-t")
    form = {
        "name": bench.name,
        "slug": bench.slug,
        "methodology": bench.methodology,
        "description": "",
        "task_set_version": bench.task_set_version,
        "params": '{"votes": true}',
        "position": bench.position,
        "preview_hours": bench.preview_hours,
        "change_reason": "Votes agreed for v1.",
    }
    response = client.post(f"/admin/leaderboard/benchmark/{bench.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Benchmark.objects.get(pk=bench.pk).params == {"votes": True}
    entry = ChangelogEntry.objects.get(round=w["round"])
    assert entry.what.startswith("Benchmark artb-t: params: ") and entry.why == "Votes agreed for v1."
    assert stale()


def test_reimporting_a_bundle_that_changes_a_published_run_logs_it(w):
    publish(w)
    doc = bundle_export(benchmark=w["round"].benchmark, include_unpublished=True)
    inbox = next(r for r in doc["runs"] if r["id"] == "acme-inbox")
    inbox["interventions"] = 2  # a new figure for one published run
    bundle_import(doc=doc)
    entries = list(ChangelogEntry.objects.filter(round=w["round"]))
    assert len(entries) == 1
    assert "acme-inbox" in entries[0].what and entries[0].why == "Re-imported from a bundle."
    # The same bundle again changes nothing and logs nothing.
    bundle_import(doc=doc)
    assert ChangelogEntry.objects.filter(round=w["round"]).count() == 1


def test_changing_a_published_rounds_parameter_value_in_the_admin_asks_why_and_logs_it(client, w):
    from leaderboard.models import RoundParameter

    publish(w)
    client.force_login(w["editor"])
    param = RoundParameter.objects.get(round=w["round"], name="city")
    form = {"round": param.round_id, "task": param.task_id, "name": "city", "value": "Lisbon", "change_reason": ""}
    response = client.post(f"/admin/leaderboard/roundparameter/{param.pk}/change/", form)
    assert response.status_code == 200 and "say why" in response.content.decode()
    param.refresh_from_db()
    assert param.value != "Lisbon" and not ChangelogEntry.objects.exists() and not stale()
    form["change_reason"] = "the published city was mistyped"
    response = client.post(f"/admin/leaderboard/roundparameter/{param.pk}/change/", form)
    assert response.status_code == 302
    param.refresh_from_db()
    entry = ChangelogEntry.objects.get()
    assert param.value == "Lisbon" and "Parameter trip.city set: Lisbon" in entry.what
    assert entry.why == "the published city was mistyped" and entry.who == w["editor"] and stale()


def test_a_published_rounds_parameter_is_never_deleted_in_the_admin(client, w):
    from leaderboard.models import RoundParameter

    publish(w)
    client.force_login(w["editor"])
    param = RoundParameter.objects.get(round=w["round"], name="city")
    response = client.post(f"/admin/leaderboard/roundparameter/{param.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert RoundParameter.objects.filter(pk=param.pk).exists()


def test_renaming_a_published_round_through_the_service_logs_it_and_recomputes(w):
    from django.core.exceptions import ValidationError

    from leaderboard.services import round_update

    publish(w)
    with pytest.raises(ValidationError):
        round_update(round=w["round"], by=w["editor"], changes={"name": "Round one"})
    assert not ChangelogEntry.objects.exists()
    round_update(round=w["round"], by=w["editor"], changes={"name": "Round one"}, reason="house style")
    entry = ChangelogEntry.objects.get()
    assert entry.what.startswith("Round r1: ") and "Round one" in entry.what and stale()


def test_editing_a_vote_in_the_admin_refits_the_ratings(client, w):
    from voting.models import Vote

    bundle_import(
        doc={
            **bundle_export(benchmark=Benchmark.objects.get(slug="artb-t"), include_unpublished=True),
            "votes": [{"id": "v1", "task": "trip", "a": "acme-agent", "b": "other-agent", "winner": "a"}],
        }
    )
    BoardSnapshot.objects.update(stale=False)
    client.force_login(w["editor"])
    vote = Vote.objects.get(key="v1")
    response = client.get(f"/admin/voting/vote/{vote.pk}/change/")
    assert response.status_code == 200
    ratings = BoardSnapshot.objects.filter(benchmark__slug="artb-t", kind="ratings").first()
    assert ratings is not None and not ratings.stale
    response = client.post(f"/admin/voting/vote/{vote.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not Vote.objects.filter(pk=vote.pk).exists()
    ratings.refresh_from_db()
    assert ratings.stale


def test_an_editor_adds_an_agent_and_a_changelog_note_through_the_admin(client, w):
    publish(w)
    client.force_login(w["editor"])
    response = client.post(
        "/admin/leaderboard/agent/add/",
        {"name": "Newcomer", "slug": "newcomer", "primary_language": "en", "languages": "[]", "change_reason": ""},
    )
    assert response.status_code == 302 and Agent.objects.filter(slug="newcomer").exists()
    assert not stale()  # on no board yet
    response = client.post(
        "/admin/leaderboard/changelogentry/add/",
        {
            "round": w["round"].pk,
            "what": "Clarified the trip task's wording",
            "why": "reader question",
            "who_role": "",
            "run": "",
        },
    )
    assert response.status_code == 302
    note = ChangelogEntry.objects.get(what="Clarified the trip task's wording")
    assert note.who == w["editor"] and note.who_role == "editor"
    # A written note stays as written: its change form is read-only.
    page = client.get(f"/admin/leaderboard/changelogentry/{note.pk}/change/").content.decode()
    assert 'name="_save"' not in page


@pytest.mark.parametrize(("reason", "asked"), [("", True), ("   ", True), ("\t\n ", True), (" typo ", False)])
def test_the_admin_form_and_the_service_ask_for_a_reason_by_the_same_rule(client, w, reason, asked):
    """One rule (leaderboard.services.changes.require_reason): the form refuses exactly what the service would,
    white space alone included, so an editor is never let through a form only to be refused on save."""
    from django.core.exceptions import ValidationError

    from leaderboard.services import agent_update

    publish(w)
    client.force_login(w["editor"])
    agent = Agent.objects.get(slug="acme-agent")
    form = {
        "name": "Acme Agent Pro",
        "slug": agent.slug,
        "organization": agent.organization_id,
        "primary_language": "en",
        "languages": "[]",
        "change_reason": reason,
    }
    response = client.post(f"/admin/leaderboard/agent/{agent.pk}/change/", form)
    form_asked = response.status_code == 200 and "say why" in response.content.decode()
    if form_asked:
        try:
            agent_update(agent=agent, by=w["editor"], changes={"name": "Acme Agent Pro"}, reason=reason)
            service_asked = False
        except ValidationError as e:
            service_asked = "reason" in e.message_dict
    else:
        assert response.status_code == 302
        agent.name = "Acme Agent"
        agent.save()
        try:
            agent_update(agent=agent, by=w["editor"], changes={"name": "Acme Agent Pro"}, reason=reason)
            service_asked = False
        except ValidationError:
            service_asked = True
    assert form_asked == service_asked == asked
