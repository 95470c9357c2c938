"""Live pages: a game changed, told to every open page of it without asking the database.

Whatever a transaction does to a game that a live page shows -- its row (a new ply, status, pause,
take-back: anything that bumps ``updated_at``) or a new post in its thread -- is noted at each flush,
and after the commit the game's id is published with a new version number. The event says only *that*
game N changed, never what: a page that hears it asks its own viewer-scoped update through the same
door as ever (``thread.json``), so nothing a viewer may not see travels with it.

Where the event goes:

* with a Redis broker (production): ``PUBLISH`` on ``<prefix>pbem:live``; each web process has ONE
  listener thread (one Redis connection) that hands the events to its waiting requests;
* on the embedded default (no Redis): the web process's own hub directly, and from the other
  processes of ``pbem up`` (the Celery worker) a datagram to the web's Unix socket in the var
  directory (``live.sock``), read by the same one listener thread.

A tournament's own changes (a round started, an entry, its end: its rows) are published the same way
under its key, the tournament's id negated (:func:`tournament_key`), for its open pages; they also
listen to its tables' games.

Publishing never fails the transaction it follows: the page's slow poll is the fallback."""
from __future__ import annotations

import itertools
import logging
import os
import socket
import threading
import time

from sqlalchemy import event
from sqlalchemy.orm import Session

log = logging.getLogger("pbem.live")

CHANGED = "pbem.live"  # Session.info: the games the transaction changed, published after its commit
SOCKET_NAME = "live.sock"


def channel(prefix: str) -> str:
    return f"{prefix}pbem:live"


# ------------------------------------------------------------------ noting and publishing

def _classes():
    from pbem.store.models import Game, Post

    return Game, Post


def tournament_key(tournament_id: int) -> int:
    """The key a tournament's changes are published under: its id negated (a game's id is positive)."""
    return -int(tournament_id)


def _tournament_classes():
    from pbem.store.models import Tournament, TournamentAdjustment, TournamentEntry, TournamentRound, TournamentTable

    return Tournament, (TournamentEntry, TournamentRound, TournamentTable, TournamentAdjustment)


def changed(session: Session, game_id: int) -> None:
    """Note a change to the game that the ORM does not see (a statement written past it): its pages are
    told after the commit, as for a change made through its row."""
    session.info.setdefault(CHANGED, set()).add(game_id)


@event.listens_for(Session, "after_flush")
def _note(session: Session, _ctx) -> None:
    game, post = _classes()
    tournament, parts = _tournament_classes()
    ids = session.info.setdefault(CHANGED, set())
    for o in session.new:
        if isinstance(o, post) and o.game_id is not None:
            ids.add(o.game_id)
    for o in session.dirty:
        if isinstance(o, game) and o.id is not None and session.is_modified(o, include_collections=False):
            ids.add(o.id)
    for o in (*session.new, *session.dirty, *session.deleted):
        if isinstance(o, tournament) and o.id is not None:
            ids.add(tournament_key(o.id))
        elif isinstance(o, parts) and o.tournament_id is not None:
            ids.add(tournament_key(o.tournament_id))


@event.listens_for(Session, "do_orm_execute")
def _bulk(state) -> None:
    # an UPDATE of games by statement (not through a row): the ids are not known, so every open page asks
    mapper = state.bind_mapper
    if (state.is_update or state.is_insert) and mapper is not None and mapper.class_ in _classes():
        params = state.parameters or {}
        gid = params.get("game_id") if isinstance(params, dict) else None
        state.session.info.setdefault(CHANGED, set()).add(gid if isinstance(gid, int) else 0)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    ids = session.info.pop(CHANGED, None)
    if ids:
        publish(ids)


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, previous_transaction) -> None:
    if previous_transaction.parent is None:
        session.info.pop(CHANGED, None)


_versions = itertools.count(1)


def _version() -> int:
    """A new version number: the publishing process's clock in microseconds, made unique in the process
    (only its order and its novelty matter; a page never sees it as a count of anything)."""
    return time.time_ns() // 1000 * 1000 + next(_versions) % 1000


def publish(game_ids) -> None:
    """Tell every open page of these games (0: of every game) that they changed. After a commit only."""
    from pbem.config import settings

    ids = sorted({int(i) for i in game_ids})
    if not ids:
        return
    message = " ".join(f"{i}:{_version()}" for i in ids)
    try:
        cfg = settings()
        if cfg.is_redis_broker:
            _redis(cfg).publish(channel(cfg.broker_prefix), message)
        elif HUB.owns_socket(cfg.var_dir / SOCKET_NAME):
            HUB.deliver(message)
        else:
            _datagram(cfg.var_dir / SOCKET_NAME, message)
    except Exception as e:  # noqa: BLE001 - the move is committed: a page that missed it polls slowly
        log.warning("live event not published: %r", e)


_clients: dict = {}


def _redis(cfg):
    key = (os.getpid(), cfg.broker_url)
    client = _clients.get(key)
    if client is None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # a publish must not hold a committed move's caller: a short timeout and no retries
        client = _clients[key] = redis.Redis.from_url(cfg.broker_url, socket_timeout=2, socket_connect_timeout=2,
                                                      retry=Retry(NoBackoff(), 0))
    return client


def _datagram(path, message: str) -> None:
    if not hasattr(socket, "AF_UNIX") or not os.path.exists(path):
        return  # no web process listens on this machine
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        try:
            sock.sendto(message.encode(), str(path))
        except OSError:
            pass  # a stale socket, or its queue full: the pages poll slowly


# ------------------------------------------------------------------ the hub of a web process

class Hub:
    """One per process: the last version heard for each game, and the requests waiting on them. One
    listener thread feeds it (Redis pub/sub or the embedded socket); any number of requests wait."""

    def __init__(self):
        self._cond = threading.Condition()
        self._versions: dict[int, int] = {}
        self._everything = 0  # a change of unknown games: every page asks
        self._pid = None
        self._source = None
        self._generation = 0
        self._socket_path = None
        self.heard = 0  # events taken in (for the bench and the metrics)
        self.ends = 0  # how many times the waiting streams were told to end

    # --- fed by the listener
    def deliver(self, message: str) -> None:
        with self._cond:
            for part in message.split():
                gid, _, version = part.partition(":")
                try:
                    gid, version = int(gid), int(version)
                except ValueError:
                    continue
                if gid == 0:
                    self._everything = max(self._everything, version)
                else:
                    self._versions[gid] = max(self._versions.get(gid, 0), version)
                self.heard += 1
            if len(self._versions) > 100_000:  # games nobody watches any more: a waiter re-reads its start
                self._versions.clear()
            self._cond.notify_all()

    # --- asked by the requests
    def version(self, game_id: int) -> int:
        with self._cond:
            return max(self._versions.get(game_id, 0), self._everything)

    def wait(self, game_id: int, seen: int, timeout: float, ends: int = -1) -> int | None:
        """The game's version once it is newer than ``seen``, or None after ``timeout`` seconds (or at
        once when :meth:`end_streams` was called since ``ends`` was read)."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                now = max(self._versions.get(game_id, 0), self._everything)
                if now > seen:
                    return now
                if ends >= 0 and self.ends != ends:
                    return None
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def wait_any(self, seen: dict[int, int], timeout: float, ends: int = -1) -> list[int]:
        """The keys of ``seen`` (games, or a tournament's key) whose version is newer than the one given,
        once one is; [] after ``timeout`` seconds (or at once when :meth:`end_streams` was called)."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                newer = [k for k, v in seen.items() if max(self._versions.get(k, 0), self._everything) > v]
                if newer:
                    return newer
                if ends >= 0 and self.ends != ends:
                    return []
                left = end - time.monotonic()
                if left <= 0:
                    return []
                self._cond.wait(left)

    def end_streams(self) -> None:
        """End every stream waiting now (a worker going down; a test): their pages open new ones."""
        with self._cond:
            self.ends += 1
            self._cond.notify_all()

    def owns_socket(self, path) -> bool:
        """Whether this process's listener reads the embedded socket at ``path`` (its own events then go
        straight to the hub)."""
        return self._pid == os.getpid() and self._socket_path == path

    # --- the one listener
    def start(self) -> None:
        """Start this process's listener once for the settings in force (again in a forked child, whose
        threads did not survive the fork, and for other settings: a test's own Redis prefix or directory)."""
        from pbem.config import settings

        cfg = settings()
        source = (os.getpid(), cfg.broker_url if cfg.is_redis_broker else "", cfg.broker_prefix, str(cfg.var_dir))
        if self._source == source:
            return
        with self._cond:
            if self._source == source:
                return
            self._generation += 1
            gen = self._generation
            self._socket_path = None
            if cfg.is_redis_broker:
                target, args = _listen_redis, (self, gen, cfg)
            else:
                path = cfg.var_dir / SOCKET_NAME
                sock = _bind(path)
                self._socket_path = path if sock is not None else None
                target, args = _listen_socket, (self, gen, sock)
            self._pid = os.getpid()
            self._source = source
            if args[-1] is None:
                return  # no socket here: only this process's own events arrive (HUB.deliver)
            threading.Thread(target=target, args=args, name="pbem-live", daemon=True).start()

    def current(self, gen: int) -> bool:
        return self._generation == gen and self._pid == os.getpid()


def _bind(path):
    if not hasattr(socket, "AF_UNIX"):
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.unlink()  # a socket left by an earlier web process: this one listens now
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(path))
        sock.settimeout(CHECK_S)
        return sock
    except OSError as e:
        log.warning("live events from other processes will not arrive (%s): %r", path, e)
        return None


CHECK_S = 5.0  # how often an idle listener looks whether it is still the one (no database, no network)


def _listen_socket(hub: Hub, gen: int, sock) -> None:
    with sock:
        while hub.current(gen):
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                time.sleep(1)
                continue
            hub.deliver(data.decode(errors="replace"))


def _listen_redis(hub: Hub, gen: int, cfg) -> None:
    import redis

    backoff, first = 0.5, True
    while hub.current(gen):
        try:
            client = redis.Redis.from_url(cfg.broker_url, socket_connect_timeout=5, health_check_interval=30)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            pubsub.subscribe(channel(cfg.broker_prefix))
            backoff = 0.5
            if not first:  # the lost connection may have missed events: every page asks once
                hub.deliver(f"0:{_version()}")
            first = False
            try:
                while hub.current(gen):
                    msg = pubsub.get_message(timeout=CHECK_S)
                    if msg and msg.get("type") == "message":
                        data = msg["data"]
                        hub.deliver(data.decode() if isinstance(data, bytes) else str(data))
            finally:
                pubsub.close()
                client.close()
        except Exception as e:  # noqa: BLE001 - Redis away: listen again, with backoff; pages poll slowly meanwhile
            log.warning("live listener lost Redis: %r", e)
            time.sleep(backoff)
            backoff = min(backoff * 2, 30)


HUB = Hub()
