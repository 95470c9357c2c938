"""Settings that cannot work stop every serving command at start, with one
line that names the variable and a value that works: an unusable DNS server
used to be accepted, and then every mail to the command address was
answered 451 for ever. The real `pbem` command, in a process of its own."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PBEM = [sys.executable, "-c", "from pbem.cli import main; main()"]


def start(tmp_path, command: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    clean.update({"PBEM_VAR_DIR": str(tmp_path / "var"), **env})
    # a command that got past its settings would serve until the timeout: the test fails then
    return subprocess.run([*PBEM, command], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("name, value, says", [
    # a DNS server that is not an IP address, or a port that is none
    ("PBEM_DNS", "[::1]:99999", "the IP address of a DNS server, with an optional port, is needed, "
                                "e.g. PBEM_DNS=127.0.0.53 or PBEM_DNS=[::1]:53"),
    ("PBEM_DNS", "resolver.example:53", "the IP address of a DNS server"),
    # a port out of range
    ("PBEM_SMTPD_PORT", "70000", "a whole number from 1 to 65535 is needed, e.g. PBEM_SMTPD_PORT=2525"),
    # a number that is none
    ("PBEM_SMTPD_RATE_PER_IP", "ten", "a whole number (0 or more) is needed, e.g. PBEM_SMTPD_RATE_PER_IP=120"),
    ("PBEM_DNS_TIMEOUT_S", "3s", "a positive number is needed, e.g. PBEM_DNS_TIMEOUT_S=3"),
    # the sender check's budget, and the MX pbem trusts
    ("PBEM_DNS_BUDGET_S", "0", "a positive number is needed, e.g. PBEM_DNS_BUDGET_S=4"),
    ("PBEM_MX_ADDRESSES", "mx.example.org", "IP addresses or networks, separated by commas, are needed, "
                                            "e.g. PBEM_MX_ADDRESSES=127.0.0.1,::1"),
    ("PBEM_MX_AUTHSERV_ID", "mx.example.org", "PBEM_MX_ADDRESSES='': PBEM_MX_AUTHSERV_ID=mx.example.org is "
                                              "trusted only in mail from the MX's own addresses"),
    ("PBEM_MX_AUTHSERV_ID", "mx example", "a host name is needed, e.g. PBEM_MX_AUTHSERV_ID=mx.example.org"),
    # a choice that is none of the choices (a typo used to switch the check off in silence)
    ("PBEM_REQUIRE_AUTH", "dkim_or_spf", "one of '', 'dkim-or-spf' is needed, e.g. PBEM_REQUIRE_AUTH=dkim-or-spf"),
])
def test_a_setting_that_cannot_work_stops_the_receiver_at_start(tmp_path, name, value, says):
    run = start(tmp_path, "smtpd", **{name: value})
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr  # one line, no traceback
    assert lines[0].startswith("Error: pbem did not start: PBEM_") and says in lines[0], lines[0]
    assert f"{name}=" in lines[0]
    assert value.lower() in lines[0].lower()


@pytest.mark.parametrize("command", ["up", "smtpd", "worker", "beat", "web"])
def test_every_serving_command_stops_on_it(tmp_path, command):
    run = start(tmp_path, command, PBEM_DNS="[::1]:99999")
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        "Error: pbem did not start: PBEM_DNS='[::1]:99999': the IP address of a DNS server, with an optional "
        "port, is needed, e.g. PBEM_DNS=127.0.0.53 or PBEM_DNS=[::1]:53 (empty: the system's resolver; off: "
        "no sender checks)"]
    assert not (tmp_path / "var").exists()  # nothing was made


def test_an_ipv6_dns_server_in_brackets_is_understood():
    """`[::1]:53` was taken as the host "[::1]" and failed every check; it names ::1, port 53."""
    from pbem.config import dns_server, load_settings

    assert dns_server("[::1]:53") == ("::1", 53) and dns_server("[2001:db8::5]") == ("2001:db8::5", 53)
    assert dns_server("::1") == ("::1", 53) and dns_server("127.0.0.1:5353") == ("127.0.0.1", 5353)
    assert dns_server("") is None and dns_server("off") is None
    assert load_settings({"PBEM_DNS": "[::1]:53"}).dns == "[::1]:53"
