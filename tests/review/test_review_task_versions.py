"""Task versions (seed 000 §9; seed 004 "not rewritten after a run looks hard"): a changed prompt or criterion
is a new major version and old results are marked stale; a published version is never edited in place."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from leaderboard.models import ChangelogEntry, Task, TaskVersion
from leaderboard.services import task_version_create, task_version_publish, task_version_update
from runs.models import Run
from tests.builders.review import make_people, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def trip():
    return Task.objects.get(key="trip")


def test_a_changed_prompt_is_a_major_version_and_old_runs_are_stale(w):
    old = trip().current_version
    new = task_version_create(
        task=trip(),
        by=w["editor"],
        prompt="Plan a week in {city}.",
        criteria=old.criteria,
        change_note="A week, not a weekend.",
    )
    assert new.version == "2.0" and trip().version == "2.0"
    run = Run.objects.get(key="acme-trip")
    assert run.task_version == "1.0" and run.is_stale
    assert TaskVersion.objects.get(task=trip(), version="1.0").prompt == old.prompt  # stays as it was


def test_a_changed_criterion_is_major_and_anything_else_minor(w):
    old = trip().current_version
    minor = task_version_create(
        task=trip(), by=w["editor"], prompt=old.prompt, criteria=old.criteria, evidence=["screenshot of the itinerary"]
    )
    assert minor.version == "1.1" and not Run.objects.get(key="acme-trip").is_stale
    major = task_version_create(
        task=trip(), by=w["editor"], prompt=old.prompt, criteria={**old.criteria, "partial": ["a plan without times"]}
    )
    assert major.version == "2.0"


def test_a_major_change_after_publication_is_logged_in_the_round(w):
    rnd = w["round"]
    rnd.status, rnd.published_at = "published", timezone.now()
    rnd.save()
    old = trip().current_version
    task_version_create(task=trip(), by=w["editor"], prompt="New wording", criteria=old.criteria)
    assert "stale" in ChangelogEntry.objects.get(round=rnd).what


def test_a_published_version_is_never_edited_in_place(w):
    v = task_version_publish(version=trip().current_version, by=w["editor"])
    with pytest.raises(ValidationError, match="never edited in place"):
        task_version_update(version=v, by=w["editor"], prompt="Sneaky rewrite")
    task_version_update(version=v, by=w["editor"], change_note="typo in the note")  # not the wording: fine


def test_the_database_refuses_an_in_place_edit_of_a_published_version(w):
    v = task_version_publish(version=trip().current_version, by=w["editor"])
    for field, value in (("prompt", "Sneaky"), ("criteria", {"pass": ["easier"]}), ("published_at", None)):
        with pytest.raises(IntegrityError, match="task trip version 1.0 is published"), transaction.atomic():
            TaskVersion.objects.filter(pk=v.pk).update(**{field: value})


def test_the_admin_makes_a_published_version_read_only_and_offers_a_new_version(client, w):
    v = task_version_publish(version=trip().current_version, by=w["editor"])
    client.force_login(w["editor"])
    html = client.get(f"/admin/leaderboard/taskversion/{v.pk}/change/").content.decode()
    assert 'name="prompt"' not in html and 'name="criteria"' not in html
    assert f"/admin/leaderboard/taskversion/{v.pk}/new-version/" in html
    response = client.post(
        f"/admin/leaderboard/taskversion/{v.pk}/new-version/",
        {
            "prompt": "Plan a long weekend in {city}.",
            "criteria": '{"pass": ["an itinerary"]}',
            "parameters": '["city"]',
            "evidence": "[]",
            "interruption": "",
            "change_note": "Long weekend.",
        },
    )
    assert response.status_code == 302
    assert trip().version == "2.0"
    assert TaskVersion.objects.get(pk=v.pk).prompt.startswith("Plan a weekend")
    # a forged POST of the read-only field does not change it either
    client.post(f"/admin/leaderboard/taskversion/{v.pk}/change/", {"prompt": "Forged", "change_note": "x"})
    assert TaskVersion.objects.get(pk=v.pk).prompt.startswith("Plan a weekend")


def test_an_unpublished_version_may_be_edited(w):
    v = trip().current_version
    task_version_update(version=v, by=w["editor"], prompt="Plan a weekend in {city}, cheaply.")
    assert TaskVersion.objects.get(pk=v.pk).prompt.endswith("cheaply.")


def test_a_new_version_keeps_the_vote_screen_s_scenarios_unless_given(w):
    old = trip().current_version
    old.scenarios = ["Open the plan", "Change the city"]
    old.save()
    typo = task_version_create(task=trip(), by=w["editor"], prompt=old.prompt, criteria=old.criteria, evidence=[])
    assert typo.version == "1.1" and typo.scenarios == ["Open the plan", "Change the city"]
    week = task_version_create(task=trip(), by=w["editor"], prompt="Plan a week in {city}.", criteria=old.criteria)
    assert week.version == "2.0" and week.scenarios == ["Open the plan", "Change the city"]
    given = task_version_create(
        task=trip(), by=w["editor"], prompt=week.prompt, criteria=old.criteria, scenarios=["Print the plan"]
    )
    assert given.scenarios == ["Print the plan"]


def test_an_editor_enters_scenarios_in_the_admin_even_on_a_published_version(client, w):
    # Scenarios tell voters what to try; they are not the task's wording, so they stay editable in place.
    v = task_version_publish(version=trip().current_version, by=w["editor"])
    client.force_login(w["editor"])
    url = f"/admin/leaderboard/taskversion/{v.pk}/change/"
    html = client.get(url).content.decode()
    assert 'name="scenarios"' in html and "What a voter tries in both apps" in html
    form = {"parameters": '["city"]', "evidence": "[]", "criteria": "{}", "change_note": ""}
    refused = client.post(url, {**form, "scenarios": '["Open the plan", 3]'})
    assert refused.status_code == 200 and "Give a list of non-empty strings" in refused.content.decode()
    assert TaskVersion.objects.get(pk=v.pk).scenarios == []
    saved = client.post(url, {**form, "scenarios": '["Open the plan", " Change the city "]'})
    assert saved.status_code == 302
    assert TaskVersion.objects.get(pk=v.pk).scenarios == ["Open the plan", "Change the city"]
    # The new-version form starts from them and carries them into the new version.
    new_url = f"/admin/leaderboard/taskversion/{v.pk}/new-version/"
    assert "Change the city" in client.get(new_url).content.decode()
    response = client.post(
        new_url,
        {
            "prompt": "Plan a long weekend in {city}.",
            "criteria": '{"pass": ["an itinerary"]}',
            "parameters": '["city"]',
            "evidence": "[]",
            "scenarios": '["Open the plan", "Change the city"]',
            "interruption": "",
            "change_note": "Long weekend.",
        },
    )
    assert response.status_code == 302
    assert trip().current_version.scenarios == ["Open the plan", "Change the city"]
