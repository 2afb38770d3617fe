"""Links between the public pages, by URL name, and the template of each methodology's page text."""

from __future__ import annotations

from django.urls import reverse


def run_url(bench: str, rnd: str, run_key: str | None) -> str | None:
    return reverse("run", args=[bench, rnd, run_key]) if run_key else None


def round_agent_url(bench: str, rnd: str, agent: str) -> str:
    return reverse("round_agent", args=[bench, rnd, agent])


def task_url(bench: str, task: str, agent: str | None = None) -> str:
    url = reverse("task", args=[bench, task])
    return f"{url}?agent={agent}#agent-{agent}" if agent else url


def methodology_template(key: str) -> str:
    """The methodology page's text of the registry entry `key` (pages.checks checks that every entry has one)."""
    return f"pages/methodology/{key}.html"
