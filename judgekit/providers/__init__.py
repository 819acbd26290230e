"""Model providers behind one small chat interface (OpenAI, Anthropic, OpenAI-compatible)."""
