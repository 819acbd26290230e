"""Berkeley Function-Calling Leaderboard (BFCL) entries as judgekit tasks and runs.

An entry holds the function docs, BFCL's possible answer (per call, per argument, a list of
acceptable values, ``""`` marking an optional argument) and a model's output. The task says
what BFCL's AST checker accepts, in judgekit's matcher language:

- every argument becomes ``{$one_of: [...]}``; ``""`` becomes ``$optional: true`` unless the
  function doc lists the argument as required (BFCL checks required arguments first); an
  explicit ``""`` stays acceptable where BFCL's type check lets a string through (a
  ``string``/``any`` argument, or one whose answers are strings), required or not;
- no argument outside the possible answer (``extra_args: forbid``);
- simple and multiple categories expect exactly one call (``strict``), parallel ones the same
  calls in any order (``unordered``), irrelevance ones no call at all;
- strings the doc types as ``string``/``any`` (and strings in lists and dicts) compare as
  BFCL compares them, ignoring case, spaces and ``,./-_*^``: a ``$regex``
  (:mod:`judgekit.importers.bfcl_strings`);
- ``integer`` arguments get ``$type: int`` (BFCL refuses 5.0 for an integer, accepts 5 for a
  float);
- Java and JavaScript arguments are source-code strings that BFCL converts by the doc type:
  they get ``$type: str``, and each typed value the spellings BFCL's converter reads as it
  (``true`` only, ``42L`` for a Java long; :mod:`judgekit.importers.bfcl_source`).
  Collection literals (``new ArrayList<>(...)``, ``{a: 1}``) have no judgekit equivalent.

The run holds the model's calls; arguments that are not a JSON object are kept and flagged
(``raw_arguments``, ``arguments_error``); output that is not a list of calls is plain text,
kept as the final answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from judgekit._util.jsonl import iter_json_lines, parse_json
from judgekit.errors import DataError
from judgekit.formats.run import Run, ToolCall
from judgekit.formats.task import ExpectedCall, OrderMode, Task
from judgekit.importers.bfcl_calls import CallTextError, decode_call_text
from judgekit.importers.bfcl_source import SCALAR_SOURCE_TYPES, source_value_spec
from judgekit.importers.bfcl_strings import bfcl_text_spec
from judgekit.importers.bfcl_usage import bfcl_latency, bfcl_usage

__all__ = ["NOTHING_ACCEPTABLE", "bfcl_run", "bfcl_task", "language_of", "load_bfcl"]

Language = Literal["python", "java", "javascript"]
Spec = Any  # a matcher spec: a plain value or a {$op: ...} mapping

# BFCL's possible answers mark an optional argument with an empty string among the values.
OPTIONAL_MARK = ""

# BFCL accepts nothing for an argument whose list of values is empty; `$one_of` refuses an
# empty list, and a regex that matches no string (a non-string never matches a regex) says it.
NOTHING_ACCEPTABLE: dict[str, Any] = {"$regex": "(?!)"}

# Doc types by how BFCL compares their values (Python, Java and JavaScript names together).
_TEXT_TYPES = {"string", "any", "String", "char"}
_LIST_TYPES = {"array", "tuple", "Array", "ArrayList"}
_DICT_TYPES = {"dict", "HashMap"}


def language_of(category: str) -> Language:
    """The language BFCL checks a category's arguments in."""
    if category.endswith("javascript"):
        return "javascript"
    if category.endswith("java"):
        return "java"
    return "python"


def _order_of(category: str) -> OrderMode:
    return "unordered" if "parallel" in category else "strict"


def _expects_no_call(category: str) -> bool:
    return "irrelevance" in category


def _question_text(entry: dict[str, Any]) -> str | None:
    """The user messages of the entry's question, one per line."""
    turns = entry.get("question") or []
    texts = [
        str(message.get("content", ""))
        for turn in turns
        if isinstance(turn, list)
        for message in turn
        if isinstance(message, dict) and message.get("role") == "user"
    ]
    return "\n".join(texts) or None


# ---------------------------------------------------------------- task: possible answer


def bfcl_task(entry: dict[str, Any]) -> Task:
    """The judgekit task for one BFCL entry: the calls BFCL's AST checker accepts."""
    category = str(entry["category"])
    metadata = {"source": "bfcl", "category": category, "language": language_of(category)}
    if _expects_no_call(category):
        return Task(
            id=str(entry["id"]),
            input=_question_text(entry),
            expect_tools=[],
            order="strict",
            metadata=metadata,
        )
    docs = {doc["name"]: doc for doc in entry.get("function") or [] if isinstance(doc, dict)}
    expected = [
        _expected_call(name, arguments, docs.get(name), language_of(category))
        for call in entry.get("possible_answer") or []
        for name, arguments in call.items()
    ]
    return Task(
        id=str(entry["id"]),
        input=_question_text(entry),
        expect_tools=expected,
        order=_order_of(category),
        extra_args="forbid",
        metadata=metadata,
    )


def _expected_call(
    name: str, arguments: dict[str, list[Any]], doc: dict[str, Any] | None, language: Language
) -> ExpectedCall:
    parameters = (doc or {}).get("parameters") or {}
    schemas: dict[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    return ExpectedCall(
        name=name,
        args={
            argument: _argument_spec(values, schemas.get(argument), argument in required, language)
            for argument, values in arguments.items()
        },
    )


def _argument_spec(
    values: list[Any], schema: dict[str, Any] | None, required: bool, language: Language
) -> Spec:
    """One argument's acceptable values as a matcher spec."""
    marked_optional = OPTIONAL_MARK in values
    acceptable = [v for v in values if v != OPTIONAL_MARK]
    doc_type = str((schema or {}).get("type", ""))
    if marked_optional and _takes_a_string(acceptable, doc_type):
        # The mark is also a value: BFCL compares a given "" with the answers, "" among them.
        acceptable.append(OPTIONAL_MARK)
    # BFCL checks that a required argument is given before it reads any "" mark.
    optional = marked_optional and not required
    if schema is None and optional:
        # The doc lacks the argument: BFCL refuses it when given, and allows it to be left out.
        return {"$absent": True}
    if not acceptable:
        return {"$absent": True} if optional else dict(NOTHING_ACCEPTABLE)
    spec: dict[str, Any] = {"$one_of": [_value_spec(v, schema, language) for v in acceptable]}
    spec.update(_type_modifiers(acceptable, doc_type, language))
    if optional:
        spec["$optional"] = True
    return spec


def _type_modifiers(values: list[Any], doc_type: str, language: Language) -> dict[str, Any]:
    """What BFCL checks beyond the value itself, from the doc type."""
    if language != "python":
        # The model writes source code: BFCL refuses anything but a string, then converts it.
        return {"$type": "str"}
    if doc_type == "integer" and all(_is_int(v) for v in values):
        return {"$type": "int"}
    return {}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _takes_a_string(acceptable: list[Any], doc_type: str) -> bool:
    """Whether BFCL's type check lets a string through: the doc types it as text, or the
    first answer is a string (BFCL then reads the value as a variable name)."""
    return doc_type in _TEXT_TYPES or bool(acceptable and isinstance(acceptable[0], str))


def _value_spec(value: Any, schema: dict[str, Any] | None, language: Language) -> Spec:
    """One acceptable value, compared the way BFCL compares it for the doc type."""
    doc_type = str((schema or {}).get("type", ""))
    if language != "python" and doc_type in SCALAR_SOURCE_TYPES:
        return source_value_spec(value, doc_type, language)
    if isinstance(value, str) and doc_type in _TEXT_TYPES:
        return bfcl_text_spec(value)
    if isinstance(value, dict) and doc_type in _DICT_TYPES:
        return _dict_option_spec(value)
    if isinstance(value, list) and doc_type in _LIST_TYPES:
        return _list_option_spec(value, schema or {})
    return _literal(value)


def _list_option_spec(items: list[Any], schema: dict[str, Any]) -> Spec:
    """A list value: strings are normalised item by item; dict items are dict options."""
    item_type = str((schema.get("items") or {}).get("type", ""))
    if item_type == "dict":
        return [_dict_option_spec(i) if isinstance(i, dict) else _literal(i) for i in items]
    return [bfcl_text_spec(i) if isinstance(i, str) else _literal(i) for i in items]


def _dict_option_spec(option: dict[str, Any]) -> Spec:
    """A dict value: each key has its own acceptable values, ``""`` marking it optional."""
    return {str(key): _dict_key_spec(values) for key, values in option.items()}


def _dict_key_spec(values: Any) -> Spec:
    # A bare value where a list of values belongs is read as the one acceptable value.
    options = values if isinstance(values, list) else [values]
    kept = [v for v in options if v != OPTIONAL_MARK]
    optional = len(kept) != len(options)
    if not kept:
        return {"$absent": True} if optional else dict(NOTHING_ACCEPTABLE)
    if optional:
        kept.append(OPTIONAL_MARK)  # BFCL compares a given "" with the values, "" among them
    spec: dict[str, Any] = {
        "$one_of": [bfcl_text_spec(v) if isinstance(v, str) else _literal(v) for v in kept]
    }
    if optional:
        spec["$optional"] = True
    return spec


def _literal(value: Any) -> Spec:
    """A value compared as it is (wrapped so a dict is never read as matchers)."""
    return {"$eq": value} if isinstance(value, dict | list) else value


# ---------------------------------------------------------------- run: model output


def bfcl_run(entry: dict[str, Any]) -> Run:
    """The judgekit run for one BFCL entry: the calls the model made, or its text."""
    raw = entry.get("model_result_raw")
    metadata = {
        "source": "bfcl",
        "category": entry.get("category"),
        "bfcl_valid": entry.get("bfcl_valid"),
        "bfcl_error_type": entry.get("bfcl_error_type"),
    }
    calls = _decode_calls(raw)
    if calls is None and isinstance(raw, str):
        # Prompt mode: the calls are text; kept as BFCL wrote it, decoded as BFCL decodes it.
        metadata["bfcl_result_text"] = raw
        try:
            decoded = decode_call_text(raw, language_of(str(entry.get("category", ""))))
            calls = [ToolCall(name=name, args=args) for name, args in decoded]
        except CallTextError as exc:
            metadata["bfcl_decode_error"] = str(exc)
    return Run(
        run_id=str(entry["id"]),
        task_id=str(entry["id"]),
        input=_question_text(entry),
        tool_calls=calls or [],
        final_answer=_as_text(raw) if calls is None else None,
        usage=bfcl_usage(entry),
        duration_s=bfcl_latency(entry),
        metadata=metadata,
    )


def _decode_calls(raw: Any) -> list[ToolCall] | None:
    """The calls of a raw model result in BFCL's JSON form, or None when it is not that."""
    if isinstance(raw, str):
        try:
            raw = parse_json(raw)
        except json.JSONDecodeError:
            return None
    if not isinstance(raw, list) or not all(_is_call_item(item) for item in raw):
        return None
    return [_tool_call(name, arguments) for item in raw for name, arguments in item.items()]


def _is_call_item(item: Any) -> bool:
    """BFCL's format: ``{function_name: arguments}``, one call per key."""
    return isinstance(item, dict) and bool(item) and all(isinstance(k, str) for k in item)


def _tool_call(name: str, arguments: Any) -> ToolCall:
    if isinstance(arguments, dict):
        return ToolCall(name=name, args=arguments)
    if not isinstance(arguments, str):
        text = json.dumps(arguments, ensure_ascii=False)
        return ToolCall(
            name=name,
            raw_arguments=text,
            arguments_error=f"arguments are a {type(arguments).__name__}, not a JSON object",
        )
    try:
        parsed = parse_json(arguments)
    except json.JSONDecodeError as exc:
        return ToolCall(
            name=name,
            raw_arguments=arguments,
            arguments_error=f"malformed JSON at column {exc.colno}: {exc.msg}",
        )
    if not isinstance(parsed, dict):
        return ToolCall(
            name=name,
            raw_arguments=arguments,
            arguments_error=f"arguments are a JSON {type(parsed).__name__}, not an object",
        )
    return ToolCall(name=name, args=parsed)


def _as_text(raw: Any) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    return json.dumps(raw, ensure_ascii=False)


# ---------------------------------------------------------------- files


def load_bfcl(path: str | Path) -> Iterator[tuple[Task, Run, dict[str, Any]]]:
    """Each entry of a BFCL JSONL file as ``(task, run, entry)``, one line at a time."""
    for line, entry in iter_json_lines(path):
        if not isinstance(entry, dict) or "id" not in entry or "category" not in entry:
            raise DataError(
                "a BFCL entry is an object with id, category, function, possible_answer "
                "and model_result_raw",
                path=path,
                line=line,
            )
        yield bfcl_task(entry), bfcl_run(entry), entry
