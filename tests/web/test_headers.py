"""Security headers on every page (issue 8 §6)."""
import pytest


@pytest.mark.parametrize("path", ["/", "/lobby", "/rules/spyrium", "/login", "/outbox", "/healthz"])
def test_security_headers(app, path):
    r = app.test_client().get(path)
    assert r.status_code in (200, 302)
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["Referrer-Policy"] == "no-referrer"  # login links carry tokens
    assert "Strict-Transport-Security" not in r.headers  # only when the site is served over https
