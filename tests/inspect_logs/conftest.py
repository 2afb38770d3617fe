"""Real Inspect logs for the tests: the scripted quiz (tests/inspect_logs/scripted.py) is run once per test session
against two scripted models, with no network, and every test reads the logs it wrote."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from leaderboard.models import Round
from runs.services.publication import round_enter_preview, round_publish
from tests.builders.review import make_user
from tests.inspect_logs import scripted
from tests.site.conftest import compute_all


@pytest.fixture(scope="session")
def quiz_logs(tmp_path_factory) -> dict[str, Path]:
    """{model: log path} of one real eval of the quiz (three samples, two epochs) per scripted model."""
    logs = scripted.run(["steady", "flaky"], tmp_path_factory.mktemp("inspect-logs"))
    assert all(log.status == "success" for log in logs)
    return {log.eval.model.removeprefix("scripted/"): Path(log.location) for log in logs}


def publish(bench: str, round_key: str) -> None:
    """Publish a round through the editor's services (its preview entered long enough ago) and compute its
    boards, so that its board, its run pages and the runs API show it."""
    editor = make_user("publishing-editor", "Editors")
    rnd = Round.objects.get(benchmark__slug=bench, key=round_key)
    ago = timezone.now() - timedelta(hours=settings.PREVIEW_HOURS + 1)
    round_publish(round=round_enter_preview(round=rnd, by=editor, now=ago), by=editor)
    compute_all()


@pytest.fixture(scope="session")
def tool_logs(tmp_path_factory) -> dict[str, Path]:
    """{model: log path} of a real eval of the quiz with the almanac tool: each sample's model calls the tool,
    then answers."""
    logs = scripted.run(["steady"], tmp_path_factory.mktemp("inspect-tool-logs"), task=scripted.quiz(tools=True))
    assert all(log.status == "success" for log in logs)
    return {log.eval.model.removeprefix("scripted/"): Path(log.location) for log in logs}
