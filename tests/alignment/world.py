"""A support desk to align a judge on: runs of three kinds, one labeller, and simulated
judges on the fake server whose mistakes are known.

Every run's answer either starts "Done:" (the humans' pass) or "Sorry:" (fail). The weak
judge gets every *refund claim* wrong, both ways, unless its prompt carries an example
whose input mentions a refund claim, or instructions saying how refund claims are judged;
it also gets the shipping and password runs 3, 8, 13 and 18 wrong whatever it is shown
(errors nothing can fix). The fair judge makes only those errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from judgekit.testing import FakeRequest

KINDS = ("refund", "shipping", "password")
N_PER_KIND = 20
RUBRIC_ID = "support"
JUDGE = "openai/desk-judge"
OPTIMIZER = "openai/desk-optimizer"
REFUND_RULE = "Refund claims: judge by whether the refund was issued."
UNFIXABLE_EVERY = 5  # the shipping and password runs 3, 8, 13 and 18 are misjudged anyway

PROMPT = """\
You grade a support agent's reply.

The customer wrote:
{input}

The agent replied:
{final_answer}

Score "pass" when the reply resolves the request, "fail" when it does not.
"""

RUBRIC = f"""\
# The support desk's rubric.
id: {RUBRIC_ID}
description: Did the reply resolve the customer's request?
scale: binary
prompt: |
{"".join("  " + line + chr(10) if line else chr(10) for line in PROMPT.splitlines())}\
judge: {{model: {JUDGE}, temperature: 0, samples: 1}}
promotion: {{min_labels: 20, min_per_class: 5, min_kappa: 0.6}}
"""

INPUTS = {
    "refund": "I filed a refund claim for order {n}; where is my money?",
    "shipping": "Order {n} has not arrived; can you check the shipping?",
    "password": "I cannot log in to account {n}; please reset my password.",
}
ANSWERS = {
    True: "Done: I took care of it for order {n}.",
    False: "Sorry: I could not do anything about order {n}.",
}
NOTES = {
    "refund": "A refund claim is resolved only once the refund is issued.",
    "shipping": "Tracking shared.",
    "password": "Reset link sent.",
}


def run_id(kind: str, index: int) -> str:
    return f"{kind[0]}-{index:02d}"


def truth(index: int) -> bool:
    return index % 2 == 0


def write_world(folder: Path) -> tuple[Path, Path, Path]:
    """The rubric, runs and labels files of the desk, in ``folder``."""
    (folder / "rubrics").mkdir()
    (folder / "labels").mkdir()
    rubric = folder / "rubrics" / f"{RUBRIC_ID}.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    runs = folder / "runs.jsonl"
    labels = folder / "labels" / f"{RUBRIC_ID}.jsonl"
    run_lines, label_lines = [], []
    for kind in KINDS:
        for index in range(N_PER_KIND):
            rid, n = run_id(kind, index), 100 + index
            run = {
                "run_id": rid,
                "task_id": kind,
                "input": INPUTS[kind].format(n=n),
                "tool_calls": [],
                "final_answer": ANSWERS[truth(index)].format(n=n),
            }
            run_lines.append(json.dumps(run))
            label = {
                "run_id": rid,
                "rubric_id": RUBRIC_ID,
                "label": "pass" if truth(index) else "fail",
                "labeler": "ana",
                "at": datetime(2026, 11, 30, tzinfo=UTC).isoformat(),
                "note": NOTES[kind],
            }
            label_lines.append(json.dumps(label))
    runs.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    labels.write_text("\n".join(label_lines) + "\n", encoding="utf-8")
    return rubric, runs, labels


def _quoted(name: str, text: str) -> str:
    found = re.search(rf"<untrusted_{name}>\n(.*?)\n</untrusted_{name}>", text, re.S)
    assert found is not None, f"no {name} in the prompt"
    return found.group(1)


def _unfixable(asked: str) -> bool:
    number = int(re.findall(r"\d+", asked)[0]) - 100
    return "refund claim" not in asked and number % UNFIXABLE_EVERY == 3


def judge_reply(request: FakeRequest, *, weak: bool, learns_from_examples: bool = True) -> str:
    """The simulated judge's verdict on one request."""
    system, user = request.messages[0]["content"], request.messages[1]["content"]
    asked, answer = _quoted("input", user), _quoted("final_answer", user)
    right = answer.startswith("Done:")
    taught = ("refund claim" in system and learns_from_examples) or REFUND_RULE in user
    wrong = weak and "refund claim" in asked and not taught
    wrong = wrong or _unfixable(asked)
    score = "pass" if right != wrong else "fail"
    return json.dumps({"reason": "read the reply", "score": score})


def optimizer_reply(*, valid: bool) -> str:
    """The optimizer's rewrite: the prompt with a refund rule, or (invalid) without the
    agent's reply."""
    prompt = PROMPT + REFUND_RULE + "\n"
    if not valid:
        prompt = prompt.replace("{final_answer}", "(the reply)")
    return json.dumps({"prompt": prompt})


def desk_server_reply(
    *, weak: bool, valid_rewrite: bool = True, learns_from_examples: bool = True
) -> Callable[[FakeRequest], str]:
    """The fake server's answers: the optimizer's rewrite, or the simulated judge's verdict."""

    def reply(request: FakeRequest) -> str:
        if request.model == OPTIMIZER.split("/")[1]:
            return optimizer_reply(valid=valid_rewrite)
        return judge_reply(request, weak=weak, learns_from_examples=learns_from_examples)

    return reply
