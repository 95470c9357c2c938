"""Fixtures of the push tests: the local receivers (tests/push/receivers.py)
with the proxy's environment set, and settings that let pbem call them:
their loopback address, 127.0.0.2, stands for the Internet
(``PBEM_HTTP_ALLOW=127.0.0.2/32``); the rest of loopback is the server's own
network, as in production."""
from __future__ import annotations

import pytest

from pbem import config
from tests.push.receivers import PUBLIC, Receivers


@pytest.fixture
def receivers(monkeypatch):
    with Receivers() as r, r.proxied(monkeypatch):
        yield r
        assert r.inner_hits() == [], "pbem reached the server's own network (127.0.0.1)"


def allow_receivers(cfg: config.Settings, **over) -> config.Settings:
    """``cfg`` with the receivers' address counted as the Internet (and ``over``), made the current settings."""
    new = cfg.with_(http_allow=(f"{PUBLIC}/32",), **over)
    config.set_settings(new)
    return new


@pytest.fixture
def push_cfg(sqlite_cfg):
    return allow_receivers(sqlite_cfg)


@pytest.fixture
def any_push_cfg(any_cfg):
    return allow_receivers(any_cfg)
