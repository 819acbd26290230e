"""The importer registry: every source is registered, sniffing names a file's format, and a
file given to the wrong importer is refused with the right one's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.importers.json_values import file_head, iter_json_values
from judgekit.importers.registry import IMPORTERS, ImportOptions, sniff, wrong_kind_error
from tests.conftest import REPO, shared_data_path

ANTHROPIC_EXAMPLE = REPO / "examples" / "transcripts" / "shop_anthropic.json"
OPENAI_EXAMPLE = REPO / "examples" / "transcripts" / "shop_openai.jsonl"


def test_every_source_with_a_command_is_registered() -> None:
    assert {"openai", "anthropic", "taubench", "bfcl"} <= IMPORTERS.keys()
    assert IMPORTERS["anthropic"].what == "Anthropic Messages transcripts"


def test_sniff_names_the_examples_formats() -> None:
    assert sniff(ANTHROPIC_EXAMPLE) == "anthropic"
    assert sniff(OPENAI_EXAMPLE) == "openai"


def test_the_anthropic_example_given_to_openai_names_anthropic() -> None:
    error = wrong_kind_error(ANTHROPIC_EXAMPLE, "openai")
    assert error is not None
    assert str(error) == (
        f"{ANTHROPIC_EXAMPLE}: this looks like Anthropic Messages transcripts; "
        "try `judgekit import anthropic`"
    )
    assert wrong_kind_error(ANTHROPIC_EXAMPLE, "anthropic") is None


def test_a_text_only_conversation_is_either_chat_format(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    assert wrong_kind_error(path, "openai") is None
    assert wrong_kind_error(path, "anthropic") is None


def test_a_file_that_is_no_known_format_is_left_to_the_importer(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"hello": "world"}')
    assert sniff(path) is None
    assert wrong_kind_error(path, "openai") is None
    path.write_text("not json at all {")
    assert sniff(path) is None


def test_taubench_trajectories_read_as_taubench() -> None:
    path = shared_data_path("taubench", "raw", "gpt-4o-airline.json.gz")
    assert sniff(path) == "taubench"
    assert wrong_kind_error(path, "openai") is None  # τ-bench's conversations are OpenAI's
    error = wrong_kind_error(path, "anthropic")
    assert error is not None
    assert error.message == "this looks like τ-bench trajectories; try `judgekit import taubench`"


def test_registered_chat_importers_read_runs() -> None:
    options = ImportOptions(task_id="shop")
    runs = list(IMPORTERS["anthropic"].read(ANTHROPIC_EXAMPLE, options))
    assert [len(run.tool_calls) for run in runs] == [2, 2, 3]
    assert options.run_ids.renamed == {}


def test_json_values_reads_pretty_printed_values_one_after_another(tmp_path: Path) -> None:
    path = tmp_path / "spans.json"
    path.write_text(json.dumps({"a": 1}, indent=4) + "\n" + json.dumps({"b": [2]}, indent=4) + "\n")
    values = [(where.line, value) for where, value in iter_json_values(path)]
    assert values == [(1, {"a": 1}), (4, {"b": [2]})]
    assert file_head(path) == {"a": 1}


def test_json_values_names_the_line_of_a_malformed_value(tmp_path: Path) -> None:
    path = tmp_path / "spans.json"
    path.write_text('{\n  "a": 1\n}\n{\n  "b": \n}\n')
    with pytest.raises(DataError) as caught:
        list(iter_json_values(path))
    assert str(caught.value) == f"{path}:6: malformed JSON at column 1: Expecting value"


def test_json_values_of_jsonl_and_of_one_document(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n')
    assert [(w.line, v) for w, v in iter_json_values(path)] == [(1, {"a": 1}), (3, {"a": 2})]
    path.write_text('{"a": 1}\n{"a": }\n')
    with pytest.raises(DataError) as caught:
        list(iter_json_values(path))
    assert str(caught.value) == (
        f"{path}:2: malformed JSON at column 7: Expecting value (JSONL: one value per line)"
    )
    path.write_text('[\n  {"a": 1},\n  {"a": 2}\n]\n')
    assert [(w.line, v) for w, v in iter_json_values(path)] == [(None, [{"a": 1}, {"a": 2}])]
    path.write_text("")
    with pytest.raises(DataError, match="empty file; expected JSON or JSONL"):
        list(iter_json_values(path))
