"""The web site never shares a process's file descriptors with the SMTP
receiver. In production they are separate programs (gunicorn,
`pbem smtpd`); `pbem up` starts the receiver in a process of its own too.
Here `pbem up` runs as it is run, with a low descriptor limit (256) and a
session cap far above it (1,100, the number of idle connections that took
the service down): the receiver caps its sessions to fit its own limit,
1,100 idle SMTP connections are held or refused with 421, and all the while
the web site answers, and a mail is taken as soon as a session is free."""
from __future__ import annotations

import os
import resource
import signal
import smtplib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from pbem.mail.inbound import FD_RESERVE
from tests.conftest import make_settings
from tests.mailtools import CMD, mail, wait_for
from tests.processes import descendants, end_pids, end_process

LIMIT = 256


def _children(pid: int) -> dict[int, str]:
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
    return out


def _descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:  # /healthz: 503 until the beat's first sweep (a minute in)
        return e.code


def _answers(url: str) -> bool:
    try:
        return _get(url) in (200, 503)
    except OSError:  # not listening yet
        return False


def test_idle_smtp_connections_cannot_take_the_web_sites_descriptors(tmp_path):
    cfg = make_settings(tmp_path, smtpd_sessions=1100, smtpd_sessions_per_ip=1100, smtpd_rate_per_ip=0)
    env = dict(os.environ, **cfg.to_env())
    up = subprocess.Popen([sys.executable, "-m", "pbem.cli", "up"], env=env, cwd=str(tmp_path),
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT)),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    held: list[socket.socket] = []
    children: dict[int, str] = {}
    under: dict[int, str] = {}
    try:
        try:
            base = f"http://127.0.0.1:{cfg.web_port}"
            wait_for(lambda: up.poll() is not None or _answers(base + "/healthz"), timeout=90, interval=0.3)
            assert up.poll() is None
            children = _children(up.pid)
            [receiver] = [pid for pid, cmd in children.items() if "pbem.mail.inbound" in cmd]
            refused = 0
            for _ in range(1100):
                s = socket.create_connection(("127.0.0.1", cfg.smtpd_port), timeout=10)
                greeting = s.recv(200)
                if greeting.startswith(b"220"):
                    held.append(s)
                else:
                    assert greeting.startswith(b"421"), greeting
                    refused += 1
                    s.close()
            # the receiver took as many as fit in its own descriptors, and refused the rest at once
            assert len(held) == LIMIT - FD_RESERVE and refused == 1100 - len(held)
            assert _descriptors(receiver) >= len(held)
            # the web site, in another process, answers as before, and holds none of them
            for path in ("/healthz", "/", "/login", "/lobby"):
                assert _get(base + path) in ((200, 503) if path == "/healthz" else (200,)), path
            assert _descriptors(up.pid) < 64
            # a session freed is a mail taken
            for s in held[:5]:
                s.close()
            del held[:5]
            time.sleep(0.5)
            with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30) as c:
                c.ehlo("client.test")
                assert c.sendmail("ann@x.test", [CMD], mail("ann@x.test", CMD, "REGISTER Ann")) == {}
        finally:
            for s in held:
                s.close()
            under = descendants(up.pid)  # the receiver, the worker and its pool
            up.send_signal(signal.SIGINT)  # as Ctrl-C: `pbem up` stops the receiver and the worker
            try:
                up.wait(60)
            except subprocess.TimeoutExpired:
                end_process(up, signal.SIGKILL)
        wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in children))  # the receiver and worker too
    finally:
        end_pids(under)  # none is left running, whatever happened above
