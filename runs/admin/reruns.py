"""The admin's re-run actions (on runs, and on disputes): the re-run an accepted dispute allows (000 §6: "A
disputed run may be re-run once"). In a weekly round (004: "The agents in one table are run in the same week")
the re-run must state when it started, so the action asks first, on a page with one start time per such run,
and refuses a time outside the round's week with the same round rule every door asks (`rerun_refusal`). Runs
of other methodologies are re-run at once, as before."""

from __future__ import annotations

from datetime import UTC, datetime

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.utils import timezone

from scoring.round_rules import week_shown

from .. import services
from ..models import Run

# The name of the confirmation page's button: posted with the start times, the action creates the re-runs.
CONFIRM = "rerun_start"
STARTED_FORMAT = "%Y-%m-%d %H:%M:%S"


def _utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):{STARTED_FORMAT}} UTC"


def _field_name(run: Run) -> str:
    return f"started_at_{run.pk}"


def _week_help(run: Run) -> str:
    starts_on = run.round.starts_on
    if starts_on is None:
        return f"Round {run.round} has no start date, so no start time can be checked against its week: set it first."
    first, last = week_shown(starts_on)
    started = f" {run.key} started {_utc(run.started_at)}." if run.started_at else ""
    return f"In UTC, within the round's week: {_utc(first)} to {_utc(last)}.{started}"


class RerunStartForm(forms.Form):
    """One start time (UTC) for the re-run of each of `runs`, each checked by the round rules on the round with
    that re-run in it: a time outside the round's week is refused naming the rule, the round and the run."""

    def __init__(self, data=None, *, runs: list[Run]) -> None:
        super().__init__(data)
        self.runs = runs
        for run in runs:
            self.fields[_field_name(run)] = forms.DateTimeField(
                label=f"Re-run of {run.key} ({run.entry.agent.name}, {run.task.key}) started at",
                help_text=_week_help(run),
                widget=forms.DateTimeInput(attrs={"type": "datetime-local", "step": "1"}, format="%Y-%m-%dT%H:%M:%S"),
                error_messages={
                    "required": "State when the re-run started: a weekly round's runs are checked against its week."
                },
            )

    def full_clean(self) -> None:
        with timezone.override(UTC):  # the times are read in UTC, as the page says, whatever the site's zone
            super().full_clean()

    def clean(self):
        data = super().clean()
        for run in self.runs:
            name = _field_name(run)
            if data.get(name) is not None:
                for line in services.rerun_refusal(run=run, started_at=data[name]):
                    self.add_error(name, line)
        return data

    def starts(self) -> dict[int, datetime]:
        return {run.pk: self.cleaned_data[_field_name(run)] for run in self.runs}


def reruns_create(model_admin, request, queryset, runs: list[Run], skipped: list[str] | None = None):
    """The re-runs of `runs` (selected as `queryset` in `model_admin`'s list): asked first, on a page, for the
    start time of each re-run in a weekly round (`services.rerun_needs_start`); created once those are given and
    kept by the rules (None: done, each said in a message), or the page again with what was refused. `skipped`
    are the selection's refusals known before (told with the rest)."""
    skipped = list(skipped or [])
    refused: dict[int, list[str]] = {}
    asked: list[Run] = []
    for run in runs:
        if services.rerun_needs_start(run):
            # What no start time would change (no accepted dispute, a second re-run) is told, not asked.
            refused[run.pk] = services.rerun_refusal(run=run, week=False)
            if not refused[run.pk]:
                asked.append(run)
    starts: dict[int, datetime] = {}
    if asked:
        form = RerunStartForm(request.POST if CONFIRM in request.POST else None, runs=asked)
        if not form.is_valid():
            context = {
                **model_admin.admin_site.each_context(request),
                "title": "Re-run: when did each re-run start?",
                "opts": model_admin.model._meta,
                "form": form,
                "queryset": list(queryset),
                "action": request.POST.get("action", "create_reruns"),
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "confirm": CONFIRM,
                "others": [r for r in runs if r.pk not in refused],
                "refused": [(r, refused[r.pk]) for r in runs if refused.get(r.pk)],
                "skipped": skipped,
            }
            return TemplateResponse(request, "admin/runs/run/rerun_start.html", context)
        starts = form.starts()
    for line in skipped:
        model_admin.message_user(request, line, messages.WARNING)
    for run in runs:
        if refused.get(run.pk):
            model_admin.message_user(request, "; ".join(refused[run.pk]), messages.ERROR)
            continue
        try:
            rerun = services.rerun_create(run=run, by=request.user, started_at=starts.get(run.pk))
        except ValidationError as e:
            model_admin.message_user(request, "; ".join(e.messages), messages.ERROR)
        else:
            started = f", started {_utc(rerun.started_at)}" if rerun.started_at else ""
            model_admin.message_user(request, f"Created re-run {rerun.key} of {run.key}{started}.", messages.SUCCESS)
    return None
