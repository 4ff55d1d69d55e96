"""toolwire adapter for gemini (filled by its issue)."""
