"""A live game page's event stream (Server-Sent Events): the page learns THAT its game changed, then asks
``thread.json`` for what changed, as its viewer may see it -- the stream itself carries no content.

An open page costs no database query while nothing happens: its request waits on the process's hub
(pbem/store/live.py), which one listener thread feeds from Redis (or, on the embedded default, from the
process itself and the worker's datagrams). When its game's event comes, the stream asks once whether
the page's viewer has news -- the same one-statement check as a poll, shared by every page that asks
the same question of the same event -- and if so sends ``news`` and goes on waiting, from what the page
is now told to fetch; the page fetches its update, the stream stays open. Inside a secret simultaneous step a choice changes nothing a page shows, so it
wakes no page either (the stream would otherwise tell when the choices are made).

Each stream holds one of the web process's threads while it waits (gunicorn's gthread workers), so a
process holds at most ``PBEM_LIVE_STREAMS`` of them; beyond, a page is told to poll instead (503,
and the page's script falls back to its long poll). A heartbeat comment every HEARTBEAT seconds finds
a closed connection, and a stream ends after LIFETIME (the browser opens it again), so a thread is
never held by a page that went away."""
from __future__ import annotations

import json
import threading
import time

from flask import Blueprint, Response, abort, current_app, request

from pbem.i18n import _
from pbem.services.core import visibility
from pbem.store.db import unit_of_work
from pbem.store.live import HUB

from . import visitor
from .games import _int_arg, _load, _public_ply, _stamp

bp = Blueprint("live", __name__)

HEARTBEAT = 20.0  # seconds between comments on an idle stream: a page that went away is found then
LIFETIME = 600.0  # a stream ends after this long (the page opens it again)
RETRY_MS = 3000  # how soon the browser opens a dropped stream again

_held: dict[int, threading.BoundedSemaphore] = {}
_held_lock = threading.Lock()
_open = [0]  # streams open now in this process
_open_lock = threading.Lock()


def streams_open() -> int:
    return _open[0]


def _slots() -> threading.BoundedSemaphore:
    limit = current_app.config["PBEM_SETTINGS"].live_streams
    with _held_lock:
        sem = _held.get(limit)
        if sem is None:
            sem = _held[limit] = threading.BoundedSemaphore(limit)
        return sem


_answers: dict[tuple, tuple[float, bool]] = {}
_answers_lock = threading.Lock()
FRESH = 2.0  # seconds an answer serves the other pages that ask the same (those woken by one event, together)


def _has_news(game_id: int, version: int, user_id: int | None, after: int, stamp: str) -> tuple[bool, int, str]:
    """Whether the viewer (``user_id``) of a page drawn from ``stamp`` with posts up to ``after`` has news
    at the game's ``version``: a new post they may read, a new ply, status, pause or take-back; and the
    ``after`` and ``stamp`` the stream goes on from once it told the page. Asked once per event for all
    the pages that ask the same (a game's observers: one statement, not one each)."""
    key = (game_id, version, user_id, after, stamp)
    with _answers_lock:
        now = time.monotonic()
        known = _answers.get(key)
        if known is not None and now - known[0] < FRESH:
            return known[1]
        # computed under the lock: the many pages woken together wait for the first one's answer
        with unit_of_work() as s:
            row = visibility.news(s, game_id, user_id, after)
        if row is None:
            answer = (True, after, stamp)  # gone: the page finds out
        else:
            public = _public_ply(row.id, row.ply, row.updated_at) if row.status == "running" else row.ply
            now_stamp = _stamp(row, public)
            # (a private game too: the stream checked at its start that the viewer may see the game)
            news = bool(row.news) or now_stamp != stamp
            answer = (news, max(after, row.top or 0), now_stamp)
        if len(_answers) > 10_000:
            _answers.clear()
        _answers[key] = (now, answer)
        return answer


def _event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


@bp.get("/games/<int:game_id>/live")
def stream(game_id: int):
    """The game's event stream for a page drawn from ``stamp`` with the thread up to post ``after``: a
    ``news`` event (carrying the game's id only) each time the viewer has something new (without a stamp:
    at once, then the end)."""
    after = _int_arg("after", 0, _("a post id"))
    stamp = request.args.get("stamp", "")[:40]
    with unit_of_work() as s:
        _load(s, game_id)  # 404 for a game the viewer may not see, before anything is held
    user_id = visitor.user_id()
    HUB.start()
    slots = _slots()
    if not slots.acquire(blocking=False):
        # every stream this process may hold is held: the page polls (its script falls back on an error)
        return Response("too many live pages here; poll thread.json\n", status=503,
                        headers={"Retry-After": "60", "Cache-Control": "no-store"}, mimetype="text/plain")
    seen, ends = HUB.version(game_id), HUB.ends
    done = []

    def release():  # once: when the stream ends, or when the server closes an answer never read
        with _open_lock:
            if done:
                return
            done.append(True)
            _open[0] -= 1
        slots.release()

    with _open_lock:
        _open[0] += 1

    def events():
        try:
            yield from follow()
        finally:
            release()  # at its end, or when the server closes it

    def follow():
        yield f"retry: {RETRY_MS}\n\n"
        # what happened between the page's fetch and this stream's start (a page without a stamp: at once)
        news, since, drawn = _has_news(game_id, seen, user_id, after, stamp)
        if news:
            yield _event("news", {"game": game_id})
            if not stamp:
                return  # a page that has drawn nothing asks for everything: nothing to follow
        end = time.monotonic() + LIFETIME
        last = seen
        while time.monotonic() < end:
            version = HUB.wait(game_id, last, HEARTBEAT, ends)
            if HUB.ends != ends:
                return  # the process ends its streams (going down): the page opens a new one elsewhere
            if version is None:
                yield ": heartbeat\n\n"
                continue
            last = version
            # the stream goes on from what the page is now told to fetch (it asks thread.json with its own
            # counters): a later event is news only against that
            news, since, drawn = _has_news(game_id, version, user_id, since, drawn)
            if news:
                yield _event("news", {"game": game_id})

    resp = Response(events(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    resp.call_on_close(release)
    return resp
