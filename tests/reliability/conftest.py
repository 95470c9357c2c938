"""Hypothesis budgets: a small fixed one by default (CI), a long one on
demand: ``HYPOTHESIS_PROFILE=long pytest tests/reliability/test_fuzz.py``."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("long", max_examples=20_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
