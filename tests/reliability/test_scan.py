"""The short scan of the running site: wapiti against gunicorn
over TLS on a fresh PostgreSQL database, logged in as a player who is also an
admin (tests/reliability/scan.py). ``scripts/scan`` runs the full scan; this
one runs fewer modules with a time cap per module, to stay within the suite's
budget. Select it with ``-m scan``."""
from __future__ import annotations

import pytest

from tests.reliability import scan

pytestmark = [pytest.mark.scan, pytest.mark.postgres]


def test_a_scan_of_the_running_site_finds_nothing(tmp_path):
    res = scan.run_scan(tmp_path / "scan", modules=scan.QUICK_MODULES, log=lambda *_: None, **scan.QUICK_LIMITS)
    print(res.text())
    assert res.returncode == 0 and res.report, res.text()
    # it did crawl (and attack) the pages behind the login, as the player: the dashboard, the game's
    # page and its management page, the profile, and their forms
    for page in ("GET /me (200)", "GET /games/1 (200)", "GET /games/1/manage (200)", "GET /profile (200)",
                 "POST /games/1/posts", "POST /games/1/move", "POST /games/1/manage", "POST /profile"):
        assert any(c.startswith(page) for c in res.crawled), (page, res.crawled)
    assert res.ok, res.text()


def test_the_verdict_counts_findings_and_anomalies_and_filters_only_listed_false_positives(monkeypatch):
    """What the scan's verdict does with what wapiti reports (the report format of wapiti 3.2)."""
    def report(vulns=(), anomalies=(), additionals=()):
        return {"infos": {"version": "Wapiti 3.2.3", "target": "https://127.0.0.1/", "crawled_pages_nbr": 3},
                "vulnerabilities": {"Cross Site Scripting": list(vulns)},
                "anomalies": {"Internal Server Error": list(anomalies)},
                "additionals": {"HTTP Methods": list(additionals)}}

    xss = {"module": "xss", "method": "POST", "path": "/games/1/posts", "parameter": "body", "info": "XSS"}
    err = {"module": "sql", "method": "GET", "path": "/games/1/board", "parameter": "ply", "info": "500"}
    opt = {"module": "methods", "method": "OPTIONS", "path": "/", "info": "OPTIONS (200)"}
    clean = scan.ScanResult([], ("xss", "sql", "methods"), report(additionals=[opt]), 1.0, True)
    assert clean.ok and "RESULT: OK" in clean.text() and "methods" in clean.text()
    assert not scan.ScanResult([], ("xss",), report(vulns=[xss]), 1.0, True).ok
    assert not scan.ScanResult([], ("sql",), report(anomalies=[err]), 1.0, True).ok
    assert not scan.ScanResult([], ("xss",), report(), 1.0, True, server_errors=["ValueError"]).ok
    assert not scan.ScanResult([], ("xss",), report(), 1.0, True, returncode=1).ok
    # only a finding listed (module, text, path) as a false positive is set aside, and it is still shown
    monkeypatch.setattr(scan, "FALSE_POSITIVES", [("xss", "XSS", r"^/games/\d+/posts$", "because")])
    res = scan.ScanResult([], ("xss",), report(vulns=[xss, dict(xss, path="/profile")]), 1.0, True)
    assert [v["path"] for v in res.vulnerabilities] == ["/profile"] and not res.ok
    assert "set aside [xss] POST /games/1/posts body x1: because" in res.text()
