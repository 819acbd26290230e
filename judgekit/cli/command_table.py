"""Every ``judgekit`` command: the module that defines it and the first paragraph of its help.

The help's listing is printed from here, so ``judgekit --help`` imports no command module;
tests/cli/test_lazy_commands.py fails when a summary here differs from the command's help.
"""

from __future__ import annotations

from judgekit.cli.lazy_group import LazyCommand

COMMANDS: dict[str, LazyCommand] = {
    "align": LazyCommand(
        "judgekit.cli.align_cmd:align_command",
        "Propose a new rubric version from the judge's disagreements with the DEV labels.",
    ),
    "calibrate": LazyCommand(
        "judgekit.cli.calibrate_cmd:calibrate_command",
        "Compare the judge's verdicts with hand labels under the rubric's current version.",
    ),
    "demo": LazyCommand(
        "judgekit.cli.demo_cmd:demo_command",
        "Run the whole flow offline, from trials to judges, labels, store and report.",
    ),
    "export": LazyCommand(
        "judgekit.cli.export_cmd:export_group",
        "Write verdicts or hand labels for OpenTelemetry, LangSmith, Langfuse, or as CSV.",
    ),
    "fake-judge": LazyCommand(
        "judgekit.cli.fake_judge_cmd:fake_judge_command",
        "Serve a simulated judge (not a model) that answers from the runs' grades.",
    ),
    "gate": LazyCommand(
        "judgekit.cli.gate_cmd:gate_command",
        "Compare two result sets task by task; exit 1 when the candidate is worse.",
    ),
    "grade": LazyCommand(
        "judgekit.cli.grade_cmd:grade_command",
        "Grade RUNS (a runs.jsonl file) with the Truth, Path, State and Answer graders.",
    ),
    "import": LazyCommand(
        "judgekit.cli.import_cmd:import_group",
        "Convert transcripts, traces and eval logs of other tools into runs.jsonl.",
    ),
    "init": LazyCommand(
        "judgekit.cli.init_cmd:init_command",
        "Start a project in DIR (default: here) to run, judge, label, calibrate and monitor.",
    ),
    "judge": LazyCommand(
        "judgekit.cli.judge_cmd:judge_command",
        "Judge RUNS with the rubric's LLM judge; write verdicts.jsonl as verdicts finish.",
    ),
    "label": LazyCommand(
        "judgekit.cli.label_cmd:label_command",
        "Hand-label RUNS under a rubric: one run at a time, one key per label.",
    ),
    "labels": LazyCommand(
        "judgekit.cli.labels_cmd:labels_group",
        "Who labelled what under a rubric, and the agreement between labellers.",
    ),
    "monitor": LazyCommand(
        "judgekit.cli.monitor_cmd:monitor_command",
        "Scores over time from the store, with drift alerts; exit 1 when one fires.",
    ),
    "probe": LazyCommand(
        "judgekit.cli.probe_cmd:probe_command",
        "Probe a judge for a bias: ask it about the runs and about perturbed copies of them.",
    ),
    "promote": LazyCommand(
        "judgekit.cli.promote_cmd:promote_command",
        "Write <rubric_id>.promotion.json beside the rubric file, if calibration passes.",
    ),
    "recheck": LazyCommand(
        "judgekit.cli.recheck_cmd:recheck_command",
        "Re-judge a promoted rubric's labelled runs; exit 1 when its kappa dropped.",
    ),
    "report": LazyCommand(
        "judgekit.cli.report_cmd:report_command",
        "Write one self-contained HTML report (no network needed to open it).",
    ),
    "rubrics": LazyCommand(
        "judgekit.cli.rubrics_cmd:rubrics_command",
        "List every rubric with its version (a content hash), judge model and status.",
    ),
    "run": LazyCommand(
        "judgekit.cli.run_cmd:run_command",
        "Run an agent over every task for --trials trials, each in a fresh world, then grade.",
    ),
    "schema": LazyCommand(
        "judgekit.cli.schema_cmd:schema_command",
        "Print the JSON Schema of a file format (run, task, grade, rubric, label, verdict).",
    ),
    "store": LazyCommand(
        "judgekit.cli.store_cmd:store_group",
        "What was evaluated, over time: runs, grades, verdicts, calibrations, promotions.",
    ),
    "view": LazyCommand(
        "judgekit.cli.view_cmd:view_command",
        "Look at runs, verdicts and labels in the browser, and label runs there.",
    ),
}
