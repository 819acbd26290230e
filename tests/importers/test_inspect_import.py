"""Inspect AI eval logs imported as runs: logs written by the real inspect_ai (its mock model
scripted to call a tool that answers once and fails once), in both of its formats, and
hand-made malformed logs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import DataError
from judgekit.importers.inspect_log import IMPORTER, import_inspect, looks_like_inspect_log
from judgekit.importers.interface import ImportOptions
from judgekit.importers.json_values import file_head

ANSWER = "It is 21 degrees in Paris."


def _sample(**fields: Any) -> dict[str, Any]:
    return {"id": "s1", "epoch": 1, "messages": [], **fields}


def _hand_log(samples: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": samples}


def _hand_log_value(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return _hand_log([_sample(messages=messages)])


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2))
    return path


def _write_log(log_dir: Path, log_format: str) -> Path:
    inspect_ai = pytest.importorskip("inspect_ai", reason="inspect_ai writes the logs under test")
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import ToolError, tool

    @tool
    def lookup():  # type: ignore[no-untyped-def]
        async def execute(city: str) -> str:
            """Look up the weather.

            Args:
                city: the city
            """
            if city == "Atlantis":
                raise ToolError("no such city")
            return '{"temp": 21}'

        return execute

    def used(output: ModelOutput, tokens_in: int, tokens_out: int) -> ModelOutput:
        # Usage given: the mock model would otherwise count tokens with tiktoken (online).
        output.usage = ModelUsage(
            input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
        )
        return output

    model_name = "mockllm/model"
    outputs = []
    for _ in range(2):  # two epochs
        outputs += [
            used(ModelOutput.for_tool_call(model_name, "lookup", {"city": "Paris"}), 10, 3),
            used(ModelOutput.for_tool_call(model_name, "lookup", {"city": "Atlantis"}), 20, 4),
            used(ModelOutput.from_content(model_name, ANSWER), 30, 5),
        ]
    task = inspect_ai.Task(
        dataset=[Sample(input="Weather in Paris?", target="21", id="paris")],
        solver=[use_tools(lookup()), generate()],
        scorer=includes(),
        name="weather",
        epochs=2,
    )
    model = get_model(model_name, custom_outputs=outputs)
    logs = inspect_ai.eval(
        task, model=model, log_dir=str(log_dir), log_format=log_format, display="none",
        max_samples=1,
    )  # fmt: skip
    assert logs[0].status == "success"
    return Path(logs[0].location)


@pytest.fixture(scope="module", params=["json", "eval"])
def inspect_log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_log(tmp_path_factory.mktemp("inspect"), request.param)


def test_each_sample_and_epoch_is_one_run_with_its_tool_calls(inspect_log: Path) -> None:
    runs = list(import_inspect(inspect_log))
    assert [(run.run_id, run.task_id, run.trial) for run in runs] == [
        ("weather/paris/1", "paris", 1),
        ("weather/paris/2", "paris", 2),
    ]
    for run in runs:
        calls = [
            (call.name, call.args, call.result, call.error, call.id is not None)
            for call in run.tool_calls
        ]
        assert calls == [
            ("lookup", {"city": "Paris"}, {"temp": 21}, None, True),
            ("lookup", {"city": "Atlantis"}, "", "no such city", True),
        ]
        assert run.input == "Weather in Paris?"
        assert run.final_answer == ANSWER
        assert run.turns == 3
        assert run.usage is not None
        assert run.usage.model_dump() == {
            "input_tokens": 60,
            "output_tokens": 12,
            "total_tokens": 72,
        }
        assert run.stop_reason is None
        assert run.metadata["model"] == "mockllm/model"
        assert run.metadata["target"] == "21"
        assert run.metadata["scores"]["includes"]["value"] == "C"


def test_the_log_agrees_with_inspect_ais_own_reader(inspect_log: Path) -> None:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(inspect_log))
    assert log.samples is not None
    runs = list(import_inspect(inspect_log))
    for sample, run in zip(log.samples, runs, strict=True):
        called = [
            call.id for m in sample.messages if m.role == "assistant" for call in m.tool_calls or []
        ]
        assert [call.id for call in run.tool_calls] == called
        assert run.usage is not None
        assert run.usage.input_tokens == sum(u.input_tokens for u in sample.model_usage.values())


def test_the_json_log_is_sniffed_as_inspect(tmp_path: Path) -> None:
    path = _write_log(tmp_path, "json")
    assert looks_like_inspect_log(file_head(path))
    from judgekit.importers.registry import sniff

    assert sniff(path) == "inspect"


def test_a_sample_that_hit_its_message_limit_stopped_at_max_turns(tmp_path: Path) -> None:
    log = _hand_log([_sample(limit={"type": "message", "limit": 2})])
    path = _write(tmp_path / "limit.json", log)
    (run,) = import_inspect(path)
    assert run.stop_reason == "max_turns"
    assert run.metadata["limit"] == {"type": "message", "limit": 2}


def test_unparsed_arguments_are_kept_and_flagged(tmp_path: Path) -> None:
    call = {"id": "c1", "function": "lookup", "arguments": {}, "parse_error": "bad JSON"}
    sample = _sample(messages=[{"role": "assistant", "content": "", "tool_calls": [call]}])
    (run,) = import_inspect(_write(tmp_path / "log.json", _hand_log([sample])))
    assert run.tool_calls[0].arguments_error == "bad JSON"
    assert run.tool_calls[0].raw_arguments == "{}"


@pytest.mark.parametrize(
    ("log", "message"),
    [
        (
            {"version": 2, "status": "success"},
            "log.json: eval: required field is missing (expected an Inspect AI eval log: one "
            "JSON object with `eval` and `samples`)",
        ),
        (
            {"version": 2, "status": "error", "eval": {"task": "weather"}},
            "log.json: samples: the eval failed before any sample was logged: nothing to import",
        ),
        (
            {"version": 2, "status": "success", "eval": {"task": "weather"}},
            "log.json: samples: the log holds no samples (status 'success'); write it with "
            "samples (not --no-log-samples)",
        ),
        (
            {"version": 2, "status": "success", "eval": {}, "samples": []},
            "log.json: eval.task: required field is missing (expected a string)",
        ),
        (
            {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": [{"id": []}]},
            "log.json: samples[0].id: expected a sample id (a string or a number), got a list",
        ),
        (
            _hand_log_value(
                [{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": 3}]}]
            ),
            "log.json: samples[0].messages[0].tool_calls[0].function: expected a string, got "
            "the number 3",
        ),
        (
            _hand_log_value([{"role": "robot", "content": "hi"}]),
            "log.json: samples[0].messages[0].role: unknown role 'robot'; valid roles: system, "
            "user, assistant, tool",
        ),
        (
            _hand_log_value([{"role": "tool", "tool_call_id": "c", "content": "x", "error": "x"}]),
            "log.json: samples[0].messages[0].error: expected an error object with `type` and "
            "`message`, got the string 'x'",
        ),
    ],
)
def test_a_malformed_log_names_the_field(tmp_path: Path, log: Any, message: str) -> None:
    path = _write(tmp_path / "log.json", log)
    with pytest.raises(DataError) as caught:
        list(import_inspect(path))
    assert str(caught.value) == message.replace("log.json", str(path), 1)


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text('{\n  "version": 2,\n  "eval": {"task": "t"\n')
    with pytest.raises(DataError) as caught:
        list(import_inspect(path))
    assert str(caught.value).startswith(f"{path}:4: malformed JSON at column 1:")


def test_an_eval_file_that_is_no_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.eval"
    path.write_text("not a zip")
    with pytest.raises(DataError) as caught:
        list(import_inspect(path))
    assert (
        str(caught.value)
        == f"{path}: not an Inspect .eval log (a zip file): File is not a zip file"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("samples/a_epoch_1.json", "{}")
    with pytest.raises(DataError) as caught:
        list(import_inspect(path))
    assert str(caught.value) == f"{path}: not an Inspect .eval log: no header.json in the zip"


def test_the_importer_reads_through_the_interface(tmp_path: Path) -> None:
    path = _write(tmp_path / "log.json", _hand_log([_sample(), _sample()]))
    runs = list(IMPORTER.read(path, ImportOptions()))
    assert [run.run_id for run in runs] == ["t/s1/1", "t/s1/1#2"]
    assert runs[1].metadata["original_run_id"] == "t/s1/1"


def test_the_command_imports_a_log_and_other_importers_name_it(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judgekit.cli.main import main
    from judgekit.formats.run import load_runs

    log = _write_log(tmp_path / "logs", "eval")
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "inspect", str(log), "-o", str(runs)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 2 runs with 4 tool calls (2 tool errors, 0 with invalid arguments) to {runs}\n"
    )
    assert [run.run_id for run in load_runs(runs)] == ["weather/paris/1", "weather/paris/2"]
    json_log = _write_log(tmp_path / "json_logs", "json")
    for other in ("openai", "langsmith", "otel"):
        refused = tmp_path / f"{other}.jsonl"
        result = CliRunner().invoke(main, ["import", other, str(json_log), "-o", str(refused)])
        assert result.exit_code == 2
        assert result.output == (
            f"judgekit: error: {json_log}: this looks like an Inspect AI eval log; "
            "try `judgekit import inspect`\n"
        )
        assert not refused.exists()


def test_a_malformed_log_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judgekit.cli.main import main

    path = _write(tmp_path / "log.json", _hand_log([_sample(), _sample(id=[])]))
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "inspect", str(path), "-o", str(runs)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {path}: samples[1].id: expected a sample id (a string or a number), "
        "got a list\n"
    )
    assert not runs.exists()


def test_content_stored_as_an_attachment_is_read_back(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "attachment://q1"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "function": "lookup", "arguments": {"city": "tc://city"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [
            {"type": "text", "text": "attachment://r1"}]},
        {"role": "assistant", "content": "attachment://missing"},
    ]  # fmt: skip
    attachments = {"q1": "Weather in Paris?", "city": "Paris", "r1": '{"temp": 21}'}
    sample = _sample(messages=messages, attachments=attachments)
    (run,) = import_inspect(_write(tmp_path / "log.json", _hand_log([sample])))
    assert run.input == "Weather in Paris?"
    assert (run.tool_calls[0].args, run.tool_calls[0].result) == ({"city": "Paris"}, {"temp": 21})
    assert run.final_answer == "attachment://missing"  # a reference with no attachment stays
