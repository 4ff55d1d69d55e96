"""toolwire adapter for openai (filled by its issue)."""
