import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Agent, Benchmark, Round, RoundParameter, Task
from runs.models import Run, Verdict
from scoring.bundle import BundleError
from tests.builders.bundles import make_bundle
from voting.models import Vote

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _table_counts() -> dict:
    return {m.__name__: m.objects.count() for m in (Benchmark, Agent, Task, Round, RoundParameter, Run, Verdict, Vote)}


def test_it_imports_a_bundle():
    report = bundle_import(doc=make_bundle())
    assert report.created["runs"] == 2
    run = Run.objects.get(key="r1-alpha-t1")
    assert run.entry.agent.slug == "alpha" and run.round.key == "r1"
    assert sorted(run.verdicts.values_list("role", flat=True)) == ["second", "tester"]
    assert RoundParameter.objects.get(name="city").value == "Lisbon"
    assert Vote.objects.get().voter_label == "voter-1"


def test_it_reports_each_problem_with_its_path_and_writes_nothing():
    doc = make_bundle()
    doc["runs"][0].update(tests_passed=7, tests_total=5)
    doc["runs"][1]["agent"] = "gamma"
    doc["tasks"][1]["kind"] = "chores"
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc)
    problems = exc.value.problems
    assert "runs[0].tests_passed: 7 > tests_total 5" in problems
    assert "runs[1].agent: unknown agent 'gamma'" in problems
    assert any(p.startswith("tasks[1].kind:") for p in problems)
    assert _table_counts() == dict.fromkeys(_table_counts(), 0)


def test_it_refuses_a_run_outside_its_rounds_entries():
    doc = make_bundle()
    doc["rounds"][0]["entries"] = [{"agent": "alpha"}]
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc)
    assert "runs[1].agent: agent 'beta' has no entry in round 'r1'" in exc.value.problems


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (
            lambda d: d["runs"][0]["verdicts"].append({"role": "tester", "outcome": "fail"}),
            "runs[0].verdicts[2].role: a second 'tester' verdict on the same run",
        ),
        (
            lambda d: (
                d["runs"].append({**d["runs"][0], "id": "x", "rerun_of": "r1-alpha-t1"})
                or d["runs"].append({**d["runs"][0], "id": "y", "rerun_of": "x"})
            ),
            "runs[3].rerun_of: run 'x' is itself a re-run; a re-run cannot be re-run",
        ),
        (lambda d: d["runs"][0].update(tokens_input=-5), "runs[0].tokens_input: -5 is below 0"),
        (lambda d: d["runs"][0].update(judge_scores=[11]), "runs[0].judge_scores[0]: 11 is not a score from 1 to 10"),
        (lambda d: d["votes"][0].update(b="alpha"), "votes[0].b: an agent cannot be matched against itself"),
        (
            lambda d: d["rounds"][0].update(published_at="yesterday"),
            "rounds[0].published_at: 'yesterday' is not a date or an ISO 8601 time",
        ),
        (
            lambda d: d["benchmark"].update(methodology="vibes"),
            "benchmark.methodology: 'vibes' is not one of outcomes, scored, checks, weekly",
        ),
    ],
)
def test_it_names_the_problem(mutate, expected):
    doc = make_bundle()
    mutate(doc)
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc)
    assert expected in exc.value.problems
    assert Run.objects.count() == 0


def test_it_rejects_documents_that_are_not_bundles():
    for doc in (None, [], "text", {"benchmark": []}):
        with pytest.raises(BundleError):
            bundle_import(doc=doc)


def test_importing_the_same_bundle_twice_changes_nothing():
    bundle_import(doc=make_bundle())
    first = bundle_export(benchmark=Benchmark.objects.get(), include_unpublished=True)
    counts = _table_counts()
    ids = sorted(Run.objects.values_list("id", "updated_at"))
    report = bundle_import(doc=make_bundle())
    assert report.created == {} and report.updated == {}
    assert _table_counts() == counts
    assert sorted(Run.objects.values_list("id", "updated_at")) == ids
    assert bundle_export(benchmark=Benchmark.objects.get(), include_unpublished=True) == first


def test_a_changed_bundle_updates_in_place():
    bundle_import(doc=make_bundle())
    doc = make_bundle()
    doc["runs"][1]["outcome"] = "partial"
    report = bundle_import(doc=doc)
    assert report.updated == {"runs": 1}
    assert Run.objects.get(key="r1-beta-t1").outcome == "partial"


def _canonical(value, key=""):
    """Bundle equivalence: absent and null are the same, an empty list is null, times are UTC."""
    if isinstance(value, dict):
        out = {k: _canonical(v, k) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not None}
    if isinstance(value, list):
        return [_canonical(v) for v in value] or None
    if isinstance(value, str) and key.endswith(("_at", "_on")) and len(value) >= 10:
        return value[:19].replace(" ", "T")
    if value == "" or value == {}:
        return None
    return value


def _contained(original, exported, path="") -> list[str]:
    """Every field of the original bundle comes back equal in the export."""
    problems = []
    if isinstance(original, dict):
        for k, v in original.items():
            problems += _contained(v, (exported or {}).get(k), f"{path}.{k}")
    elif isinstance(original, list):
        if not isinstance(exported, list) or len(original) != len(exported):
            return [f"{path}: {len(original)} items, exported {exported if exported is None else len(exported)}"]
        for i, (a, b) in enumerate(zip(original, exported, strict=True)):
            problems += _contained(a, b, f"{path}[{i}]")
    elif isinstance(original, float) or isinstance(exported, float):
        if exported is None or abs(float(original) - float(exported)) > 1e-6:
            problems.append(f"{path}: {original!r} != {exported!r}")
    elif original != exported:
        problems.append(f"{path}: {original!r} != {exported!r}")
    return problems


def _by_key(doc: dict) -> dict:
    doc = dict(doc)
    doc["runs"] = sorted(doc.get("runs") or [], key=lambda r: str(r["id"]))
    doc["agents"] = sorted(doc.get("agents") or [], key=lambda a: a["slug"])
    doc["rounds"] = sorted(doc.get("rounds") or [], key=lambda r: r["key"])
    for r in doc["rounds"]:
        r["entries"] = sorted(r.get("entries") or [], key=lambda e: e["agent"])
    doc["votes"] = sorted(doc.get("votes") or [], key=lambda v: (v.get("cast_at") or "", v["task"], v["a"], v["b"]))
    for run in doc["runs"]:
        for v in run.get("verdicts") or []:
            v.pop("at", None)
    return doc


DEMO_BUNDLES = sorted(p.name for p in FIXTURES.glob("*.json"))


@pytest.mark.parametrize("name", DEMO_BUNDLES)
def test_export_of_an_import_gives_back_an_equivalent_bundle(name):
    original = json.loads((FIXTURES / name).read_text())
    bundle_import(doc=original)
    benchmark = Benchmark.objects.get(slug=original["benchmark"]["slug"])
    exported = bundle_export(benchmark=benchmark, include_unpublished=True)
    # App builds are folders next to a bundle file, not part of the document: the download does not carry them.
    for run in original["runs"]:
        run["evidence"] = [e for e in run.get("evidence") or [] if e["kind"] != "app"]
    problems = _contained(_canonical(_by_key(original)), _canonical(_by_key(exported)))
    assert problems == []
    # And the export is itself a fixpoint: importing it changes nothing.
    report = bundle_import(doc=exported)
    assert report.created == {} and report.updated == {}


def test_public_export_leaves_out_unpublished_rounds_and_their_parameters():
    doc = make_bundle()
    doc["rounds"].append(
        {
            "key": "r2",
            "status": "draft",
            "entries": [{"agent": "alpha"}],
            "parameters": {"t1": {"city": "Secret-City-42"}},
        }
    )
    doc["runs"].append({"id": "r2-alpha-t1", "round": "r2", "agent": "alpha", "task": "t1", "status": "completed"})
    bundle_import(doc=doc)
    public = bundle_export(benchmark=Benchmark.objects.get())
    text = json.dumps(public)
    assert "Secret-City-42" not in text and "r2-alpha-t1" not in text
    assert [r["key"] for r in public["rounds"]] == ["r1"]


def test_the_commands_import_and_export(tmp_path, capsys):
    path = tmp_path / "b.json"
    path.write_text(json.dumps(make_bundle()))
    call_command("import_bundle", str(path))
    out = tmp_path / "out.json"
    call_command("export_bundle", "--benchmark", "tb", "-o", str(out))
    assert json.loads(out.read_text())["benchmark"]["slug"] == "tb"


def test_the_import_command_prints_problems_and_fails(tmp_path, capsys):
    doc = make_bundle()
    doc["runs"][0].update(tests_passed=7, tests_total=5)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CommandError):
        call_command("import_bundle", str(path))
    assert "runs[0].tests_passed: 7 > tests_total 5" in capsys.readouterr().err
    assert Run.objects.count() == 0
    (tmp_path / "notjson.json").write_text("{oops")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_bundle", str(tmp_path / "notjson.json"))


@pytest.mark.parametrize("command", ["import_bundle", "recount"])
def test_the_bundle_commands_name_the_file_that_cannot_be_read(tmp_path, command):
    with pytest.raises(CommandError, match=r"missing\.json: no such file"):
        call_command(command, str(tmp_path / "missing.json"))
    with pytest.raises(CommandError, match="a folder, not a file"):
        call_command(command, str(tmp_path))
    (tmp_path / "latin1.json").write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(CommandError, match=r"latin1\.json: not valid JSON"):
        call_command(command, str(tmp_path / "latin1.json"))
