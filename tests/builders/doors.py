"""The doors a change comes by (docs/doors.md), as a test sends it: the admin's forms and actions, `import_bundle`,
the admin's import page, the upload API and a submission. Each returns what the door answered, as text a person
reads (a page's text, a command's error output, an answer's problems), so a test can look for the same refusal in
each."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from bundles.export import bundle_export
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark
from scoring.round_rules import BY_KEY
from tests.builders.admin import admin_form

BUNDLE_DOORS = ("import_bundle", "admin import page", "upload API")


def page_text(answer) -> str:
    return html.unescape(answer.content.decode())


class Doors:
    """The doors, opened by an editor (`client` is signed in as one) in `folder`."""

    def __init__(self, client: Client, folder: Path) -> None:
        self.client, self.folder = client, folder

    def bundle(self, door: str, doc: dict) -> str:
        """`doc` sent through one of `BUNDLE_DOORS`; what it answered."""
        return {"import_bundle": self.command, "admin import page": self.import_page, "upload API": self.upload}[door](
            doc
        )

    def command(self, doc: dict) -> str:
        path = self.folder / "change.json"
        path.write_text(json.dumps(doc))
        err = io.StringIO()
        with pytest.raises(CommandError):
            call_command("import_bundle", str(path), stdout=io.StringIO(), stderr=err)
        return err.getvalue()

    def import_page(self, doc: dict) -> str:
        bench = Benchmark.objects.get(slug=doc["benchmark"]["slug"])
        upload = SimpleUploadedFile("change.json", json.dumps(doc).encode(), content_type="application/json")
        url = f"/admin/leaderboard/benchmark/{bench.pk}/import/"
        answer = self.client.post(url, {"kind": "bundle", "files": upload}, follow=True)
        assert answer.status_code == 200
        return page_text(answer)

    def upload(self, doc: dict) -> str:
        bench = Benchmark.objects.get(slug=doc["benchmark"]["slug"])
        key = api_key_create(name="CI", benchmark=bench)[1]
        answer = Client().post(
            f"/api/benchmarks/{bench.slug}/bundle",
            json.dumps(doc),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )
        assert answer.status_code == 422, answer.content
        return "\n".join(answer.json()["problems"])

    def admin(self, url: str, **changes: str) -> str:
        """The admin's form at `url` posted with `changes`; the page it answered (a refusal is the form again)."""
        answer = self.client.post(url, {**admin_form(self.client, url), **changes})
        assert answer.status_code == 200, f"{url} saved: {answer.status_code}"
        return page_text(answer)

    def action(self, url: str, action: str, *pks: int) -> str:
        """An admin action on the list at `url`; the page after it (its messages)."""
        # "post": the confirmation an action that asks first (publishing) is given.
        answer = self.client.post(url, {"action": action, "_selected_action": list(pks), "post": "yes"}, follow=True)
        assert answer.status_code == 200
        return page_text(answer)


def stored(slug: str, upload: bool = False) -> dict:
    """The benchmark as an editor downloads it, every round (the base of a re-import); as an upload key sends it,
    without the times the site sets (preview and publication) when `upload`."""
    doc = bundle_export(benchmark=Benchmark.objects.get(slug=slug), include_unpublished=True)
    doc.pop("votes", None)
    for r in doc["rounds"]:
        r.pop("changelog", None)
        if upload:
            r.pop("preview_started_at", None)
            r.pop("published_at", None)
    return doc


def assert_refused(text: str, rule: str, round_label: str, runs: tuple[str, ...] = ()) -> None:
    """The refusal names the rule (with its seed's sentence), the round and each run."""
    line = f"{BY_KEY[rule].header}: round {round_label}: "
    assert line in text, f"no {rule!r} refusal for {round_label} in:\n{text[-4000:]}"
    said = text[text.index(line) :][:4000]
    for run in runs:
        assert re.search(rf"(?<![\w-]){re.escape(run)}(?![\w-])", said), f"{run} is not named in: {said[:600]}"
