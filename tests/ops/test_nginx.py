"""deploy/nginx-pbem.conf as shipped, on the distribution's own nginx (Debian 12: 1.22, which knows no
`http2 on;`): `nginx -t` passes, and in front of gunicorn run as pbem-web.service runs it, on a port
other than 443, a form posted through it is taken (the Host passed on keeps its port, which the forms'
security check compares with the page's address). The same file with `Host $host` refuses it: the
check is real."""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from pbem.bench.env import free_port, stop_server
from tests.web.conftest import CSRF_RE

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (./scripts/test installs Debian's)")


def _cert(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=2)).sign(key, hashes.SHA256()))
    crt, pem = folder / "fullchain.pem", folder / "privkey.pem"
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    return crt, pem


def site_conf(folder: Path, tls_port: int, http_port: int, app_port: int, host_header: str | None = None) -> Path:
    """The shipped file, with only what a test machine must change: the certificate, the ports, loopback."""
    crt, pem = _cert(folder)
    text = (ROOT / "deploy/nginx-pbem.conf").read_text()
    for old, new in ((r"/etc/letsencrypt/live/games\.example\.org/fullchain\.pem", str(crt)),
                     (r"/etc/letsencrypt/live/games\.example\.org/privkey\.pem", str(pem)),
                     (r"listen 443 ssl http2;", f"listen 127.0.0.1:{tls_port} ssl http2;"),
                     (r"listen \[::\]:443 ssl http2;\n", ""),
                     (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
                     (r"listen \[::\]:80;\n", ""),
                     (r"http://127\.0\.0\.1:8000;", f"http://127.0.0.1:{app_port};")):
        text, n = re.subn(old, new, text)
        assert n == 1, f"deploy/nginx-pbem.conf no longer has {old}"
    if host_header:
        text = text.replace("proxy_set_header Host $http_host;", f"proxy_set_header Host {host_header};")
    conf = folder / "pbem-site.conf"
    conf.write_text(text)
    return conf


def main_conf(folder: Path, site: Path) -> Path:
    """nginx.conf around the site, as Debian's includes sites-enabled/* inside http { }."""
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"):
        (folder / sub).mkdir(exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(f"""user root;
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/logs/error.log;
events {{ worker_connections 64; }}
http {{
    include /etc/nginx/mime.types;
    access_log {folder}/logs/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {site};
}}
""")
    return conf


def _wait_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, f"exited with {proc.returncode}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


def test_the_shipped_config_passes_nginx_t():
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        conf = main_conf(folder, site_conf(folder, free_port(), free_port(), 8000))
        run = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(folder)], capture_output=True, text=True)
    assert run.returncode == 0 and "test is successful" in run.stderr, run.stderr
    text = (ROOT / "deploy/nginx-pbem.conf").read_text()
    assert not re.search(r"^\s*http2 on;", text, re.M) and "proxy_set_header Host $http_host;" in text


def _post_a_form(port: int) -> tuple[int, str]:
    import requests
    import urllib3

    urllib3.disable_warnings()
    base = f"https://127.0.0.1:{port}"
    s = requests.Session()
    s.trust_env = False  # REQUESTS_CA_BUNDLE would verify the test's own certificate against the world's
    s.verify = False
    page = s.get(base + "/login", timeout=30)
    assert page.status_code == 200, page.text[:500]
    token = CSRF_RE.search(page.text).group(1)
    # what a browser sends: the page's address as the Referer, the Host with its port
    r = s.post(base + "/login", data={"csrf_token": token, "email": "ann@example.org"},
               headers={"Referer": base + "/login"}, allow_redirects=False, timeout=30)
    return r.status_code, r.text


@pytest.mark.parametrize("host_header", [None, "$host"], ids=["as-shipped", "with-host-without-port"])
def test_a_form_through_the_shipped_config_on_another_port(sqlite_cfg, tmp_path, host_header):
    app_port, tls_port = free_port(), free_port()
    cfg = sqlite_cfg.with_(base_url=f"https://127.0.0.1:{tls_port}")
    env = dict(cfg.to_env(), PATH="/usr/bin:/bin", PBEM_SECRET_KEY="a-secret-for-the-nginx-test-only")
    gunicorn = subprocess.Popen([sys.executable, "-m", "gunicorn", "--workers", "1", "--worker-class", "gthread",
                                 "--threads", "4", "--bind", f"127.0.0.1:{app_port}", "--forwarded-allow-ips",
                                 "127.0.0.1", "pbem.web:create_app()"], cwd=str(ROOT), env=env,
                                stdout=subprocess.DEVNULL, stderr=(tmp_path / "gunicorn.log").open("w"))
    folder = Path(tempfile.mkdtemp(prefix="pbem-nginx-"))
    nginx = None
    try:
        conf = main_conf(folder, site_conf(folder, tls_port, free_port(), app_port, host_header))
        nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(folder)], stderr=subprocess.PIPE)
        _wait_port(app_port, gunicorn)
        _wait_port(tls_port, nginx)
        status, body = _post_a_form(tls_port)
        if host_header is None:
            assert status == 200 and 'id="sent"' in body, body[:1500]  # taken: "a link is on its way"
        else:
            assert status == 400 and "security token" in body, (status, body[:1500])  # every form refused
    finally:
        if nginx is not None:
            stop_server(nginx, 15)
        stop_server(gunicorn, 30)
        shutil.rmtree(folder, ignore_errors=True)
