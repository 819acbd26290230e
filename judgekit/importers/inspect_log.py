"""Runs from Inspect AI eval logs: each sample (and epoch) of the log is one run.

An Inspect log is a ``.json`` file (one object: ``eval``, ``samples``, ...) or an ``.eval``
zip holding ``header.json`` and one ``samples/<id>_epoch_<n>.json`` per sample; both are
read with the standard library, never with inspect_ai. In a sample, assistant messages
carry ``tool_calls`` (``function``, ``arguments`` as an object) and ``tool`` messages answer
them by ``tool_call_id``, with an ``error`` object when the tool failed. A run's id is
``<task>/<sample id>/<epoch>``, its task the sample id, its trial the epoch; usage is summed
over the sample's ``model_usage``; the sample's scores, target and metadata are kept in the
run's metadata.

A ``.eval`` member is read within :data:`MEMBER_MAX_BYTES`: one that says it holds more is
refused before it is read, and since a zip may lie about its sizes each member is inflated
a piece at a time and refused once it passes the limit, so a 3 MB log whose member
inflates to 3 GiB costs neither the memory nor the time.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit._util.input_paths import open_regular, reading
from judgekit._util.jsonl import parse_json, read_json_document
from judgekit._util.number_format import whole
from judgekit._util.terminal_text import visible
from judgekit.errors import DataError
from judgekit.formats.run import Run, StopReason, ToolCall
from judgekit.importers.conversations import Conversation, Message
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.locations import (
    Location,
    as_object,
    describe_json,
    optional_string,
    required_string,
)
from judgekit.importers.run_draft import RunDraft, error_message, id_key, parse_result
from judgekit.importers.zip_members import MemberTooLarge, UnreadableMember, read_member

__all__ = ["IMPORTER", "import_inspect", "looks_like_inspect_log"]

INSPECT_ROLES = ("system", "user", "assistant", "tool")
_LOG_SHAPE = "an Inspect AI eval log: one JSON object with `eval` and `samples`"
# Inspect's limits (sample.limit.type) as judgekit stop reasons; a limit with no
# counterpart ("token", "context", "operator", "custom") ends the run as "error" and is
# kept in metadata["limit"].
_LIMIT_STOPS: dict[str, StopReason] = {
    "message": "max_turns",
    "time": "timeout",
    "working": "timeout",
    "cost": "max_cost",
}
_ERROR_SHOWN = 300  # characters of a failed eval's error message an error repeats
MEMBER_MAX_BYTES = 256 * 2**20
"""The most a member of a ``.eval`` log (``header.json``, one sample) may inflate to: far
above a sample's usual size (kilobytes to a few megabytes, long agent transcripts with
images tens of megabytes), well below what would exhaust memory once parsed."""


def looks_like_inspect_log(head: object) -> bool:
    """True for the head of an Inspect JSON log: ``version``, ``status`` and an ``eval``
    object naming its ``task``."""
    return (
        isinstance(head, dict)
        and isinstance(head.get("eval"), dict)
        and "task" in head["eval"]
        and "status" in head
        and "version" in head
    )


def import_inspect(
    path: str | Path,
    options: ImportOptions | None = None,
    *,
    member_max_bytes: int = MEMBER_MAX_BYTES,
) -> Iterator[Run]:
    """Stream the runs of an Inspect AI eval log (``.json``, ``.json.gz`` or ``.eval``)::

        for run in import_inspect("logs/2026-01-01_weather.eval"):
            print(run.run_id, run.metadata["scores"])

    A malformed log raises :class:`judgekit.errors.DataError` naming the file, the line
    (for a JSON log) and the field; so does a ``.eval`` member that inflates past
    ``member_max_bytes``.
    """
    source = Path(path)
    options = options if options is not None else ImportOptions()
    if source.suffix == ".eval":
        header, samples = _zipped_log(source, member_max_bytes)
    else:
        header, samples = _json_log(source)
    task = _task_name(header, Location(source).key("eval"))
    runs = (_run(sample, where, task, header) for sample, where in samples)
    return options.run_ids.apply(runs)


def _json_log(path: Path) -> tuple[dict[str, Any], Iterator[tuple[Any, Location]]]:
    root = Location(path)
    log = as_object(read_json_document(path, expected=f"expected {_LOG_SHAPE}"), root, _LOG_SHAPE)
    if "eval" not in log:
        raise root.key("eval").error(f"required field is missing (expected {_LOG_SHAPE})")
    _task_name(log, root.key("eval"))  # a log naming no task is malformed, samples or not
    samples = log.get("samples")
    if samples is None or samples == []:
        raise _no_samples(log, root.key("samples"))
    if not isinstance(samples, list):
        raise root.key("samples").error(f"expected a list of samples, got {describe_json(samples)}")
    where = root.key("samples")
    return log, ((sample, where.item(number)) for number, sample in enumerate(samples))


def _no_samples(header: dict[str, Any], where: Location) -> DataError:
    """Why a log holds no sample: its eval failed (with its error, if the log says it), or
    it was written without them."""
    status = header.get("status")
    if status == "error":
        error = header.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        message = message if isinstance(message, str) and message.strip() else None
        said = f" ({visible(message, one_line=True)[:_ERROR_SHOWN]})" if message else ""
        return where.error(f"the eval failed{said} before any sample was logged: nothing to import")
    return where.error(
        f"the log holds no samples (status {status!r}); write it with samples "
        "(not --no-log-samples)"
    )


def _zipped_log(path: Path, limit: int) -> tuple[dict[str, Any], Iterator[tuple[Any, Location]]]:
    with reading(path):
        raw = open_regular(path)  # a FIFO or a device is refused before it is read
    try:
        archive = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, OSError) as exc:
        raw.close()
        raise DataError(f"not an Inspect .eval log (a zip file): {exc}", path=path) from None
    names = archive.namelist()
    if "header.json" not in names:
        raise DataError("not an Inspect .eval log: no header.json in the zip", path=path)
    header_json = _member(archive, "header.json", path, limit)
    header = as_object(header_json, Location(path).key("header.json"))
    members = [name for name in names if name.startswith("samples/") and name.endswith(".json")]
    if not members:
        raise _no_samples(header, Location(path).key("samples"))
    samples = ((_member(archive, name, path, limit), Location(path).key(name)) for name in members)
    return header, samples


def _member(archive: zipfile.ZipFile, name: str, path: Path, limit: int) -> Any:
    try:
        data = read_member(archive, name, limit)
    except MemberTooLarge as exc:
        raise DataError(
            f"{name}: {exc}, more than the {whole(limit / 2**20)} MiB a member of a .eval log "
            "may hold",
            path=path,
        ) from None
    except UnreadableMember as exc:
        raise DataError(f"{name}: cannot read it from the zip: {exc}", path=path) from None
    try:
        return parse_json(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{name}: malformed JSON: {exc}", path=path) from None


def _task_name(header: dict[str, Any], where: Location) -> str:
    spec = as_object(header.get("eval"), where, "an object naming the `task`")
    return required_string(spec, "task", where)


def _run(raw: Any, where: Location, task: str, header: dict[str, Any]) -> Run:
    sample = as_object(raw, where, "a sample object with `id`, `epoch` and `messages`")
    sample_id = _sample_id(sample.get("id"), where.key("id"))
    epoch = sample.get("epoch", 1)
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        raise where.key("epoch").error(f"expected a whole number, got {describe_json(epoch)}")
    messages = sample.get("messages")
    if not isinstance(messages, list):
        raise where.key("messages").error(
            f"expected a list of messages, got {describe_json(messages)}"
        )
    attachments = sample.get("attachments")
    if isinstance(attachments, dict) and attachments:
        messages = _resolved(messages, attachments)
        sample = {**sample, "output": _resolved(sample.get("output"), attachments)}
    carried = {
        "run_id": f"{task}/{sample_id}/{epoch}",
        "task_id": sample_id,
        "trial": epoch,
        "duration_s": sample.get("total_time"),
        **_stop(sample, where),
    }
    metadata = _metadata(sample, header)
    draft = RunDraft(Conversation(where, 0, messages, where.key("messages"), carried, metadata))
    for message in draft.conversation.iter_messages(INSPECT_ROLES):
        _read_message(message, draft)
    _read_output(sample, where, draft)
    _read_usage(sample, where, draft)
    return draft.finish(default_task_id=None)


def _resolved(value: Any, attachments: dict[str, Any]) -> Any:
    """``value`` with each ``attachment://HASH`` text (``tc://`` in older logs) replaced by
    the sample's attachment: Inspect stores long or repeated content once, by reference."""
    if isinstance(value, str):
        for prefix in ("attachment://", "tc://"):
            if value.startswith(prefix):
                found = attachments.get(value.removeprefix(prefix))
                return found if isinstance(found, str) else value
        return value
    if isinstance(value, list):
        return [_resolved(item, attachments) for item in value]
    if isinstance(value, dict):
        return {key: _resolved(item, attachments) for key, item in value.items()}
    return value


def _sample_id(value: Any, where: Location) -> str:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise where.error(f"expected a sample id (a string or a number), got {describe_json(value)}")


def _stop(sample: dict[str, Any], where: Location) -> dict[str, Any]:
    if sample.get("error") is not None:
        return {"stop_reason": "error"}
    limit = sample.get("limit")
    if limit is None:
        return {}
    kind = required_string(as_object(limit, where.key("limit")), "type", where.key("limit"))
    return {"stop_reason": _LIMIT_STOPS.get(kind, "error")}


def _metadata(sample: dict[str, Any], header: dict[str, Any]) -> dict[str, Any]:
    spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    found = {
        "model": spec.get("model") if isinstance(spec, dict) else None,
        "target": sample.get("target"),
        "scores": sample.get("scores"),
        "limit": sample.get("limit"),
        "error": _error_text(sample.get("error")),
        "sample_metadata": sample.get("metadata") or None,
        "uuid": sample.get("uuid"),
    }
    return {key: value for key, value in found.items() if value is not None}


def _error_text(error: Any) -> str | None:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error_message(error["message"])
    return None if error is None else error_message(json.dumps(error))


def _read_message(message: Message, draft: RunDraft) -> None:
    if message.role == "user":
        draft.add_user_text(message.text())
    elif message.role == "assistant":
        draft.add_assistant_message(message.text())
        _read_tool_calls(message, draft)
    elif message.role == "tool":
        call_id = optional_string(message.data, "tool_call_id", message.where)
        text = message.text()
        draft.add_result(id_key(call_id), parse_result(text), _tool_error(message, text))


def _read_tool_calls(message: Message, draft: RunDraft) -> None:
    calls_where = message.where.key("tool_calls")
    calls = message.data.get("tool_calls") or []
    if not isinstance(calls, list):
        raise calls_where.error(f"expected a list of tool calls, got {describe_json(calls)}")
    for number, entry in enumerate(calls):
        where = calls_where.item(number)
        call = as_object(entry, where, "a tool call object with `id`, `function` and `arguments`")
        call_id = optional_string(call, "id", where)
        name = required_string(call, "function", where)
        draft.add_call(_tool_call(call, name, call_id, where), id_key(call_id))


def _tool_call(call: dict[str, Any], name: str, call_id: str | None, where: Location) -> ToolCall:
    arguments = call.get("arguments", {})
    problem = optional_string(call, "parse_error", where)
    if isinstance(arguments, dict) and problem is None:
        return ToolCall(name=name, args=arguments, id=call_id)
    # Inspect keeps arguments it could not parse beside its parse_error; so does judgekit.
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    reason = problem or f"arguments are {describe_json(arguments)}, not an object"
    return ToolCall(name=name, id=call_id, raw_arguments=raw, arguments_error=reason)


def _tool_error(message: Message, text: str | None) -> str | None:
    error = message.data.get("error")
    if error is None:
        return None
    where = message.where.key("error")
    detail = as_object(error, where, "an error object with `type` and `message`")
    return error_message(optional_string(detail, "message", where) or text)


def _read_output(sample: dict[str, Any], where: Location, draft: RunDraft) -> None:
    output = sample.get("output")
    if output is None:
        return
    output = as_object(output, where.key("output"), "a model output object")
    completion = optional_string(output, "completion", where.key("output"))
    if draft.final_answer is None and completion:
        draft.final_answer = completion
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = choices[0].get("stop_reason")
        if isinstance(reason, str) and reason not in ("stop", "tool_calls"):
            draft.conversation.metadata["model_stop_reason"] = reason


def _read_usage(sample: dict[str, Any], where: Location, draft: RunDraft) -> None:
    usage_where = where.key("model_usage")
    by_model = as_object(sample.get("model_usage") or {}, usage_where, "usage by model")
    cost = 0.0
    for model, usage in by_model.items():
        draft.add_usage(usage, usage_where.key(model))
        model_cost = usage.get("total_cost")
        if isinstance(model_cost, int | float) and not isinstance(model_cost, bool):
            cost += model_cost
    if cost:
        draft.conversation.carried["cost_usd"] = cost


IMPORTER = Importer(
    name="inspect",
    what="an Inspect AI eval log",
    looks_like=looks_like_inspect_log,
    read=import_inspect,
    binary_suffixes=(".eval",),
    details="An Inspect AI eval log (.json, or .eval as inspect writes it): each sample and "
    "epoch is one run, <task>/<sample id>/<epoch>, its task the sample id; tool calls from "
    "the assistant messages with the tool messages' results and errors; usage summed over "
    "the sample's models; scores, target and limit kept in the run's metadata.",
)
