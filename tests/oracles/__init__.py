"""Reference programs the tests compare against (built or imported on demand, skipped when absent)."""
