"""Record ``promptfoo_results.json``: a real ``promptfoo eval -o`` run against the fake server.

Run from the repository root with promptfoo on PATH (``npm install promptfoo``; recorded with
promptfoo 0.118.0): ``python tests/importers/data/record_promptfoo.py``. Two providers (the
fake server, and one at a closed port, whose results are provider errors) answer two test
cases; the llm-rubric assertion is graded by the fake server too.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_request import FakeRequest

HERE = Path(__file__).parent


def _reply(request: FakeRequest) -> str:
    text = json.dumps(request.messages)
    if "Rubric" in text or "rubric" in text:
        return json.dumps({"reason": "It names the capital.", "pass": True, "score": 0.75})
    if "Peru" in text:
        return "The capital of Peru is Lima."
    return "Paris is the capital of France."


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(base_url: str, dead_url: str) -> dict[str, object]:
    provider = {"apiBaseUrl": base_url, "apiKey": "test", "temperature": 0}
    return {
        "description": "capitals",
        "prompts": ["What is the capital of {{country}}? Answer in one sentence."],
        "providers": [
            {"id": "openai:chat:gpt-4o-mini", "label": "fake", "config": provider},
            {"id": "openai:chat:gpt-4o-mini", "label": "down",
             "config": {**provider, "apiBaseUrl": dead_url}},
        ],
        "defaultTest": {"options": {"provider": {"id": "openai:chat:gpt-4o-mini",
                                                 "config": provider}}},
        "tests": [
            {"description": "france", "vars": {"country": "France"},
             "assert": [{"type": "icontains", "value": "paris"},
                        {"type": "llm-rubric", "value": "Names the capital city",
                         "metric": "accuracy"}]},
            {"description": "peru", "vars": {"country": "Peru"},
             "assert": [{"type": "equals", "value": "Lima"},
                        {"type": "javascript", "value": "output.length < 100"}]},
        ],
    }  # fmt: skip


def main() -> None:
    promptfoo = shutil.which("promptfoo")
    if promptfoo is None:
        sys.exit("promptfoo is not on PATH (npm install promptfoo)")
    with FakeLLMServer(reply=_reply) as server, tempfile.TemporaryDirectory() as work:
        config = Path(work) / "promptfooconfig.yaml"
        dead = f"http://127.0.0.1:{_closed_port()}/v1"
        config.write_text(yaml.safe_dump(_config(server.openai_base_url, dead)), encoding="utf-8")
        out = Path(work) / "results.json"
        env = {**os.environ, "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_CONFIG_DIR": work,
               "PROMPTFOO_DISABLE_UPDATE": "1", "PROMPTFOO_REQUEST_BACKOFF_MS": "10",
               "PROMPTFOO_RETRY_5XX": "false"}  # fmt: skip
        subprocess.run(
            [promptfoo, "eval", "-c", str(config), "-o", str(out), "--no-cache", "-j", "1",
             "--no-table", "--no-progress-bar"],
            env=env, cwd=work, check=False, timeout=600,
        )  # fmt: skip
        shutil.copyfile(out, HERE / "promptfoo_results.json")


if __name__ == "__main__":
    main()
