"""pbem/net's transport and fence against real listeners on loopback and the
tests' real DNS server: 127.0.0.2 stands for the Internet (the policy's
allow-list), 127.0.0.1 is the server's own network, where an inner listener
records whatever reaches it.

- every way of writing an address on the server's own network in a URL is
  refused before any connection;
- a name is resolved once per guarded block, and the socket goes to the
  address checked while Host, the TLS server name and the certificate check
  keep the name (a certificate for another name is refused);
- inside a block nothing but the transport may connect (urllib, a raw
  socket, a ``requests`` session made before the block); outside it, and in
  other threads, nothing changes."""
from __future__ import annotations

import socket
import ssl
import tempfile
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from pbem import net
from pbem.net.rule import networks
from tests import dnsserver
from tests.push.receivers import PUBLIC, Inner, _CA

POLICY = net.Policy(allow=networks([f"{PUBLIC}/32"]), dns=dnsserver.address(), timeout_s=3.0, budget_s=9.0)


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *a) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append((self.path, self.headers.get("Host")))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_POST = do_GET


@pytest.fixture(scope="module")
def pair():
    """(the public listener, the inner listener) on one port of 127.0.0.2 and 127.0.0.1."""
    for _attempt in range(50):
        inner = Inner.on(0)
        try:
            public = ThreadingHTTPServer((PUBLIC, inner.port), _Echo)
            break
        except OSError:
            inner.stop()
    public.seen = []  # type: ignore[attr-defined]
    public.daemon_threads = True
    t = threading.Thread(target=public.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield public, inner
    public.shutdown()
    public.server_close()
    inner.stop()
    t.join(5)


@pytest.mark.parametrize("host", ["127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1",
                                  "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::7f00:1]", "[64:ff9b::7f00:1]",
                                  "[2002:7f00:1::]", "[::1]", "localhost", "100.100.100.200", "100.64.0.1",
                                  "192.0.0.192", "169.254.169.254"])
def test_every_way_of_writing_the_servers_own_network_is_refused(pair, host):
    public, inner = pair
    with net.guarded(POLICY) as scope, pytest.raises(net.Blocked) as e:
        requests.post(f"http://{host}:{inner.port}/latest/meta-data/", json={"x": 1}, timeout=3)
    assert scope.refusals == [str(e.value)] and str(e.value).startswith("pbem does not send to ")
    assert inner.hits() == []


def test_a_name_is_resolved_once_per_block_and_called_at_that_address(pair):
    public, inner = pair
    dns = dnsserver.Rebinding(PUBLIC, "127.0.0.1")
    dnsserver.hosts["twice.attacker.test"] = dns
    url = f"http://twice.attacker.test:{inner.port}/hook"
    with net.guarded(POLICY):
        assert requests.post(url, timeout=3).text == "ok"
        assert requests.get(url, timeout=3).text == "ok"  # the name answers 127.0.0.1 now: not asked again
    assert dns.asked == 1 and public.seen[-2:] == [("/hook", f"twice.attacker.test:{inner.port}")] * 2
    with net.guarded(POLICY), pytest.raises(net.Blocked, match=r"twice.attacker.test \(127.0.0.1\): it is on a priv"):
        requests.post(url, timeout=3)
    assert inner.hits() == []


@pytest.fixture(scope="module")
def tls():
    """A TLS server on 127.0.0.2 whose certificate names hook.lab.test (a throwaway CA's), recording the
    server name each client asked for; the CA's file."""
    where = tempfile.TemporaryDirectory(prefix="pbem-net-")
    ca = _CA(Path(where.name))
    ca_file = Path(where.name) / "ca.pem"
    ca_file.write_bytes(ca.cert_pem)
    ctx = ca.context("hook.lab.test")
    names: list[str | None] = []
    ctx.sni_callback = lambda sock, name, _ctx: names.append(name)
    server = ThreadingHTTPServer((PUBLIC, 0), _Echo)
    server.seen = []  # type: ignore[attr-defined]
    server.daemon_threads = True
    server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    server.handle_error = lambda *a: None  # the handshake a client refused
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    for name in ("hook.lab.test", "other.lab.test"):
        dnsserver.hosts[name] = [PUBLIC]
    yield server, names, str(ca_file)
    server.shutdown()
    server.server_close()
    t.join(5)
    where.cleanup()


def test_https_keeps_the_name_for_the_server_name_and_the_certificate(tls):
    server, names, ca_file = tls
    policy = net.Policy(allow=POLICY.allow, dns=POLICY.dns, timeout_s=3.0, budget_s=9.0, ca_file=ca_file)
    port = server.server_address[1]
    with net.guarded(policy):
        assert requests.post(f"https://hook.lab.test:{port}/hook", timeout=3).text == "ok"
    assert names[-1] == "hook.lab.test" and server.seen[-1] == ("/hook", f"hook.lab.test:{port}")
    with net.guarded(policy), pytest.raises(requests.exceptions.SSLError):  # the certificate names another host
        requests.post(f"https://other.lab.test:{port}/hook", timeout=3)


def test_inside_a_block_nothing_but_the_transport_connects(pair):
    public, inner = pair
    url = f"http://{PUBLIC}:{inner.port}/"
    early = requests.Session()  # made before the block: not pinned
    with net.guarded(POLICY) as scope:
        with pytest.raises(urllib.error.URLError, match="pbem lets nothing but its checked transport"):
            urllib.request.urlopen(url, timeout=3)
        with pytest.raises(PermissionError):
            socket.create_connection((PUBLIC, inner.port), 3)
        with pytest.raises(requests.exceptions.ConnectionError, match="pbem lets nothing but its checked transport"):
            early.get(url, timeout=3)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, pytest.raises(PermissionError):
            udp.sendto(b"x", ("127.0.0.1", inner.port))
        assert requests.get(url, timeout=3).text == "ok"  # the transport itself
    assert scope.refusals == [f"pbem lets nothing but its checked transport connect for a channel ({a})"
                              for a in (PUBLIC, "127.0.0.1")]  # each said once
    with urllib.request.urlopen(url, timeout=3) as r:  # outside the block: as ever
        assert r.read() == b"ok"
    assert inner.hits() == []


def test_the_fence_stands_in_its_own_thread_only(pair):
    public, inner = pair
    url = f"http://{PUBLIC}:{inner.port}/"
    inside, done = threading.Event(), threading.Event()
    outcome: list[str] = []

    def guarded_thread() -> None:
        with net.guarded(POLICY):
            inside.set()
            done.wait(10)
            try:
                urllib.request.urlopen(url, timeout=3)
                outcome.append("connected")
            except urllib.error.URLError:
                outcome.append("fenced")

    t = threading.Thread(target=guarded_thread)
    t.start()
    assert inside.wait(10)
    with urllib.request.urlopen(url, timeout=3) as r:  # another thread, while the block is open
        assert r.read() == b"ok"
    done.set()
    t.join(10)
    assert outcome == ["fenced"]


def test_only_http_and_https(pair):
    with net.guarded(POLICY), pytest.raises(requests.exceptions.InvalidSchema):
        requests.get("file:///etc/passwd")
    session = net.session()
    assert set(session.adapters) == {"http://", "https://"} and session.trust_env is False
