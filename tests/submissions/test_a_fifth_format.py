"""A fifth submission format added through the registry alone: a toy one (a CSV of task, trial and score) written
as one module that registers itself. Nothing else of the site changes, yet the upload form offers it, the API and
`import_submission` tell it by its files, its checks run and its runs reach the board; and the site's own doors
(views, API, command, services) name no format anywhere."""

from __future__ import annotations

import ast
import importlib.util
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from runs.models import Run
from submissions import formats
from submissions.models import Submission
from tests.builders import tau2 as t
from tests.builders.review import make_user

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]

TOY_FORMAT = '''
"""A toy format: a CSV of `task,trial,score` lines, one agent's runs."""

from submissions.formats import Format, register
from submissions.reading import NOT_IN_TASK_SET, Read, SubmissionRefused, bundle_files


def read(files, ctx):
    runs = []
    for name, data in files.items():
        for number, line in enumerate(data.decode().splitlines(), start=1):
            task, trial, score = (line.split(",") + ["", "", ""])[:3]
            try:
                runs.append({"id": f"{task}-t{trial}", "task": task, "trial": int(trial), "score": float(score),
                             "status": "completed", "task_version": "1.0"})
            except ValueError:
                raise SubmissionRefused([f"{name}: line {number}: task,trial,score"]) from None
    families = [ctx.task_families.get(r["task"], NOT_IN_TASK_SET) for r in runs]
    return Read("toy-csv", files=bundle_files("toy-csv", runs, families), run_docs=list(zip(families, runs)))


register(Format("toy-csv", "CSV of runs", "one .csv file: task,trial,score", read,
                recognises=lambda files: bool(files) and all(n.endswith(".csv") for n in files)))
'''
CSV = b"mini-0,1,1.0\nmini-1,1,0.0\nmini-2,1,1.0\n"


@pytest.fixture
def toy_format(tmp_path, monkeypatch):
    """The toy format's one file, imported: the only file it takes."""
    monkeypatch.setattr(formats, "REGISTRY", dict(formats.REGISTRY))
    module = tmp_path / "toy_csv_format.py"
    module.write_text(TOY_FORMAT)
    spec = importlib.util.spec_from_file_location("toy_csv_format", module)
    assert spec and spec.loader
    loaded = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "toy_csv_format", loaded)
    spec.loader.exec_module(loaded)
    return [module]


def test_a_fifth_format_takes_one_file_and_works_through_every_door(toy_format, tmp_path):
    assert len(toy_format) == 1  # the files the fifth format touched: its own module, nothing of the site's
    assert list(formats.REGISTRY)[-1] == "toy-csv" and len(formats.REGISTRY) == 5
    w = t.mini_world()
    # The upload form offers it, with its help; a member sends it.
    member = make_user("ann", org="Org A")
    client = Client()
    client.force_login(member)
    page = client.get("/b/mini-tau/submit/").content.decode()
    assert 'value="toy-csv"' in page and "CSV of runs: one .csv file: task,trial,score" in page
    sent = client.post(
        "/b/mini-tau/submit/",
        {
            "agent": "__new__",
            "new_agent_name": "Csv agent",
            "format": "toy-csv",
            "file": SimpleUploadedFile("r.csv", CSV),
        },
    )
    assert sent.status_code == 302, sent.content.decode()[:2000]
    by_form = Submission.objects.get(agent__slug="csv-agent")
    assert by_form.format == "toy-csv" and "CSV of runs" in client.get(by_form.get_absolute_url()).content.decode()
    # The API tells it by its file.
    answer = Client().post(
        "/api/benchmarks/mini-tau/submissions",
        {"files": SimpleUploadedFile("runs.csv", CSV), "agent_name": "Csv agent two"},
        HTTP_AUTHORIZATION=f"Bearer {w.key_b}",
    )
    assert answer.status_code == 201, answer.content
    assert answer.json()["format"] == "toy-csv"
    assert {c["name"]: c["passed"] for c in answer.json()["checks"]}["tasks_covered"] is True
    # So does the command.
    path = tmp_path / "runs.csv"
    path.write_bytes(CSV)
    call_command(
        "import_submission", str(path), benchmark="mini-tau", organization="Org A", agent="csv-agent", stdout=StringIO()
    )
    assert Submission.objects.filter(format="toy-csv").count() == 3
    assert Run.objects.filter(round=w.track.round, entry__agent__slug="csv-agent-two", score=1.0).count() == 2


# The modules of the doors and the services: they choose a format from the registry and name none.
DOORS = (
    "submissions/views.py",
    "submissions/forms.py",
    "submissions/services.py",
    "submissions/files.py",
    "submissions/admin.py",
    "submissions/management/commands/import_submission.py",
    "api/submissions.py",
    "pages/submissions.py",
)


def test_the_doors_and_the_services_name_no_format():
    keys = set(formats.REGISTRY)
    named = {
        f"{door}:{node.lineno} {node.value!r}"
        for door in DOORS
        for node in ast.walk(ast.parse((ROOT / door).read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keys
    }
    assert named == set()
