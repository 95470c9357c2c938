"""Who may read /metrics (docs/SECURITY.md, docs/metrics.md): with no token
set, a request from loopback that no proxy forwarded; with a token set, only
one that sends it (``Authorization: Bearer <token>``), from anywhere."""
from __future__ import annotations

import pytest

from pbem.web import create_app

FAR = {"REMOTE_ADDR": "203.0.113.9"}


def _status(cfg, headers=None, environ=None) -> int:
    client = create_app(cfg).test_client()
    return client.get("/metrics", headers=headers or {}, environ_base=environ or {}).status_code


def test_without_a_token_only_this_machine_reads_them(sqlite_cfg):
    assert _status(sqlite_cfg) == 200
    assert _status(sqlite_cfg, environ={"REMOTE_ADDR": "::1"}) == 200
    assert _status(sqlite_cfg, environ=FAR) == 403
    # a reverse proxy on this machine forwards the world's requests from loopback: never taken for local
    for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
        assert _status(sqlite_cfg, headers={header: "203.0.113.9"}) == 403, header


@pytest.mark.parametrize("sent, status", [(None, 403), ("Bearer wrong", 403), ("Bearer s3cret-token x", 403),
                                          ("s3cret-token", 403), ("Bearer s3cret-token", 200)])
def test_with_a_token_only_its_holder_reads_them(sqlite_cfg, sent, status):
    cfg = sqlite_cfg.with_(metrics_token="s3cret-token")
    headers = {"Authorization": sent} if sent else {}
    assert _status(cfg, headers=headers, environ=FAR) == status
    assert _status(cfg, headers=headers) == status  # loopback is no exception then


def test_the_refusal_says_why_and_shows_nothing(sqlite_cfg):
    r = create_app(sqlite_cfg).test_client().get("/metrics", environ_base=FAR)
    assert r.status_code == 403 and "pbem_" not in r.get_data(as_text=True)
    assert "from this machine, or with the metrics token" in r.get_data(as_text=True)
