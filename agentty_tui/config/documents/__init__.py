"""The document formats a config file can be in: JSON, JSON with comments, TOML."""
