"""The monitor's PNG plots: exact sizes, real pixels, alerts in red and only then."""

from __future__ import annotations

import io
import struct
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.image import imread
from numpy.typing import NDArray

from judgekit.calibration import build_report
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.monitoring.model import Alert, Point, Series
from judgekit.monitoring.plots import (
    ALERT_COLOR,
    INFORMATIONAL_COLOR,
    SERIES_COLOR,
    plot_confusion,
    plot_cost_turns,
    plot_series,
    series_height_px,
    write_png,
)
from judgekit.stats.proportions import wilson_interval
from tests.conftest import REPO

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def size(png: bytes) -> tuple[int, int]:
    """(width, height) from the IHDR chunk, which a PNG must start with."""
    assert png[:8] == PNG_SIGNATURE
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def rgb(png: bytes) -> NDArray[np.uint8]:
    image = imread(io.BytesIO(png))
    return np.asarray((image[..., :3] * 255).round(), dtype=np.uint8)


def distinct_colours(png: bytes) -> int:
    pixels = rgb(png).astype(np.uint32)
    packed = pixels[..., 0] << 16 | pixels[..., 1] << 8 | pixels[..., 2]
    return len(np.unique(packed))


def pixels_of(png: bytes, colour: str, tolerance: int = 3) -> int:
    """How many pixels are ``colour`` (within ``tolerance`` per channel)."""
    target = np.array([round(c * 255) for c in to_rgb(colour)], dtype=np.int16)
    diff = np.abs(rgb(png).astype(np.int16) - target)
    return int((diff.max(axis=-1) <= tolerance).sum())


def day(i: int, successes: int | None, n: int = 20) -> Point:
    at = T0 + timedelta(days=i)
    if successes is None:
        return Point(at.date().isoformat(), at, 0, None, None, None)
    low, high = wilson_interval(successes, n)
    return Point(at.date().isoformat(), at, n, successes / n, low, high, successes=successes)


def pass_rate(successes: list[int | None], *, alert: bool = False, role: str = "gating") -> Series:
    points = [day(i, s) for i, s in enumerate(successes)]
    found = None
    if alert:
        baseline = Point("baseline", T0, 200, 0.8, 0.74, 0.85, successes=160)
        found = Alert("pass_rate", baseline, points[-1], 0.0003, 0.01, "pass rate fell")
    return Series("pass_rate", "pass rate", "proportion", role, points, found)  # type: ignore[arg-type]


STEADY = [16, 17, 16, 15, 16, 17, 16, 16, 15, 16]
DROP = [*STEADY[:-2], 10, 8]


def test_a_series_is_a_png_of_the_documented_size() -> None:
    png = plot_series([pass_rate(STEADY)])
    assert png.startswith(PNG_SIGNATURE)
    assert size(png) == (1000, 80 + 260)
    assert distinct_colours(png) > 100  # text, axes, line and band: not a blank canvas


@pytest.mark.parametrize("panels", [1, 2, 3])
def test_height_grows_by_260_px_per_panel(panels: int) -> None:
    png = plot_series([pass_rate(STEADY)] * panels, title="shop")
    assert size(png) == (1000, series_height_px(panels)) == (1000, 80 + 260 * panels)


def test_an_alert_is_drawn_in_red_and_only_an_alert() -> None:
    with_alert = plot_series([pass_rate(DROP, alert=True)])
    without = plot_series([pass_rate(DROP)])
    assert pixels_of(with_alert, ALERT_COLOR) > 50  # the marker and the "alert: p=..." text
    assert pixels_of(without, ALERT_COLOR) == 0
    assert pixels_of(without, SERIES_COLOR) > 100


def test_a_series_without_points_is_a_no_data_panel() -> None:
    empty = Series("truth", "truth", "proportion", "gating", [])
    png = plot_series([empty, pass_rate(STEADY)])
    assert size(png) == (1000, 80 + 2 * 260)
    assert distinct_colours(png) > 50
    assert pixels_of(plot_series([empty]), SERIES_COLOR) == 0


def test_no_series_at_all_is_one_no_data_panel() -> None:
    png = plot_series([])
    assert size(png) == (1000, 340)
    assert pixels_of(png, SERIES_COLOR) == 0


def test_windows_without_a_value_are_gaps() -> None:
    full = plot_series([pass_rate(STEADY)])
    gapped = plot_series([pass_rate([16, 17, None, None, 16, 17, None, 16, 15, 16])])
    nothing = plot_series([pass_rate([None, None, None])])
    assert size(gapped) == size(full)
    # The line is broken at the gaps: less of it is drawn, and none when there is no value.
    assert 0 < pixels_of(gapped, SERIES_COLOR) < pixels_of(full, SERIES_COLOR)
    assert pixels_of(nothing, SERIES_COLOR) == 0


def test_an_informational_series_is_grey_and_never_alerts() -> None:
    # Even if a caller attached an alert, an informational series shows none.
    png = plot_series([pass_rate(DROP, alert=True, role="informational")])
    assert pixels_of(png, INFORMATIONAL_COLOR) > 100
    assert pixels_of(png, SERIES_COLOR) == 0
    assert pixels_of(png, ALERT_COLOR) == 0


def test_batches_are_placed_by_their_labels() -> None:
    points = [
        Point(f"batch {i}", T0 + timedelta(hours=i), 10, 0.6, 0.31, 0.83, successes=6)
        for i in range(1, 6)
    ]
    png = plot_series([Series("truth", "truth", "proportion", "gating", points)])
    assert size(png) == (1000, 340)
    assert pixels_of(png, SERIES_COLOR) > 100


def test_a_mean_series_on_its_own_scale() -> None:
    points = [
        Point(p.label, p.at, 20, 3.1 + i / 10, 2.8 + i / 10, 3.4 + i / 10, sd=0.7)
        for i, p in enumerate(day(i, 10) for i in range(6))
    ]
    png = plot_series([Series("turns", "turns per run", "mean", "gating", points)])
    assert pixels_of(png, SERIES_COLOR) > 100


def test_cost_and_turns_are_two_panels() -> None:
    points = [
        Point(p.label, p.at, 20, 0.0015, 0.0012, 0.0018, sd=0.0005)
        for p in (day(i, 10) for i in range(5))
    ]
    cost = Series("cost_usd", "cost per run (USD)", "mean", "gating", points)
    png = plot_cost_turns(cost, None)
    assert size(png) == (1000, 80 + 2 * 260)
    assert pixels_of(png, SERIES_COLOR) > 100
    empty = plot_cost_turns(None, None)
    assert size(empty) == (1000, 600)
    assert pixels_of(empty, SERIES_COLOR) == 0


def binary_confusion() -> dict[str, dict[str, int]]:
    """The confusion matrix of a real calibration report on hand-made verdicts and labels."""
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    version = rubric_version(rubric)
    pairs = [("r1", "pass", "pass"), ("r2", "fail", "pass"), ("r3", "fail", "fail")]
    pairs += [("r4", "pass", "fail"), ("r5", "pass", "pass"), ("r6", "pass", "pass")]
    verdicts = [
        Verdict(
            run_id=run,
            rubric_id=rubric.id,
            rubric_version=version,
            model=rubric.judge.model,
            status="scored",
            score=judge,
            at=T0,
        )
        for run, _, judge in pairs
    ]
    labels = {
        (run, "ana"): Label(run_id=run, rubric_id=rubric.id, label=human, labeler="ana", at=T0)
        for run, human, _ in pairs
    }
    return build_report(rubric, verdicts, labels).confusion


def test_a_two_class_confusion_matrix() -> None:
    confusion = binary_confusion()
    assert confusion == {"pass": {"pass": 3, "fail": 1}, "fail": {"pass": 1, "fail": 1}}
    png = plot_confusion(confusion, title="goal_completion")
    assert size(png) == (500, 450)
    assert distinct_colours(png) > 50
    assert pixels_of(png, ALERT_COLOR) == 0


def test_a_three_class_confusion_matrix() -> None:
    confusion = {
        "1": {"1": 5, "2": 1, "3": 0},
        "2": {"1": 2, "2": 7, "3": 1},
        "3": {"1": 0, "2": 3, "3": 12},
    }
    png = plot_confusion(confusion, title="answer_quality")
    assert size(png) == (500, 450)
    # The diagonal's 12 is the darkest cell: dark blue, written in white.
    assert pixels_of(png, "#08306b", tolerance=8) > 1000
    assert distinct_colours(png) > distinct_colours(plot_confusion({}, title="none"))


def test_an_empty_confusion_matrix_says_no_data() -> None:
    png = plot_confusion({}, title="goal_completion")
    assert size(png) == (500, 450)


def test_the_same_plot_gives_the_same_bytes_from_several_threads() -> None:
    series = [pass_rate(DROP, alert=True), pass_rate(STEADY, role="informational")]
    alone = plot_series(series, title="shop")
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: plot_series(series, title="shop"), range(4)))
    assert results == [alone] * 4


def test_write_png_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "plots" / "pass_rate.png"
    first = plot_series([pass_rate(STEADY)])
    write_png(target, first)
    assert target.read_bytes() == first
    second = plot_series([pass_rate(DROP, alert=True)])
    write_png(target, second)
    assert target.read_bytes() == second
    assert [p.name for p in target.parent.iterdir()] == ["pass_rate.png"]  # no temporary left
