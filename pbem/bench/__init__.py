"""Benchmarks: commands that measure the real code paths (never timed tests)."""
