"""Verdicts and hand labels written for other tools: OpenTelemetry GenAI evaluation events,
LangSmith feedback, Langfuse scores and CSV (:func:`~judgekit.exporters.export.export_items`)."""

# The formats by name, light to import: the CLI lists them in --help without loading them.
FORMAT_NAMES = ("otel", "langsmith", "langfuse", "csv")
