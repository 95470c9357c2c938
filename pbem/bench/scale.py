"""What stored history costs: a PostgreSQL database filled to N
games with records of the real shape, then every page, one move mail, the
deadline sweep, the outage catch-up and retention measured on it through the
product's own routes, services and tasks -- never copies of their queries, so
the figures follow whatever code is there -- as ratios to the smallest size.

The fill. A pool of random engine playouts (the real notations, snapshots and
cached states of spyrium, squire and iaww games of 2 to 5 players) is
replicated into N games: 60 % finished, 35 % running (cut at a random ply, the
seats to move on a clock whose deadline falls in the next 48 hours, reminded
as the sweep would have), 5 % open. Around them what the product writes: a
post per move and some talk and notices, a snapshot every ``snapshot_every``
plies, an inbound mail for most moves (``moves.inbound_id``) and for the talk
sent by mail, a reply and a board mail to every seat per move (bodies of real
board mails rendered once), failed mails, bot seats, observers, invitations,
ratings and results, audit rows. About N/3 players, one of whom (the "heavy"
player) sits in 1,000 games (every game below that size) and a few others in
1 % of them.

The fill is the steady state of a site that has run retention every day (the
defaults: keep_inbound_days, keep_outbox_days, keep_snapshots_days): mail older
than keep_*_days is gone (a mail a move points to is kept with its raw text
emptied, as retention leaves it), and snapshots are kept only of running games
and of games finished in the last keep_snapshots_days. Within the 90 days kept,
outbox rows and raw mail text are written only for the last MAIL_DAYS and for
the EDGE_DAYS oldest (what the next prunes delete, about one day of rows each):
all 90 days of real board mails (11-24 KB of HTML, ~7 KB a row once stored)
would not fill 100k games in 20 minutes. So the fill is smaller than a
site that never pruned would hold (17 GB at 100k games). The site's history spans
``HISTORY_DAYS``; rows are written with COPY (foreign-key triggers off: the
rows are consistent by construction, tests/bench/test_scale.py checks), the
indexes that back no constraint dropped and made again after.

The database is ``pbem_scale_<N>`` beside ``--pg``'s; ``keep`` leaves it for
the next run, which reuses it (when it was filled completely with the same
seed) instead of filling again. Each run then measures a fresh window: the
sweeps the next minutes of deadlines after the previous run's, retention the
next day of rows."""
from __future__ import annotations

import json
import random
import secrets
import statistics
import tracemalloc
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from .env import bench_settings, free_port, pct
from .report import load, machine

# (game, players, weight): the mix of games stored
MIX = (("spyrium", 2, 20), ("spyrium", 3, 10), ("spyrium", 4, 15), ("squire", 2, 15), ("squire", 4, 10),
       ("iaww", 2, 10), ("iaww", 3, 10), ("iaww", 5, 10))
HISTORY_DAYS = 730  # finished games ended at any time in this span
HEAVY_GAMES = 1000  # the games of the player whose "my games" is measured
SWEEP_WINDOW = timedelta(minutes=9)  # the due sweep: what fell due since the previous run's window
MAIL_DOMAIN = "players.bench"
BUDGET_S = 20.0  # seconds of repetitions of one operation, after its first three
RETENTION_LIMIT_S = 600  # a statement of retention's cancelled after this (10x the whole prune's target)
MAIL_DAYS = 3  # the days of raw mail and outbox rows written up to now (see _window)
EDGE_DAYS = 2  # ... and at the far end of the retention window: what the next runs' prunes delete


# ---------------------------------------------------------------- the pool of real game records


@dataclass
class Record:
    """One replicable game: its moves, the states to store, and (running) the seats to move."""
    game: str
    players: int
    options: dict
    seed: int
    moves: list[tuple[int, str]]
    snapshots: dict[int, str]  # ply -> state JSON text (ply 0 and every snapshot_every plies)
    state: str  # the cached state's JSON text at the last ply
    outcome: str | None  # JSON text
    to_move: frozenset[int]
    winners: frozenset[int] = frozenset()
    scores: tuple[int, ...] = ()


def build_pool(playouts: int, seed: int, snapshot_every: int) -> tuple[list[Record], list[Record]]:
    """``playouts`` random legal games by the engines, spread over MIX: each
    gives a finished record and a running one (the same game cut at a random ply)."""
    from pbem.engine import get_game, validate_options

    rng = random.Random(seed)
    finished, running = [], []
    weights = [w for *_, w in MIX]
    for k in range(playouts):
        name, n, _ = MIX[k % len(MIX)] if k < len(MIX) else rng.choices(MIX, weights)[0]
        engine = get_game(name)
        opts = validate_options(engine, n, {})
        game_seed = seed * 1_000_003 + k
        state = engine.initial_state(n, game_seed, opts)
        moves: list[tuple[int, str]] = []
        snaps = {0: json.dumps(engine.to_json(state))}
        states_at: list[Any] = [state]
        while to_move := engine.to_move(state):
            seat = min(to_move)
            legal = engine.legal_moves(state, seat)
            move = legal[rng.randrange(len(legal))]
            moves.append((seat, engine.format_move(state, seat, move)))
            state = engine.apply(state, seat, move)
            states_at.append(state)
            if len(moves) % snapshot_every == 0:
                snaps[len(moves)] = json.dumps(engine.to_json(state))
        out = engine.outcome(state).to_dict()
        finished.append(Record(name, n, opts, game_seed, moves, snaps, json.dumps(engine.to_json(state)),
                               json.dumps(out), frozenset(), frozenset(out.get("winners") or ()),
                               tuple(out.get("scores") or ())))
        cut = rng.randrange(1, len(moves))
        at = states_at[cut]
        running.append(Record(name, n, opts, game_seed, moves[:cut], {p: t for p, t in snaps.items() if p <= cut},
                              json.dumps(engine.to_json(at)), None, engine.to_move(at)))
    return finished, running


# ---------------------------------------------------------------- real mails, rendered once


@dataclass
class MailTemplate:
    subject: str
    body_text: str
    body_html: str | None


def real_mails() -> dict[str, MailTemplate]:
    """Per game, a board mail the product queued for a move in a game made and
    played through the services (in the bench database, emptied afterwards)."""
    from sqlmodel import select

    from pbem.services.core import games, moves, notify, seating
    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound

    from .env import make_games, playout

    out = {}
    for name, n in (("spyrium", 4), ("squire", 2), ("iaww", 3)):
        gid = make_games(name, n, 1, first_seed=7)[0]
        for seat, notation in playout(gid, 3):
            with unit_of_work() as s:  # as a move on the web page: the others get the board
                res = moves.submit_moves(s, gid, seat, [notation], source="web")
                if res.applied:
                    g = games.get(s, gid)
                    notify.announce_moves(s, g, seat, seating.names(s, gid)[seat], res.applied[0].ply)
        with unit_of_work() as s:
            row = s.exec(select(Outbound).where(Outbound.game_id == gid, Outbound.body_html.is_not(None))
                         .order_by(Outbound.id.desc())).first()
        out[name] = MailTemplate(row.subject, row.body_text, row.body_html)
    return out


def reply_mail(tpl: MailTemplate) -> str:
    """A player's reply as a mail client writes it: headers, the move, the board mail quoted;
    ``{}`` fields filled per mail (str.format)."""
    quoted = "\n".join("> " + line for line in tpl.body_text.splitlines())
    quoted = quoted.replace("{", "{{").replace("}", "}}")
    return ("Return-Path: <{mail_from}>\nReceived: from mx.players.bench (mx.players.bench [203.0.113.7])\n"
            "\tby pbem.bench with ESMTPS; {date}\nFrom: {name} <{mail_from}>\nTo: {rcpt}\n"
            "Subject: Re: " + tpl.subject.replace("{", "{{").replace("}", "}}") + "\nDate: {date}\n"
            "Message-ID: {mid}\nIn-Reply-To: <board.{gid}.{ply}@pbem.bench>\n"
            "References: <board.{gid}.{ply}@pbem.bench>\nMIME-Version: 1.0\n"
            "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Thunderbird/115.6.0\n"
            "Content-Type: text/plain; charset=UTF-8; format=flowed\nContent-Transfer-Encoding: 8bit\n\n"
            "{notation}\n\nOn {date}, pbem wrote:\n" + quoted + "\n")


# ---------------------------------------------------------------- the fill


class Table:
    """COPY rows of one model's table: every column, the model's Python-side defaults where not given."""

    def __init__(self, model, **defaults):
        self.name = model.__tablename__
        self.cols = [c.name for c in model.__table__.columns]
        base = {}
        for c in self.cols:
            f = model.model_fields.get(c)
            if f is not None and f.default_factory is None and f.default is not None and not f.is_required():
                base[c] = f.default
        base.update(defaults)
        self.base = [base.get(c) for c in self.cols]
        self.index = {c: i for i, c in enumerate(self.cols)}
        self.has_id = "id" in self.index
        self.rows: list[list] = []
        self.next_id = 1  # the next id given (greater than every id written)
        self.written = 0

    def add(self, **values) -> int | None:
        if self.has_id:
            if "id" not in values:
                values["id"] = self.next_id
            self.next_id = max(self.next_id, values["id"] + 1)
        self.written += 1
        row = self.base.copy()
        index = self.index
        for k, v in values.items():
            row[index[k]] = v
        self.rows.append(row)
        return values.get("id")

    def take(self) -> tuple[str, list[list]]:
        """The COPY statement and the rows added since the last take."""
        rows, self.rows = self.rows, []
        return f'COPY "{self.name}" ({", ".join(self.cols)}) FROM STDIN', rows


class Writer:
    """COPYs batches of rows on a connection of its own, in a thread: PostgreSQL takes one batch
    while the next is made (the GIL is let go while psycopg waits on the server). One batch in flight."""

    def __init__(self, engine):
        from concurrent.futures import ThreadPoolExecutor

        self.conn = engine.raw_connection()
        cur = self.conn.cursor()
        cur.execute("SET synchronous_commit = off")
        try:
            cur.execute("SET session_replication_role = replica")  # no FK triggers: consistent by construction
        except Exception:  # noqa: BLE001 - not a superuser: the triggers check every row, slower
            self.conn.rollback()
        self.conn.commit()
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.pending = None

    def _copy(self, batches: list[tuple[str, list[list]]]) -> None:
        cur = self.conn.cursor()
        for statement, rows in batches:  # in the order of the tables: a row's references first
            if rows:
                with cur.copy(statement) as cp:
                    for r in rows:
                        cp.write_row(r)
        self.conn.commit()

    def send(self, tables: dict[str, Table]) -> None:
        self.wait()
        self.pending = self.pool.submit(self._copy, [t.take() for t in tables.values()])

    def wait(self) -> None:
        if self.pending is not None:
            self.pending.result()
            self.pending = None

    def close(self) -> None:
        self.wait()
        self.pool.shutdown()
        self.conn.close()


def _secondary_indexes(c) -> list[tuple[str, str]]:
    """(name, definition) of every index that backs no constraint: dropped for the fill, made again after."""
    return [tuple(r) for r in c.exec_driver_sql(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i JOIN pg_class x ON x.relname = i.indexname "
        "WHERE i.schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.oid)")]


@dataclass
class Filled:
    games: int
    seconds: float
    now: datetime
    heavy_user: int
    admin_user: int
    rows: dict[str, int] = field(default_factory=dict)
    fixed_s: float = 0.0  # of ``seconds``: the real mails and the pool, whatever the size


def _tables():
    from pbem.store import models as m

    now = m.utcnow()
    return {
        "users": Table(m.User, created_at=now, confirmed=True), "games": Table(m.Game),
        "seats": Table(m.Seat),
        "inbound": Table(m.Inbound, status="done", attempts=1, peer="203.0.113.7", helo="mx.players.bench",
                         mails_out=2),
        "moves": Table(m.Move, undone=False), "snapshots": Table(m.Snapshot),
        "outbound": Table(m.Outbound, status="sent", attempts=1),
        "posts": Table(m.Post), "observers": Table(m.Observer), "invitations": Table(m.Invitation),
        "audit_log": Table(m.AuditLog), "ratings": Table(m.Rating), "game_results": Table(m.GameResult),
        "sweep_state": Table(m.SweepState),
    }


TALK = ("Good move.", "I did not see that coming!", "Sorry for the delay, busy week.",
        "Anyone up for a rematch after this one?", "Careful, the next round decides it.",
        "Well played, all of you. I think I am out of it already but let's see how it ends.")


class Filler:
    """The rows of one fill, made game by game (the choices drawn from one seeded generator)."""

    def __init__(self, n: int, seed: int, now: datetime, mails: dict[str, MailTemplate],
                 finished: list[Record], running: list[Record]):
        from pbem.config import settings

        self.n, self.seed, self.now, self.cfg = n, seed, now, settings()
        self.rng = random.Random(seed)
        self.mails, self.replies = mails, {g: reply_mail(t) for g, t in mails.items()}
        self.pools = {"finished": finished, "running": running}
        self.T = _tables()
        self.mailed = _window(now, self.cfg.keep_inbound_days)
        self.outboxed = _window(now, self.cfg.keep_outbox_days)
        self.snap_since = now - timedelta(days=self.cfg.keep_snapshots_days)
        self.email: dict[int, str] = {}
        self.name: dict[int, str] = {}
        self.played: dict[tuple[int, str], list[int]] = {}  # (user, game) -> ranks: the ratings
        self.n_users = max(12, n // 3)
        self.heavy, self.admin = 1, 5
        self.heavy_games = set(self.rng.sample(range(n), min(HEAVY_GAMES, n)))
        self.busy = {u: set(self.rng.sample(range(n), max(1, n // 100))) for u in (2, 3, 4)}

    def users(self) -> None:
        from pbem.store import names

        rng, now = self.rng, self.now
        for i in range(1, self.n_users + 1):
            name, email = f"Player {i}", f"p{i}@{MAIL_DOMAIN}"
            notify = rng.choices(("every", "turn", "digest"), (80, 10, 10))[0]
            self.T["users"].add(
                email=email, name=name, name_key=names.key(name), is_admin=(i == self.admin), notify=notify,
                calendar_key=secrets.token_urlsafe(18), created_at=now - timedelta(days=rng.uniform(0, HISTORY_DAYS)),
                language=rng.choices(("en", "ru", "bg", "it"), (85, 5, 5, 5))[0],
                # a digest went out within the day: none is due at the fill's time (its next: a day later)
                digest_sent_at=(sent := now - timedelta(hours=rng.uniform(0, 23.5))) if notify == "digest" else None,
                digest_due_at=sent + timedelta(days=1) if notify == "digest" else None,
                turns_on_time=rng.randrange(0, 400), turns_late=rng.randrange(0, 20),
                games_finished=rng.randrange(0, 30), games_left=rng.randrange(0, 2))
            self.email[i], self.name[i] = email, name

    def statuses(self) -> list[str]:
        out = ["finished"] * (self.n * 60 // 100) + ["running"] * (self.n * 35 // 100)
        out += ["open"] * (self.n - len(out))
        self.rng.shuffle(out)
        return out

    def game(self, k: int, status: str) -> None:
        """Game ``k + 1``: its row, seats and clocks; its record and mail once started."""
        from pbem.services.core import clocks, seating

        rng, now, T, gid = self.rng, self.now, self.T, k + 1
        rec = rng.choice(self.pools[status]) if status != "open" else None
        name, n_players = (rec.game, rec.players) if rec else rng.choices([(g, p) for g, p, _ in MIX],
                                                                           [w for *_, w in MIX])[0]
        seated = n_players if rec else rng.randint(1, n_players - 1)
        who = ([self.heavy] if k in self.heavy_games else []) + [u for u, ks in self.busy.items() if k in ks]
        who = who[:seated]
        while len(who) < seated:
            u = rng.randint(6, self.n_users)
            if u not in who:
                who.append(u)
        rng.shuffle(who)
        interval = timedelta(hours=rng.uniform(2, 24))
        policy = rng.choices(("wait", "bot", "abandon"), (70, 20, 10))[0]
        if status == "finished":
            end = now - timedelta(hours=rng.uniform(1, HISTORY_DAYS * 24))
        elif status == "running":  # the clock of the seats to move: a deadline from an hour ago (in the
            # grace) to 48 h on; now and then long past, the player told late and the game waiting for them
            hours = -rng.uniform(2, 240) if policy == "wait" and rng.random() < 0.05 else rng.uniform(-1, 48)
            end = now + timedelta(hours=hours - 48)
        else:
            end = now - timedelta(hours=rng.uniform(0, 14 * 24))
        plies = len(rec.moves) if rec else 0
        started = end - interval * plies
        created = started - timedelta(hours=rng.uniform(1, 72))
        access = "private" if status == "open" and rng.random() < 0.3 else "public"
        T["games"].add(id=gid, game=name, options=json.dumps(rec.options if rec else {}), players=n_players,
                       seed=rec.seed if rec else rng.getrandbits(62), status=status, ply=plies, creator_id=who[0],
                       created_at=created, updated_at=end if rec else created, state_json=rec.state if rec else None,
                       state_ply=plies if rec else -1, outcome=rec.outcome if rec else None, policy=policy,
                       access=access, shown_ply=plies, deadline_hours=48)
        # bot seats: in finished games now and then; in running games never one to move (the sweep would owe it)
        bots = {s for s in range(seated) if who[s] != self.heavy and rng.random() < 0.03
                and (status == "finished" or (status == "running" and s not in rec.to_move))}
        seat_user: dict[int, int] = {}
        tokens: dict[int, str] = {}
        for s in range(seated):
            seat_user[s] = who[s] if s not in bots else T["users"].add(
                email=f"bot-{gid}-{s + 1}@bots.pbem.invalid", name=f"Bot {s + 1}", mail_format="text",
                calendar_key=secrets.token_urlsafe(18), created_at=created)
            clock = deadline = None
            reminded = 0
            if status == "running" and s in rec.to_move:  # reminded as the sweep would have by now
                clock, deadline = end, end + timedelta(hours=48)
                left = deadline - now
                reminded = (0 if left > timedelta(hours=24) else 1 if left > timedelta(hours=4) else 2
                            if left > -timedelta(hours=1) else 3)
            tokens[s] = seating.new_token()
            T["seats"].add(game_id=gid, seat=s, user_id=seat_user[s], token=tokens[s], joined_at=created,
                           is_bot=s in bots, deadline_at=deadline, clock_started_at=clock, reminded=reminded,
                           due_at=clocks.clock_due(deadline, reminded))  # when the sweep looks again
        if rec is None:
            for j in range(rng.randint(1, 3) if access == "private" else 0):
                T["invitations"].add(game_id=gid, inviter_id=who[0], email=f"friend{gid}.{j}@{MAIL_DOMAIN}",
                                     created_at=created)
            return
        if status == "running" and rng.random() < 0.05:
            for u in rng.sample(range(6, self.n_users + 1), 2):
                if u not in who:
                    T["observers"].add(game_id=gid, user_id=u, created_at=started)
        human = [s for s in range(seated) if s not in bots]
        T["posts"].add(game_id=gid, kind="notice", body=f"The game has started with {seated} players.",
                       source="system", created_at=started)
        self.record(gid, rec, started, interval, seat_user, tokens, human)
        if status == "running" or end >= self.snap_since:  # retention deletes finished games' snapshots
            for ply, state in rec.snapshots.items():
                T["snapshots"].add(game_id=gid, ply=ply, state_json=state)
        if status == "finished":
            self.results(gid, rec, end, seat_user, human)

    def record(self, gid: int, rec: Record, started: datetime, interval: timedelta, seat_user: dict[int, int],
               tokens: dict[int, str], human: list[int]) -> None:
        """The moves, a post for each, the mail that carried most, the mails each move sent, some talk."""
        from pbem.store.addresses import seat_address

        rng, T, domain = self.rng, self.T, self.cfg.domain
        tpl, raw_tpl = self.mails[rec.game], self.replies[rec.game]
        for ply, (seat, notation) in enumerate(rec.moves, start=1):
            at = started + interval * ply
            uid = seat_user[seat]
            source = "mail" if rng.random() < 0.8 else "web"
            source = "bot" if seat not in human else source
            inbound_id = None
            if source == "mail":
                rcpt = seat_address(gid, tokens[seat], domain)
                inbound_id = self.mail_in(gid, ply, uid, rcpt, at, notation, "move accepted", raw_tpl)
            T["moves"].add(game_id=gid, ply=ply, seat=seat, notation=notation, source=source, inbound_id=inbound_id,
                           user_id=uid, created_at=at)
            T["posts"].add(game_id=gid, kind="move", user_id=uid, seat=seat, body=notation, ply=ply,
                           source="mail" if source == "mail" else "web", created_at=at)
            if self.outboxed(at):
                for s in human:
                    T["outbound"].add(
                        message_id=f"<{gid:08d}.{ply:04d}.{s}.{rng.getrandbits(64):016x}@pbem.bench>",
                        to_addr=self.email[seat_user[s]], subject=tpl.subject, body_text=tpl.body_text,
                        body_html=tpl.body_html, kind="reply" if s == seat else "board",
                        headers=json.dumps({"In-Reply-To": f"<{gid:08d}.{ply:04d}@{MAIL_DOMAIN}>"} if s == seat else {}),
                        game_id=gid, user_id=seat_user[s], next_attempt_at=at, created_at=at,
                        sent_at=at + timedelta(seconds=2))
            if human and rng.random() < 0.06:  # table talk, by mail (an inbound row no move points to) or on the page
                talker = rng.choice(human)
                by_mail = rng.random() < 0.5
                said = rng.choice(TALK)
                T["posts"].add(game_id=gid, kind="post", user_id=seat_user[talker], seat=talker, body=said,
                               source="mail" if by_mail else "web", created_at=at + timedelta(minutes=5),
                               to_seat=rng.choice((None, None, None, seat)))
                if by_mail:
                    self.mail_in(gid, ply, seat_user[talker], seat_address(gid, tokens[talker], domain),
                                 at + timedelta(minutes=5), "SAY " + said, "posted", raw_tpl, kept=False)

    def mail_in(self, gid: int, ply: int, uid: int, rcpt: str, at: datetime, text: str, result: str, raw_tpl: str,
                kept: bool = True) -> int | None:
        """A processed inbound mail; its raw text inside the window only (and the row only, unless
        ``kept``: a mail no move points to, which retention deletes whole)."""
        if not (kept or self.mailed(at)):
            return None
        # a Message-ID that begins with the game and ply: the unique index grows at its end, not at random
        mid = f"<{gid:08d}.{ply:04d}.{self.rng.getrandbits(64):016x}@{MAIL_DOMAIN}>"
        raw = raw_tpl.format(mail_from=self.email[uid], name=self.name[uid], rcpt=rcpt, mid=mid,
                             date=format_datetime(at), gid=gid, ply=ply - 1, notation=text).encode() \
            if self.mailed(at) else b""
        return self.T["inbound"].add(message_id=mid, raw=raw, mail_from=self.email[uid], rcpt_to=rcpt,
                                     received_at=at, processed_at=at + timedelta(seconds=1), result=result,
                                     digest=f"{self.rng.getrandbits(64):016x}")

    def results(self, gid: int, rec: Record, end: datetime, seat_user: dict[int, int], human: list[int]) -> None:
        T = self.T
        T["posts"].add(game_id=gid, kind="notice", body="The game is over.", source="system", created_at=end)
        for s in human:
            rank = 1 if s in rec.winners else 2
            T["game_results"].add(game_id=gid, seat=s, user_id=seat_user[s], rank=rank,
                                  score=rec.scores[s] if s < len(rec.scores) else 0, mu_before=25.0,
                                  sigma_before=8.3, mu_after=25.5 if rank == 1 else 24.5, sigma_after=8.0,
                                  created_at=end)
            self.played.setdefault((seat_user[s], rec.game), []).append(rank)
        if self.rng.random() < 0.05:
            T["audit_log"].add(user_id=self.admin, game_id=gid, action="game.note",
                               detail="checked a disputed ply, no change", created_at=end)

    def site(self) -> None:
        """What is not of one game: ratings, failed mail (kept whatever its age), admin actions, the sweep's clock."""
        rng, now, T = self.rng, self.now, self.T
        for (uid, name), ranks in self.played.items():
            T["ratings"].add(user_id=uid, game=name, mu=25 + ranks.count(1) - 0.5 * len(ranks),
                             sigma=max(2.0, 8.3 - len(ranks) / 4), games=len(ranks), updated_at=now)
        rcpt = f"game-1.wrongtoken@{self.cfg.domain}"
        for j in range(max(2, self.n // 20)):
            at = now - timedelta(hours=rng.uniform(0, HISTORY_DAYS * 24))
            mid = f"<failed.{j}.{self.seed}@{MAIL_DOMAIN}>"
            T["inbound"].add(message_id=mid, raw=self.replies["spyrium"].format(
                mail_from="someone@elsewhere.example", name="Someone", rcpt=rcpt, mid=mid,
                date=format_datetime(at), gid=1, ply=0, notation="PLAY 9 9 9").encode(), status="failed",
                mail_from="someone@elsewhere.example", rcpt_to=rcpt, received_at=at, attempts=5,
                error="OperationalError: server closed the connection unexpectedly")
        for j in range(max(5, self.n // 10)):
            T["audit_log"].add(user_id=self.admin, action=rng.choice(("inbound.discard", "user.disable", "game.pause")),
                               detail=f"routine #{j}", created_at=now - timedelta(hours=rng.uniform(0, HISTORY_DAYS * 24)))
        T["sweep_state"].add(name="deadlines", last_run_at=now - timedelta(seconds=60))


def fill(n: int, seed: int, *, pool_size: int = 300, echo: Callable[[str], None] = lambda s: None) -> Filled:
    """Fill the installed (migrated) database to ``n`` games, whatever it held. Needs the settings installed."""
    from pbem.config import settings
    from pbem.store.db import get_engine
    from pbem.store.models import utcnow

    t0 = time.perf_counter()
    mails = real_mails()
    engine = get_engine()
    with engine.begin() as c:  # the games the templates were made in go: the fill owns every id
        tables = [r[0] for r in c.exec_driver_sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'")]
        c.exec_driver_sql("TRUNCATE " + ", ".join(f'"{t}"' for t in tables) + " RESTART IDENTITY CASCADE")
        indexes = _secondary_indexes(c)  # built once at the end, faster than kept up row by row
        for name, _ in indexes:
            c.exec_driver_sql(f'DROP INDEX "{name}"')
    pool = build_pool(pool_size, seed, settings().snapshot_every)
    fixed_s = time.perf_counter() - t0
    echo(f"  real mails and a pool of {pool_size} playouts in {fixed_s:.1f} s")
    f = Filler(n, seed, utcnow().replace(microsecond=0), mails, *pool)
    f.users()
    writer = Writer(engine)
    for k, status in enumerate(f.statuses()):
        f.game(k, status)
        if (k + 1) % 2000 == 0:
            writer.send(f.T)
            echo(f"  {k + 1} of {n} games written, {time.perf_counter() - t0:.0f} s")
    f.site()
    writer.send(f.T)
    writer.close()
    echo(f"  rows written in {time.perf_counter() - t0:.0f} s; indexing")
    with engine.begin() as c:
        for t in f.T.values():
            if t.has_id:
                c.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{t.name}', 'id'), GREATEST(%(n)s, 1))",
                                  {"n": t.next_id - 1})
        c.exec_driver_sql("SET maintenance_work_mem = '256MB'")
        for _, definition in indexes:
            c.exec_driver_sql(definition)
    with engine.connect() as c:
        c.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    return Filled(n, time.perf_counter() - t0, f.now, f.heavy, f.admin, {t.name: t.written for t in f.T.values()},
                  fixed_s)


def _window(now: datetime, keep_days: int) -> Callable[[datetime], bool]:
    """Whether a mail of this time has its raw text (inbound) or its row (outbox) in the fill: the
    last MAIL_DAYS days, and the EDGE_DAYS oldest days that retention keeps (what the next prunes
    delete, one day each). The days between are left out (inbound rows kept, emptied): see the module."""
    recent = now - timedelta(days=MAIL_DAYS)
    edge_from = now - timedelta(days=keep_days)
    edge_to = edge_from + timedelta(days=EDGE_DAYS)
    return lambda at: at >= recent or edge_from <= at < edge_to


# ---------------------------------------------------------------- statements: counted, captured, explained


@dataclass
class Statement:
    sql: str
    params: Any
    seconds: float
    failed: bool = False


@dataclass
class Hot:
    """A distinct statement of one operation: how often it ran, its time in all and at its slowest
    (and the parameters of that run)."""
    sql: str
    params: Any
    count: int
    total_s: float
    max_s: float
    failed: bool = False  # a run of it failed (was cancelled): explained without running it again


class Capture:
    """Every SQL statement the product's engine runs while active (before/after_cursor_execute)."""

    def __init__(self):
        from pbem.store.db import get_engine

        self.engine = get_engine()
        self.statements: list[Statement] = []
        self._start: list[float] = []

    def _before(self, conn, cursor, statement, parameters, context, executemany):
        conn.info.setdefault("pbem.bench.t0", []).append(time.perf_counter())

    def _after(self, conn, cursor, statement, parameters, context, executemany, failed: bool = False):
        t0 = conn.info["pbem.bench.t0"].pop()
        params = parameters[0] if executemany and isinstance(parameters, list) and parameters else parameters
        self.statements.append(Statement(statement, params, time.perf_counter() - t0, failed))

    def _error(self, ctx) -> None:
        """A statement that failed (cancelled by a statement_timeout) counts, and is explained, too."""
        if ctx.connection is not None and ctx.connection.info.get("pbem.bench.t0") and ctx.statement:
            self._after(ctx.connection, None, ctx.statement, ctx.parameters, None, False, failed=True)

    def __enter__(self) -> "Capture":
        from sqlalchemy import event

        event.listen(self.engine, "before_cursor_execute", self._before)
        event.listen(self.engine, "after_cursor_execute", self._after)
        event.listen(self.engine, "handle_error", self._error)
        return self

    def __exit__(self, *exc) -> None:
        from sqlalchemy import event

        event.remove(self.engine, "before_cursor_execute", self._before)
        event.remove(self.engine, "after_cursor_execute", self._after)
        event.remove(self.engine, "handle_error", self._error)

    def heaviest(self, k: int = 3) -> list[Hot]:
        """The ``k`` distinct statements (by text) that took the most time in all: a query run once
        per row shows here however fast each run is."""
        by: dict[str, Hot] = {}
        for st in self.statements:
            h = by.get(st.sql)
            if h is None:
                by[st.sql] = Hot(st.sql, st.params, 1, st.seconds, st.seconds, st.failed)
                continue
            h.count += 1
            h.total_s += st.seconds
            h.failed |= st.failed
            if st.seconds > h.max_s:
                h.max_s, h.params = st.seconds, st.params
        return sorted(by.values(), key=lambda h: -h.total_s)[:k]


EXPLAINABLE = ("select", "update", "delete", "insert", "with")


def explain(statements: list[Hot]) -> str:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of each statement with its own parameters, in a
    transaction rolled back (a DELETE or UPDATE explained changes nothing); the plan alone
    (``EXPLAIN``) of one that failed (was cancelled)."""
    from pbem.store.db import get_engine

    parts = []
    conn = get_engine().raw_connection()
    try:
        for st in statements:
            head = (f"-- run {st.count} time(s), {st.total_s * 1000:.2f} ms in all, the slowest "
                    f"{st.max_s * 1000:.2f} ms with the parameters below{' (cancelled)' if st.failed else ''}\n"
                    f"{st.sql}\n-- parameters: {st.params!r}")[:4000]
            if not st.sql.lstrip().lower().startswith(EXPLAINABLE):
                continue
            cur = conn.cursor()
            try:
                cur.execute(("EXPLAIN " if st.failed else "EXPLAIN (ANALYZE, BUFFERS) ") + st.sql, st.params or None)
                plan = "\n".join(r[0] for r in cur.fetchall())
            except Exception as e:  # noqa: BLE001 - a statement that cannot run again (a unique insert): said so
                plan = f"(not explained: {e!r})"[:500]
            finally:
                cur.close()
                conn.rollback()
            parts.append(head + "\n\n" + plan)
    finally:
        conn.close()
    return "\n\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- measurements


@dataclass
class Measured:
    op: str
    seconds: list[float]
    statements: list[int]
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def p50_ms(self) -> float:
        return round(1000 * statistics.median(self.seconds), 2)

    @property
    def p90_ms(self) -> float:
        return round(1000 * pct(self.seconds, 0.9), 2)

    @property
    def stmts(self) -> float:
        """The median count of SQL statements per run (a whole number when it is one)."""
        m = statistics.median(self.statements) if self.statements else 0
        return int(m) if m == int(m) else round(m, 1)


class Bench:
    """The measurements at one size, each op's statements captured and its heaviest explained."""

    def __init__(self, filled: Filled, out_dir: Path, reps: int, echo: Callable[[str], None]):
        self.filled, self.out_dir, self.reps, self.echo = filled, out_dir, reps, echo
        self.results: list[Measured] = []
        out_dir.mkdir(parents=True, exist_ok=True)

    def measure(self, op: str, fn: Callable[[], Any], reps: int | None = None, note: str = "",
                setup: Callable[[], Any] = lambda: None) -> Measured:
        """``fn`` timed ``reps`` times (fewer, at least 3, once they took BUDGET_S), each after ``setup``
        (not timed, its statements not counted)."""
        secs, counts = [], []
        result = hot = None
        for _ in range(reps or self.reps):
            if len(secs) >= 3 and sum(secs) > BUDGET_S:
                break
            setup()
            with Capture() as cap:
                t0 = time.perf_counter()
                result = fn()
                secs.append(time.perf_counter() - t0)
            counts.append(len(cap.statements))
            hot = cap.heaviest()
        (self.out_dir / f"{slug(op)}.txt").write_text(
            f"# {op}: the statements that took the most time in all (its last run; {counts[-1]} statements)\n\n"
            + explain(hot))
        m = Measured(op, secs, counts, note, result if isinstance(result, dict) else {})
        self.results.append(m)
        self.echo(f"  {op}: p50 {m.p50_ms} ms, p90 {m.p90_ms} ms, {m.stmts} statements")
        return m


def slug(op: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in op.lower()).strip("-").replace("--", "-")


def _log_in(client, user_id: int) -> None:
    """A real server-side session of the user, its secret in the client's cookie (what the login link does)."""
    from pbem.services.core import sessions
    from pbem.store.db import unit_of_work
    from pbem.store.models import User

    with unit_of_work() as s:
        secret = sessions.start(s, s.get(User, user_id))
    with client.session_transaction() as sess:
        sess["sid"] = secret


def _pick_running_game(s) -> tuple[int, int]:
    """A running 4-player spyrium game (else any running game) with a long log, and a human seated in it."""
    from sqlmodel import select

    from pbem.store.models import Game, Seat

    q = select(Game.id).where(Game.status == "running").order_by(Game.ply.desc(), Game.id)
    gid = s.exec(q.where(Game.game == "spyrium", Game.players == 4).limit(1)).first() or s.exec(q.limit(1)).first()
    uid = s.exec(select(Seat.user_id).where(Seat.game_id == gid, Seat.is_bot == False)  # noqa: E712
                 .order_by(Seat.seat)).first()
    return gid, uid


def _quiet_poll(client, gid: int) -> str:
    """The path a live game page polls when nothing changed: its stamp and its newest post (the page's
    script asks every few seconds)."""
    answer = client.get(f"/games/{gid}/thread.json").get_json()
    last = max((p["id"] for p in answer.get("posts", [])), default=0)
    return f"/games/{gid}/thread.json?after={last}&stamp={answer['stamp']}"


def measure_web(b: Bench) -> None:
    from sqlmodel import select

    from pbem.config import settings
    from pbem.store.db import unit_of_work
    from pbem.store.models import Inbound
    from pbem.web import create_app

    app = create_app(settings())
    with unit_of_work() as s:
        gid, player = _pick_running_game(s)
        failed = s.exec(select(Inbound.id).where(Inbound.status == "failed").limit(1)).first()
    anon, me, heavy, admin = (app.test_client() for _ in range(4))
    _log_in(me, player)
    _log_in(heavy, b.filled.heavy_user)
    _log_in(admin, b.filled.admin_user)

    def get(client, path):
        def run():
            r = client.get(path)
            if r.status_code != 200:
                raise RuntimeError(f"GET {path}: {r.status_code}")
        run()  # warm: templates compiled, the first of each query planned
        return run

    b.measure("lobby (anonymous)", get(anon, "/lobby"))
    b.measure("lobby (logged in)", get(me, "/lobby"))
    b.measure("my games (/me, heavy player)", get(heavy, "/me"))
    b.measure("game page (/games/<id>)", get(me, f"/games/{gid}"))
    b.measure("view.json", get(me, f"/games/{gid}/view.json"))
    b.measure("thread.json", get(me, f"/games/{gid}/thread.json"))
    b.measure("thread.json, a live page's poll with nothing new", get(me, _quiet_poll(me, gid)))
    rules = {r.rule for r in app.url_map.iter_rules() if "GET" in r.methods}
    for rule in sorted(r for r in rules if r.startswith("/admin")):
        path = rule.replace("<int:game_id>", str(gid)).replace("<int:inbound_id>", str(failed))
        if "<" in path:
            continue  # a list that needs an id this fill has none of (a dispute)
        b.measure(f"admin {rule}", get(admin, path))


def measure_mail(b: Bench, mails: int) -> None:
    """A move mail through the worker's own task function, on mails stored as the receiver stores them,
    each to a different running game (its seat to move, a legal move by the engine from the stored state)."""
    from sqlmodel import select

    from pbem.config import settings
    from pbem.mail.inbound import make_controller
    from pbem.mail.pipeline import process_inbound
    from pbem.services.core import games
    from pbem.store.addresses import seat_address
    from pbem.store.db import unit_of_work
    from pbem.store.models import Game, Seat, User
    from pbem.tasks import deliver_inline

    cfg = settings()
    handler = make_controller(cfg, host="127.0.0.1", port=free_port()).handler  # not started
    rng = random.Random(b.filled.games)
    letters = []
    with unit_of_work() as s:
        rows = s.exec(select(Game, Seat, User).join(Seat, Seat.game_id == Game.id).join(User, User.id == Seat.user_id)
                      .where(Game.status == "running", Seat.deadline_at.is_not(None), Seat.is_bot == False,  # noqa: E712
                             Game.game != "iaww")  # a choice of iaww waits for the others: no reply per mail
                      .order_by(Game.id).limit(4 * (mails + 2))).all()
        seen = set()
        for g, seat, user in rows:
            if g.id in seen or len(letters) >= mails + 2:
                continue
            engine = games.engine_for(g)
            state = games.state_at(s, g)
            if seat.seat not in engine.to_move(state):
                continue
            legal = engine.legal_moves(state, seat.seat)
            notation = engine.format_move(state, seat.seat, legal[rng.randrange(len(legal))])
            seen.add(g.id)
            m = EmailMessage()
            m["From"] = user.email
            m["To"] = rcpt = seat_address(g.id, seat.token, cfg.domain)
            m["Subject"] = f"Re: [pbem #{g.id}] your move"
            m["Message-ID"] = f"<scale.{uuid.uuid4().hex}@{MAIL_DOMAIN}>"
            m.set_content(f"{notation}\n\n-- \nsent by pbem bench scale\n")
            letters.append((m.as_bytes(), user.email, rcpt))
    ids = [i for raw, frm, rcpt in letters for i in handler.store(raw, frm, [rcpt])]
    for i in ids[:2]:
        process_inbound(i, deliver=deliver_inline)  # warm
    todo = iter(ids[2:])

    def one():
        status = process_inbound(next(todo), deliver=deliver_inline)
        if status != "done":
            raise RuntimeError(f"a move mail ended {status}")

    b.measure("one move mail (worker)", one, reps=len(ids) - 2)


def _set_last_sweep(at: datetime) -> None:
    from sqlmodel import select

    from pbem.store.db import unit_of_work
    from pbem.store.models import SweepState

    with unit_of_work() as s:
        row = s.exec(select(SweepState).where(SweepState.name == "deadlines")).first()
        row = row or SweepState(name="deadlines", last_run_at=at)
        row.last_run_at = at
        s.add(row)


def measure_sweeps(b: Bench, run_no: int) -> None:
    """The deadline sweep at the start of this run's window (nothing due: the fill, or the previous run,
    did everything due until then) and at its end (what fell due in SWEEP_WINDOW); each after a sweep
    a minute before, as beat runs it. Then the periodic run_sweep, then the outage catch-up, restored."""
    from sqlalchemy import func, select, text

    from pbem import tasks
    from pbem.services.upkeep import sweep
    from pbem.store.db import unit_of_work
    from pbem.store.models import AuditLog, Post

    start = b.filled.now + SWEEP_WINDOW * (run_no - 1)

    def after_a_minute(now):
        return lambda: _set_last_sweep(now - timedelta(seconds=60))

    idle = b.measure("deadline sweep, nothing due", lambda: sweep.run(start), setup=after_a_minute(start))
    end = start + SWEEP_WINDOW
    due = b.measure(f"deadline sweep, {SWEEP_WINDOW.seconds // 60} min due", lambda: sweep.run(end), reps=1,
                    setup=after_a_minute(end))
    if any(idle.extra.get(k) for k in ("reminders", "late", "bot_moves", "abandoned")):
        idle.note = "something was due: " + json.dumps(idle.extra)
    due.note = ", ".join(f"{k} {v}" for k, v in due.extra.items() if v and k != "games")
    b.measure("run_sweep (periodic)", lambda: tasks.run_sweep(now=end))
    now = end + timedelta(minutes=1)

    def outage() -> dict:
        _set_last_sweep(now - timedelta(hours=2))
        with unit_of_work() as s:
            last = (s.execute(select(func.max(Post.id))).scalar() or 0,
                    s.execute(select(func.max(AuditLog.id))).scalar() or 0)
        return {"undo": last}

    def undo(done: dict) -> None:
        """The clocks, notices and audit row of a catch-up taken back: the next run's windows start where
        the fill's clocks are."""
        last_post, last_audit = done.pop("undo")
        with unit_of_work() as s:
            s.execute(text("UPDATE seats SET deadline_at = deadline_at - make_interval(secs => :gap), "
                           "clock_started_at = clock_started_at - make_interval(secs => :gap), "
                           "due_at = due_at - make_interval(secs => :gap) FROM games "
                           "WHERE games.id = seats.game_id AND games.status = 'running' "
                           "AND seats.deadline_at IS NOT NULL"), {"gap": done.get("extended_s", 0)})
            s.execute(text("DELETE FROM posts WHERE id > :p AND kind = 'notice' AND source = 'system'"),
                      {"p": last_post})
            s.execute(text("DELETE FROM audit_log WHERE id > :a AND action = 'outage_extension'"), {"a": last_audit})

    before: dict = {}
    out = b.measure("outage catch-up (2 h gap)", lambda: {**sweep.run(now), **before}, reps=1,
                    setup=lambda: before.update(outage()))
    undo(out.extra)
    # again, for the memory it takes: the Python heap's peak (tracemalloc slows it, so not timed)
    done = outage()
    tracemalloc.start()
    try:
        done.update(sweep.run(now))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    undo(done)
    out.extra["peak_mb"] = round(peak / 2 ** 20, 1)
    out.note = f"extended {out.extra.get('extended_s', 0)} s; Python heap peak {out.extra['peak_mb']} MB"
    _set_last_sweep(end)


def measure_retention(b: Bench, run_no: int) -> None:
    """``retention.prune`` at a ``now`` one day on from the fill's (the previous run's) last day:
    about one day of rows old enough. Last: it deletes."""
    from sqlalchemy.exc import OperationalError

    from pbem.services.upkeep import retention

    now = b.filled.now + timedelta(days=run_no)

    def prune() -> dict:
        try:
            return retention.prune(now).as_dict()
        except OperationalError as e:  # the statement_timeout: a statement that runs for hours is a finding
            return {"cancelled": str(e.orig).splitlines()[0][:200]}

    with _statement_timeout(RETENTION_LIMIT_S):
        m = b.measure("retention, one day of rows", prune, reps=1)
    m.note = ", ".join(f"{k} {v}" for k, v in m.extra.items() if v)
    if "cancelled" in m.extra:
        m.note = f"a statement ran over {RETENTION_LIMIT_S} s and was cancelled ({m.extra['cancelled']})"


@contextmanager
def _statement_timeout(seconds: int) -> Iterator[None]:
    """Every statement on the bench database cancelled after ``seconds`` (its connections made anew)."""
    from pbem.store.db import dispose_engines, get_engine

    def alter(value: str) -> None:
        with get_engine().connect() as c:
            c = c.execution_options(isolation_level="AUTOCOMMIT")
            c.exec_driver_sql(f'ALTER DATABASE "{c.engine.url.database}" {value}')
        dispose_engines()

    alter(f"SET statement_timeout = '{seconds}s'")
    try:
        yield
    finally:
        alter("RESET statement_timeout")


def table_sizes() -> list[dict]:
    from pbem.store.db import get_engine

    with get_engine().connect() as c:
        names = [r[0] for r in c.exec_driver_sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        rows = []
        for t in names:
            size, n = c.exec_driver_sql(f"SELECT pg_total_relation_size('\"{t}\"'), (SELECT count(*) FROM \"{t}\")").one()
            if n:
                rows.append({"table": t, "rows": n, "MB": round(size / 2 ** 20, 1)})
        total = c.exec_driver_sql("SELECT pg_database_size(current_database())").scalar()
    rows.sort(key=lambda r: -r["MB"])
    rows.append({"table": "(database)", "rows": sum(r["rows"] for r in rows), "MB": round(total / 2 ** 20, 1)})
    return rows


# ---------------------------------------------------------------- one size, all sizes


def _stored(name: str, pg_admin: str) -> dict | None:
    """What a kept database says of its fill (its comment), if it was filled completely."""
    import sqlalchemy as sa

    admin = sa.create_engine(pg_admin)
    try:
        with admin.connect() as c:
            row = c.exec_driver_sql("SELECT shobj_description(oid, 'pg_database') FROM pg_database "
                                    "WHERE datname = %(n)s", {"n": name}).first()
    finally:
        admin.dispose()
    try:
        return json.loads(row[0]) if row and row[0] else None
    except ValueError:
        return None


def _remember(name: str, info: dict) -> None:
    from pbem.store.db import get_engine

    with get_engine().connect() as c:
        c.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
            f"COMMENT ON DATABASE \"{name}\" IS '{json.dumps(info)}'")


@dataclass
class SizeResult:
    games: int
    fill_s: float
    fixed_s: float
    rows: dict[str, int]
    tables: list[dict]
    ops: list[Measured]
    run_no: int
    load: str  # the load average (1, 5, 15 min) when its measurements began
    kept: str | None  # a kept database reused: when it was filled


def run_size(n: int, *, seed: int, keep: bool, pg_admin: str, redis_url: str | None, out: Path, quick: bool,
             echo: Callable[[str], None]) -> SizeResult:
    name = f"pbem_scale_{n}"
    info = _stored(name, pg_admin) if keep else None
    if info is not None and info.get("seed") != seed:
        info = None
    if info is None:
        _drop(name, pg_admin)
    # the board pictures off: drawn per distinct board at delivery, a constant cost that
    # `pbem bench pictures` measures and that would only blur what history costs here
    with bench_settings(pg_admin, redis_url, name=name, keep=keep, settings={"PBEM_MAIL_PICTURES": "0"}):
        if info is None:
            echo(f"filling {n} games into {name}")
            filled = fill(n, seed, pool_size=24 if quick else 300, echo=echo)
            echo(f"filled {n} games in {filled.seconds:.1f} s: " + ", ".join(f"{k} {v}" for k, v in filled.rows.items()))
            info = {"seed": seed, "now": filled.now.isoformat(), "fill_s": round(filled.seconds, 1),
                    "fixed_s": round(filled.fixed_s, 1),
                    "rows": filled.rows, "runs": 0, "heavy": filled.heavy_user, "admin": filled.admin_user}
            kept = None
        else:
            echo(f"reusing {name} (filled {info['now']}, run {info['runs'] + 1} on it)")
            filled = Filled(n, info["fill_s"], datetime.fromisoformat(info["now"]), info["heavy"], info["admin"],
                            info["rows"], info["fixed_s"])
            kept = info["now"][:16].replace("T", " ")
        run_no = info["runs"] + 1
        info["runs"] = run_no
        _remember(name, info)  # before the measurements change it: a run that fails half-way is not repeated
        b = Bench(filled, out / str(n), reps=3 if quick else 15, echo=echo)
        load_avg = load()
        measure_web(b)
        measure_mail(b, 3 if quick else 9)
        measure_sweeps(b, run_no)
        measure_retention(b, run_no)
        tables = table_sizes()
        (out / str(n) / "tables.txt").write_text(_format(tables) + "\n")
    return SizeResult(n, filled.seconds, filled.fixed_s, filled.rows, tables, b.results, run_no, load_avg, kept)


def _drop(name: str, pg_admin: str) -> None:
    import sqlalchemy as sa

    admin = sa.create_engine(pg_admin, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()


def _format(rows: list[dict]) -> str:
    from .engine import format_table

    return format_table(rows)


# ---------------------------------------------------------------- the report


PAGE_RATIO = 2.0
IDLE_SWEEP_MS = 50.0
RETENTION_DAY_S = 60.0


def targets(op: str) -> tuple[str, Callable[[Measured, Measured], bool]] | None:
    """The target for an operation (docs/PERFORMANCE.md §8): its text and its test (figures at the largest
    size, at the smallest)."""
    if op.startswith(("lobby", "my games", "game page", "view.json", "thread.json", "admin", "one move mail")):
        return f"≤ {PAGE_RATIO:g}× the smallest", lambda big, small: big.p50_ms <= PAGE_RATIO * small.p50_ms
    if op == "deadline sweep, nothing due":
        return f"< {IDLE_SWEEP_MS:g} ms", lambda big, small: big.p50_ms < IDLE_SWEEP_MS
    if op.startswith("retention"):
        return f"< {RETENTION_DAY_S:g} s", lambda big, small: big.p50_ms < RETENTION_DAY_S * 1000
    return None


def render(sizes: list[SizeResult], machine: dict, seconds: float) -> str:
    from .engine import format_table

    base = sizes[0]
    names = [m.op for m in base.ops]
    rows = []
    for op in names:
        row: dict[str, Any] = {"operation": op}
        by = {}
        for sr in sizes:
            m = next((x for x in sr.ops if x.op == op), None)
            by[sr.games] = m
            first = next((x for x in base.ops if x.op == op), None)
            row[f"{sr.games}: p50 ms"] = m.p50_ms if m else "-"
            row[f"{sr.games}: p90 ms"] = m.p90_ms if m else "-"
            row[f"{sr.games}: stmts"] = m.stmts if m else "-"
            if sr is not base:
                row[f"{sr.games}: × {base.games}"] = (round(m.p50_ms / first.p50_ms, 2) if m and first and first.p50_ms
                                                      else "-")
        t = targets(op)
        big, small = by[sizes[-1].games], by[base.games]
        row["target"] = t[0] if t else ""
        row["verdict"] = ("met" if t[1](big, small) else "**not met**") if t and big and small else ""
        rows.append(row)
    notes = [f"- {sr.games} games, {m.op}: {m.note}" for sr in sizes for m in sr.ops if m.note]
    out = [
        "## Scale: what stored history costs",
        "",
        f"Measured by `pbem bench scale --sizes {','.join(str(s.games) for s in sizes)}` on {machine['date']}, "
        f"commit `{machine['commit']}`: {machine['cpu']}, Python {machine['python']}, PostgreSQL "
        f"{machine['postgres']}; the whole run took {seconds / 60:.1f} min. Each size is a fresh database "
        "filled as `pbem/bench/scale.py` describes (60 % finished, 35 % running, 5 % open; real move logs "
        "from engine playouts; mail and outbox as retention leaves them), then measured in-process through "
        "the product's own code: pages through the Flask app's test client with a logged-in session "
        "(median and p90 of repeated requests, SQL statements per request), one move mail through "
        "`pbem.mail.pipeline.process_inbound` as the worker's task runs it, `services.deadlines.run`, "
        "`tasks.run_sweep`, `services.retention.prune`. Ratios are p50 against the smallest size. "
        "The load average when each size's measurements began is in the fill table: other work on the "
        "machine slows every figure, so compare the statement counts too.",
        "",
        "### Fill",
        "",
        format_table([{"games": sr.games,
                       "fill s": round(sr.fill_s, 1) if sr.kept is None else f"{sr.fill_s} (kept from {sr.kept})",
                       **{t: sr.rows.get(t, 0) for t in ("users", "games", "seats", "moves", "posts", "inbound",
                                                         "outbound", "snapshots")},
                       "database MB": sr.tables[-1]["MB"], "load at measuring": sr.load} for sr in sizes]),
        "",
    ]
    z = sizes[-1]  # a kept database's too: its fill time was stored
    if z.fill_s:
        per = (z.fill_s - z.fixed_s) / z.games
        out += [f"Of each fill, {z.fixed_s:.0f} s are fixed (real board mails made through the services, the "
                f"pool of playouts); the rest took {per * 1000:.1f} s per 1,000 games at {z.games} games: "
                f"100,000 games would take about {(z.fixed_s + per * 100_000) / 60:.0f} min "
                "(linear extrapolation; indexes are built once at the end, in n log n).", ""]
    out += ["### Cost per operation", "", format_table(rows), ""]
    if notes:
        out += ["Notes:", "", *notes, ""]
    for sr in sizes:
        out += [f"### Database at {sr.games} games", "", format_table(sr.tables), ""]
    out += ["`EXPLAIN (ANALYZE, BUFFERS)` of the three statements of each operation that took the most time in "
            "all (a query run once per row among them), at each size: "
            "`docs/perf/scale/<size>/<operation>.txt` (or `--out`).", ""]
    return "\n".join(out)


def run_scale(sizes: list[int], *, seed: int = 1, keep: bool = False, pg_admin: str, redis_url: str | None,
              out: Path, report: Path | None, quick: bool = False, echo: Callable[[str], None] = print) -> str:
    t0 = time.perf_counter()
    results = [run_size(n, seed=seed, keep=keep, pg_admin=pg_admin, redis_url=redis_url, out=out, quick=quick,
                        echo=echo) for n in sizes]
    text = render(results, machine(), time.perf_counter() - t0)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(text)
    return text
