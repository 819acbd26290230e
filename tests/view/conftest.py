"""One `judgekit demo` for the view's tests, copied afresh for each test that writes, and
the view's app called as the HTTP server calls it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from judgekit.view.app import Request, Response, ViewApp
from judgekit.view.data import load_view_data
from judgekit.view.security import Access
from judgekit.view.sources import find_sources
from tests.demo.conftest import DemoRun, invoke_demo

PORT = 8123
TOKEN = "a-test-token"


@pytest.fixture(scope="package")
def view_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoRun]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("JUDGEKIT_DB", raising=False)
        run = invoke_demo(tmp_path_factory.mktemp("view-demo"), patch)
    assert run.code == 0, run.output
    yield run


@pytest.fixture
def demo_folder(view_demo: DemoRun, tmp_path: Path) -> Path:
    """A copy of the demo's folder that a test may write labels and splits into."""
    folder = tmp_path / "judgekit-demo"
    shutil.copytree(view_demo.out, folder, symlinks=True)
    return folder


class Client:
    """Requests to a :class:`ViewApp` as the browser that opened the view sends them."""

    def __init__(self, app: ViewApp) -> None:
        self.app = app

    def headers(self, **extra: str) -> dict[str, str]:
        return {"host": f"127.0.0.1:{PORT}", "cookie": f"judgekit_view_{PORT}={TOKEN}", **extra}

    def get(self, path: str, query: Mapping[str, str] | None = None, **headers: str) -> Response:
        given = self.headers(**headers)
        return self.app.handle(Request("GET", path, dict(query or {}), {}, given))

    def post(self, path: str, form: Mapping[str, str], **headers: str) -> Response:
        fields = {"form_token": self.app.access.form_token, **form}
        given = self.headers(**{"origin": f"http://127.0.0.1:{PORT}", **headers})
        return self.app.handle(Request("POST", path, {}, fields, given))

    def text(self, path: str, query: Mapping[str, str] | None = None) -> str:
        response = self.get(path, query)
        assert response.status == 200, response.body
        return response.body.decode()


def client_for(*paths: Path, **options: object) -> Client:
    sources = find_sources(list(paths), **options)  # type: ignore[arg-type]
    return Client(ViewApp(load_view_data(sources), Access(port=PORT, token=TOKEN)))
