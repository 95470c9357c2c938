"""`pbem metrics-exporter`: /metrics on a host without the web site adds up the counts this host's
processes wrote, under the web's rule (the token when set, else loopback and not through a proxy)."""
from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from pbem import config, metrics
from pbem.bench.env import free_port, stop_server


def _get(port: int, path: str = "/metrics", headers: dict | None = None) -> tuple[int, str]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.mark.parametrize("token", ["", "a-scrapers-token"])
def test_the_exporter_serves_this_hosts_counts(sqlite_cfg, token):
    cfg = sqlite_cfg.with_(metrics_token=token)
    config.set_settings(cfg)
    metrics.outbound_sent(3)  # as a worker of this host counts (its files in PBEM_METRICS_DIR)
    metrics.outbound_failed(1, "bounced")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pbem.cli", "metrics-exporter", "--port", str(port)],
                            env=cfg.to_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()  # said when it listens
        assert f"http://127.0.0.1:{port}/metrics" in line, line
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        status, body = _get(port, headers=auth)
        assert status == 200, body
        assert "pbem_outbound_sent_total 3.0" in body
        assert 'pbem_outbound_delivery_failures_total{outcome="bounced"} 1.0' in body
        if token:
            assert _get(port)[0] == 403
            assert _get(port, headers={"Authorization": "Bearer wrong"})[0] == 403
        else:
            assert _get(port, headers={"X-Forwarded-For": "203.0.113.9"})[0] == 403  # a proxy's: the world's
        assert _get(port, "/healthz", auth)[0] == 404
    finally:
        stop_server(proc, 15)
        proc.stdout.close()
