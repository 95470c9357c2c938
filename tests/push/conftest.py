"""Fixtures of the push tests: the local receivers (tests/push/receivers.py)
with the proxy's environment set, and settings that let pbem call them on
loopback (notify_private_hosts)."""
from __future__ import annotations

import pytest

from pbem import config
from tests.push.receivers import Receivers


@pytest.fixture
def receivers(monkeypatch):
    with Receivers() as r, r.proxied(monkeypatch):
        yield r


def allow_loopback(cfg: config.Settings, **over) -> config.Settings:
    """``cfg`` with notify_private_hosts (and ``over``), made the current settings."""
    new = cfg.with_(notify_private_hosts=True, **over)
    config.set_settings(new)
    return new


@pytest.fixture
def push_cfg(sqlite_cfg):
    return allow_loopback(sqlite_cfg)


@pytest.fixture
def any_push_cfg(any_cfg):
    return allow_loopback(any_cfg)
