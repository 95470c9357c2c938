"""A live page's event stream (pbem/web/live.py, pbem/store/live.py): a move or a post reaches a waiting
stream, on the embedded default (the process's own notifier) and on the real Redis (pub/sub), by the web
and by mail; an idle stream asks the database nothing; a private game's stream refuses an outsider. The
browser's side (the page opens the stream, fetches its update, opens the next) is the "push" case of
tests/web/test_gamepage.py."""
from __future__ import annotations

import queue
import threading

import pytest

from pbem.services.core import games, seating, thread
from pbem.store import live
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from pbem.web import create_app
from pbem.web import live as web_live
from tests.mailtools import PATIENCE, process, seat_addr
from tests.statements import counted
from tests.web.conftest import Browser
from tests.web.gamepage import people, played


class Stream:
    """A live stream read in a thread of its own: its chunks, as they come, on a queue."""

    def __init__(self, client, url: str):
        self.resp = client.get(url, buffered=False)
        assert self.resp.status_code == 200 and self.resp.mimetype == "text/event-stream", self.resp.status
        self.chunks: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for chunk in self.resp.response:
                self.chunks.put(chunk.decode() if isinstance(chunk, bytes) else chunk)
        finally:
            self.resp.close()  # as the server does when the stream ends (it frees the stream's slot)
            self.chunks.put(None)  # the stream ended

    def next(self) -> str | None:
        return self.chunks.get(timeout=PATIENCE)

    def until(self, word: str) -> list[str]:
        """The chunks up to the first one holding ``word`` (fails if the stream ends first)."""
        got = []
        while True:
            chunk = self.next()
            assert chunk is not None, f"the stream ended before {word!r}: {got}"
            got.append(chunk)
            if word in chunk:
                return got

    def close(self):
        live.HUB.end_streams()  # a stream still waiting ends (and closes in its reader's thread)
        self.thread.join(PATIENCE)
        assert not self.thread.is_alive()


def _opened(c, gid: int) -> Stream:
    first = c.get(f"/games/{gid}/thread.json").get_json()
    last = max((p["id"] for p in first["posts"]), default=0)
    return Stream(c.client, f"/games/{gid}/live?after={last}&stamp={first['stamp']}")


def _mover(gid: int) -> tuple[int, int, str]:
    """The seat to move, its user's id and the first of its legal moves."""
    with unit_of_work() as s:
        g = s.get(Game, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        seat = min(engine.to_move(state))
        notation = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
        return seat, seating.seats(s, gid)[seat].user_id, notation


@pytest.fixture
def quick_heartbeat(monkeypatch):
    monkeypatch.setattr(web_live, "HEARTBEAT", 0.05)


def test_an_idle_stream_asks_the_database_nothing_and_a_post_or_move_reaches_it(web, quick_heartbeat):
    """The embedded default: the move made in this process goes to its own notifier."""
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=2, talk=0)
    c = web()
    stream = _opened(c, gid)  # a visitor's page
    try:
        stream.until("retry:")
        stream.until("heartbeat")  # the stream waits on the notifier now
        with counted() as seen:
            for _ in range(3):
                stream.until("heartbeat")
        assert list(seen) == []  # three heartbeats later: not one statement
        with unit_of_work() as s:
            thread.post(s, s.get(Game, gid), s.get(User, b), "hello, watchers")
        news = stream.until("event: news")[-1]
        assert news == f'event: news\ndata: {{"game": {gid}}}\n\n'  # the game's id, nothing of the post
        stream.until("heartbeat")  # told once: the stream goes on from what the page now fetches
        # a move by the web, on the same stream
        seat, user_id, notation = _mover(gid)
        player = web()
        player.login_as(user_id)
        r = player.post(f"/games/{gid}/move", {"text": notation}, page=f"/games/{gid}")
        assert r.status_code == 303, r.get_data(as_text=True)
        assert "heartbeat" not in stream.until("event: news")[-1]
    finally:
        stream.close()


def test_a_private_game_s_stream_refuses_an_outsider(web):
    a, b, olga = people()
    gid, _ = played("squire", a, b, plies=1, talk=0)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        g.access = "private"
        s.add(g)
    outsider, visitor, player = web(), web(), web()
    outsider.login_as(olga)
    player.login_as(a)
    for who in (outsider, visitor):
        r = who.get(f"/games/{gid}/live")
        assert r.status_code == 404 and "event:" not in r.get_data(as_text=True)
    # its player's stream: without a stamp it is news at once (the page asks for what it lacks)
    r = player.get(f"/games/{gid}/live")
    assert r.status_code == 200 and "event: news" in r.get_data(as_text=True)


def test_streams_beyond_the_bound_are_told_to_poll(sqlite_cfg):
    app = create_app(sqlite_cfg.with_(live_streams=1))
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=1, talk=0)
    c = Browser(app)
    held = _opened(c, gid)
    try:
        held.until("retry:")
        r = c.get(f"/games/{gid}/live?stamp=x")
        assert r.status_code == 503 and "poll" in r.get_data(as_text=True)
    finally:
        held.close()
    # the slot is free again once the stream closed, or ended (read to its end: a page without a stamp)
    for _ in range(2):
        r = c.get(f"/games/{gid}/live")
        assert r.status_code == 200 and "event: news" in r.get_data(as_text=True)


@pytest.mark.redis
def test_on_redis_a_move_by_web_and_by_mail_reaches_a_waiting_stream(sqlite_cfg, on_redis, quick_heartbeat):
    """Production's path: the event goes out by Redis PUBLISH after the commit and comes back to the web
    process's one listener (a subscription), which wakes the streams."""
    cfg = on_redis(sqlite_cfg)
    app = create_app(cfg)
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=2, talk=0)
    c = Browser(app)
    stream = _opened(c, gid)
    try:
        stream.until("heartbeat")
        seat, user_id, notation = _mover(gid)
        player = Browser(app)
        player.login_as(user_id)
        assert player.post(f"/games/{gid}/move", {"text": notation}, page=f"/games/{gid}").status_code == 303
        stream.until("event: news")
    finally:
        stream.close()
    heard = live.HUB.heard
    stream = _opened(c, gid)
    try:
        stream.until("heartbeat")
        seat, user_id, notation = _mover(gid)
        with unit_of_work() as s:
            email = s.get(User, user_id).email
        _iid, status = process(email, seat_addr(gid, seat), notation, subject=f"[pbem #{gid}] move")
        assert status == "done", status
        stream.until("event: news")
        assert live.HUB.heard > heard  # it came back through the subscription
    finally:
        stream.close()


def test_on_the_embedded_default_the_worker_s_datagram_wakes_the_stream(web, sqlite_cfg, quick_heartbeat):
    """``pbem up`` runs its Celery worker in a process of its own: a move committed there reaches the web
    process's listener as a datagram on ``var/live.sock`` (sent here as that process sends it)."""
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=1, talk=0)
    c = web()
    stream = _opened(c, gid)
    try:
        stream.until("heartbeat")  # the listener is bound
        heard = live.HUB.heard
        with unit_of_work() as s:  # the change, committed without telling this process's hub ...
            g = s.get(Game, gid)
            g.paused = True
            s.add(g)
            s.info.pop(live.CHANGED, None)
            s.flush()
            s.info.pop(live.CHANGED, None)
        live._datagram(sqlite_cfg.var_dir / live.SOCKET_NAME, f"{gid}:{live._version()}")  # ... but by the socket
        stream.until("event: news")
        assert live.HUB.heard > heard
    finally:
        stream.close()
