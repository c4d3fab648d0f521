"""The hosts whose config files we read and write, one dialect module each."""
