"""What the view answers: each request, already parsed, turned into a response. No socket
here (the HTTP server is in :mod:`judgekit.view.server`), so every route can be tested as a
function and every check lives in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from judgekit.errors import ConfigError, JudgekitError
from judgekit.formats.queue_file import queue_path, read_queue_settings
from judgekit.formats.rubric import Rubric, Score
from judgekit.labelling.keys import ScaleKeys, scale_keys
from judgekit.labelling.sampling import STRATEGIES
from judgekit.view.data import ViewData
from judgekit.view.held_out import held_out, spend_in_view
from judgekit.view.labelling import BrowserLabelling, LabellingStart, WebSession
from judgekit.view.monitor_page import monitor_view
from judgekit.view.pages import Pages
from judgekit.view.rubric_page import rubric_page_context
from judgekit.view.run_rows import RowQuery, run_rows
from judgekit.view.security import HEADERS, Access
from judgekit.view.settling import settle, unsettled

__all__ = ["Request", "Response", "ViewApp"]

STATIC = Path(__file__).parent / "static"
STATIC_TYPES = {"view.css": "text/css; charset=utf-8", "view.js": "text/javascript; charset=utf-8"}
HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: Mapping[str, str]
    form: Mapping[str, str]
    headers: Mapping[str, str]  # names lower-cased


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


class ViewApp:
    """The routes of one view over ``data``, behind ``access``."""

    def __init__(self, data: ViewData, access: Access) -> None:
        self.data = data
        self.access = access
        self.pages = Pages(data, form_token=access.form_token)
        self.labelling = BrowserLabelling(data)

    def handle(self, request: Request) -> Response:
        response = self._checked(request)
        response.headers = {**HEADERS, **response.headers}
        return response

    def _checked(self, request: Request) -> Response:
        headers = request.headers
        if not self.access.host_ok(headers.get("host")):
            return _text(400, "judgekit view answers only at 127.0.0.1 and localhost")
        if not self.access.has_cookie(headers.get("cookie")):
            if request.method == "GET" and self.access.token_ok(request.query.get("token")):
                rest = {k: v for k, v in request.query.items() if k != "token"}
                target = request.path + (f"?{urlencode(rest)}" if rest else "")
                return Response(
                    303, headers={"Location": target, "Set-Cookie": self.access.set_cookie()}
                )
            return _text(403, "open the address judgekit view printed: it carries the token")
        if request.method == "POST":
            why = self.access.write_ok(headers.get("origin"), request.form.get("form_token"))
            if why is not None:
                return _text(403, why)
        try:
            return self._route(request)
        except _NotFound as exc:
            return _page(self.pages.render("error.html", message=str(exc)), status=404)
        except JudgekitError as exc:
            return _page(self.pages.render("error.html", message=str(exc)), status=409)

    def _route(self, request: Request) -> Response:
        route = (request.method, request.path)
        query, form = request.query, request.form
        if request.method == "GET" and request.path.startswith("/static/"):
            return _static(request.path.removeprefix("/static/"))
        if route == ("GET", "/"):
            return _redirect("/runs")
        if route == ("GET", "/runs"):
            row_query = _row_query(query)
            return _page(self.pages.runs(run_rows(self.data, row_query), row_query))
        if route == ("GET", "/run"):
            return self._run_page(query.get("id", ""))
        if route == ("GET", "/rubric"):
            rubric = self._rubric(query.get("id", ""))
            context = rubric_page_context(self.data, rubric)
            return _page(self.pages.render("rubric.html", rubric=rubric, **context))
        if route == ("GET", "/label"):
            return self._label_page(self._rubric(query.get("rubric", "")), query.get("labeler", ""))
        if route == ("POST", "/label/start"):
            return self._start(form)
        if route == ("POST", "/label/act"):
            return self._act(form)
        if route == ("POST", "/spend"):
            return self._spend(form)
        if route == ("GET", "/monitor"):
            monitor = monitor_view(self.data, draw=False)
            return _page(self.pages.render("monitor.html", monitor=monitor))
        if route == ("GET", "/monitor.png"):
            png = monitor_view(self.data, draw=True).png
            if png is None:
                return _text(404, "nothing recorded to draw")
            return Response(200, png, {"Content-Type": "image/png"})
        if route == ("GET", "/settle"):
            return self._settle_page(
                self._rubric(query.get("rubric", "")), query.get("settler", "")
            )
        if route == ("POST", "/settle"):
            rubric = self._rubric(form.get("rubric", ""))
            label = settle(
                self.data, rubric, form.get("run", ""), form.get("key", ""), form.get("settler", "")
            )
            return _redirect(
                "/settle?" + urlencode({"rubric": rubric.id, "settler": label.labeler})
            )
        return _text(404, "no such page")

    def _rubric(self, rubric_id: str) -> Rubric:
        rubric = self.data.rubrics.get(rubric_id)
        if rubric is None:
            known = ", ".join(sorted(self.data.rubrics)) or "none"
            raise _NotFound(f"no rubric {rubric_id!r} in this view (rubrics: {known})")
        return rubric

    def _run_page(self, run_id: str) -> Response:
        view_run = self.data.runs.get(run_id)
        if view_run is None:
            return _text(404, "no run with that id in this view")
        labels: list[tuple[str, list[object], int]] = []
        for rubric in self.data.rubrics.values():
            log = self.data.labels(rubric)
            if log is None:
                continue
            current = log.current
            mine = [label for (run, _), label in sorted(current.items()) if run == run_id]
            if not mine:
                continue
            if held_out(rubric, self.data.labels_file(rubric), current).hides(run_id):
                labels.append((rubric.id, [], len(mine)))
            else:
                labels.append((rubric.id, list(mine), 0))
        return _page(self.pages.run(view_run, labels=labels, task_input=None))

    def _label_page(self, rubric: Rubric, labeler: str) -> Response:
        session = self.labelling.session(rubric, labeler) if labeler else None
        if session is None:
            return _page(
                self.pages.render(
                    "label_start.html",
                    rubric=rubric,
                    labeler=labeler,
                    labels_file=self.data.labels_file(rubric),
                    queue_file=queue_path(self.data.labels_file(rubric)),
                    queue_settings=read_queue_settings(self.data.labels_file(rubric)),
                    strategies=STRATEGIES,
                )
            )
        return _page(
            self.pages.render(
                "label.html", rubric=rubric, session=session, label_keys=_keys_by_score(session)
            )
        )

    def _start(self, form: Mapping[str, str]) -> Response:
        rubric = self._rubric(form.get("rubric", ""))
        start = LabellingStart(
            labeler=form.get("labeler", ""),
            strategy=form.get("strategy", "random"),  # type: ignore[arg-type]  # checked in begin
            limit=_whole(form.get("limit"), "how many", minimum=1),
            seed=_whole(form.get("seed"), "seed", minimum=0) or 0,
            reveal=form.get("reveal") == "1",
            team=form.get("team") == "1",
            double_code=_share(form.get("double_code")),
        )
        session = self.labelling.begin(rubric, start)
        return _redirect(_label_url(rubric.id, session.start.labeler))

    def _act(self, form: Mapping[str, str]) -> Response:
        rubric = self._rubric(form.get("rubric", ""))
        labeler = form.get("labeler", "")
        session = self.labelling.session(rubric, labeler)
        if session is None:
            return _redirect(_label_url(rubric.id, labeler))
        self.labelling.act(
            session, key=form.get("key", ""), note=form.get("note"), shown=form.get("shown", "")
        )
        return _redirect(_label_url(rubric.id, labeler))

    def _settle_page(self, rubric: Rubric, settler: str) -> Response:
        items = unsettled(self.data.labels(rubric))
        texts = {item.run_id: self._text_of(item.run_id) for item in items}
        keys = _keys_by_score_of(scale_keys(rubric))
        return _page(
            self.pages.render(
                "settle.html",
                rubric=rubric,
                items=items,
                texts=texts,
                settler=settler,
                label_keys=keys,
            )
        )

    def _text_of(self, run_id: str) -> str:
        view_run = self.data.runs.get(run_id)
        return view_run.item.text if view_run is not None else "(this run is not in the view)"

    def _spend(self, form: Mapping[str, str]) -> Response:
        rubric = self._rubric(form.get("rubric", ""))
        run_id = form.get("run", "")
        if run_id not in self.data.runs:
            return _text(404, "no run with that id in this view")
        log = self.data.labels(rubric)
        spend_in_view(rubric, self.data.labels_file(rubric), log.current if log else {}, run_id)
        return _redirect("/run?" + urlencode({"id": run_id, "rubric": rubric.id}))


class _NotFound(JudgekitError):
    pass


def _row_query(query: Mapping[str, str]) -> RowQuery:
    page = query.get("page", "1")
    return RowQuery(
        **{
            name: query.get(name, "")
            for name in RowQuery.__dataclass_fields__
            if name not in ("page", "sort")
        },
        sort=query.get("sort", "run"),
        page=int(page) if page.isdigit() and len(page) < 9 else 1,
    )


def _keys_by_score(session: WebSession) -> list[tuple[str, Score]]:
    return _keys_by_score_of(session.keys)


def _keys_by_score_of(scale: ScaleKeys) -> list[tuple[str, Score]]:
    """One button per score, named by every key that gives it (``1 a`` for a choice)."""
    keys: dict[str, list[str]] = {}
    scores: dict[str, Score] = {}
    for key, score in scale.keys.items():
        keys.setdefault(repr(score), []).append(key)
        scores[repr(score)] = score
    return [(" ".join(keys[name]), scores[name]) for name in keys]


def _whole(value: str | None, name: str, *, minimum: int) -> int | None:
    if value is None or not value.strip():
        return None
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or int(text) < minimum or len(text) > 9:
        raise ConfigError(f"{name}: expected a whole number of at least {minimum}, got {value!r}")
    return int(text)


def _share(value: str | None) -> float:
    """A share between 0 and 1 (blank: 0)."""
    text = (value or "").strip()
    if not text:
        return 0.0
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0 <= share <= 1:
        raise ConfigError(f"the share of runs labelled twice is between 0 and 1, got {value!r}")
    return share


def _label_url(rubric_id: str, labeler: str) -> str:
    return "/label?" + urlencode({"rubric": rubric_id, "labeler": labeler})


def _static(name: str) -> Response:
    kind = STATIC_TYPES.get(name)
    if kind is None:
        return _text(404, "no such file")
    return Response(200, (STATIC / name).read_bytes(), {"Content-Type": kind})


def _page(body: bytes, *, status: int = 200) -> Response:
    return Response(status, body, {"Content-Type": HTML})


def _text(status: int, message: str) -> Response:
    return Response(
        status, (message + "\n").encode(), {"Content-Type": "text/plain; charset=utf-8"}
    )


def _redirect(location: str) -> Response:
    return Response(303, headers={"Location": location})
