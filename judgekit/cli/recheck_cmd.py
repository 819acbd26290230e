"""``judgekit recheck``: ask a promoted judge again; exit 1 when its kappa dropped."""

from __future__ import annotations

from pathlib import Path

import click

from judgekit.cli.monitor_options import RecheckOptions, recheck_and_print, recheck_options
from judgekit.cli.options import json_instead_of, labels_beside_rubrics_option


@click.command("recheck")
@click.argument("rubric_ref", metavar="RUBRIC")
@labels_beside_rubrics_option
@recheck_options(after_recheck_flag=False)
@json_instead_of("the lines")
def recheck_command(
    rubric_ref: str, labels_dir: Path | None, recheck: RecheckOptions, as_json: bool
) -> None:
    """Re-judge a promoted rubric's labelled runs; exit 1 when its kappa dropped.

    RUBRIC is a rubric file or the id of one in rubrics/. Its labelled runs (from the
    store, or --runs) are judged again by the current model, with no cache, and the kappa
    against the hand labels is tested against the promotion record's. A significant drop
    means the provider changed the model under the same name: the rubric is marked stale
    and exit is 1. The same as `judgekit monitor --recheck RUBRIC`. Its verdicts go to a
    batch of their own (source recheck), which the monitor, the report and the gate leave out.

    \b
    Example:
      OPENAI_API_KEY=your-key judgekit recheck goal_completion
      judgekit recheck goal_completion --runs out/runs.jsonl --tasks tasks
    """
    recheck_and_print(rubric_ref, recheck, labels_dir=labels_dir, as_json=as_json)
