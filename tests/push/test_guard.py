"""A chat channel cannot turn pbem at the server's own network: the attacks
of a channel's owner, through the real delivery (pbem.push.deliver, what
the push task runs) and Apprise's real plugins, against real listeners.

127.0.0.2 stands for the Internet (the tests' PBEM_HTTP_ALLOW); 127.0.0.1 is
the server's own network, where an inner listener sits behind every
receiver on the same port and records whatever reaches it (the
``receivers`` fixture fails a test that reached one). The tests' DNS server
(tests/dnsserver.py) answers the attacker's names: a name checked as public
and then answering 127.0.0.1 (rebinding) is called at the address checked;
a webhook that redirects into the server is not followed; an answer without
end, or one that never ends arriving, costs one bounded attempt."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from pbem import config
from pbem.push import deliver
from pbem.services.core.errors import UserError
from pbem.services.follow import channels
from tests import dnsserver
from tests.push import receivers as rx
from tests.push.conftest import allow_receivers
from tests.push.helpers import T0, chan, channel, note, queue, user


def _rebinding(name: str) -> dnsserver.Rebinding:
    """``name`` answers 127.0.0.2 (public) to its first A query, 127.0.0.1 to every later one."""
    dns = dnsserver.Rebinding(rx.PUBLIC, "127.0.0.1")
    dnsserver.hosts[name] = dns
    return dns


def test_a_rebound_name_is_called_at_the_address_checked_and_then_refused(push_cfg, receivers):
    """The webhook's name answers a public address when checked and the
    server's own a moment later: the message goes to the address checked
    (one lookup for check and connection), and once the name answers
    127.0.0.1, the delivery is refused: nothing reaches the inner listener."""
    name = "rebind-json.attacker.test"
    dns = _rebinding(name)
    port = receivers.port("json")
    cid, test_id = channel(user(), f"json://{name}:{port}/hook")  # NOTIFY ADD's check: public
    assert dns.asked == 1
    dns.reset()  # the next answer public, every later one 127.0.0.1
    assert deliver([test_id], now=T0) == {test_id: ("sent", 0.0)}
    assert dns.asked == 1
    [req] = receivers.messages("json")
    assert req.host == f"{name}:{port}"  # connected to the address, the request kept the name
    nid = queue(cid, "Your turn in #12.", T0)
    assert deliver([nid], now=T0) == {nid: ("retry", 15.0)}
    assert note(nid).last_error == f"pbem does not send to {name} (127.0.0.1): it is on a private network"
    assert receivers.inner_hits() == [] and len(receivers.messages("json")) == 1


def test_every_request_of_a_delivery_goes_to_the_one_address_checked(push_cfg, receivers):
    """Matrix makes four requests for one message (log in, join, send, log
    out): the name is looked up once, and all four go where it pointed then."""
    name = "rebind-matrix.attacker.test"
    dns = _rebinding(name)
    url = f"matrix://{rx.MATRIX_USER}:{rx.MATRIX_PASSWORD}@{name}:{receivers.port('matrix')}/#pbem-room"
    cid, test_id = channel(user(), url)
    dns.reset()
    assert deliver([test_id], now=T0) == {test_id: ("sent", 0.0)}
    calls = [r.path.rsplit("/", 1)[-1] if "/send/" not in r.path else "send" for r in receivers.received("matrix")]
    assert calls == ["login", f"#pbem-room:{rx.MATRIX_SERVER}", "send", "logout"]
    assert dns.asked == 1
    assert receivers.inner_hits() == []


@pytest.mark.parametrize("status", [307, 303])
def test_a_webhook_that_redirects_into_the_server_is_not_followed(push_cfg, receivers, status):
    """A public webhook answers ``307`` (a POST again, to the new place) or
    ``303`` (a GET: a cloud's metadata URL) with ``Location:
    http://127.0.0.1:<port>/...``: pbem follows no redirect."""
    cid, test_id = channel(user(), receivers.url("json"))
    receivers.answer("json", (status, receivers.inner_url("json", "/latest/meta-data/iam/security-credentials/")))
    assert deliver([test_id], now=T0) == {test_id: ("retry", 15.0)}
    assert note(test_id).last_error == f"{rx.PUBLIC} answered with a redirect ({status}), and pbem follows none"
    assert [r.status for r in receivers.received("json")] == [status]
    assert receivers.inner_hits() == []


@pytest.mark.parametrize("url", ["json://100.64.0.1/hook", "ntfy://100.100.100.200/topic", "json://192.0.0.192/hook",
                                 "json://[::ffff:7f00:1]:80/hook", "json://2130706433:80/hook",
                                 "matrix://u:p@0x7f000001/#room", "json://rebound.attacker.test/hook"])
def test_addresses_outside_the_internet_are_refused_when_set(sqlite_cfg, url):
    """Carrier-grade NAT (100.64.0.0/10, where one cloud keeps its metadata
    service, 100.100.100.200), 192.0.0.0/24, loopback written as IPv6, as a
    decimal or hexadecimal number, or behind a name: NOTIFY ADD refuses them."""
    dnsserver.hosts["rebound.attacker.test"] = ["203.0.113.9", "10.1.2.3"]  # one public-looking, one private
    with pytest.raises(UserError) as e:
        channels.parse(url)
    assert e.value.code == "private_host"
    assert "private network" in str(e.value) or "four numbers" in str(e.value)


def test_an_address_set_before_is_refused_when_delivered_without_a_connection(sqlite_cfg, receivers):
    """A channel on 100.100.100.200 (set while a lab allowed it): the delivery
    is refused before any connection, with the reason as the error."""
    config.set_settings(sqlite_cfg.with_(http_allow=("100.64.0.0/10",)))
    cid, test_id = channel(user(), "ntfy://100.100.100.200/topic")
    config.set_settings(sqlite_cfg)
    assert deliver([test_id], now=T0) == {test_id: ("retry", 15.0)}
    assert note(test_id).last_error == "pbem does not send to 100.100.100.200: it is on a private network"
    assert chan(cid).failures == 0  # not yet failed for good: retried, as any failed attempt


class _Raw:
    """A listener on 127.0.0.2 that answers every connection with ``behave(conn)``."""

    def __init__(self, behave) -> None:
        self.sock = socket.socket()
        self.sock.bind((rx.PUBLIC, 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.behave = behave
        self.sent = 0
        self.closed_after: float | None = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            start = time.monotonic()
            try:
                self.behave(self, conn)
            except OSError:  # the client closed: how long it stayed
                self.closed_after = time.monotonic() - start

    def stop(self) -> None:
        self.sock.close()
        self.thread.join(10)


def _bomb(raw: _Raw, conn: socket.socket) -> None:
    """200 OK and a body without end (at most 200 MB)."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
    block = b" " * 65536
    while raw.sent < 200 * 2**20:
        conn.sendall(block)
        raw.sent += len(block)


def _drip(raw: _Raw, conn: socket.socket) -> None:
    """An answer that never finishes arriving: a byte of header every 50 ms (for at most a minute)."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    end = time.monotonic() + 60
    while time.monotonic() < end:
        conn.sendall(b"a")
        raw.sent += 1
        time.sleep(0.05)


def test_an_answer_without_end_is_read_only_so_far(push_cfg, receivers):
    raw = _Raw(_bomb)
    try:
        cid, test_id = channel(user(), f"json://{rx.PUBLIC}:{raw.port}/hook")
        assert deliver([test_id], now=T0) == {test_id: ("retry", 15.0)}
        raw.thread.join(30)
    finally:
        raw.stop()
    assert note(test_id).last_error == f"{rx.PUBLIC} answered with more than 1024 KB, more than a chat service says"
    assert raw.closed_after is not None and raw.sent < 16 * 2**20  # pbem stopped reading at 1 MB and hung up


def test_an_answer_that_never_finishes_arriving_is_given_up_on_in_time(push_cfg, receivers):
    """Each byte comes well within the read timeout, so only a bound on the
    whole exchange ends it (settings().notify_timeout_s)."""
    allow_receivers(push_cfg, notify_timeout_s=0.5)
    raw = _Raw(_drip)
    try:
        cid, test_id = channel(user(), f"json://{rx.PUBLIC}:{raw.port}/hook")
        assert deliver([test_id], now=T0) == {test_id: ("retry", 15.0)}
        raw.thread.join(70)
    finally:
        raw.stop()
    assert note(test_id).last_error == f"{rx.PUBLIC} did not answer within 0.5 seconds"
    assert raw.closed_after is not None and raw.closed_after < 30  # hung up long before the minute
