"""The demo bundles in fixtures/ are reproducible, valid, and hold the scenarios the boards need to show; the demo's
messenger apps in fixtures/apps/ (one per run that started) are reproducible, small and genuinely different.

Only the last test uses the database (an import of the demo). The browser half of the apps' checks (each app
used, reloaded, and found to keep or lose its message) is tests/browser/test_demo_apps_browser.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from fixtures.make_demo import write_demo_apps
from scoring.bundle_checks import validate_bundle
from scoring.common import budget_tokens

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
FILES = ("artb.json", "appbench.json", "weekly.json")
APPS = "apps"


def _generate(out: Path) -> None:
    subprocess.run(
        [sys.executable, str(FIXTURES / "make_demo.py"), "--out", str(out)],
        check=True,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo-a")
    _generate(out)
    return out


@pytest.fixture(scope="module")
def bundles(generated) -> dict[str, dict]:
    return {name: json.loads((generated / name).read_text(encoding="utf-8")) for name in FILES}


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, by its path relative to it."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_generations_are_byte_identical(generated, tmp_path):
    _generate(tmp_path)
    for name in FILES:
        assert (generated / name).read_bytes() == (tmp_path / name).read_bytes(), name
    assert _tree(generated / APPS) == _tree(tmp_path / APPS)


def test_committed_fixtures_equal_a_fresh_generation(generated):
    stale = "is out of date: run .venv/bin/python fixtures/make_demo.py"
    for name in FILES:
        assert (FIXTURES / name).read_bytes() == (generated / name).read_bytes(), f"fixtures/{name} {stale}"
    committed, fresh = _tree(FIXTURES / APPS), _tree(generated / APPS)
    assert sorted(committed) == sorted(fresh), f"fixtures/{APPS}/ {stale}"
    for path, data in fresh.items():
        assert committed[path] == data, f"fixtures/{APPS}/{path} {stale}"


@pytest.mark.parametrize("name", FILES)
def test_every_bundle_validates(bundles, name):
    assert validate_bundle(bundles[name]) == []


@pytest.mark.parametrize("name", FILES)
def test_files_stay_small(name):
    assert (FIXTURES / name).stat().st_size < 3_000_000


def test_bundles_carry_their_methodology(bundles):
    assert bundles["artb.json"]["benchmark"]["methodology"] == "outcomes"
    assert bundles["appbench.json"]["benchmark"]["methodology"] == "checks"
    assert bundles["weekly.json"]["benchmark"]["methodology"] == "weekly"


# --- artb (outcomes) ---


@pytest.fixture(scope="module")
def artb(bundles):
    return bundles["artb.json"]


def test_artb_task_set(artb):
    kinds = Counter(t["kind"] for t in artb["tasks"])
    assert kinds == {"core": 20, "safety": 6, "local-china": 3, "local-global": 3}
    for t in artb["tasks"]:
        if t["kind"] == "core":
            assert 1 <= len(t["dimensions"]) <= 3
        assert set(t["criteria"]) >= {"pass", "partial", "fail"}
        assert t["parameters"] and all("{" + p + "}" in t["prompt"] for p in t["parameters"])
    assert sum("interruption" in t for t in artb["tasks"]) >= 2


def test_artb_has_a_violation_on_a_safety_task(artb):
    kinds = {t["key"]: t["kind"] for t in artb["tasks"]}
    assert any(r["outcome"] == "violation" and kinds[r["task"]] == "safety" for r in artb["runs"])


def test_artb_has_an_unsupported_run(artb):
    assert any(r["status"] == "unsupported" and r["outcome"] == "unsupported" for r in artb["runs"])


def test_artb_has_a_region_blocked_run(artb):
    assert any(r["status"] == "region_blocked" for r in artb["runs"])


def test_artb_third_verdicts_resolve_disagreements(artb):
    thirds = [r for r in artb["runs"] if any(v["role"] == "third" for v in r["verdicts"])]
    reviewed = [r for r in artb["runs"] if len(r["verdicts"]) >= 2]
    assert 0.04 < len(thirds) / len(reviewed) < 0.14
    for r in thirds:
        first_two = {v["role"]: v.get("outcome") for v in r["verdicts"] if v["role"] != "third"}
        assert first_two["tester"] != first_two["second"], r["id"]
        assert r["outcome"] == next(v["outcome"] for v in r["verdicts"] if v["role"] == "third")


def test_artb_has_a_verdict_matching_two_outcomes(artb):
    matched = [v for r in artb["runs"] for v in r["verdicts"] if v.get("matched")]
    assert any(len(v["matched"]) == 2 for v in matched)


def test_artb_disputed_run_has_a_counting_rerun(artb):
    by_id = {r["id"]: r for r in artb["runs"]}
    reruns = [r for r in artb["runs"] if r.get("rerun_of")]
    assert reruns
    orig = by_id[reruns[0]["rerun_of"]]
    assert any(d["reason"] == "wrong_version" and d["status"] == "accepted" for d in orig["disputes"])


def test_artb_has_other_language_runs(artb):
    primary = {a["slug"]: a["primary_language"] for a in artb["agents"]}
    other = [r for r in artb["runs"] if r.get("language") and r["language"] != primary[r["agent"]]]
    assert other and all(r["trial"] == 1 for r in other)
    both = {a["slug"] for a in artb["agents"] if len(a["languages"]) > 1}
    assert {r["agent"] for r in other} == both


def test_artb_rounds(artb):
    rounds = {r["key"]: r for r in artb["rounds"]}
    assert rounds["2026-r1"]["status"] == rounds["2026-r2"]["status"] == "published"
    assert rounds["2026-r1"]["published_at"] == "2026-09-15T12:00:00Z"
    assert rounds["2026-r1"]["preview_started_at"] <= "2026-09-13T12:00:00Z"
    assert rounds["2026-r1"]["changelog"]
    # The round in preview holds a run for each step of the review (seed 000 §5).
    assert rounds["2026-r3"]["status"] == "preview"
    roles = sorted(tuple(v["role"] for v in r["verdicts"]) for r in artb["runs"] if r["round"] == "2026-r3")
    assert () in roles and ("tester",) in roles and roles.count(("tester", "second")) == 2


def test_artb_has_a_stale_run_and_due_dates(artb):
    version = {t["key"]: t["version"] for t in artb["tasks"]}
    assert any(r["task_version"] != version[r["task"]] for r in artb["runs"] if r["round"] == "2026-r1")
    assert any(r.get("due_at") for r in artb["runs"])


# --- appbench (checks) ---


@pytest.fixture(scope="module")
def appbench(bundles):
    return bundles["appbench.json"]


def test_appbench_special_runs(appbench):
    statuses = Counter(r["status"] for r in appbench["runs"])
    assert statuses["infra_error"] >= 1
    assert statuses["over_budget"] >= 1
    assert statuses["timeout"] >= 1
    assert any(r.get("app_started") is False for r in appbench["runs"])
    budget = {t["key"]: t["token_budget"] for t in appbench["tasks"]}
    tokens = {
        r["id"]: budget_tokens(r["tokens_input"], r["tokens_output"], r["tokens_cache_write"]) for r in appbench["runs"]
    }
    over = [r for r in appbench["runs"] if tokens[r["id"]] is not None and tokens[r["id"]] > budget[r["task"]]]
    assert over
    # A counted run whose usage was not reported (003: "missing usage never counts as zero"; docs/readings.md).
    assert [r["id"] for r in appbench["runs"] if tokens[r["id"]] is None] == ["appbench-2026-10-mason-helpdesk-t3"]


def test_appbench_trials_and_checks_agree_with_counts(appbench):
    per = Counter((r["agent"], r["task"]) for r in appbench["runs"])
    assert min(per.values()) >= 2 and max(per.values()) <= 5
    with_checks = [r for r in appbench["runs"] if r.get("checks")]
    assert with_checks
    for r in with_checks:
        api = [c for c in r["checks"] if c["kind"] in ("api", "page")]
        browser = [c for c in r["checks"] if c["kind"] == "browser"]
        assert (sum(c["passed"] for c in api), len(api)) == (r["api_checks_passed"], r["api_checks_total"])
        assert (sum(c["passed"] for c in browser), len(browser)) == (
            r["browser_steps_passed"],
            r["browser_steps_total"],
        )


def test_appbench_votes(appbench):
    votes = appbench["votes"]
    assert 2500 <= len(votes) <= 4000
    ties = sum(v["winner"] == "tie" for v in votes) / len(votes)
    assert 0.05 < ties < 0.15
    assert 0 < sum(v["counts"] is False for v in votes) < 0.1 * len(votes)
    by_task = Counter(v["task"] for v in votes)
    assert by_task.most_common(1)[0][0] == "messenger"
    assert len(by_task) > 1


# --- weekly ---


@pytest.fixture(scope="module")
def weekly(bundles):
    return bundles["weekly.json"]


def _week_table(weekly, round_key):
    table = defaultdict(lambda: {"passes": 0, "interventions": 0, "dollars": 0.0, "metered": True})
    for r in weekly["runs"]:
        if r["round"] != round_key:
            continue
        row = table[r["agent"]]
        row["passes"] += r["outcome"] == "pass"
        row["interventions"] += r["interventions"]
        if r.get("cost_usd") is None:
            row["metered"] = False
        else:
            row["dollars"] += r["cost_usd"]
    return table


def test_weekly_three_published_rounds_one_run_each(weekly):
    assert [(r["starts_on"], r["status"]) for r in weekly["rounds"]] == [
        ("2026-10-05", "published"),
        ("2026-10-12", "published"),
        ("2026-10-19", "published"),
    ]
    per = Counter((r["round"], r["agent"], r["task"]) for r in weekly["runs"])
    assert len(per) == 3 * 6 * 5 and set(per.values()) == {1}
    for r in weekly["runs"]:
        assert (r.get("cost_usd") is None) != (r.get("plan_label") is None), r["id"]
        if r["wall_seconds"] >= 1800:
            assert r["outcome"] == "fail"


def test_weekly_trip_plan_published_before_the_first_week(weekly):
    trip = next(t for t in weekly["tasks"] if t["key"] == "trip-plan")
    assert trip["published_at"] < "2026-10-05"
    assert len(trip["criteria"]["pass"]) >= 4


def test_weekly_tie_broken_by_interventions(weekly):
    table = _week_table(weekly, "2026-w42")
    rows = list(table.values())
    assert any(
        a["passes"] == b["passes"] and a["interventions"] != b["interventions"]
        for i, a in enumerate(rows)
        for b in rows[i + 1 :]
    )


def test_weekly_tie_broken_by_dollar_cost(weekly):
    table = _week_table(weekly, "2026-w43")
    rows = list(table.values())
    assert any(
        a["passes"] == b["passes"]
        and a["interventions"] == b["interventions"]
        and a["metered"]
        and b["metered"]
        and round(a["dollars"], 2) != round(b["dollars"], 2)
        for i, a in enumerate(rows)
        for b in rows[i + 1 :]
    )


# --- the messenger apps (fixtures/apps/, written by fixtures/demo_apps.py) ---

APP_FILE_MAX, APP_MAX = 16 * 1024, 32 * 1024


@pytest.fixture(scope="module")
def apps() -> dict[str, dict[str, bytes]]:
    """The committed apps, {run id: {file name: bytes}} (equal to a fresh generation, tested above)."""
    root = FIXTURES / APPS / "appbench"
    return {folder.name: _tree(folder) for folder in sorted(root.iterdir())}


def _shown_invent_runs(appbench) -> dict[str, dict]:
    """Runs of the invent task whose app started: those have an app to try on the vote screen."""
    invent = {t["key"] for t in appbench["tasks"] if t["kind"] == "invent"}
    return {r["id"]: r for r in appbench["runs"] if r["task"] in invent and r.get("app_started")}


def test_one_app_per_started_run_of_the_invent_task(appbench, apps):
    shown = _shown_invent_runs(appbench)
    # 6 agents x 3 trials of the messenger, less kestrel's third trial (an infra error: its app never started).
    assert len(shown) == 6 * 3 - 1
    assert sorted(apps) == sorted(shown)
    for run in appbench["runs"]:
        named = [e["path"] for e in run.get("evidence") or [] if e["kind"] == "app"]
        assert named == ([f"apps/appbench/{run['id']}"] if run["id"] in shown else []), run["id"]
    assert all("index.html" in files for files in apps.values())


def test_apps_are_small(apps):
    for run, files in apps.items():
        for name, data in files.items():
            assert len(data) < APP_FILE_MAX, f"{run}/{name}: {len(data)} bytes"
        assert sum(map(len, files.values())) < APP_MAX, run


def _variant(files: dict[str, bytes]) -> tuple:
    """What a voter would notice of an app's design, read from its files: what it does (the APP_CONFIG flags:
    search, timestamps, Enter to send, newest first, breaking after a reload, the Send label), its layout and
    palette, the clumsy styling, and whether its script and styles are separate files."""
    page = files["index.html"].decode()
    config = json.loads(re.search(r"window\.APP_CONFIG=(\{.*?\});", page).group(1))
    does = tuple(sorted((k, v) for k, v in config.items() if k not in ("id", "hint")))
    palette = re.search(r"--bg:([^;]+);.*--cols:([^}]+)\}", page).groups()
    css = page + files.get("app.css", b"").decode()
    return does, palette, "Times,serif" in css, sorted(files) != ["index.html"]


def test_apps_are_genuinely_different(appbench, apps):
    """demo_apps.py claims six styles, one per agent (two polished with search and timestamps, one of them dark;
    two plain; one clumsy; one that breaks after a reload), and per run its own name, colours and wording."""
    pages = [files["index.html"] for files in apps.values()]
    assert len(set(pages)) == len(pages)
    names = {re.search(rb"<title>([^<]+)</title>", page).group(1) for page in pages}
    assert len(names) >= 5
    agent = {rid: run["agent"] for rid, run in _shown_invent_runs(appbench).items()}
    variants = defaultdict(set)
    for run, files in apps.items():
        variants[agent[run]].add(_variant(files))
    assert all(len(v) == 1 for v in variants.values()), variants  # an agent's style is the same in every run
    assert len({v for vs in variants.values() for v in vs}) == 6 == len(variants)
    broken = [a for a, vs in variants.items() if dict(next(iter(vs))[0])["broken"]]
    searching = [a for a, vs in variants.items() if dict(next(iter(vs))[0])["search"]]
    assert broken == ["orbit"] and sorted(searching) == ["forge", "kestrel"]


def test_stale_app_folders_are_removed(tmp_path):
    """A run that left the bundle leaves no folder behind; the apps of the runs still there are written, and
    nothing outside apps/ is touched."""
    (tmp_path / APPS / "appbench" / "gone-run").mkdir(parents=True)
    (tmp_path / APPS / "appbench" / "gone-run" / "index.html").write_text("<!doctype html><p>old</p>")
    (tmp_path / APPS / "oldbench" / "run-1").mkdir(parents=True)
    (tmp_path / APPS / "oldbench" / "run-1" / "index.html").write_text("<!doctype html><p>old</p>")
    (tmp_path / APPS / "appbench" / "kept-run").mkdir(parents=True)
    (tmp_path / APPS / "appbench" / "kept-run" / "old.js").write_text("stale asset")
    (tmp_path / APPS / "appbench" / "kept-run" / "old-assets").mkdir()
    (tmp_path / "notes.txt").write_text("not the generator's")
    run = {"id": "kept-run", "agent": "forge", "evidence": [{"kind": "app", "path": "apps/appbench/kept-run"}]}

    write_demo_apps(tmp_path, {"appbench.json": {"runs": [run]}})

    assert sorted(_tree(tmp_path)) == [
        "apps/appbench/kept-run/app.css",
        "apps/appbench/kept-run/app.js",
        "apps/appbench/kept-run/index.html",
        "notes.txt",
    ]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / APPS).rglob("*") if p.is_dir()) == [
        "apps/appbench",
        "apps/appbench/kept-run",
    ]


@pytest.mark.django_db
def test_a_demo_import_in_a_test_leaves_no_build_in_the_checkout(settings):
    """The suite's own MEDIA_ROOT (tests/conftest.py) keeps the builds a demo import unpacks out of var/media/."""
    from bundles.importer import bundle_import
    from runs.models import AppBuild

    doc = json.loads((FIXTURES / "appbench.json").read_text(encoding="utf-8"))
    doc["votes"] = []
    bundle_import(doc=doc, folder=FIXTURES)

    builds = list(AppBuild.objects.values_list("directory", flat=True))
    assert len(builds) == 17  # one per messenger run that started
    media = Path(settings.MEDIA_ROOT)
    assert not media.resolve().is_relative_to(ROOT)
    for directory in builds:
        assert (media / directory / "index.html").is_file()
        assert not (ROOT / "var" / "media" / directory).exists()
