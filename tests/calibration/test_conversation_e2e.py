"""A conversation rubric calibrated and promoted on whole conversations.

A LangGraph ReAct agent over ``langchain_openai`` (the fake server its model) serves 30
customers, each on a thread of their own, in two invocations: "Please cancel order N." (it
looks the order up and asks whether to cancel), then "Yes". On a third of the threads it
forgets the order after the "Yes" and asks which one: only the turn before tells that "Yes"
went unanswered. langsmith's own tracer records the 60 traces to a stand-in LangSmith API
(tests/importers/langsmith_stand_in.py), its client's ``list_runs`` reads them back, and they
are exported as a user does. ``judgekit import langsmith --group-by session`` makes each
thread one run; a rubric judging ``{conversation}`` is dry-run and judged through the real
openai SDK against the fake server (a simulated judge, wrong on known threads); the labels
are written through the real LabelWriter; calibrate and promote run as on any runs, their
kappas checked against scikit-learn's on the split they used.
"""

from __future__ import annotations

import json
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score

from judgekit.cli import main
from judgekit.formats.label import Label, item_hash, item_text
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run, load_runs
from judgekit.judging.dry_run import token_counter
from judgekit.judging.prompts import render_judge_prompt
from judgekit.labelling.labels_file import LabelWriter
from judgekit.testing import FakeLLMServer, FakeRequest
from judgekit.testing.logprobs import Reply
from tests.importers.langsmith_stand_in import LangSmithStandIn

langsmith = pytest.importorskip("langsmith", reason="needs langsmith")
tracers = pytest.importorskip("langchain_core.tracers.langchain", reason="needs langchain-core")
tools_module = pytest.importorskip("langchain_core.tools", reason="needs langchain-core")
chat_openai = pytest.importorskip("langchain_openai", reason="needs langchain-openai")
prebuilt = pytest.importorskip("langgraph.prebuilt", reason="needs langgraph")
memory = pytest.importorskip("langgraph.checkpoint.memory", reason="needs langgraph")

PROJECT = "order-desk"
ORDERS = range(1000, 1030)
FORGETS = {order for order in ORDERS if order % 3 == 0}  # the agent asks "Which order?"
JUDGE_ERRS = {order for order in ORDERS if order % 7 == 2}  # the simulated judge is wrong
RUBRIC = """\
id: followed_through
description: Did the agent do what the user agreed to, turn by turn?
scale: binary
applies_to: conversation
prompt: |
  Read the whole conversation. Pass when every request the user confirmed was carried out.
  {conversation}
judge: {model: openai/gpt-4o-mini}
promotion: {min_labels: 10, min_per_class: 3, min_kappa: 0.3, test_share: 0.5}
"""


@tools_module.tool
def lookup_order(order_id: int) -> dict[str, Any]:
    """An order's item and status."""
    return {"order_id": order_id, "item": "lamp", "status": "placed"}


@tools_module.tool
def cancel_order(order_id: int) -> str:
    """Cancel an order."""
    return f"order {order_id} cancelled"


def agent_reply(request: FakeRequest) -> Reply:
    """The agent's model: look the order up and ask; on "Yes", cancel it and say so, or (on
    the threads it forgets) ask which order."""
    messages = request.body["messages"]
    asked = max(n for n, message in enumerate(messages) if message["role"] == "user")
    first = next(m["content"] for m in messages if m["role"] == "user")
    order = int(re.findall(r"\d+", first)[0])
    called = any(message["role"] == "tool" for message in messages[asked:])
    if messages[asked]["content"] != "Yes":
        if called:
            return Reply(f"Order {order} is a lamp, not shipped yet. Shall I cancel it?")
        return _call("lookup_order", order, asked)
    if order in FORGETS:
        return Reply("Which order do you mean?")
    if called:
        return Reply(f"Done: order {order} is cancelled.")
    return _call("cancel_order", order, asked)


def _call(name: str, order: int, turn: int) -> Reply:
    call = {"id": f"call_{order}_{turn}", "type": "function",
            "function": {"name": name, "arguments": json.dumps({"order_id": order})}}  # fmt: skip
    return Reply("", tool_calls=(call,))


def judge_reply(request: FakeRequest) -> str:
    """A judge that reads the conversation: a pass when the order was cancelled after the
    user's "Yes", flipped on the threads in JUDGE_ERRS."""
    text = request.messages[-1]["content"]
    order = int(re.findall(r"cancel order (\d+)", text)[0])
    after_yes = text.split('{"user": "Yes"}', 1)[1]
    cancelled = '"name": "cancel_order"' in after_yes
    passed = cancelled != (order in JUDGE_ERRS)
    return json.dumps({"reason": "read every turn", "score": "pass" if passed else "fail"})


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The LangSmith export of the 60 invocations, one run a line."""
    with pytest.MonkeyPatch.context() as env:
        for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY"):
            env.delenv(name, raising=False)  # only the tracer given here records
        with LangSmithStandIn(PROJECT) as stand_in:
            client = langsmith.Client(api_url=stand_in.url, api_key="placeholder")
            tracer = tracers.LangChainTracer(project_name=PROJECT, client=client)
            with FakeLLMServer(agent_reply) as server:
                _serve(server, tracer)
            tracer.wait_for_futures()
            client.flush()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # list_runs, as exports do
                runs = list(langsmith.Client(api_url=stand_in.url, api_key="placeholder")
                            .list_runs(project_name=PROJECT))  # fmt: skip
    assert stand_in.unexpected == []
    path = tmp_path_factory.mktemp("langsmith") / "order-desk-runs.jsonl"
    path.write_text("".join(run.model_dump_json() + "\n" for run in runs))
    return path


def _serve(server: FakeLLMServer, tracer: Any) -> None:
    model = chat_openai.ChatOpenAI(
        model="gpt-4o-mini", base_url=server.openai_base_url, api_key="test", max_retries=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated for langchain's own
        agent = prebuilt.create_react_agent(
            model, [lookup_order, cancel_order], checkpointer=memory.InMemorySaver()
        )
    for order in ORDERS:
        config: dict[str, Any] = {"configurable": {"thread_id": f"order-{order}"}}
        config["callbacks"] = [tracer]
        for said in (f"Please cancel order {order}.", "Yes"):
            agent.invoke({"messages": [("user", said)]}, config)


def invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(main, [str(arg) for arg in args])


def _sides() -> dict[str, str]:
    sides: dict[str, str] = {}
    for line in Path("labels/followed_through.split.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if "side" in entry:
            sides.setdefault(entry["run_id"], entry["side"])
    return sides


def _kappa(human: dict[str, str], judged: dict[str, str], runs: list[str]) -> float:
    return float(cohen_kappa_score([human[r] for r in runs], [judged[r] for r in runs]))


RUBRIC_PATH = "rubrics/followed_through.yaml"


def _imported(export: Path) -> dict[str, Run]:
    """The export imported by session: each thread one run of both its turns."""
    imported = invoke("import", "langsmith", export, "-o", "runs.jsonl", "--group-by", "session")
    assert imported.exit_code == 0, imported.output
    assert imported.output.startswith("imported 30 runs with 50 tool calls (0 tool errors, ")
    runs = {run.run_id: run for run in load_runs("runs.jsonl")}
    assert list(runs) == [f"order-{order}" for order in ORDERS]
    for order in ORDERS:
        run = runs[f"order-{order}"]
        assert len(run.metadata["trace_ids"]) == 2
        cancelled = order not in FORGETS
        last = f"Done: order {order} is cancelled." if cancelled else "Which order do you mean?"
        assert [(m.role, m.content, m.after_tool_calls) for m in run.messages] == [
            ("user", f"Please cancel order {order}.", 0),
            ("assistant", f"Order {order} is a lamp, not shipped yet. Shall I cancel it?", 1),
            ("user", "Yes", 1),
            ("assistant", last, 2 if cancelled else 1),
        ]
        assert [c.name for c in run.tool_calls] == ["lookup_order"] + ["cancel_order"] * cancelled
    return runs


def _dry_run_counts_the_filled_prompts(runs: dict[str, Run]) -> None:
    planned = invoke("judge", "runs.jsonl", "--rubric", RUBRIC_PATH, "--dry-run", "--json")
    assert planned.exit_code == 0, planned.output
    plan = json.loads(planned.stdout)
    rubric = load_rubric(RUBRIC_PATH)
    counter = token_counter("openai/gpt-4o-mini")
    prompts = [render_judge_prompt(rubric, run) for run in runs.values()]
    assert plan["input_tokens"] == sum(counter.prompt_tokens(p) for p in prompts)
    assert plan["first_prompt"][1]["content"] == prompts[0][1].content
    assert '{"user": "Yes"}' in plan["first_prompt"][1]["content"]


def _judged() -> dict[str, str]:
    with FakeLLMServer(reply=judge_reply) as server:
        url = server.openai_base_url
        judged = invoke(
            "judge", "runs.jsonl", "--rubric", RUBRIC_PATH, "--base-url", url, "--out", "out",
            "--no-store",
        )  # fmt: skip
        assert judged.exit_code == 0, judged.output
        assert server.calls == 30
    lines = Path("out/verdicts.jsonl").read_text().splitlines()
    return {v["run_id"]: v["score"] for v in map(json.loads, lines)}


def _label(runs: dict[str, Run], human: dict[str, str]) -> None:
    """Ana's labels, each of the conversation text she read."""
    at = datetime(2026, 12, 1, tzinfo=UTC)
    with LabelWriter("labels/followed_through.jsonl") as writer:
        writer.append_many(
            Label(
                run_id=run_id,
                rubric_id="followed_through",
                label=label,
                labeler="ana",
                at=at,
                item_hash=item_hash(item_text(runs[run_id])),
            )
            for run_id, label in human.items()
        )


def test_a_conversation_rubric_is_calibrated_and_promoted_on_grouped_traces(
    export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    runs = _imported(export)
    Path("rubrics").mkdir()
    Path(RUBRIC_PATH).write_text(RUBRIC)
    _dry_run_counts_the_filled_prompts(runs)
    verdicts = _judged()
    human = {f"order-{o}": "fail" if o in FORGETS else "pass" for o in ORDERS}
    assert {r for r in human if verdicts[r] != human[r]} == {f"order-{o}" for o in JUDGE_ERRS}
    _label(runs, human)

    verdicts_file = "out/verdicts.jsonl"
    calibrated = invoke(
        "calibrate", "--rubric", RUBRIC_PATH, "--verdicts", verdicts_file, "--no-store", "--json"
    )
    assert calibrated.exit_code == 0, calibrated.output
    report = json.loads(calibrated.stdout)
    sides = _sides()
    dev = [r for r in human if sides[r] == "dev"]
    test = [r for r in human if sides[r] == "test"]
    assert (len(dev), len(test)) == (15, 15)
    assert report["n"] == len(dev)
    assert report["kappa"] == pytest.approx(_kappa(human, verdicts, dev), abs=1e-9)

    promoted = invoke("promote", "--rubric", RUBRIC_PATH, "--verdicts", verdicts_file, "--no-store")
    assert promoted.exit_code == 0, promoted.output
    record = json.loads(Path("rubrics/followed_through.promotion.json").read_text())
    assert record["n"] == len(test)
    assert record["kappa"] == pytest.approx(_kappa(human, verdicts, test), abs=1e-9)
    assert (round(report["kappa"], 4), record["kappa"]) == (0.7273, 0.7)  # the split is seeded
    assert "promoted on 15 fresh test labels, kappa 0.700 [0.315, 1.000]" in promoted.output
