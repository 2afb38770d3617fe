"""What must never happen is refused by the database (and by Run.save on SQLite)."""

import pytest
from django.db import IntegrityError, transaction

from bundles.importer import bundle_import
from leaderboard.models import Entry, Round
from runs.models import Run, Verdict
from tests.builders.bundles import make_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    bundle_import(doc=make_bundle())
    return Run.objects.get(key="r1-alpha-t1")


def _refused(fn):
    with pytest.raises(IntegrityError):
        with transaction.atomic():
            fn()


def test_two_verdicts_of_the_same_role_are_refused(data):
    _refused(lambda: Verdict.objects.create(run=data, role="tester", outcome="fail"))


def test_a_reviewer_cannot_review_one_run_in_two_roles(data, django_user_model):
    user = django_user_model.objects.create_user("rev")
    Verdict.objects.filter(run=data, role="tester").update(reviewer=user)
    _refused(lambda: Verdict.objects.filter(run=data, role="second").update(reviewer=user))


def test_negative_counts_and_passed_over_total_are_refused(data):
    _refused(lambda: Run.objects.filter(pk=data.pk).update(tokens_input=-1))
    _refused(lambda: Run.objects.filter(pk=data.pk).update(tests_passed=6, tests_total=5))
    _refused(lambda: Run.objects.filter(pk=data.pk).update(api_checks_passed=3, api_checks_total=2))
    _refused(lambda: Run.objects.filter(pk=data.pk).update(browser_steps_passed=9, browser_steps_total=1))
    _refused(lambda: Run.objects.filter(pk=data.pk).update(trial=0))


def test_unknown_status_and_outcome_are_refused(data):
    _refused(lambda: Run.objects.filter(pk=data.pk).update(status="crashed"))
    _refused(lambda: Run.objects.filter(pk=data.pk).update(outcome="great"))
    _refused(lambda: Verdict.objects.filter(run=data, role="tester").update(role="boss"))


def _other_round_entry(run):
    other = Round.objects.create(benchmark=run.round.benchmark, key="r9", status="draft")
    return Entry.objects.create(round=other, agent=run.entry.agent)


def test_a_run_outside_its_rounds_entries_is_refused(data):
    entry = _other_round_entry(data)
    _refused(lambda: Run.objects.create(key="bad", round=data.round, entry=entry, task=data.task))


@pytest.mark.postgres(reason="the trigger is PostgreSQL's; SQLite relies on save()")
def test_the_database_itself_refuses_a_run_outside_its_entries(data):
    entry = _other_round_entry(data)
    _refused(lambda: Run.objects.filter(pk=data.pk).update(entry=entry))
    _refused(lambda: Run.objects.filter(pk=data.pk).update(rerun_of=data))


def test_a_rerun_of_a_rerun_is_refused(data):
    rerun = Run.objects.create(key="re1", round=data.round, entry=data.entry, task=data.task, rerun_of=data)
    _refused(lambda: Run.objects.create(key="re2", round=data.round, entry=data.entry, task=data.task, rerun_of=rerun))
    _refused(lambda: Run.objects.create(key="re3", round=data.round, entry=data.entry, task=data.task, rerun_of=data))


@pytest.mark.postgres(reason="the trigger is PostgreSQL's; SQLite relies on save()")
def test_the_database_refuses_a_rerun_of_a_rerun_even_through_update(data):
    rerun = Run.objects.create(key="re1", round=data.round, entry=data.entry, task=data.task, rerun_of=data)
    other = Run.objects.get(key="r1-beta-t1")
    _refused(lambda: Run.objects.filter(pk=other.pk).update(rerun_of=rerun))


def test_an_agent_enters_a_round_once(data):
    _refused(lambda: Entry.objects.create(round=data.round, agent=data.entry.agent))


def test_a_published_round_has_a_publication_time(data):
    _refused(lambda: Round.objects.filter(pk=data.round.pk).update(published_at=None))
