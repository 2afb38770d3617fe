"""Importing results from a benchmark's page in the admin: a bundle or Inspect logs, with the outcome (what was
created and updated, or every problem) shown as a message. The same services as the commands and the upload
API write; a refused import writes nothing."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from bundles.importer import bundle_import
from bundles.inspect_import import inspect_import
from bundles.inspect_logs import InspectLogError, read_logs
from scoring.bundle import BundleError, DocumentError, parse_document
from scoring.types import KEY_PATTERN

from ..models import Benchmark


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    widget = MultipleFileInput

    def clean(self, data, initial=None):
        return [super(MultipleFileField, self).clean(d, initial) for d in (data if isinstance(data, list) else [data])]


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=[("inspect", "Inspect eval logs (.eval, .json)"), ("bundle", "A bundle (JSON)")])
    files = MultipleFileField()
    round = forms.RegexField(
        regex=KEY_PATTERN, max_length=100, required=False, help_text="Inspect logs: the round (created as a draft)."
    )
    agent_from = forms.RegexField(
        regex=r"^(model|solver|tag:[A-Za-z0-9_.-]{1,50})$",
        initial="model",
        required=False,
        help_text="Inspect logs: what names the agent: model, solver or tag:NAME.",
    )
    scorer = forms.CharField(max_length=200, required=False, help_text="Default: the logs' first scorer.")
    update_shared = forms.BooleanField(
        required=False,
        label="Update shared rows",
        help_text="A bundle that changes an agent, an organization, this benchmark's settings or a task that a "
        "published round reads is refused unless this is ticked; then those rounds are recomputed and each "
        "published one gets a changelog entry.",
    )

    def clean(self):
        data = super().clean()
        if data.get("kind") == "inspect" and not data.get("round"):
            self.add_error("round", "Inspect logs go into a round: give its key.")
        return data


def _import(benchmark: Benchmark, data: dict, by) -> str:
    """Import the form's files into `benchmark`; the summary, or BundleError / InspectLogError."""
    files = data["files"]
    if data["kind"] == "inspect":
        logs = read_logs([(f.name, f) for f in files])
        result = inspect_import(
            logs=logs,
            benchmark=benchmark.slug,
            round_key=data["round"],
            agent_from=data["agent_from"] or "model",
            scorer=data["scorer"] or None,
        )
        assert result.report is not None
        return result.report.summary()
    summaries = []
    for f in files:
        try:
            doc = parse_document(f.read())
        except DocumentError as exc:
            raise BundleError([f"{f.name}: {exc}"]) from None
        slug = (doc.get("benchmark") or {}).get("slug") if isinstance(doc, dict) else None
        if slug != benchmark.slug:
            raise BundleError([f"{f.name}: benchmark.slug {slug!r} is not {benchmark.slug!r}"])
        summaries.append(bundle_import(doc=doc, update_shared=data["update_shared"], by=by).summary())
    return "; ".join(summaries)


class ImportsResults:
    """A "Import results" page for each benchmark (the admin's get_urls and the view)."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.import_view)
        return [path("<int:pk>/import/", view, name="leaderboard_benchmark_import"), *super().get_urls()]

    def import_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        benchmark = get_object_or_404(Benchmark, pk=pk)
        if not self.has_change_permission(request, benchmark):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                messages.success(request, f"Imported: {_import(benchmark, form.cleaned_data, request.user)}")
                return HttpResponseRedirect(reverse("admin:leaderboard_benchmark_change", args=[pk]))
            except (BundleError, InspectLogError) as exc:
                messages.error(request, f"{len(exc.problems)} problem(s); nothing was written.")
                for problem in exc.problems[:50]:
                    messages.error(request, problem)
        context = {**self.admin_site.each_context(request), "benchmark": benchmark, "form": form, "title": "Import"}
        return TemplateResponse(request, "admin/leaderboard/benchmark/import.html", context)
