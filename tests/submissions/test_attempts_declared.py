"""Every attempt counted against the trials the submission declares, in each format that declares them: τ²'s
`num_trials` (tests/security/test_submission_platform_failures.py), an Inspect log's `epochs` (here),
Terminal-Bench's runs × `n_attempts` (`tb_runs`, tests/scoring/test_tbench.py)."""

from pathlib import Path

from scoring.submission_attempts import attempts_declared
from scoring.submission_types import Sim, SubmittedFile
from submissions.reading import ReadContext, read_inspect

QUIZ = Path(__file__).resolve().parents[2] / "fixtures" / "inspect-quiz.eval"


def test_an_inspect_log_declares_its_epochs_and_its_samples_are_counted_against_them():
    # The quiz log: epochs 2, three samples run in epochs 1 and 2, none errored: 6 attempts of 2 declared each.
    read = read_inspect({"inspect-quiz.eval": QUIZ.read_bytes()}, ReadContext(benchmark="quiz", round_key="r1"))
    assert {f.trials_declared for f in read.files} == {2}
    found = attempts_declared(read.files)
    assert found.passed is True and found.detail.endswith(
        "6 attempts, none past the 2 declared trials per task (epochs), none left out"
    )


def test_a_sample_run_past_the_declared_epochs_fails_naming_it():
    # epochs 2, but sample "add" three times (its third an errored sample, left out as a platform failure).
    sims = [Sim("add", 1), Sim("add", 2), Sim("add", 3, counted=False, infra=True), Sim("sum", 1), Sim("sum", 2)]
    found = attempts_declared([SubmittedFile("inspect: quiz", "quiz", sims, None, {}, trials_declared=2)])
    assert (found.passed, found.detail) == (
        False,
        "quiz: more attempts than the 2 declared trials (epochs) on 1 task: task add: 3; 1 run of 5 reported as "
        "platform failures, left out of the score on the submitter's word, on 1 task: task add: 1 of 3",
    )
