"""Verdicts and hand labels written for other tools: OpenTelemetry GenAI evaluation events,
LangSmith feedback, Langfuse scores and CSV (:func:`~judgekit.exporters.export.export_items`)."""
