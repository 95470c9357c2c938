"""Fault injection: a few hundred mails across several games
over real SMTP into the receiver, real Celery worker processes on Redis,
PostgreSQL, and a real SMTP relay (an aiosmtpd sink on loopback) for the
replies — while workers are killed with SIGKILL mid-processing, Redis and
PostgreSQL are restarted and the relay is stopped for a while. Then the
database is checked against what must be: the replay of the accepted moves.

Run it with ``scripts/chaos --mails 400`` (see docs/RELIABILITY.md); the test
``test_chaos.py`` runs a short version. Restarting Redis and PostgreSQL
touches everyone on the machine: it happens only with ``services=True``.

With ``attacks``, that share of the mails are attack mails
mixed into the play: the hostile corpus (tests/fixtures/eml) and generated
ones (2,000 nested multiparts, an empty-line flood, 199 SAY lines, 198 NEW
lines, a NUL or 1,000 characters in the Subject, a 320-character From, a
recipient split into two transactions). Some carry a legal move of the
seat to move in what its sender wrote ("wait"), which the model applies;
none may do anything else. Then it also checks that every mail ended done,
ignored or failed with its reason, that none is left waiting, and that no
mail made more mails than a move does (Inbound.mails_out), all of them
accounted for.

How the truth is known: the driver keeps its own model of every game (the
test game ``mini``, replayed with its pure engine) and sends the mails of one
game one after another (each waits for the previous one's processing), so
for every mail it knows whether the move is legal and must be applied. Games
run in parallel, so the workers always have mail of several games at once.
"""
from __future__ import annotations

import os
import random
import signal
import smtplib
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage
from email import message_from_bytes
from pathlib import Path

from pbem.bench.env import free_port

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")
REDIS_BASE = os.environ.get("PBEM_TEST_REDIS", "redis://127.0.0.1:6379")
REDIS_START = ["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379",
               "--save", "", "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile",
               "/var/log/redis/ci.log"]


def _pg_version() -> str:
    return sorted(os.listdir("/etc/postgresql"))[-1]


# ---------------------------------------------------------------- the relay


class Sink:
    """The outgoing relay: an aiosmtpd server on loopback that records every
    message it accepts. ``stop()``/``start()`` make an outage."""

    def __init__(self, port: int, smtputf8: bool = False):
        self.port = port
        self.smtputf8 = smtputf8
        self.got: list[tuple[str, str, str]] = []  # (Message-ID, In-Reply-To, to)
        self.raw: list[bytes] = []  # the bytes of each message, as received
        self.lock = threading.Lock()
        self.ctl = None

    async def handle_DATA(self, server, session, envelope):
        msg = message_from_bytes(envelope.original_content or envelope.content)
        with self.lock:
            self.got.append((msg["Message-ID"] or "", msg["In-Reply-To"] or "", ",".join(envelope.rcpt_tos)))
            self.raw.append(envelope.original_content or envelope.content)
        return "250 OK"

    def start(self) -> None:
        from aiosmtpd.controller import Controller

        self.ctl = Controller(self, hostname="127.0.0.1", port=self.port, ready_timeout=10,
                              enable_SMTPUTF8=self.smtputf8)
        self.ctl.start()

    def stop(self) -> None:
        if self.ctl is not None:
            self.ctl.stop()
            self.ctl = None


# ---------------------------------------------------------------- the driver's model


@dataclass
class Sent:
    game: int
    message_id: str
    raw: bytes
    rcpt: str
    kind: str  # valid | not-turn | illegal | robot | attack
    seat: int
    notation: str = ""
    attack: str = ""  # which attack mail
    mail_from: str | None = None  # the envelope sender, if not the seat's player ("" = a bounce's)
    also: list[str] = field(default_factory=list)  # further SMTP transactions of the same mail, to these

    @property
    def applies(self) -> bool:
        """A move the model applies: a legal move, or an attack whose sender wrote "wait" as the seat to move."""
        return bool(self.notation) and self.kind in ("valid", "attack")

    @property
    def recipients(self) -> set[str]:
        return {self.rcpt.lower(), *(r.lower() for r in self.also)}


@dataclass
class GameModel:
    gid: int
    addrs: list[str]
    emails: list[str]
    state: object
    expected: list[tuple[int, str]] = field(default_factory=list)  # (seat, notation) in order
    waiting: Sent | None = None
    since: float = 0.0


@dataclass
class Report:
    mails: int = 0  # SMTP conversations answered 250
    temp_refusals: int = 0  # 4xx or no connection: sent again later, as an MTA does
    resent_duplicates: int = 0  # the same Message-ID sent again on purpose
    faults: Counter = field(default_factory=Counter)
    lost: int = 0
    duplicated: int = 0
    wrong: int = 0
    receipts_missing: int = 0
    receipts_duplicated: int = 0
    boards_missing: int = 0
    inbound_not_done: int = 0
    outbound_not_sent: int = 0
    stuck_mails: int = 0
    attacks: Counter = field(default_factory=Counter)
    without_reason: int = 0  # mails done, ignored or failed without saying why
    mails_out_max: int = 0  # the most mails one mail made
    amplification_cap: int = 0
    outbound_rows: int = 0
    outbound_accounted: int = 0  # the start's boards + every inbound row's mails_out
    moves_applied: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.wrong or self.receipts_missing
                    or self.inbound_not_done or self.outbound_not_sent or self.stuck_mails or self.boards_missing
                    or self.without_reason or self.mails_out_max > self.amplification_cap
                    or self.outbound_rows != self.outbound_accounted)

    def text(self) -> str:
        f = ", ".join(f"{k} x{v}" for k, v in sorted(self.faults.items())) or "none"
        return "\n".join([
            f"mails accepted (250): {self.mails} (+{self.resent_duplicates} resent with a used Message-ID); "
            f"temporary refusals retried: {self.temp_refusals}",
            f"faults injected: {f}",
            f"moves applied: {self.moves_applied}",
            f"lost moves: {self.lost}   duplicated moves: {self.duplicated}   wrongly applied moves: {self.wrong}",
            f"receipts missing: {self.receipts_missing}   receipts delivered twice: {self.receipts_duplicated}   "
            f"board mails missing: {self.boards_missing}",
            f"inbound not processed: {self.inbound_not_done}   outbound not sent: {self.outbound_not_sent}   "
            f"mails stuck: {self.stuck_mails}",
        ] + ([
            f"attack mails: {sum(self.attacks.values())} ("
            + ", ".join(f"{k} x{v}" for k, v in sorted(self.attacks.items())) + ")",
            f"mails ended without a reason: {self.without_reason}   amplification: at most {self.mails_out_max} "
            f"mails out for one mail in (cap {self.amplification_cap}); {self.outbound_rows} outbound rows, "
            f"{self.outbound_accounted} accounted for (the games' start + each mail's mails_out)",
        ] if self.attacks else []) + [
            f"time: {self.seconds:.0f} s",
            "RESULT: " + ("OK" if self.ok else "FAILED"),
        ] + [f"problem: {p}" for p in self.problems[:20]])


# ---------------------------------------------------------------- attack mails

DONE = ("done", "ignored", "failed")
CMD = "pbem@pbem.test"
EML = ROOT / "tests" / "fixtures" / "eml"
# the most mails one mail may make in a game of two: its answer and a board for each seat (a JOIN that
# starts the game); a move makes two, the answer and the other seat's board
AMPLIFICATION_CAP = 3


def _fresh(raw: bytes) -> bytes:
    """The mail under a Message-ID of its own (a corpus file is sent many times), or, without one, with a
    header that makes its bytes (and so the id the receiver gives it) its own."""
    import re

    new = f"<chaos.{uuid.uuid4().hex}@x.test>".encode()
    out, n = re.subn(rb"(?im)^message-id:[^\r\n]*", b"Message-ID: " + new, raw, count=1)
    return out if n else b"X-Chaos-Id: " + new + b"\r\n" + raw


def _raw(frm: str, to: str, subject: str, body: str, *extra: str) -> bytes:
    """A mail written byte by byte (what EmailMessage would refuse or fold differently)."""
    head = [f"From: {frm}", f"To: {to}", f"Subject: {subject}", f"Message-ID: <chaos.{uuid.uuid4().hex}@x.test>",
            "Content-Type: text/plain; charset=utf-8", *extra]
    return ("\r\n".join(head) + "\r\n\r\n" + body.replace("\n", "\r\n") + "\r\n").encode()


def _corpus_attack(name: str, env_from: str, moves: int):
    """A file of the hostile corpus (tests/reliability/test_eml_corpus.py says what it does), to the seat to
    move; its move ("wait", written by its sender) is the model's too."""
    def make(chaos: "Chaos", m: "GameModel", turn: int):
        raw = ((EML / name).read_bytes().replace(b" ply 0]", b"]")  # no stale-board check: the game moved on
               .replace(b"@@SEAT@@", m.addrs[turn].encode()).replace(b"@@GAME@@", str(m.gid).encode()))
        return _fresh(raw), m.addrs[turn], moves == 1, "" if env_from == "" else m.emails[turn], []
    return make


def _generated(body: str, *, to_command: bool = False, subject: str = "Re: [pbem #{gid}] Mini (test game)",
               frm: str = "", applies: bool = False):
    def make(chaos: "Chaos", m: "GameModel", turn: int):
        to = CMD if to_command else m.addrs[turn]
        raw = _raw(frm or m.emails[turn], to, subject.format(gid=m.gid), body)
        return raw, to, applies, None, []
    return make


def _blank_flood(chaos: "Chaos", m: "GameModel", turn: int):
    from pbem.bench.hostile import make_mail

    return make_mail("blank lines", 256 * 1024, m.addrs[turn], m.emails[turn], m.gid), m.addrs[turn], False, None, []


def _split_recipients(chaos: "Chaos", m: "GameModel", turn: int):
    """A move to the seat's address and, in a second SMTP transaction with the same Message-ID, to the
    command address (read there too: not a command), then to the seat's address again (a duplicate)."""
    raw = _raw(m.emails[turn], m.addrs[turn], f"Re: [pbem #{m.gid}] Mini (test game)", "wait", f"Cc: {CMD}")
    return raw, m.addrs[turn], True, None, [CMD]


def _attacks() -> dict:
    from tests.reliability.test_eml_corpus import CORPUS

    out = {f"eml {name[:-4]}": _corpus_attack(name, env_from, moves)
           for name, (env_from, what, moves, _needle) in CORPUS.items() if isinstance(what, str)}
    out.update({
        "empty-line flood": _blank_flood,
        "199 SAY lines": _generated("\n".join(f"SAY line {i} of 199" for i in range(199))),
        "198 NEW lines": _generated("NEW mini players=2\n" * 198, to_command=True, subject="games"),
        "NUL in Subject": _generated("wait", subject="=?utf-8?b?aGkAdGhlcmU=?= [pbem #{gid}]", applies=True),
        "1000-char Subject": _generated("wait", subject="[pbem #{gid}] " + "x" * 480 + "\r\n " + "y" * 500,
                                        applies=True),
        "320-char From": _generated("wait", frm="a" * 312 + "@x.test"),
        "split recipients": _split_recipients,
    })
    return out


ATTACKS = _attacks()


# ---------------------------------------------------------------- the run


class Chaos:
    def __init__(self, mails: int, games: int, seed: int, services: bool, workers: int = 2,
                 fault_every: float = 4.0, log=print, attacks: float = 0.0, faults: bool = True):
        self.n_mails, self.n_games, self.services = mails, games, services
        self.attack_share, self.faults = attacks, faults
        self.rng = random.Random(seed)
        self.n_workers = workers
        self.fault_every = fault_every
        self.log = log
        self.report = Report()
        self.procs: list[subprocess.Popen | None] = []
        self.stop_faults = threading.Event()
        self.sent: list[Sent] = []

    # -- setup
    def setup(self, tmp: Path) -> None:
        import sqlalchemy as sa

        from pbem import config, tasks
        from pbem.engine import register_game
        from pbem.store import db
        from tests.minigame import MINI

        register_game(MINI)
        self.dbname = "pbem_chaos_" + uuid.uuid4().hex[:10]
        self.admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
        with self.admin.connect() as c:
            c.exec_driver_sql(f'CREATE DATABASE "{self.dbname}"')
        self.prefix = f"pbem-chaos-{uuid.uuid4().hex[:8]}:"
        self.sink = Sink(free_port())
        env = {"PBEM_VAR_DIR": str(tmp / "var"), "PBEM_DOMAIN": "pbem.test", "PBEM_SECRET_KEY": "chaos",
               "PBEM_SMTPD_PORT": str(free_port()), "PBEM_WEB_PORT": str(free_port()),
               "PBEM_DATABASE_URL": PG_ADMIN.rsplit("/", 1)[0] + "/" + self.dbname,
               "PBEM_BROKER_URL": f"{REDIS_BASE}/0", "PBEM_BROKER_PREFIX": self.prefix,
               "PBEM_SMTP_URL": f"smtp://127.0.0.1:{self.sink.port}?timeout=5",
               "PBEM_SMTPD_RATE_PER_IP": "0", "PBEM_SMTPD_RATE_PER_SENDER": "0",
               # a player here sends ~25 mails in a minute: past the courtesy limit (20 in 10 min), which
               # would set them aside on purpose; the limit has tests of its own (tests/mail)
               "PBEM_INBOUND_RATE": "100000",
               "PBEM_OUTBOUND_BACKOFF_S": "0.5", "PBEM_STUCK_AFTER_S": "10"}
        self.cfg = config.load_settings(env)
        config.set_settings(self.cfg)
        db.dispose_engines()
        db.upgrade()
        tasks.configure(self.cfg)
        self.sink.start()
        from pbem.mail.inbound import make_controller

        self.receiver = make_controller(self.cfg, host="127.0.0.1", port=self.cfg.smtpd_port)
        self.receiver.start()
        for i in range(self.n_workers):
            self.procs.append(None)
            self._start_worker(i)
        self._make_games()

    def _start_worker(self, i: int) -> None:
        env = dict(os.environ, **self.cfg.to_env())
        env["PYTHONPATH"] = str(ROOT)
        self.procs[i] = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tests.worker_app", "worker", "--pool=threads",
             "--concurrency=2", "--loglevel=ERROR", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "-n", f"chaos{i}-{uuid.uuid4().hex[:6]}@%h"],
            cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("PBEM_CHAOS_VERBOSE") else subprocess.DEVNULL)

    def _make_games(self) -> None:
        from sqlmodel import select

        from pbem.services.core import accounts
        from pbem.services.lobby import tables
        from pbem.store.db import unit_of_work
        from pbem.store.models import Outbound, Seat
        from tests.minigame import MINI

        self.models: list[GameModel] = []
        hand = max(3, self.n_mails // (self.n_games * 2) + 2)
        with unit_of_work() as s:
            for k in range(self.n_games):
                a = accounts.register(s, f"a{k}@x.test", f"A{k}", confirmed=True)[0]
                b = accounts.register(s, f"b{k}@x.test", f"B{k}", confirmed=True)[0]
                g = tables.create(s, a, "mini", 2, {"hand": hand}, seed=1000 + k)
                tables.join(s, b, g.id)
                toks = [x.token for x in s.exec(select(Seat).where(Seat.game_id == g.id).order_by(Seat.seat))]
                st = MINI.initial_state(2, g.seed, dict(g.options))
                self.models.append(GameModel(g.id, [f"game-{g.id}.{t}@pbem.test" for t in toks],
                                             [a.email, b.email], st))
        # the mails of the games' start (none by mail): every later outbox row is some inbound mail's
        with unit_of_work() as s:
            self.outbound_at_start = len(list(s.exec(select(Outbound.id))))

    # -- faults
    def _fault_loop(self) -> None:
        kinds = ["kill-worker", "kill-worker", "relay-outage"] + (["restart-redis", "restart-postgres"]
                                                                   if self.services else [])
        first = ["kill-worker", "relay-outage"] + (["restart-redis", "restart-postgres"] if self.services else [])
        # faults at random times, the first of each kind first; and each kind at least once mid-run
        # whatever the speed of the pipeline: by a fixed share of the mails sent, a kind not injected
        # yet is injected then
        marks = [self.n_mails * (k + 1) // (len(first) + 1) for k in range(len(first))]
        due = time.monotonic() + self.rng.uniform(0.5, 1.5) * self.fault_every
        while not self.stop_faults.wait(0.02):
            if marks and self.report.mails >= marks[0]:
                marks.pop(0)
                if not first:
                    continue
            elif time.monotonic() < due:
                continue
            kind = first.pop(0) if first else self.rng.choice(kinds)
            try:
                getattr(self, "_" + kind.replace("-", "_"))()
                self.report.faults[kind] += 1
                self.log(f"  fault: {kind}")
            except Exception as e:  # a fault that could not be injected is reported, not hidden
                self.report.problems.append(f"fault {kind} failed: {e!r}")
            due = time.monotonic() + self.rng.uniform(0.5, 1.5) * self.fault_every

    def _kill_worker(self) -> None:
        i = self.rng.randrange(len(self.procs))
        p = self.procs[i]
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        time.sleep(self.rng.uniform(0.2, 1.5))
        self._start_worker(i)

    def _relay_outage(self) -> None:
        self.sink.stop()
        time.sleep(self.rng.uniform(1.0, 4.0))
        self.sink.start()

    def _restart_redis(self) -> None:
        subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", "6379", "shutdown", "nosave"],
                       capture_output=True, timeout=10)
        time.sleep(self.rng.uniform(0.3, 1.5))
        os.makedirs("/var/lib/redis", exist_ok=True)
        os.makedirs("/var/log/redis", exist_ok=True)
        subprocess.run(REDIS_START, check=True, capture_output=True, timeout=10)
        for _ in range(100):
            if subprocess.run(["redis-cli", "-h", "127.0.0.1", "ping"], capture_output=True).stdout.strip() == b"PONG":
                break
            time.sleep(0.1)

    def _restart_postgres(self) -> None:
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", _pg_version(), "main", "restart"],
                       check=True, capture_output=True, timeout=60)

    # -- mail
    def _compose(self, m: GameModel) -> Sent:
        from tests.minigame import MINI

        st = m.state
        turn = next(iter(MINI.to_move(st)))
        r = self.rng.random()
        mid = f"<chaos.{uuid.uuid4().hex}@x.test>"
        if r < 0.08:
            kind, seat, text = "not-turn", 1 - turn, "wait"
        elif r < 0.16:
            kind, seat, text = "illegal", turn, "play 0"
        elif r < 0.20:
            kind, seat, text = "robot", turn, "wait"
        else:
            hand = st.hands[turn]
            kind, seat = "valid", turn
            text = "wait" if (not hand or self.rng.random() < 0.1) else f"play {self.rng.choice(hand)}"
        msg = EmailMessage()
        msg["From"] = m.emails[seat]
        msg["To"] = m.addrs[seat]
        msg["Subject"] = f"Re: [pbem #{m.gid}] Mini (test game): your turn"
        msg["Message-ID"] = mid
        if kind == "robot":
            msg["Auto-Submitted"] = "auto-replied"
        msg.set_content(f"{text}\n\nOn Sunday pbem wrote:\n> the board\n")
        return Sent(m.gid, mid, msg.as_bytes(), m.addrs[seat], kind, seat, text)

    def _attack(self, m: GameModel) -> Sent:
        """An attack mail to the game (its seat to move, or the command address from that seat's
        player), chosen at random from ATTACKS: half of them corpus files, half generated."""
        from tests.minigame import MINI

        turn = next(iter(MINI.to_move(m.state)))
        corpus = self.rng.random() < 0.5  # half from the corpus, half generated (fewer kinds, as many mails)
        name = self.rng.choice(sorted(n for n in ATTACKS if n.startswith("eml ") == corpus))
        raw, to, applies, mail_from, also = ATTACKS[name](self, m, turn)
        from pbem.mail.inbound import stored_message_id

        return Sent(m.gid, stored_message_id(raw), raw, to, "attack", turn, "wait" if applies else "", name,
                    mail_from, also)

    def _smtp(self, sent: Sent, mail_from: str, rcpt: str | None = None) -> bool:
        """One SMTP conversation; False on a temporary failure (sent again later)."""
        rcpt = rcpt or sent.rcpt
        try:
            with smtplib.SMTP("127.0.0.1", self.cfg.smtpd_port, timeout=60) as c:
                c.ehlo("client.test")
                code, _ = c.mail(mail_from)
                if code != 250:
                    return False
                code, _ = c.rcpt(rcpt)
                if code >= 500:
                    raise AssertionError(f"receiver refused {rcpt}: {code}")
                if code != 250:
                    return False
                code, _ = c.data(sent.raw)
                return code == 250
        except (OSError, smtplib.SMTPException):
            return False

    def _send(self, sent: Sent, mail_from: str) -> None:
        """The mail, to its recipient, then to each further one in a transaction of its own (an MTA
        splitting the recipients), then to the first again (a lost 250): a duplicate."""
        mail_from = sent.mail_from if sent.mail_from is not None else mail_from
        for rcpt in [sent.rcpt, *sent.also, *([sent.rcpt] if sent.also else [])]:
            while not self._smtp(sent, mail_from, rcpt):
                self.report.temp_refusals += 1
                time.sleep(0.5)

    def _statuses(self, mids: list[str]) -> dict[str, list[str]]:
        """The statuses of each mail's rows (one per recipient)."""
        from sqlmodel import select

        from pbem.store.db import unit_of_work
        from pbem.store.models import Inbound

        try:
            with unit_of_work() as s:
                out: dict[str, list[str]] = {}
                for mid, st in s.exec(select(Inbound.message_id, Inbound.status).where(Inbound.message_id.in_(mids))):
                    out.setdefault(mid, []).append(st)
                return out
        except Exception:  # the database is restarting: ask again
            return {}

    def _sweep(self) -> None:
        from pbem import tasks

        try:
            tasks.run_sweep(grace_s=5.0)
        except Exception:
            pass

    def drive(self) -> None:
        from tests.minigame import MINI

        t0 = time.monotonic()
        faults = threading.Thread(target=self._fault_loop if self.faults else lambda: None, daemon=True)
        faults.start()
        sent_count = 0
        last_sweep = 0.0
        while True:
            now = time.monotonic()
            if now - last_sweep > 2.0:
                self._sweep()  # the product's sweep, run here more often than beat would
                last_sweep = now
            waiting = [m for m in self.models if m.waiting is not None]
            if waiting:
                st = self._statuses([m.waiting.message_id for m in waiting])
                for m in waiting:
                    rows = st.get(m.waiting.message_id, [])
                    if len(rows) == len(m.waiting.recipients) and all(x in DONE for x in rows):
                        if "failed" in rows:
                            self.report.problems.append(f"inbound {m.waiting.message_id} failed")
                        m.waiting = None
                    elif time.monotonic() - m.since > 180:
                        self.report.stuck_mails += 1
                        self.report.problems.append(f"{m.waiting.message_id} not processed in 180 s")
                        m.waiting = None
            idle = [m for m in self.models if m.waiting is None and MINI.to_move(m.state)]
            if sent_count >= self.n_mails or (not idle and not waiting):
                if not waiting:
                    break
                time.sleep(0.2)
                continue
            if not idle:
                time.sleep(0.1)
                continue
            m = self.rng.choice(idle)
            if self.sent and self.rng.random() < 0.04:  # an MTA sends a mail again (lost 250)
                old = self.rng.choice(self.sent)
                self._send(old, "resend@x.test")
                self.report.resent_duplicates += 1
                continue
            sent = self._attack(m) if self.rng.random() < self.attack_share else self._compose(m)
            self._send(sent, m.emails[sent.seat])
            self.sent.append(sent)
            sent_count += 1
            self.report.mails += 1
            if sent.kind == "attack":
                self.report.attacks[sent.attack] += 1
            if sent.applies:
                st = m.state
                move = MINI.parse_move(st, sent.seat, sent.notation)
                m.state = MINI.apply(st, sent.seat, move)
                m.expected.append((sent.seat, MINI.format_move(st, sent.seat, move)))
            m.waiting, m.since = sent, time.monotonic()
            if sent_count % 50 == 0:
                self.log(f"  {sent_count} mails sent, {time.monotonic() - t0:.0f} s")
        self.stop_faults.set()
        faults.join()
        self._settle()
        self.report.seconds = time.monotonic() - t0

    def _settle(self, timeout: float = 240.0) -> None:
        """After the last fault: every worker up, wait until the outbox is empty."""
        from sqlmodel import select

        from pbem.store.db import unit_of_work
        from pbem.store.models import Inbound, Outbound

        if self.sink.ctl is None:
            self.sink.start()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self._sweep()
            try:
                with unit_of_work() as s:
                    ins = list(s.exec(select(Inbound.status)))
                    outs = list(s.exec(select(Outbound.status)))
                if all(x in ("done", "ignored", "failed") for x in ins) and \
                        all(x in ("sent", "failed") for x in outs):
                    return
            except Exception:
                pass
            time.sleep(1.0)

    # -- the check
    def check(self) -> Report:
        from sqlmodel import select

        from pbem.services.core import games
        from pbem.store.db import unit_of_work
        from pbem.store.models import Game, Inbound, Move, Outbound

        r = self.report
        by_mid = {x.message_id: x for x in self.sent}
        with unit_of_work() as s:
            inbound = list(s.exec(select(Inbound)))
            outbound = list(s.exec(select(Outbound)))
            rows_of: dict[str, list[Inbound]] = {}
            for row in inbound:
                rows_of.setdefault(row.message_id, []).append(row)
            mid_of = {row.id: row.message_id for row in inbound}
            for m in self.models:
                g = s.get(Game, m.gid)
                moves = list(s.exec(select(Move).where(Move.game_id == m.gid).order_by(Move.ply)))
                got = [(x.seat, x.notation) for x in moves]
                r.moves_applied += len(got)
                # the record against the model, move by move
                common = 0
                while common < min(len(got), len(m.expected)) and got[common] == m.expected[common]:
                    common += 1
                if got != m.expected:
                    r.problems.append(f"game {m.gid}: expected {len(m.expected)} moves, got {len(got)}, "
                                      f"diverging at ply {common + 1}")
                r.lost += max(0, len(m.expected) - common)
                extra = got[common:]
                per_inbound = Counter(x.inbound_id for x in moves)
                dups = sum(c - 1 for c in per_inbound.values() if c > 1)
                r.duplicated += dups
                r.wrong += max(0, len(extra) - dups)
                # the stored state is the replay of the record, and the record is the model's game
                if games.replay_state(s, g) != games.state_at(s, g) or (got == m.expected and
                                                                       games.state_at(s, g) != m.state):
                    r.wrong += 1
                    r.problems.append(f"game {m.gid}: stored state differs from the replay")
                # each applied move came from a mail the model counts as a move
                for x in moves:
                    src = by_mid.get(mid_of.get(x.inbound_id, ""))
                    if src is None or not src.applies:
                        r.wrong += 1
                        r.problems.append(f"game {m.gid} ply {x.ply}: applied from a mail that was not a legal move")
        # every accepted mail: one inbound row per recipient, processed, with its reason; receipts at the relay
        receipts = Counter(irt for _mid, irt, _to in self.sink.got if irt)
        delivered = Counter(mid for mid, _irt, _to in self.sink.got)
        for x in self.sent:
            rows = rows_of.get(x.message_id, [])
            if {row.rcpt_to for row in rows} != x.recipients or len(rows) != len(x.recipients):
                r.lost += 1 if x.applies and not rows else 0
                r.inbound_not_done += 1
                r.problems.append(f"{x.message_id}: accepted with 250 for {sorted(x.recipients)}, stored for "
                                  f"{sorted(row.rcpt_to for row in rows)}")
            for row in rows:
                if row.status not in (("done", "ignored", "failed") if x.kind == "attack" else ("done", "ignored")):
                    r.inbound_not_done += 1
                    r.problems.append(f"{x.message_id}: inbound {row.id} is {row.status}")
                elif not (row.error if row.status == "failed" else row.result):
                    r.without_reason += 1
                    r.problems.append(f"{x.message_id}: inbound {row.id} is {row.status}, without a reason")
            if x.kind == "attack":  # answered or not as tests/reliability/test_eml_corpus.py and the tests say
                continue
            want = 0 if x.kind == "robot" else 1
            if receipts[x.message_id] < want:
                r.receipts_missing += 1
                r.problems.append(f"{x.message_id}: no receipt at the relay")
            if x.kind == "robot" and receipts[x.message_id]:
                r.problems.append(f"{x.message_id}: an auto-reply was answered")
                r.wrong += 1
        r.stuck_mails += sum(1 for row in inbound if row.status not in DONE)
        # amplification: no mail makes more mails than a move does, and every outbound row is one of them
        r.amplification_cap = AMPLIFICATION_CAP
        r.mails_out_max = max((row.mails_out for row in inbound), default=0)
        r.outbound_rows = len(outbound)
        r.outbound_accounted = self.outbound_at_start + sum(row.mails_out for row in inbound)
        for row in inbound:
            if row.mails_out > AMPLIFICATION_CAP:
                r.problems.append(f"inbound {row.id} ({row.message_id}) made {row.mails_out} mails")
        r.receipts_duplicated = sum(c - 1 for c in delivered.values() if c > 1)
        r.outbound_not_sent = sum(1 for o in outbound if o.status != "sent")
        sent_ids = set(delivered)
        r.boards_missing = sum(1 for o in outbound if o.kind == "board" and o.message_id not in sent_ids)
        return r

    def teardown(self) -> None:
        self.stop_faults.set()
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        try:
            self.receiver.stop()
        except Exception:
            pass
        self.sink.stop()
        from pbem import config
        from pbem.store import db

        db.dispose_engines()
        config.set_settings(None)
        try:
            import redis

            rc = redis.Redis.from_url(f"{REDIS_BASE}/0")
            keys = list(rc.scan_iter(match=self.prefix + "*", count=1000))
            if keys:
                rc.delete(*keys)
        except Exception:
            pass
        for _ in range(30):  # PostgreSQL may be restarting
            try:
                with self.admin.connect() as c:
                    c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{self.dbname}" WITH (FORCE)')
                break
            except Exception:
                time.sleep(1.0)
        self.admin.dispose()


def run_chaos(mails: int = 400, games: int = 8, seed: int = 1, services: bool = True, workers: int = 2,
              fault_every: float = 4.0, log=print, attacks: float = 0.0, faults: bool = True) -> Report:
    import tempfile

    chaos = Chaos(mails, games, seed, services, workers, fault_every, log, attacks, faults)
    with tempfile.TemporaryDirectory(prefix="pbem-chaos-") as tmp:
        try:
            chaos.setup(Path(tmp))
            log(f"chaos: {mails} mails, {games} games, {workers} workers, "
                + (f"faults every ~{fault_every:.0f} s{' (Redis and PostgreSQL restarts included)' if services else ''}"
                   if faults else "no faults")
                + (f", {attacks:.0%} of the mails attack mails" if attacks else ""))
            chaos.drive()
            return chaos.check()
        finally:
            chaos.teardown()


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="scripts/chaos", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=400)
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault-every", type=float, default=4.0, help="mean seconds between faults")
    ap.add_argument("--no-services", action="store_true",
                    help="do not restart Redis and PostgreSQL (they are shared with everyone on the machine)")
    ap.add_argument("--attacks", type=float, default=0.0, metavar="SHARE",
                    help="this share of the mails are attack mails (hostile corpus and generated; e.g. 0.3)")
    ap.add_argument("--no-faults", action="store_true", help="inject no faults (attack mails alone)")
    a = ap.parse_args(argv)
    report = run_chaos(a.mails, a.games, a.seed, not a.no_services, a.workers, a.fault_every,
                       attacks=a.attacks, faults=not a.no_faults)
    print(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
