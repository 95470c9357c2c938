"""The receiver's resources are bounded, over real SMTP
on loopback: open sessions per client, recipients per mail, RCPTs per minute;
a session over the cap is told 421 and closed, and the ones before it work.
With a Redis broker the rate limits are shared by every receiver."""
from __future__ import annotations

import smtplib
import socket
from contextlib import contextmanager

import pytest

from pbem import config
from tests.conftest import free_port, smtp_receiver
from tests.mailtools import CMD, mail


def _greeting(port: int) -> tuple[socket.socket, bytes]:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s, s.recv(200)


def test_sessions_per_client_are_capped_and_freed(sqlite_cfg):
    cfg = sqlite_cfg.with_(smtpd_sessions_per_ip=3)
    config.set_settings(cfg)
    with smtp_receiver(cfg):
        held = [_greeting(cfg.smtpd_port) for _ in range(3)]
        assert all(g.startswith(b"220") for _, g in held)
        extra, greeting = _greeting(cfg.smtpd_port)
        assert greeting.startswith(b"421")
        assert extra.recv(100) == b""  # and it is closed
        extra.close()
        for s, _ in held:
            s.close()
        # freed: a whole mail goes through again
        with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=10) as c:
            c.ehlo("client.test")
            assert c.sendmail("ann@x.test", [CMD], mail("ann@x.test", CMD, "HELP")) == {}


def test_recipients_per_mail_are_capped(sqlite_cfg):
    cfg = sqlite_cfg.with_(smtpd_max_rcpts=5)
    config.set_settings(cfg)
    with smtp_receiver(cfg):
        with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=10) as c:
            c.ehlo("client.test")
            c.mail("ann@x.test")
            codes = [c.rcpt(CMD)[0] for _ in range(7)]
    assert codes == [250] * 5 + [452, 452]


@pytest.mark.parametrize("rate", [2])
def test_rcpts_count_in_the_per_client_rate(sqlite_cfg, rate):
    cfg = sqlite_cfg.with_(smtpd_rate_per_ip=rate, smtpd_max_rcpts=100)  # 4 x rate RCPTs a minute
    config.set_settings(cfg)
    with smtp_receiver(cfg):
        with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=10) as c:
            c.ehlo("client.test")
            c.mail("ann@x.test")
            codes = [c.rcpt(CMD)[0] for _ in range(4 * rate + 2)]
    assert codes == [250] * (4 * rate) + [451, 451]


def _send(port: int, sender: str) -> int:
    """One whole mail over real SMTP; the reply code of the refusal, or 250."""
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as c:
        c.ehlo("client.test")
        try:
            c.sendmail(sender, [CMD], mail(sender, CMD, "HELP"))
        except smtplib.SMTPSenderRefused as e:
            return e.smtp_code
    return 250


@contextmanager
def _two_receivers(cfg):
    from pbem.mail.inbound import make_controller

    ctls = [make_controller(cfg, host="127.0.0.1", port=free_port()) for _ in range(2)]
    for c in ctls:
        c.start()
    try:
        yield [c.port for c in ctls]
    finally:
        for c in ctls:
            c.stop()


def test_receivers_sharing_a_redis_broker_enforce_one_limit(sqlite_cfg, on_redis):
    """With a Redis broker the receivers' rate limits are shared through it, so two receiver
    processes (or machines) let a client through as often as one would."""
    cfg = on_redis(sqlite_cfg.with_(smtpd_rate_per_ip=3))
    with _two_receivers(cfg) as (a, b):
        assert [_send(a, "ann@x.test"), _send(b, "bob@x.test"), _send(a, "cyd@x.test")] == [250] * 3
        assert _send(b, "dan@x.test") == 451  # the fourth in the minute, whichever receiver takes it
        assert _send(a, "eve@x.test") == 451


def test_the_embedded_default_limits_each_receiver_for_itself(sqlite_cfg):
    """No Redis (the embedded broker): the limits are the process's own, as before."""
    cfg = sqlite_cfg.with_(smtpd_rate_per_ip=2)
    config.set_settings(cfg)
    with _two_receivers(cfg) as (a, b):
        assert [_send(a, "ann@x.test"), _send(a, "bob@x.test"), _send(a, "cyd@x.test")] == [250, 250, 451]
        assert _send(b, "dan@x.test") == 250


def test_a_shared_limit_lets_mail_through_when_redis_does_not_answer(sqlite_cfg):
    """A broker outage must not refuse the players' mail: the receiver stores it for the sweep."""
    from pbem.mail.inbound import SharedRateLimit, rate_limits

    limit = rate_limits(sqlite_cfg.with_(broker_url=f"redis://127.0.0.1:{free_port()}/0"))("ip", 1)
    assert isinstance(limit, SharedRateLimit)
    limit.record("10.0.0.1")
    assert limit.allow("10.0.0.1") and limit.allow("10.0.0.1")
