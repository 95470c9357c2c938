"""The receiver's resources are bounded (issue 18 item 4), over real SMTP
on loopback: open sessions per client, recipients per mail, RCPTs per minute;
a session over the cap is told 421 and closed, and the ones before it work."""
from __future__ import annotations

import smtplib
import socket

import pytest

from pbem import config
from tests.conftest import smtp_receiver
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
