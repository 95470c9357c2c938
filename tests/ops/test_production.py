"""The production layout of docs/operators.md, run end to end: the wheel installed into a fresh virtual
environment that its user cannot write; the receiver, two workers on separate queues, the beat and
gunicorn started as a user who is not root, on a fresh PostgreSQL database owned by a role of its own
and on Redis; Debian's Postfix in front of the receiver, configured with the lines of the manual's
"Behind Postfix" (section 3) and listening on loopback only; nginx with the shipped site file in front
of gunicorn. A Russian and an English player play by mail through Postfix, and each gets the boards in
their language; Postfix refuses a game address that does not exist and a mail larger than pbem takes
during the conversation (nothing is queued: no bounce to a possibly forged sender); a delivered mail's
DKIM signature verifies (dkimpy) against the loopback DNS; one player's mail bounces both ways (a DSN
after the relay took it, a 550 at RCPT from the relay); a backup is 0600 and restores.

Outgoing mail goes straight to a sink on loopback that stands for the relay (PBEM_SMTP_URL)."""
from __future__ import annotations

import base64
import email
import email.policy
import os
import re
import shutil
import signal
import smtplib
import socket
import stat
import subprocess
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.bench.env import free_port
from tests import dnsserver
from tests.conftest import PG_ADMIN, REDIS_BASE, _drop_database, installed, make_settings
from tests.mailtools import mail, quoted_reply, wait_for
from tests.ops.test_nginx import NGINX, main_conf, site_conf
from tests.ops.test_package import _python_for, _wheel
from tests.reliability.chaos import Sink

ROOT = Path(__file__).resolve().parents[2]
POSTFIX = shutil.which("postfix", path="/usr/sbin:/sbin:/usr/bin")
RUNUSER = shutil.which("runuser", path="/usr/sbin:/sbin:/usr/bin:/bin")
USER = "nobody"
DOMAIN = "pbem.test"
CMD = f"pbem@{DOMAIN}"
ANN, BORIS = "ann@x.test", "boris@x.test"
BOUNCE_EML = ROOT / "tests/fixtures/eml/bounces/postfix_hard.eml"

pytestmark = [
    pytest.mark.production, pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis,
    pytest.mark.skipif(POSTFIX is None, reason="Postfix is not installed (./scripts/test installs Debian's)"),
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (./scripts/test installs Debian's)"),
    pytest.mark.skipif(os.geteuid() != 0 or RUNUSER is None, reason="runs Postfix, and pbem as another user: root only"),
]


class Relay(Sink):
    """The outgoing relay: takes every mail (with its envelope sender), and answers 550 at RCPT for the
    addresses in ``refuse``."""

    def __init__(self, port: int):
        super().__init__(port)
        self.refuse: set[str] = set()
        self.envelopes: list[tuple[str, list[str], bytes]] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refuse:
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos),
                                   envelope.original_content or envelope.content))
        return await super().handle_DATA(server, session, envelope)

    def to(self, addr: str) -> list[email.message.EmailMessage]:
        with self.lock:
            return [email.message_from_bytes(raw, policy=email.policy.default)
                    for _, rcpts, raw in self.envelopes if addr in rcpts]


def docs_postfix(port: int) -> tuple[str, str]:
    """main.cf's lines and the transport table of docs/operators.md's section 3, for this machine's
    domain and receiver port."""
    text = (ROOT / "docs/operators.md").read_text()
    section = text[text.index("## 3. Mail in: behind Postfix"):text.index("### The MX's verdict")]
    block = section[section.index("```\n") + 4:section.index("\n```", section.index("```\n") + 4)]
    main, _, transport = block.partition("# /etc/postfix/transport")
    main = main.replace("# /etc/postfix/main.cf\n", "").replace("games.example.org", DOMAIN)
    transport = transport.split("\n", 1)[1].replace("games.example.org", DOMAIN)
    transport, n = re.subn(r"smtp:\[127\.0\.0\.1\]:2525", f"smtp:[127.0.0.1]:{port}", transport)
    assert n == 1 and "reject_unverified_recipient" in main and "message_size_limit = 2097152" in main, block
    return main, transport


MASTER_CF = """{listen} inet n - n - - smtpd
pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
smtp unix - - n - - smtp
relay unix - - n - - smtp
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
"""


def start_postfix(folder: Path, smtp_port: int, receiver_port: int) -> Path:
    """A Postfix instance of its own (``postfix -c``): the manual's lines, plus what a second instance
    on a test machine needs (its own queue and data folders, loopback and a free port, a log file,
    no chroot)."""
    conf, queue, data = folder / "conf", folder / "queue", folder / "data"
    for d in (conf, queue, data):
        d.mkdir()
    shutil.chown(data, "postfix")
    main, transport = docs_postfix(receiver_port)
    main = main.replace("hash:/etc/postfix/transport", f"hash:{conf}/transport")
    (conf / "main.cf").write_text(f"""compatibility_level = 3.6
myhostname = mx.{DOMAIN}
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
queue_directory = {queue}
data_directory = {data}
mail_owner = postfix
setgid_group = postdrop
maillog_file_prefixes = {folder}
maillog_file = {folder}/postfix.log
alias_maps =
alias_database =
smtp_dns_support_level = disabled
{main}""")
    (conf / "master.cf").write_text(MASTER_CF.format(listen=f"127.0.0.1:{smtp_port}"))
    (conf / "transport").write_text(transport)
    subprocess.run(["postmap", "-c", str(conf), f"hash:{conf}/transport"], check=True)
    run = subprocess.run([POSTFIX, "-c", str(conf), "start"], capture_output=True, text=True)
    log = folder / "postfix.log"
    assert run.returncode == 0, (run.stderr, log.read_text() if log.exists() else "")
    return conf


def stop_postfix(conf: Path, folder: Path) -> None:
    subprocess.run([POSTFIX, "-c", str(conf), "stop"], capture_output=True)
    pidfile = folder / "queue/pid/master.pid"
    if pidfile.exists():
        try:
            pid = int(pidfile.read_text().strip())
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.1)
            os.kill(pid, signal.SIGKILL)
        except (ValueError, ProcessLookupError):
            pass


def _wait_port(port: int, proc: subprocess.Popen | None, log: Path, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc is None or proc.poll() is None, log.read_text()[-3000:] if log.exists() else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port}: " + (log.read_text()[-3000:] if log.exists() else ""))


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
        except ProcessLookupError:
            pass


def _dns_txt(name: bytes, timeout: int = 5, **kw) -> bytes | None:
    """dkimpy's DNS lookup, as a real query to the loopback DNS server."""
    import dns.resolver

    host, port = dnsserver.address().rsplit(":", 1)
    r = dns.resolver.Resolver(configure=False)
    r.nameservers, r.port, r.lifetime = [host], int(port), timeout
    try:
        answer = r.resolve(name.decode().rstrip("."), "TXT")
    except Exception:
        return None
    return b"".join(b"".join(rr.strings) for rr in answer)


def test_the_production_layout_behind_postfix_and_nginx(dist):
    folder = Path(tempfile.mkdtemp(prefix="pbem-production-"))
    folder.chmod(0o755)  # the services' user and Postfix's reach their folders in it
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, True)
        _run(dist, folder, stack)


def _run(dist: Path, folder: Path, stack: ExitStack) -> None:
    import sqlalchemy as sa

    # ------------------------------------------------------------------ the package, read-only
    venv = folder / "venv"
    subprocess.run([_python_for(USER), "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin/pip"), "install", "-q", f"{_wheel(dist)}[prod]"], check=True, timeout=900)
    subprocess.run(["chmod", "-R", "a-w", str(venv)], check=True)
    stack.callback(subprocess.run, ["chmod", "-R", "u+w", str(venv)], check=False)
    var = folder / "var"
    var.mkdir()
    shutil.chown(var, USER)

    # ------------------------------------------------------------------ the role and the database
    role = "pbem_p_" + uuid.uuid4().hex[:10]
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE ROLE "{role}" LOGIN')  # a role that may log in, and nothing more
        c.exec_driver_sql(f'CREATE DATABASE "{role}" OWNER "{role}" ENCODING \'UTF8\'')
        c.exec_driver_sql(f'CREATE DATABASE "{role}_r" OWNER "{role}" ENCODING \'UTF8\'')  # the restore's

    def drop():
        _drop_database(admin, role)
        _drop_database(admin, role + "_r")
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP ROLE IF EXISTS "{role}"')
        admin.dispose()

    stack.callback(drop)
    host = PG_ADMIN.split("@", 1)[1].rsplit("/", 1)[0]
    db_url = f"postgresql+psycopg://{role}@{host}/{role}"
    prefix = f"pbem-prod-{uuid.uuid4().hex[:8]}:"

    def forget_redis():
        import redis

        r = redis.Redis.from_url(f"{REDIS_BASE}/0")
        keys = list(r.scan_iter(match=prefix + "*", count=1000))
        if keys:
            r.delete(*keys)

    stack.callback(forget_redis)

    relay = Relay(free_port())
    relay.start()
    stack.callback(relay.stop)
    receiver, mx, app, tls = free_port(), free_port(), free_port(), free_port()
    dkim_key = var / "dkim/pbem.pem"
    env = {
        "PATH": f"{venv}/bin:/usr/bin:/bin", "HOME": str(var), "LANG": "C.UTF-8",
        "PBEM_VAR_DIR": str(var), "PBEM_DOMAIN": DOMAIN, "PBEM_BASE_URL": f"https://127.0.0.1:{tls}",
        "PBEM_SECRET_KEY": "a-secret-for-the-production-test-only", "PBEM_DATABASE_URL": db_url,
        "PBEM_BROKER_URL": f"{REDIS_BASE}/0", "PBEM_BROKER_PREFIX": prefix,
        "PBEM_SMTP_URL": f"smtp://127.0.0.1:{relay.port}?timeout=10",
        "PBEM_SMTPD_HOST": "127.0.0.1", "PBEM_SMTPD_PORT": str(receiver),
        "PBEM_SMTPD_RATE_PER_IP": "0",  # every mail comes from the MX (section 3)
        "PBEM_DNS": dnsserver.address(), "PBEM_MAIL_PICTURES": "0", "PBEM_INBOUND_RATE": "10000",
        "PBEM_MAIL_QUEUE": "mail", "PBEM_SWEEP_QUEUE": "sweeps", "PBEM_DELIVERY_QUEUE": "delivery",
        "PBEM_DKIM_KEY_FILE": str(dkim_key),
    }

    def pbem(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        run = subprocess.run([RUNUSER, "-u", USER, "--", str(venv / "bin/pbem"), *args], cwd=str(var), env=env,
                             capture_output=True, text=True, timeout=300)
        assert not check or run.returncode == 0, (args, run.stdout, run.stderr)
        return run

    def service(name: str, *cmd: str) -> subprocess.Popen:
        log = folder / f"{name}.log"
        proc = subprocess.Popen([RUNUSER, "-u", USER, "--", *cmd], cwd=str(var), env=env,
                                stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
        stack.callback(_stop, proc)
        return proc

    pbem("db", "upgrade")
    keygen = pbem("dkim", "keygen").stdout
    assert stat.S_IMODE(dkim_key.stat().st_mode) == 0o600, keygen
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(dkim_key.read_bytes(), None)
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    dnsserver.records[f"pbem._domainkey.{DOMAIN}"] = [f"v=DKIM1; k=rsa; p={base64.b64encode(der).decode()}"]
    stack.callback(dnsserver.records.pop, f"pbem._domainkey.{DOMAIN}", None)

    bin_ = str(venv / "bin")
    smtpd = service("smtpd", f"{bin_}/pbem", "smtpd")
    service("worker-mail", f"{bin_}/pbem", "worker", "--queues=pbem,mail,sweeps", "--concurrency=2",
            "--pool=threads", "--hostname=mail@%h", "--loglevel=WARNING")
    service("worker-delivery", f"{bin_}/pbem", "worker", "--queues=delivery", "--concurrency=2",
            "--pool=threads", "--hostname=delivery@%h", "--loglevel=WARNING")
    service("beat", f"{bin_}/pbem", "beat")
    web = service("gunicorn", f"{bin_}/gunicorn", "--workers", "2", "--worker-class", "gthread", "--threads", "4",
                  "--bind", f"127.0.0.1:{app}", "--forwarded-allow-ips", "127.0.0.1", "pbem.web:create_app()")

    # ------------------------------------------------------------------ Postfix, as the manual says
    pf = folder / "postfix"
    pf.mkdir()
    stack.callback(stop_postfix, pf / "conf", pf)  # also when it started and then failed
    conf = start_postfix(pf, mx, receiver)
    _wait_port(mx, None, pf / "postfix.log")

    # ------------------------------------------------------------------ nginx, the shipped file
    ng = folder / "nginx"
    ng.mkdir()
    nconf = main_conf(ng, site_conf(ng, tls, free_port(), app))
    check = subprocess.run([NGINX, "-t", "-c", str(nconf), "-p", str(ng)], capture_output=True, text=True)
    assert check.returncode == 0 and "test is successful" in check.stderr, check.stderr
    nginx = subprocess.Popen([NGINX, "-c", str(nconf), "-p", str(ng)], stderr=(ng / "stderr.log").open("w"),
                             start_new_session=True)
    stack.callback(_stop, nginx)

    _wait_port(receiver, smtpd, folder / "smtpd.log")
    _wait_port(app, web, folder / "gunicorn.log")
    _wait_port(tls, nginx, ng / "stderr.log")

    # the test reads the same database as the services
    cfg_ctx = installed(make_settings(folder / "t", database_url=db_url, domain=DOMAIN,
                                           broker_url=env["PBEM_BROKER_URL"], broker_prefix=prefix,
                                           secret_key=env["PBEM_SECRET_KEY"]))
    stack.enter_context(cfg_ctx)
    from pbem.engine import bots, get_game
    from pbem.services.core import games
    from pbem.store.db import unit_of_work
    from pbem.store.models import Bounce, Game, Outbound, Seat, User

    def through_postfix(frm: str, to: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", mx, timeout=60) as s:
            s.ehlo("client.x.test")
            s.sendmail(frm, [to], raw)

    def said_in(lang: str, raw: bytes) -> bytes:
        if lang == "en":
            return raw
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        msg["Content-Language"] = lang
        return msg.as_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")

    def game_ply(gid: int) -> int:
        with unit_of_work() as s:
            return games.get(s, gid).ply

    def waited(pred, what: str):
        try:
            return wait_for(pred, 120)
        except AssertionError:
            from pbem.store.models import Inbound
            pytest.fail(f"{what}: {[(i.id, i.status, i.error) for i in _all(select(Inbound))][-4:]}\n"
                        f"{[(b.address, b.kind, b.status) for b in _all(select(Bounce))]}\n" + _logs(folder))

    # ------------------------------------------------------------------ a game by mail, through Postfix
    through_postfix(ANN, CMD, mail(ANN, CMD, "REGISTER Ann\nNEW spyrium players=2"))
    gid = wait_for(lambda: _one(select(Game.id)), 120)
    through_postfix(BORIS, CMD, said_in("ru", mail(BORIS, CMD, "REGISTER Boris")))
    wait_for(lambda: _one(select(User.id).where(User.email == BORIS)), 120)
    through_postfix(BORIS, CMD, said_in("ru", mail(BORIS, CMD, f"JOIN {gid}")))
    wait_for(lambda: _one(select(Game.status).where(Game.id == gid)) == "running", 120)
    with unit_of_work() as s:
        addr_of = {st.seat: s.get(User, st.user_id).email for st in s.exec(select(Seat).where(Seat.game_id == gid))}
        assert {s.exec(select(User.language).where(User.email == a)).one() for a in (ANN, BORIS)} == {"en", "ru"}
    GAME = get_game("spyrium")

    def play_one(text: str | None = None) -> None:
        with unit_of_work() as s:
            g = games.get(s, gid)
            ply, state = g.ply, games.state_at(s, g)
        (seat,) = GAME.to_move(state)
        addr = addr_of[seat]
        move = text or GAME.format_move(state, seat, bots.choose(GAME, state, seat, ply + 7))
        from pbem.store.addresses import parse_message_refs

        def board():
            rows = _all(select(Outbound).where(Outbound.to_addr == addr, Outbound.status == "sent"))
            rows = [o for o in rows if o.headers.get("Reply-To", "").startswith(f"game-{gid}.")
                    and parse_message_refs(o.message_id, DOMAIN)[0].ply == ply]  # the board of this ply
            return rows[-1] if rows else None

        row = wait_for(board, 120)
        through_postfix(addr, row.headers["Reply-To"], quoted_reply(addr, row, move))
        try:
            wait_for(lambda: game_ply(gid) == ply + 1, 120)
        except AssertionError:
            from pbem.store.models import Inbound
            last = _all(select(Outbound).where(Outbound.to_addr == addr))[-1]
            pytest.fail(f"{move!r} to {row.headers['Reply-To']} (subject {row.subject!r}) not applied: "
                        f"{[(i.id, i.status, i.error) for i in _all(select(Inbound))][-4:]}\n{last.body_text[:2000]}\n"
                        + _logs(folder))

    for _ in range(3):
        play_one()
    # every mail to each player, as the relay got it, is in that player's language
    for addr, lang in ((ANN, "en"), (BORIS, "ru")):
        got = relay.to(addr)
        assert len(got) >= 3, (addr, len(got))
        for m in got:
            assert m["Content-Language"] == lang, (addr, m["Subject"], m["Content-Language"])
        text = "\n".join(m.get_body(("plain",)).get_content() for m in got)
        if lang == "ru":
            assert re.search(r"[а-яё]{4,}", text, re.I), text[:1500]
        else:
            assert not re.search(r"[а-яё]", text, re.I), text[:1500]

    # a delivered mail's DKIM signature verifies against the loopback DNS
    import dkim

    _, _, raw = relay.envelopes[-1]
    assert b"DKIM-Signature:" in raw and dkim.verify(raw, dnsfunc=_dns_txt), raw[:1500]

    # ------------------------------------------------------------------ refused during the conversation
    with smtplib.SMTP("127.0.0.1", mx, timeout=60) as s:
        s.ehlo("forger.example")
        s.mail("forged@victim.example")
        code, said = s.rcpt(f"game-{gid + 100}.abcdefgh@{DOMAIN}")
        assert code == 550, (code, said)
        code, said = s.rcpt(CMD)
        assert code == 250, (code, said)
        big = mail("forged@victim.example", CMD, "x" * 76 + "\n") + (("y" * 76 + "\r\n") * 40_000).encode()
        code, said = s.data(big)
        assert code == 552, (code, said)
    queue = subprocess.run(["postqueue", "-c", str(conf), "-p"], capture_output=True, text=True)
    assert "Mail queue is empty" in queue.stdout, queue.stdout  # nothing taken: no bounce to the forged sender

    # ------------------------------------------------------------------ Boris's mail bounces, both ways
    # a DSN, after the relay took a mail: to the mail's own envelope sender, through Postfix
    frm, _, raw = [e for e in relay.envelopes if BORIS in e[1]][-1]
    mid = email.message_from_bytes(raw)["Message-ID"]
    dsn = (BOUNCE_EML.read_bytes().replace(b"@@RCPT@@", BORIS.encode()).replace(b"@@VERP@@", frm.encode())
           .replace(b"@@MID@@", mid.encode()).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    through_postfix("", frm, dsn)
    waited(lambda: _one(select(User.mail_failing_at).where(User.email == BORIS)), "the DSN marks Boris")
    # a mail from Boris clears the mark; then the relay refuses him at RCPT
    def to_move_now() -> str:
        with unit_of_work() as s:
            (seat,) = GAME.to_move(games.state_at(s, games.get(s, gid)))
        return addr_of[seat]

    if to_move_now() == BORIS:
        play_one()
    else:
        through_postfix(BORIS, CMD, said_in("ru", mail(BORIS, CMD, "HELP")))
    waited(lambda: _one(select(User.mail_failing_at).where(User.email == BORIS)) is None, "Boris's mail clears")
    # A Spyrium player may move twice running (the other has left the round), and the relay's refusal below
    # must fall on a board that announces Ann's move, so Boris plays until it is Ann's turn.
    while to_move_now() == BORIS:
        play_one()
    # and the refusal falls on nothing older: what was queued to Boris has reached the relay first
    waited(lambda: not _all(select(Outbound.id).where(Outbound.to_addr == BORIS, Outbound.status == "queued")),
           "Boris's boards delivered")
    relay.refuse.add(BORIS)
    play_one()  # Ann's move: Boris's board is refused with 550 at RCPT
    hard = select(Bounce).where(Bounce.address == BORIS, Bounce.kind == "hard").order_by(Bounce.id)
    waited(lambda: len(_all(hard)) == 2, "the 550 at RCPT")
    assert _one(select(User.mail_failing_at).where(User.email == BORIS))  # marked again
    kinds = [(b.kind, b.status) for b in _all(select(Bounce).where(Bounce.address == BORIS).order_by(Bounce.id))]
    assert kinds[0] == ("hard", "5.1.1") and [k for k, _ in kinds] == ["hard", "cleared", "hard"], kinds

    # ------------------------------------------------------------------ the web site through nginx
    import requests
    import urllib3

    urllib3.disable_warnings()
    http = requests.Session()
    http.trust_env, http.verify = False, False
    for lang, words in (("ru", "Неспешные настольные игры"), ("en", "Slow board games")):
        page = http.get(f"https://127.0.0.1:{tls}/", headers={"Accept-Language": lang}, timeout=30)
        assert page.status_code == 200 and words in page.text, (lang, page.status_code, page.text[:800])
    page = http.get(f"https://127.0.0.1:{tls}/games/{gid}", headers={"Accept-Language": "ru"}, timeout=30)
    assert page.status_code == 200, page.text[:800]

    # ------------------------------------------------------------------ a backup, then a restore
    backups = var / "backups"
    pbem("backup", str(backups / "pbem.dump"))
    assert stat.S_IMODE((backups / "pbem.dump").stat().st_mode) == 0o600
    assert stat.S_IMODE(backups.stat().st_mode) == 0o700
    with unit_of_work() as s:
        ply = games.get(s, gid).ply
    restore_env = dict(env, PBEM_DATABASE_URL=db_url + "_r")
    run = subprocess.run([RUNUSER, "-u", USER, "--", str(venv / "bin/pbem"), "restore", "--yes",
                          str(backups / "pbem.dump")],
                         cwd=str(var), env=restore_env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.stdout, run.stderr)
    restored = sa.create_engine(PG_ADMIN.rsplit("/", 1)[0] + f"/{role}_r")
    with restored.connect() as c:
        assert c.exec_driver_sql(f"SELECT ply, status FROM games WHERE id = {gid}").one() == (ply, "running")
        assert c.exec_driver_sql(f"SELECT count(*) FROM bounces WHERE address = '{BORIS}'").scalar() == 3
    restored.dispose()

    # every service ran without a traceback
    for name in ("smtpd", "worker-mail", "worker-delivery", "beat", "gunicorn"):
        text = (folder / f"{name}.log").read_text()
        assert "Traceback" not in text, (name, text[text.find("Traceback") - 500:][:4000])


def _logs(folder: Path) -> str:
    out = []
    for log in sorted(folder.rglob("*.log")):
        out.append(f"--- {log.name}\n{log.read_text(errors='replace')[-2500:]}")
    return "\n".join(out)


def _all(q):
    from pbem.store.db import unit_of_work

    with unit_of_work() as s:
        return list(s.exec(q))


def _one(q):
    rows = _all(q)
    return rows[0] if rows else None
