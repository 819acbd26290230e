"""Example worlds and stub agents for the bundled task suites."""
