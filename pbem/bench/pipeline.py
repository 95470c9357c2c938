"""The whole mail pipeline under load: real SMTP conversations with the
receiver (``pbem.mail.inbound.make_controller``), real Celery worker
processes (``celery -A worker worker``) on Redis, PostgreSQL, replies and
boards written to the outbox (and then delivered to the maildir by the same
workers).

Each mail carries one legal move, computed by the driver with the real engine
from the game's stored seed (a random playout; seats in a fixed order), sent
to the seat's token address from its player's address, exactly as a player's
reply would arrive.

Latency is measured per mail from the moment the receiver stored it
(``Inbound.received_at``, just before it answers 250 to DATA) to the moment
the reply was queued (``Outbound.created_at`` of the answer, in the same
transaction as the move), and to the moment it was delivered (``sent_at``).
Throughput is mails answered over the span from the first mail received to
the last mail of the run delivered (replies and boards): nothing is left
piling up in the outbox. The CPU time every part of the rig used during the
run is read from /proc and reported per mail.

Delivery: to the maildir (the default), or with ``relay=True`` over SMTP to
a sink in a process of its own (``sink.RelaySink``), as in production with
``PBEM_SMTP_URL``: the workers keep their relay connection between tasks
(``outbound.RelayPool``), up to ``relay_max_mails`` mails over one
(``relay_max_mails=1``: a connection per mail, as before the connection was kept). The
sink's counts of connections and mails during the run are reported, and a run
is done only when the sink has every mail the outbox recorded as sent.

Modes:
* many games (``one_game=False``): the moves of G games interleaved, sent by
  several SMTP clients at once, as fast as possible (``rate=0``) or paced at
  ``rate`` mails/s (open loop: the schedule does not wait for answers);
* one game (``one_game=True``): every mail into one game, each sent as soon
  as the previous move is applied (a game is serialised by its row lock, and
  a move depends on the one before, so this is its real ceiling)."""
from __future__ import annotations

import os
import queue
import smtplib
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage

from .env import free_port, make_games, playout, summary_ms
from .sink import RelaySink


@dataclass
class PipelineFigures:
    scenario: str
    workers: int
    pool: str
    mails: int
    games: int
    answered: int = 0
    moves_applied: int = 0
    errors: int = 0
    span_s: float = 0.0  # first mail stored -> last mail of the run delivered (replies and boards)
    send_s: float = 0.0
    latencies_s: list[float] = field(default_factory=list)  # stored -> reply queued
    sent_latencies_s: list[float] = field(default_factory=list)  # stored -> reply delivered
    delivered: int = 0  # outbox rows of the run delivered (replies and the other seats' boards)
    rate: float = 0.0
    cpu_s: dict[str, float] = field(default_factory=dict)  # CPU seconds used during the run, per component
    delivery: str = "maildir"
    relay: dict[str, int] = field(default_factory=dict)  # the relay sink's counts during the run (RelaySink.counts)

    def cpu_row(self) -> dict:
        """CPU milliseconds per mail, per component (from /proc: user + system
        time): pbem's own (workers, receiver, PostgreSQL, Redis), then the
        load generator's, which would run on the players' machines."""
        per = {k: 1000 * v / self.mails for k, v in self.cpu_s.items()} if self.mails else {}
        load = per.pop("load generator", 0.0)
        # the relay stands in for another machine, as the load generator for the players' (total counts both)
        sink = {"relay sink ms": round(per.pop("relay sink"), 2)} if "relay sink" in per else {}
        return {"scenario": self.scenario, "worker processes": f"{self.workers} ({self.pool})",
                "offered": f"{self.rate:g}/s" if self.rate else "max",
                **{f"{k} ms": round(v, 2) for k, v in per.items()},
                "pbem ms": round(sum(per.values()), 2), "load generator ms": round(load, 2), **sink,
                "total ms": round(sum(per.values()) + load + sum(sink.values()), 2)}

    @property
    def mails_per_s(self) -> float:
        return self.answered / self.span_s if self.span_s else 0.0

    @property
    def moves_per_s(self) -> float:
        return self.moves_applied / self.span_s if self.span_s else 0.0

    def row(self) -> dict:
        return {"scenario": self.scenario, "worker processes": f"{self.workers} ({self.pool})",
                "offered": f"{self.rate:g}/s" if self.rate else "max",
                "mails": self.mails, "games": self.games, "answered": self.answered,
                "moves applied": self.moves_applied, "mails delivered": self.delivered,
                "mails/s": round(self.mails_per_s, 1), "moves/s": round(self.moves_per_s, 1),
                **summary_ms(self.latencies_s), "p99 to sent ms": summary_ms(self.sent_latencies_s)["p99 ms"],
                "delivery": self.delivery,
                **({"relay mails": self.relay["mails"], "relay conns used": self.relay["used"],
                    "relay conns opened": self.relay["opened"]} if self.relay else {})}


def _cpu_by_component(worker_pids: list[int], sink_pid: int | None = None) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each part of the rig, read
    from /proc: the worker processes, PostgreSQL's server processes, Redis,
    this process (the receiver and the SMTP clients of the load), and the
    relay sink's process if there is one. Empty where /proc is not available."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    out = {"workers": 0.0, "receiver": 0.0, "postgresql": 0.0, "redis": 0.0}
    if sink_pid:
        out["relay sink"] = 0.0
    try:
        pids = os.listdir("/proc")
    except OSError:
        return {}
    me, workers = os.getpid(), set(worker_pids)
    for pid in pids:
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        used = (int(fields[11]) + int(fields[12])) / tick
        if int(pid) in workers or int(fields[1]) in workers:  # a prefork pool's children too
            out["workers"] += used
        elif int(pid) == me:  # with the load generator's threads, taken out by the caller: both to the
            # nanosecond (process_time, thread_time), as /proc's 10 ms ticks made the difference negative
            out["receiver"] += time.process_time()
        elif int(pid) == sink_pid:
            out["relay sink"] += used
        elif comm.startswith("postgres"):
            out["postgresql"] += used
        elif comm.startswith("redis-server"):
            out["redis"] += used
    return out


def start_workers(cfg, n: int, pool: str = "solo", concurrency: int = 1, *,
                  queue: str | None = None, nice: int = 0) -> list[subprocess.Popen]:
    """``n`` Celery worker processes of the product's app (worker.py), as
    separate machines would run them, sharing only Redis and PostgreSQL
    (on ``queue`` only, and at ``nice``, if given: the picture workers; else
    every queue but the pictures', as deploy/'s workers)."""
    from pbem.celery_app import queue_names
    from pbem.config import ROOT

    env = dict(os.environ, **cfg.to_env())
    procs = []
    for i in range(n):
        args = [sys.executable, "-m", "celery", "-A", "worker", "worker", f"--pool={pool}",
                "--loglevel=WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat",
                "-n", f"bench{queue or ''}{i}-{uuid.uuid4().hex[:6]}@%h"]
        args += ["-Q", queue or ",".join(q for q in queue_names(cfg) if q != cfg.picture_queue)]
        if nice:
            args = ["nice", "-n", str(nice), *args]
        if pool != "solo":
            args.append(f"--concurrency={concurrency}")
        log = open(cfg.var_dir / f"worker{i}.log", "ab")
        procs.append(subprocess.Popen(args, cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT))
        log.close()
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@dataclass
class Letter:
    message_id: str
    game_id: int
    mail_from: str
    rcpt: str
    raw: bytes


def _letters(game_ids: list[int], plies: int, run: str, seed: int) -> list[list[Letter]]:
    """Per game, the mails that play ``plies`` random legal moves."""
    from sqlmodel import select

    from pbem.config import settings
    from pbem.store.addresses import seat_address
    from pbem.store.db import unit_of_work
    from pbem.store.models import Seat, User

    domain = settings().domain
    out = []
    with unit_of_work() as s:
        rows = s.exec(select(Seat, User).join(User, User.id == Seat.user_id)
                      .where(Seat.game_id.in_(game_ids))).all()
        who = {(seat.game_id, seat.seat): (seat.token, user.email) for seat, user in rows}
    for gid in game_ids:
        letters = []
        for k, (seat, notation) in enumerate(playout(gid, plies, seed=seed)):
            token, email = who[(gid, seat)]
            m = EmailMessage()
            m["From"] = email
            m["To"] = rcpt = seat_address(gid, token, domain)
            m["Subject"] = f"Re: [pbem #{gid}] your move"
            mid = f"<bench.{run}.{gid}.{k}@players.bench>"
            m["Message-ID"] = mid
            m.set_content(f"{notation}\n\n-- \nsent by pbem bench\n")
            letters.append(Letter(mid, gid, email, rcpt, m.as_bytes()))
        out.append(letters)
    return out


def _send(port: int, letters: list[Letter], stamps: dict[str, float]) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as c:
        c.ehlo("players.bench")
        for L in letters:
            c.sendmail(L.mail_from, [L.rcpt], L.raw)
            stamps[L.message_id] = time.time()


def _send_paced(port: int, letters: list[Letter], rate: float, clients: int, stamps: dict[str, float]) -> float:
    """Open loop: mail i leaves at t0 + i/rate (as fast as possible when rate
    is 0), over ``clients`` SMTP connections. A game's mails always go over
    the same connection, so they arrive in the order they were written.
    Returns the CPU seconds the client threads used (the load, not the product)."""
    queues: list[queue.Queue] = [queue.Queue() for _ in range(clients)]
    errors: list[BaseException] = []
    cpu: list[float] = []

    def client(q: queue.Queue):
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=60) as c:
                c.ehlo("players.bench")
                while (L := q.get()) is not None:
                    c.sendmail(L.mail_from, [L.rcpt], L.raw)
                    stamps[L.message_id] = time.time()
        except BaseException as e:  # reported after the join
            errors.append(e)
        finally:
            cpu.append(time.thread_time())

    threads = [threading.Thread(target=client, args=(q,), daemon=True) for q in queues]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    for i, L in enumerate(letters):
        if rate:
            delay = t0 + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        queues[L.game_id % clients].put(L)
    for q in queues:
        q.put(None)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return sum(cpu)


def _wait_answered(ids: list[str], timeout: float) -> None:
    """Until every mail of ``ids`` is processed. The poll is a count over the
    primary key of the rows stored since the first of them (a few hundred):
    asking by Message-ID would bind the whole list and make PostgreSQL look
    every one up, a load of the benchmark's own on the machine it measures."""
    from sqlalchemy import func
    from sqlmodel import select

    from pbem.store.db import unit_of_work
    from pbem.store.models import Inbound

    end = time.monotonic() + timeout
    first = None
    n = 0
    while time.monotonic() < end:
        with unit_of_work() as s:
            if first is None:
                first = s.exec(select(func.min(Inbound.id)).where(Inbound.message_id.in_(ids))).one()
            if first is not None:
                n = s.exec(select(func.count()).select_from(Inbound).where(
                    Inbound.id >= first, Inbound.status.in_(("done", "ignored", "failed")))).one()
            if n >= len(ids) and s.exec(select(func.count()).select_from(Inbound).where(
                    Inbound.message_id.in_(ids), Inbound.status.in_(("done", "ignored", "failed")))).one() >= len(ids):
                return
        time.sleep(0.1)
    raise TimeoutError(f"only {n} of {len(ids)} mails were answered within {timeout:.0f} s")


def _wait_drained(timeout: float, since) -> int:
    """Until the outbox rows made since ``since`` are delivered (to the
    maildir or the relay: whichever the workers' ``smtp_url`` says): the next
    measurement starts with an empty queue. Raises if any failed for good, as
    such a row is not waiting any more but was not delivered either. Returns
    how many were sent."""
    from sqlalchemy import func
    from sqlmodel import select

    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with unit_of_work() as s:
            by_status = dict(s.exec(select(Outbound.status, func.count()).where(Outbound.created_at >= since)
                                    .group_by(Outbound.status)).all())
        if not by_status.get("queued") and not by_status.get("sending"):
            if by_status.get("failed"):
                raise RuntimeError(f"{by_status['failed']} outbox rows failed to be delivered")
            return by_status.get("sent", 0)
        time.sleep(0.1)
    raise TimeoutError(f"the outbox was not delivered within {timeout:.0f} s")


def _wait_ply(game_id: int, ply: int, timeout: float = 60.0) -> None:
    from sqlmodel import select

    from pbem.store.db import unit_of_work
    from pbem.store.models import Game

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with unit_of_work() as s:
            if s.exec(select(Game.ply).where(Game.id == game_id)).one() >= ply:
                return
        time.sleep(0.002)
    raise TimeoutError(f"game #{game_id} did not reach ply {ply} within {timeout:.0f} s")


def _collect(fig: PipelineFigures, ids: list[str]) -> None:
    from sqlalchemy import func
    from sqlmodel import select

    from pbem.store.db import unit_of_work
    from pbem.store.models import Inbound, Move, Outbound

    with unit_of_work() as s:
        rows = s.exec(select(Inbound.id, Inbound.message_id, Inbound.received_at, Inbound.status, Inbound.result)
                      .where(Inbound.message_id.in_(ids))).all()
        inbound_ids = [r[0] for r in rows]
        first = min(r[2] for r in rows)
        game_ids = set(s.exec(select(Move.game_id).where(Move.inbound_id.in_(inbound_ids)).distinct()))
        mails = s.exec(select(Outbound.kind, Outbound.headers, Outbound.created_at, Outbound.sent_at).where(
            Outbound.game_id.in_(game_ids), Outbound.created_at >= first)).all()
        fig.moves_applied = s.exec(select(func.count()).select_from(Move)
                                   .where(Move.inbound_id.in_(inbound_ids))).one()
    replies = {h.get("In-Reply-To"): (queued, sent) for kind, h, queued, sent in mails if kind == "reply"}
    fig.answered = sum(1 for r in rows if r[1] in replies)
    fig.errors = sum(1 for r in rows if r[3] != "done" or "ERROR" in (r[4] or ""))
    fig.latencies_s = [(replies[r[1]][0] - r[2]).total_seconds() for r in rows if r[1] in replies]
    fig.sent_latencies_s = [(replies[r[1]][1] - r[2]).total_seconds() for r in rows
                            if r[1] in replies and replies[r[1]][1] is not None]
    sent = [m[3] for m in mails if m[3] is not None]
    fig.delivered = len(sent)
    last = max([*sent, *(q for q, _ in replies.values())])  # everything the run made, delivered
    fig.span_s = (last - first).total_seconds()


def _warm_up(port: int, game: str, players: int, n: int) -> None:
    """Every worker process imports, connects and renders once before the clock runs."""
    from pbem.store.models import utcnow

    since = utcnow()
    gids = make_games(game, players, n, first_seed=10_000)
    letters = [ls[0] for ls in _letters(gids, 1, "warm-" + uuid.uuid4().hex[:6], seed=99)]
    stamps: dict[str, float] = {}
    _send(port, letters, stamps)
    _wait_answered([L.message_id for L in letters], timeout=120)
    _wait_drained(120, since)


@dataclass
class Rig:
    """A running receiver and worker processes, warmed up (and the relay sink they deliver to, if any)."""
    port: int
    workers: int
    pool: str
    worker_pids: list[int] = field(default_factory=list)
    sink: RelaySink | None = None
    delivery: str = "maildir"


@contextmanager
def _relay(relay: bool, max_mails: int | None):
    """The settings in force for the rig, and the sink they deliver to: with
    ``relay``, a :class:`RelaySink` started and ``smtp_url`` (and
    ``relay_max_mails``, when given) set for this process and, through
    ``to_env``, the workers; else the maildir. The settings are put back after."""
    from pbem import config

    before = config.settings()
    if not relay:
        yield before, None
        return
    sink = RelaySink()
    sink.start()
    changes = {"relay_max_mails": max_mails} if max_mails else {}
    config.set_settings(before.with_(smtp_url=sink.url, **changes))
    try:
        yield config.settings(), sink
    finally:
        config.set_settings(before)
        sink.stop()


@contextmanager
def rig(workers: int = 1, *, pool: str = "solo", concurrency: int = 1, game: str = "spyrium", players: int = 2,
        picture_workers: int = 0, relay: bool = False, relay_max_mails: int | None = None):
    """The receiver on a free port and ``workers`` worker processes, each of
    which has processed a mail before the clock runs; and ``picture_workers``
    on the picture queue (PBEM_PICTURE_QUEUE) at nice 10, as deploy/ runs them.
    With ``relay``, they deliver to a relay sink over SMTP, at most
    ``relay_max_mails`` mails per connection (default: the setting's)."""
    from pbem.mail.inbound import make_controller

    with _relay(relay, relay_max_mails) as (cfg, sink):
        port = free_port()
        ctl = make_controller(cfg, host="127.0.0.1", port=port)
        ctl.start()
        procs = start_workers(cfg, workers, pool, concurrency)
        try:
            if picture_workers:
                if not cfg.picture_queue:
                    raise ValueError("picture workers need PBEM_PICTURE_QUEUE (e.g. PBEM_PICTURE_QUEUE=pictures)")
                procs += start_workers(cfg, picture_workers, queue=cfg.picture_queue, nice=10)
            _warm_up(port, game, players, 2 * workers)
            delivery = f"relay, {cfg.relay_max_mails}/conn" if sink else "maildir"
            yield Rig(port, workers, pool if pool == "solo" else f"{pool} x{concurrency}", [p.pid for p in procs],
                      sink, delivery)
        finally:
            stop_workers(procs)
            ctl.stop()


def run_pipeline(*, workers: int = 1, mails: int = 400, games: int = 40, game: str = "spyrium",
                 players: int = 2, rate: float = 0.0, clients: int = 4, one_game: bool = False,
                 pool: str = "solo", concurrency: int = 1, seed: int = 5, timeout: float = 600,
                 on: Rig | None = None, picture_workers: int = 0, relay: bool = False,
                 relay_max_mails: int | None = None) -> PipelineFigures:
    """Needs the settings installed on Redis + PostgreSQL (env.bench_settings).
    Starts its own receiver and workers (and relay sink) unless given a running ``on``."""
    if on is None:
        with rig(workers, pool=pool, concurrency=concurrency, game=game, players=players,
                 picture_workers=picture_workers, relay=relay, relay_max_mails=relay_max_mails) as r:
            return run_pipeline(mails=mails, games=games, game=game, players=players, rate=rate, clients=clients,
                                one_game=one_game, seed=seed, timeout=timeout, on=r)
    run = uuid.uuid4().hex[:8]
    n_games = 1 if one_game else games
    from pbem.store.models import utcnow

    made = utcnow()
    gids = make_games(game, players, n_games, first_seed=seed * 1000 + (1 if one_game else 2) * 100)
    _wait_drained(timeout, made)  # the games' start boards (and their pictures) are delivered before the clock
    per_game = mails if one_game else -(-mails // n_games)
    plan = _letters(gids, per_game, run, seed)
    if one_game:
        letters = plan[0]
    else:  # round robin: consecutive mails go to different games
        letters = [ls[k] for k in range(per_game) for ls in plan if k < len(ls)][:mails]
    scenario = "one game, closed loop" if one_game else ("many games, paced" if rate else "many games, max")
    fig = PipelineFigures(scenario, on.workers, on.pool, len(letters), n_games, rate=rate, delivery=on.delivery)
    port = on.port
    since = utcnow()
    if on.sink:
        on.sink.mark()
    stamps: dict[str, float] = {}
    cpu0 = _cpu_by_component(on.worker_pids, on.sink and on.sink.pid)
    load_cpu = -time.thread_time()  # this thread sends (one game) or paces, then polls: load, not product
    t0 = time.perf_counter()
    if one_game:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as c:
            c.ehlo("players.bench")
            for k, L in enumerate(letters, start=1):
                c.sendmail(L.mail_from, [L.rcpt], L.raw)
                _wait_ply(L.game_id, k)
    else:
        load_cpu += _send_paced(port, letters, rate, clients, stamps)
    fig.send_s = time.perf_counter() - t0
    ids = [L.message_id for L in letters]
    _wait_answered(ids, timeout)
    sent = _wait_drained(timeout, since)  # sustained means delivered too: the span ends with the last mail sent
    cpu1 = _cpu_by_component(on.worker_pids, on.sink and on.sink.pid)
    if on.sink:
        fig.relay = on.sink.counts()
        if fig.relay["mails"] != sent:  # the sink counts a mail before its 250, the worker marks it sent after
            raise RuntimeError(f"the outbox marked {sent} mails sent, the relay got {fig.relay['mails']}")
    load_cpu += time.thread_time()
    fig.cpu_s = {k: cpu1[k] - cpu0.get(k, 0.0) for k in cpu1}
    fig.cpu_s["receiver"] -= load_cpu  # the receiver shares this process with the load generator
    fig.cpu_s["load generator"] = load_cpu
    _collect(fig, ids)
    return fig
