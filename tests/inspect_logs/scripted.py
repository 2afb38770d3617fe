"""A real Inspect eval with no network: a small task and a scripted model provider registered with `@modelapi`.

The provider answers from a script (question -> the answer on the first and the second time it is asked) and
reports usage figures, cache reads included, so that the import can be checked against what Inspect logged.
It overrides `count_text_tokens`, whose default would download a tokenizer's encoding.

With tools (`quiz(tools=True)`), the model first calls the `almanac` tool about the question, then answers from
what the tool returned: the log then holds a tool call, its result and the answer, as a real agent's would.

`python -m tests.inspect_logs.scripted DIR` writes the two logs of the demo's fifth benchmark into DIR.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, ModelUsage, get_model, modelapi
from inspect_ai.scorer import Score, Scorer, Target, accuracy, includes, scorer
from inspect_ai.solver import TaskState, generate, use_tools
from inspect_ai.tool import Tool, tool

QUESTIONS = [
    Sample(id="add", input="What is 17 + 25? Answer with the number.", target="42"),
    Sample(id="capital", input="What is the capital of Portugal?", target="Lisbon"),
    Sample(id=3, input="Which planet is known as the red planet?", target="Mars"),
]
# model -> question id -> the answers to the first and to the second asking (one per epoch).
SCRIPTS = {
    "steady": {"add": ("42", "42"), "capital": ("Lisbon", "Lisbon"), 3: ("Venus", "Mars")},
    "flaky": {"add": ("42", "41"), "capital": ("Porto", "Porto"), 3: ("Mars", "Mars")},
}
SCRIPTS["slow"] = SCRIPTS["steady"]
# What the almanac tool answers, by question id: each entry holds a phrase no other message does.
ALMANAC = {
    "add": "Almanac entry 4417: seventeen and twenty-five make forty-two.",
    "capital": "Almanac entry 2203: Lisbon has been the capital of Portugal since the thirteenth century.",
    "3": "Almanac entry 9031: Mars looks red because of iron oxide dust on its surface.",
}  # right, when it answers before its limit
# The model "slow" takes this long to answer, so that a time or working-time limit of 1 second stops it.
SLOW_SECONDS = 5
USAGE = {"input_tokens": 120, "output_tokens": 8, "input_tokens_cache_read": 900, "input_tokens_cache_write": 30}


@modelapi(name="scripted")
class ScriptedModel(ModelAPI):
    """Answers each question from SCRIPTS[model name], the first time with the first answer, then the second."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: object,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        self.asked: dict[object, int] = {}

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:
        if self.model_name == "broken":
            raise RuntimeError("the scripted provider is down")
        if self.model_name == "slow":
            await anyio.sleep(SLOW_SECONDS)
        question = next((m.text for m in reversed(input) if m.role == "user"), "")
        sample = next((s for s in QUESTIONS if s.input == question), None)
        if tools and sample is not None and input[-1].role == "user":
            # With tools, look the question up first; the answer comes once the tool has returned.
            output = ModelOutput.for_tool_call(self.model_name, "almanac", {"topic": str(sample.id)})
            output.usage = ModelUsage(**USAGE, total_tokens=1058)
            return output
        if sample is None:
            answer = "I do not know."
        else:
            n = self.asked.get(sample.id, 0)
            self.asked[sample.id] = n + 1
            answer = SCRIPTS[self.model_name][sample.id][min(n, 1)]
        output = ModelOutput.from_content(model=self.model_name, content=answer)
        cost = 0.002 if self.model_name == "steady" else None
        output.usage = ModelUsage(**USAGE, total_tokens=1058, total_cost=cost)
        return output

    async def count_text_tokens(self, text: str) -> int:
        return len(text.split())


@scorer(metrics=[accuracy()])
def includes_except(unscored: list[str | int]) -> Scorer:
    """`includes`, except that the samples whose id is in `unscored` get no score at all (Inspect keeps a sample
    without a score when its scorer returns None)."""
    inner = includes()

    async def score(state: TaskState, target: Target) -> Score | None:
        if state.sample_id in unscored:
            return None
        return await inner(state, target)

    return score  # type: ignore[return-value]


@tool
def almanac() -> Tool:
    async def execute(topic: str) -> str:
        """Look a topic up in the almanac.

        Args:
            topic: The question's id.
        """
        return ALMANAC.get(topic, "No entry.")

    return execute


def quiz(
    samples: list[Sample] | None = None, name: str = "quiz", epochs: int = 2, tools: bool = False, **task_args: object
) -> Task:
    """Three samples, two epochs, scored by `includes` (C when the answer contains the target, else I); with
    `tools` the model calls the almanac first."""
    task_args.setdefault("scorer", includes())
    solver = [use_tools([almanac()]), generate()] if tools else generate()
    return Task(dataset=samples or QUESTIONS, solver=solver, epochs=epochs, name=name, **task_args)


def run(models: list[str], log_dir: Path, task: Task | None = None, **eval_args: object) -> list[EvalLog]:
    """Run the quiz against each scripted model; one log per model, written to `log_dir`."""
    # A fresh model per run (Inspect keeps one per name otherwise), so each run's answers start from the script's
    # first answer whatever ran before it in the same process.
    return eval(
        task or quiz(),
        model=[get_model(f"scripted/{m}", memoize=False) for m in models],
        log_dir=str(log_dir),
        display="none",
        max_samples=1,
        **eval_args,
    )


if __name__ == "__main__":
    target = Path(sys.argv[1])
    for log in run(["steady", "flaky"], target, task=quiz(tools=True), log_format="eval"):
        print(log.location)
