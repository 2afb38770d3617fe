"""The forms of the submission pages: the upload form (a member of an organization, for its own agents) and the
actions on a submission (`ACTIONS`: an editor verifies with a note and a link, and a note acknowledging a failed
disclosure check; flags with a reason and a link; unflags; an editor or the submitting organization withdraws),
the one set the site's page and the admin's actions both use."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.text import slugify

from leaderboard.models import Agent

from . import actions, formats
from .names import agent_name_holder, name_taken_problem

NEW = "__new__"


def claim_field(name: str) -> str:
    """The form field of a claimed figure: "accuracy stderr" -> "claim_accuracy_stderr"."""
    return "claim_" + "_".join(name.split())


class SubmitForm(forms.Form):
    agent = forms.ChoiceField(help_text="One of your organization's agents, or a new one.")
    new_agent_name = forms.CharField(
        max_length=200,
        required=False,
        label="New agent's name",
        help_text="Only for a new agent: the name the boards show (your agent's name, not only its model's).",
    )
    format = forms.ChoiceField(widget=forms.RadioSelect)
    file = forms.FileField()

    def __init__(self, *args, benchmark, organization, taken: list[str] | None = None, **kwargs):
        """`taken`: the formats the track takes (every format when empty)."""
        super().__init__(*args, **kwargs)
        self.benchmark = benchmark
        self.organization = organization
        agents = Agent.objects.filter(organization=organization).order_by("name")
        self.fields["agent"].choices = [(a.slug, a.name) for a in agents] + [(NEW, "A new agent…")]
        self.fields["format"].choices = formats.choices(taken)
        self.fields["file"].help_text = (
            "; ".join(f"{formats.get(key).label}: {formats.get(key).help}" for key, _ in formats.choices(taken)) + "."
        )
        for name, label, owners in formats.claim_fields(taken):
            self.fields[claim_field(name)] = forms.CharField(
                label=label,
                required=False,
                max_length=30,
                help_text=f"Optional ({', '.join(owners)}): as you publish it, e.g. 0.505; it is checked at the "
                "decimals you write. Left empty: the claims.json at your folder's top, if any.",
            )

    def claims(self) -> dict[str, str]:
        """The figures claimed on the form ({name: as written}), for the format chosen."""
        fmt = formats.get(self.cleaned_data["format"])
        given = {name: (self.cleaned_data.get(claim_field(name)) or "").strip() for name, _ in fmt.claim_fields}
        return {name: value for name, value in given.items() if value}

    def clean(self):
        data = super().clean()
        if data.get("agent") == NEW:
            name = (data.get("new_agent_name") or "").strip()
            if not name:
                self.add_error("new_agent_name", "Name the new agent.")
            elif not slugify(name):
                self.add_error("new_agent_name", "The name needs at least one letter or digit.")
            elif Agent.objects.filter(slug=slugify(name)).exclude(organization=self.organization).exists():
                self.add_error("new_agent_name", "That name belongs to another organization's agent: choose another.")
            elif holder := agent_name_holder(benchmark=self.benchmark, name=name, agent_slug=slugify(name)[:100]):
                problem = name_taken_problem(holder, name)
                self.add_error("new_agent_name", problem[0].upper() + problem[1:] + ".")
        return data


class JoinForm(forms.Form):
    organization_name = forms.CharField(
        max_length=200,
        label="Your organization",
        help_text="As it is known: the company, lab or team whose results you submit.",
    )
    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
        required=False,
        label="Who you are there",
        help_text="For the editor who approves you: your role, and who in the organization can vouch for you.",
    )


class VerifyForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=5000, help_text="How it was reproduced or audited."
    )
    link = forms.URLField(max_length=2000, help_text="Where the reproduction or audit can be read.")
    disclosure_note = forms.CharField(
        label="Acknowledging",
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=5000,
        required=False,
        help_text="Where the declared model or user simulator is not the one run: what you acknowledge. The "
        "boards show what ran, the declared one beside it.",
    )

    def __init__(self, *args: Any, asked: Sequence[str] = (), **kwargs: Any) -> None:
        """`asked`: what each submission being verified asks to acknowledge (`actions.acknowledgment_asked`);
        then the note is required."""
        super().__init__(*args, **kwargs)
        if asked:
            field = self.fields["disclosure_note"]
            field.required = True
            field.help_text = "Required: a note acknowledging " + "; ".join(asked)


class FlagForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=5000)
    link = forms.URLField(max_length=2000, help_text="What shows it.")


class NoteForm(forms.Form):
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=5000, required=False)


@dataclass(frozen=True)
class Action:
    """An action on a submission: its form, what it does with the form's data, and how the admin names it."""

    form: type[forms.Form]
    do: Callable[[Any, Any, dict], Any]  # (submission, user, cleaned data)
    title: str
    description: str


ACTIONS: dict[str, Action] = {
    "verify": Action(
        VerifyForm,
        lambda sub, user, d: actions.submission_verify(
            submission=sub, by=user, note=d["note"], link=d["link"], disclosure_note=d["disclosure_note"]
        ),
        "Verify",
        "Verify (reproduced or audited: a note and a link)",
    ),
    "flag": Action(
        FlagForm,
        lambda sub, user, d: actions.submission_flag(submission=sub, by=user, reason=d["reason"], link=d["link"]),
        "Flag",
        "Flag (a reason and a link)",
    ),
    "unflag": Action(
        NoteForm,
        lambda sub, user, d: actions.submission_unflag(submission=sub, by=user, note=d["note"]),
        "Unflag",
        "Lift an editor's flag",
    ),
    "withdraw": Action(
        NoteForm,
        lambda sub, user, d: actions.submission_withdraw(submission=sub, by=user, note=d["note"]),
        "Withdraw",
        "Withdraw (its runs leave the board)",
    ),
}
