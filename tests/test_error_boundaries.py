"""Every boundary of errors.py's table, crossed for real: the library raises its own error
where judgekit calls it, and what comes out is the judgekit error, word for word."""

from __future__ import annotations

import asyncio
import gzip
import importlib
import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

import judgekit.errors
from judgekit._util.atomic_files import atomic_writer
from judgekit._util.input_paths import is_file, named_path_errors, read_text, reading
from judgekit._util.jsonl import iter_json_lines, iter_models
from judgekit._util.yamlfile import load_yaml
from judgekit.errors import DataError, JudgekitError, OutputError, ProviderError, StoreError
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import ChatMessage, ChatProvider, ChatRequest
from judgekit.providers.failures import provider_errors
from judgekit.providers.openai_errors import openai_failures
from judgekit.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider
from judgekit.store.database import open_store
from judgekit.testing import FakeLLMServer


def raised(error: JudgekitError) -> tuple[type[JudgekitError], str]:
    return type(error), str(error)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths, so messages read the same on every machine."""
    monkeypatch.chdir(tmp_path)


# -- errors.py's table names tables that exist --------------------------------------------


TABLES = {
    "providers/openai_errors.py": ["openai_failures"],
    "providers/anthropic_errors.py": ["anthropic_failures"],
    "providers/failures.py": ["TRANSPORT_FAILURES"],
    "store/engine.py": ["STORE_ERRORS", "ENGINE_ERRORS", "DATABASE_FILE_ERRORS"],
    "_util/yamlfile.py": ["YAML_FILE_ERRORS"],
    "_util/yamlcompose.py": ["SCALAR_ERRORS", "DOCUMENT_ERRORS"],
    "_util/jsonl.py": ["LINE_ERRORS", "LINES_FILE_ERRORS"],
    "_util/input_paths.py": ["READ_ERRORS", "PATH_ERRORS"],
}


def test_the_docstring_names_every_table_and_each_exists() -> None:
    doc = judgekit.errors.__doc__ or ""
    named = set(re.findall(r"``(\w+_(?:ERRORS|FAILURES|failures))``", doc))
    assert named == {name for names in TABLES.values() for name in names}
    for path, names in TABLES.items():
        assert f"{path}:" in doc
        module = importlib.import_module(f"judgekit.{path.removesuffix('.py').replace('/', '.')}")
        for name in names:
            table = getattr(module, name)
            table = table() if callable(table) else table  # the SDK tables are built on demand
            assert table, name
            assert all(issubclass(cls, BaseException) for cls in table), name


# -- SQLAlchemy and the database's file: store/engine.py -> StoreError ------------------


def test_a_file_that_is_not_a_database() -> None:
    Path("notes.sqlite").write_bytes(b"these are notes, not a database\n" * 100)
    with pytest.raises(StoreError) as caught:
        open_store("sqlite:///notes.sqlite")
    assert raised(caught.value) == (StoreError, "sqlite:///notes.sqlite: file is not a database")
    assert type(caught.value.__cause__).__name__ == "DatabaseError"


def test_a_database_url_sqlalchemy_cannot_load() -> None:
    with pytest.raises(StoreError) as caught:
        open_store("postgresql+nosuchdriver://judge:secret@db.example/judgekit")
    assert raised(caught.value) == (
        StoreError,
        "postgresql+nosuchdriver://judge:***@db.example/judgekit: Can't load plugin: "
        "sqlalchemy.dialects:postgresql.nosuchdriver",
    )


def test_a_database_driver_that_is_not_installed() -> None:
    with pytest.raises(StoreError) as caught:
        open_store("postgresql+psycopg2://judge:secret@db.example/judgekit")
    assert raised(caught.value) == (
        StoreError,
        "postgresql+psycopg2://judge:***@db.example/judgekit: the database driver is not "
        "installed (pip install psycopg2)",
    )


def test_a_database_file_the_system_will_not_open() -> None:
    os.symlink("loop.sqlite", "loop.sqlite")
    with pytest.raises(StoreError) as caught:
        open_store("sqlite:///loop.sqlite")
    assert raised(caught.value) == (
        StoreError,
        "sqlite:///loop.sqlite: Too many levels of symbolic links",
    )


# -- PyYAML: _util/yamlfile.py and _util/yamlcompose.py -> DataError ---------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a: 1\nb: [1, 2\nc: 3\n",
            "task.yaml:3: YAML syntax error: expected ',' or ']', but got ':'",
        ),
        (
            "a: \x07\n",
            "task.yaml: YAML error: unacceptable character #x0007: special characters are not "
            'allowed\n  in "<unicode string>", position 3',
        ),
        ("n: !!int abc\n", "task.yaml:1: n: 'abc' is not a valid !!int"),
        ("n: !!bool maybe\n", "task.yaml:1: n: 'maybe' is not a valid !!bool"),
        (
            "x:\n  n: !nope 5\n",
            "task.yaml:2: x.n: could not determine a constructor for the tag '!nope'",
        ),
        (
            "x: 1\ny: !nope {a: 1}\n",
            "task.yaml:2: could not determine a constructor for the tag '!nope'",
        ),
        ("x: 1\ny: !!set [1]\n", "task.yaml:2: expected a mapping node, but found sequence"),
    ],
    ids=["syntax", "unreadable", "int", "bool", "scalar-tag", "mapping-tag", "set"],
)
def test_yaml_pyyaml_refuses(text: str, message: str) -> None:
    Path("task.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_yaml("task.yaml")
    assert raised(caught.value) == (DataError, message)


def test_yaml_files_that_cannot_be_read_as_text() -> None:
    os.mkdir("folder.yaml")
    Path("latin.yaml").write_bytes(b"name: caf\xe9\n")
    for path, message in [
        ("absent.yaml", "absent.yaml: no such file"),
        ("folder.yaml", "folder.yaml: is a folder, expected a YAML file"),
        ("latin.yaml", "latin.yaml: not UTF-8 text (invalid continuation byte)"),
    ]:
        with pytest.raises(DataError) as caught:
            load_yaml(path)
        assert raised(caught.value) == (DataError, message)


# -- json and pydantic: _util/jsonl.py -> DataError --------------------------------------


class Record(BaseModel):
    id: str
    n: int


def test_a_json_line_that_is_not_json() -> None:
    Path("runs.jsonl").write_text('{"id": "a", "n": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        list(iter_json_lines("runs.jsonl"))
    assert raised(caught.value) == (
        DataError,
        "runs.jsonl:2: malformed JSON at column 1: Expecting value",
    )


def test_a_line_pydantic_refuses() -> None:
    Path("runs.jsonl").write_text('{"id": "a", "n": 1}\n{"id": "b", "n": "many"}\n', "utf-8")
    with pytest.raises(DataError) as caught:
        list(iter_models("runs.jsonl", Record))
    assert raised(caught.value) == (
        DataError,
        "runs.jsonl:2: n: Input should be a valid integer, unable to parse string as an "
        "integer (got 'many')",
    )
    Path("runs.jsonl").write_text('{"id": "a"}\n', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        list(iter_models("runs.jsonl", Record))
    assert raised(caught.value) == (DataError, "runs.jsonl:1: n: required field is missing")


def test_lines_files_that_cannot_be_read() -> None:
    Path("latin.jsonl").write_bytes(b'{"id": "caf\xe9"}\n')
    whole = gzip.compress(b'{"id": "a", "n": 1}\n' * 1000)
    Path("cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    for path, message in [
        ("latin.jsonl", "latin.jsonl: not UTF-8 text (invalid continuation byte)"),
        (
            "cut.jsonl.gz",
            "cut.jsonl.gz: cannot read: Compressed file ended before the end-of-stream marker "
            "was reached",
        ),
        ("absent.jsonl", "absent.jsonl: no such file"),
    ]:
        with pytest.raises(DataError) as caught:
            list(iter_json_lines(path))
        assert raised(caught.value) == (DataError, message)


# -- OSError reading: _util/input_paths.py -> DataError ----------------------------------


def test_paths_the_system_refuses_to_read() -> None:
    os.mkdir("folder")
    os.symlink("loop.txt", "loop.txt")
    for read, message in [
        (lambda: read_text("absent.txt"), "absent.txt: no such file"),
        (lambda: read_text("folder"), "folder: is a folder, expected a file"),
        (lambda: read_text("loop.txt"), "loop.txt: cannot read: Too many levels of symbolic links"),
        (
            lambda: is_file("loop.txt/x"),
            "loop.txt/x: cannot read: Too many levels of symbolic links",
        ),
    ]:
        with pytest.raises(DataError) as caught:
            read()
        assert raised(caught.value) == (DataError, message)


def test_reading_names_the_file_the_system_names() -> None:
    with pytest.raises(DataError) as caught, reading("suites"):
        Path("suites/shop.yaml").read_text()
    assert raised(caught.value) == (DataError, "suites/shop.yaml: no such file")


def test_the_command_lines_last_resort_names_the_path() -> None:
    with pytest.raises(DataError) as caught, named_path_errors():
        open("absent/notes.txt", encoding="utf-8")  # noqa: SIM115
    assert raised(caught.value) == (DataError, "absent/notes.txt: No such file or directory")
    assert isinstance(caught.value.__cause__, FileNotFoundError)
    with pytest.raises(BrokenPipeError), named_path_errors():
        raise BrokenPipeError(32, "Broken pipe")  # names no path: a traceback, not a line


# -- OSError writing: _util/atomic_files.py -> OutputError --------------------------------


def test_a_file_where_the_output_folder_should_be() -> None:
    Path("out").write_text("a file", encoding="utf-8")
    with pytest.raises(OutputError) as caught, atomic_writer("out/results.jsonl") as fh:
        fh.write("{}\n")
    assert raised(caught.value) == (
        OutputError,
        "cannot create the folder out: a file has that name",
    )


# -- the SDKs: providers/openai_errors.py, anthropic_errors.py, failures.py ---------------

REQUEST = ChatRequest(model="m", messages=(ChatMessage(role="user", content="JSON, please"),))


def ask(provider: ChatProvider) -> ProviderError:
    async def once() -> None:
        try:
            await provider.complete(REQUEST)
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as caught:
        asyncio.run(once())
    return caught.value


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def providers(server: FakeLLMServer) -> dict[str, ChatProvider]:
    return {
        "OpenAI": OpenAIProvider(api_key="test-key", base_url=server.openai_base_url),
        "The OpenAI-compatible server": OpenAICompatibleProvider(base_url=server.openai_base_url),
        "Anthropic": AnthropicProvider(api_key="test-key", base_url=server.anthropic_base_url),
    }


KEY_HINTS = {
    "OpenAI": "set OPENAI_API_KEY (or pass --api-key-env) or --base-url for a local server",
    "The OpenAI-compatible server": "pass --api-key-env naming the variable that holds the "
    "server's key",
    "Anthropic": "set ANTHROPIC_API_KEY (or pass --api-key-env) or --base-url for a local server",
}


def test_a_rejected_key_says_which_variable_to_set(server: FakeLLMServer) -> None:
    for label, provider in providers(server).items():
        server.fail_next(status=401)
        error = ask(provider)
        assert raised(error) == (
            ProviderError,
            f"{label} rejected the API key (HTTP 401: HTTP 401 injected by FakeLLMServer): "
            f"{KEY_HINTS[label]}",
        )
        assert (error.retryable, error.retry_after_s) == (False, None)
        assert type(error.__cause__).__name__ == "AuthenticationError"


def test_a_rate_limit_is_retried_after_what_the_server_asks(server: FakeLLMServer) -> None:
    for label, provider in providers(server).items():
        server.fail_next(status=429, retry_after=2)
        error = ask(provider)
        assert raised(error) == (
            ProviderError,
            f"{label} rate-limited the request (HTTP 429: HTTP 429 injected by FakeLLMServer)",
        )
        assert (error.retryable, error.retry_after_s) == (True, 2.0)
        assert type(error.__cause__).__name__ == "RateLimitError"


def test_a_server_error_is_retried(server: FakeLLMServer) -> None:
    for label, provider in providers(server).items():
        server.fail_next(status=500)
        error = ask(provider)
        assert raised(error) == (
            ProviderError,
            f"{label} failed to answer (HTTP 500: HTTP 500 injected by FakeLLMServer)",
        )
        assert (error.retryable, error.retry_after_s) == (True, None)
        assert type(error.__cause__).__name__ == "InternalServerError"


def test_a_server_that_is_not_there() -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    error = ask(OpenAIProvider(api_key="test-key", base_url=url))
    assert raised(error) == (
        ProviderError,
        f"could not reach OpenAI: Connection error. ({url}/chat/completions: ConnectError: "
        "All connection attempts failed)",
    )
    assert (error.retryable, error.unreachable) == (True, True)


def test_a_body_that_is_not_json_below_the_sdk() -> None:
    provider = OpenAIProvider(api_key="test-key", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ProviderError) as caught, provider_errors(provider, openai_failures()):
        json.loads('{"choices": [')
    assert raised(caught.value) == (
        ProviderError,
        "OpenAI sent a malformed response: the body is not JSON (Expecting value: line 1 "
        "column 14 (char 13))",
    )
    assert caught.value.retryable
    with pytest.raises(KeyError), provider_errors(provider, openai_failures()):
        {}["a bug"]  # no row names it: it keeps its traceback
