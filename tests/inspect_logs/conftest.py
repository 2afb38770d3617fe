"""Real Inspect logs for the tests: the scripted quiz (tests/inspect_logs/scripted.py) is run once per test session
against two scripted models, with no network, and every test reads the logs it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inspect_logs import scripted


@pytest.fixture(scope="session")
def quiz_logs(tmp_path_factory) -> dict[str, Path]:
    """{model: log path} of one real eval of the quiz (three samples, two epochs) per scripted model."""
    logs = scripted.run(["steady", "flaky"], tmp_path_factory.mktemp("inspect-logs"))
    assert all(log.status == "success" for log in logs)
    return {log.eval.model.removeprefix("scripted/"): Path(log.location) for log in logs}
