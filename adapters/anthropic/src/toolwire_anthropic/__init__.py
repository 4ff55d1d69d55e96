"""toolwire adapter for anthropic (filled by its issue)."""
