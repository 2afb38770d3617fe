"""The methodologies' open questions: rules a seed leaves open to more than one careful reading, each with the
seed's own words, the reading this site takes and every other one (docs/methodology-choices.md, "Open
questions", is generated from this list by scripts/readings_doc.py, and a test keeps the two equal).

A board is computed under a `Readings`: which reading each question is taken in, the site's unless another is
chosen. The pure scoring functions take it as a keyword-only parameter whose default is `SITE`, so every caller
that names none gets the site's board, and a board under another reading is the same code with one argument
changed (`scoring.reading_boards` computes every board under each reading; `recount --reading` prints one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# The question ids, as the scoring functions ask them and `recount --reading ID=VALUE` names them.
INFRA_ERROR = "infra-error"
TIME_LIMIT_DEFAULT = "time-limit-default"
MISSING_USAGE = "missing-usage"
SPREAD = "spread"
OVERALL_MEAN = "overall-mean"
CAPPED_HEURISTIC = "heuristic-cap"
UNSUPPORTED = "unsupported"
WEEKLY_REVIEW = "weekly-review"
INTERVENTIONS = "interventions"

# The seeds, by the number the docs give them (docs/methodology-choices.md; copied as published into `docs/seeds/`).
SEEDS = {
    "000": "000_d4d1c1c36051485b.txt",
    "002": "002_1ab09b614995b371.txt",
    "003": "003_78dc706098505076.txt",
    "004": "004_a0a5d7d8eac0a8ee.txt",
}


@dataclass(frozen=True)
class Reading:
    """One reading of an open question: its value (`recount --reading ID=VALUE`) and what it says, in words."""

    value: str
    says: str


@dataclass(frozen=True)
class Question:
    """A rule the seed leaves open: its id, the methodology whose boards it decides, a title, the seed's own words
    (seed number, text quoted exactly), the reading this site takes and each other reading."""

    id: str
    methodology: str
    title: str
    words: tuple[tuple[str, str], ...]
    site: Reading
    alternatives: tuple[Reading, ...]

    @property
    def readings(self) -> tuple[Reading, ...]:
        return (self.site, *self.alternatives)

    def reading(self, value: str) -> Reading:
        for r in self.readings:
            if r.value == value:
                return r
        known = ", ".join(r.value for r in self.readings)
        raise ValueError(f"{self.id}: no reading {value!r} (the readings are {known})")


QUESTIONS: tuple[Question, ...] = (
    Question(
        id=OVERALL_MEAN,
        methodology="scored",
        title="How an agent's score over the round is formed",
        words=(
            ("002", "The leaderboard reports the best score across trials."),
            ("002", "We treat missing data as None, never 0"),
        ),
        site=Reading(
            "round-tasks",
            "the mean of the best scores over every task of the round, a task without a score counting 0",
        ),
        alternatives=(Reading("tasks-run", "the mean of the best scores over the tasks the agent has a score on"),),
    ),
    Question(
        id=CAPPED_HEURISTIC,
        methodology="scored",
        title="What the heuristic fallback's cap caps",
        words=(
            ("002", "tasks using LLM-judge evaluation fall back to heuristic scoring (capped at 0.60)"),
            ("002", "weighted combination of auto (60%) and LLM judge (40%)"),
        ),
        site=Reading(
            "judge-part",
            "the cap applies to the judged part only: a composite scores 0.6 x tests + 0.4 x min(heuristic, 0.60)",
        ),
        alternatives=(
            Reading("whole-score", "a score resting on the heuristic is capped whole at 0.60, tests included"),
        ),
    ),
    Question(
        id=INFRA_ERROR,
        methodology="checks",
        title="A task whose only runs are platform failures",
        words=(
            ("003", "A platform failure (infra_error) is our fault and never goes into the score."),
            ("003", "a task without runs counts as 0"),
        ),
        site=Reading("left-out", "the task is left out of the agent's overall (awaiting a re-run), not counted as 0"),
        alternatives=(Reading("zero", "the task has no run that counts, so it counts 0 like a task without runs"),),
    ),
    Question(
        id=SPREAD,
        methodology="checks",
        title="The range shown beside the overall",
        words=(("003", "the leaderboard shows the range from its worst run to its best next to the score"),),
        site=Reading(
            "overall-of-worst-and-best",
            "the overall the agent would have from its worst counted run on each task, to the one from its best",
        ),
        alternatives=(
            Reading("single-runs", "the score of its single worst counted run to that of its single best one"),
        ),
    ),
    Question(
        id=MISSING_USAGE,
        methodology="checks",
        title="A run whose token usage is unknown",
        words=(
            ("003", "missing usage never counts as zero"),
            (
                "003",
                "Only runs within the task's time limit and token budget that spent no more than their budget count.",
            ),
        ),
        site=Reading("counts", "a run whose usage is unknown cannot be shown over its budget, so it counts"),
        alternatives=(
            Reading(
                "not-counted", "a run whose usage is unknown cannot show it stayed within its budget: it does not count"
            ),
        ),
    ),
    Question(
        id=TIME_LIMIT_DEFAULT,
        methodology="checks",
        title="A checks task that states no time limit",
        words=(
            ("003", "A run stops at the task's time limit or when the token budget runs out."),
            ("000", "(30 minutes by default)"),
        ),
        site=Reading(
            "none",
            "003 sets no default: no limit is assumed (a bundle with such a task is refused), and no run is over one",
        ),
        alternatives=(
            Reading(
                "30-minutes", "000's default of 30 minutes applies: a completed run longer than that does not count"
            ),
        ),
    ),
    Question(
        id=UNSUPPORTED,
        methodology="outcomes",
        title="An unsupported task in the scores",
        words=(
            ("000", "Unsupported tasks count as 0 and are listed."),
            ("000", "Untested tasks are left out rather than counted as 0"),
        ),
        site=Reading("tested-as-0", "an unsupported task is tested, with 0 points, in every score it belongs to"),
        alternatives=(
            Reading("left-out", "an unsupported task is listed but left out of the scores, like an untested one"),
        ),
    ),
    Question(
        id=WEEKLY_REVIEW,
        methodology="weekly",
        title="A weekly run with a second reviewer's verdict",
        words=(
            ("004", "One run is labeled and scored."),
            ("000", "If they disagree, a third reviewer decides."),
        ),
        site=Reading(
            "double-review",
            "000's review applies where a second verdict exists: a tester and a second who disagree leave the run in "
            "review until a third decides",
        ),
        alternatives=(
            Reading("tester-alone", "the tester's label is the run's outcome, whatever a second reviewer said"),
        ),
    ),
    Question(
        id=INTERVENTIONS,
        methodology="weekly",
        title="Interventions of an agent with a task of the week not run",
        words=(
            ("004", "The table sums interventions across the week’s tasks."),
            ("004", "Fewer human interventions across those tasks."),
        ),
        site=Reading(
            "unknown-with-a-task-missing",
            "a task of the week without a counted run leaves the sum unknown, ranked after every known sum",
        ),
        alternatives=(
            Reading("sum-of-runs", "the sum over the runs the agent has, a task without a run adding nothing"),
        ),
    ),
)
BY_ID: dict[str, Question] = {q.id: q for q in QUESTIONS}


def questions_of(methodology: str) -> tuple[Question, ...]:
    """The open questions of one methodology, in the registry's order."""
    return tuple(q for q in QUESTIONS if q.methodology == methodology)


@dataclass(frozen=True)
class Readings:
    """Which reading each open question is taken in: `chosen` holds (question id, value) pairs, sorted; a
    question not in it is taken in the site's reading. Frozen and hashable, so a board's inputs stay plain data."""

    chosen: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, choices: Mapping[str, str] | Iterable[tuple[str, str]]) -> Readings:
        """Readings from {question id: value}, each checked against the registry; the site's value is dropped,
        so two spellings of the same readings are equal."""
        pairs = dict(choices.items() if isinstance(choices, Mapping) else choices)
        for question_id, value in pairs.items():
            question = BY_ID.get(question_id)
            if question is None:
                raise ValueError(f"no open question {question_id!r} (the questions are {', '.join(BY_ID)})")
            question.reading(value)
        return cls(tuple(sorted((q, v) for q, v in pairs.items() if v != BY_ID[q].site.value)))

    def value(self, question_id: str) -> str:
        """The reading `question_id` is taken in."""
        return dict(self.chosen).get(question_id) or BY_ID[question_id].site.value

    def takes(self, question_id: str, value: str) -> bool:
        """Whether `question_id` is taken in the reading `value`."""
        return self.value(question_id) == value

    @property
    def is_site(self) -> bool:
        return not self.chosen

    @property
    def label(self) -> str:
        """ "id=value, ..." (what `recount --reading` takes), or "site" for the site's readings."""
        return ", ".join(f"{q}={v}" for q, v in self.chosen) or "site"


SITE = Readings()
# The key of the variant taking every question of a methodology in its first other reading.
ALL_OTHER = "all"


def variants(methodology: str) -> list[tuple[str, Readings]]:
    """The readings a board is also computed under, with a key each: every other reading of every question
    alone ("id=value"), then, where there are several questions, every question in its first other reading
    together ("all")."""
    out = [
        (f"{q.id}={r.value}", Readings.of({q.id: r.value})) for q in questions_of(methodology) for r in q.alternatives
    ]
    together = {q.id: q.alternatives[0].value for q in questions_of(methodology) if q.alternatives}
    if len(together) > 1:
        out.append((ALL_OTHER, Readings.of(together)))
    return out


def parse_readings(pairs: Iterable[str], methodology: str) -> Readings:
    """`ID=VALUE` pairs (`recount --reading`), each a question of `methodology`; ValueError naming what is wrong."""
    chosen: dict[str, str] = {}
    for pair in pairs:
        question_id, sep, value = pair.partition("=")
        if not sep or not value:
            raise ValueError(f"--reading {pair!r}: give it as ID=VALUE, e.g. {_example(methodology)}")
        question = BY_ID.get(question_id)
        if question is None or question.methodology != methodology:
            own = ", ".join(q.id for q in questions_of(methodology)) or "none"
            raise ValueError(
                f"--reading {pair!r}: {methodology} has no open question {question_id!r} (its questions: {own})"
            )
        question.reading(value)
        chosen[question_id] = value
    return Readings.of(chosen)


def _example(methodology: str) -> str:
    own = questions_of(methodology)
    return f"{own[0].id}={own[0].alternatives[0].value}" if own else "ID=VALUE"
