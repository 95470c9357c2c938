"""No leaks: random games of every game driven through the
services; nothing sent or shown to a seat — its board mails, and on the web its
board, its view JSON, the game page's move log and the game thread (page and
JSON) — may contain another seat's hidden information, nor the seed.

What is hidden is taken from the engine itself: a string a seat sees in its
own view but the public (observer) view does not show is that seat's private
information. A mail to another seat may show it only where that seat's own
view does too (e.g. it holds a card of the same name). SURFACES lists what is
checked per seat.

The move log and the thread show moves' notation, which is public once the
step is revealed but is absent from every engine view, so "any string not in
my view is a secret" does not apply there. The test works out on its own,
from the engine states it drives through, which plies are still secret — the
plies of a simultaneous step (one where several seats were to move), since the
last move that revealed anything (``engine.reveals``), however long ago — and
checks each viewer's log and thread against that: a secret ply of another seat
shows no notation anywhere, every other ply shows its notation, and once what
the viewer may read is taken out (public notation, posts meant for them) no
other seat's hidden string, secret notation or private post is left. A long
5-player It's a Wonderful World game is played past ply 200, through planning
steps of more than 64 plies."""
from __future__ import annotations

import html
import json
import random
import re
import pytest
from sqlmodel import select

from pbem.engine import GAMES, get_game
from pbem.engine.base import name_seats
from pbem.services.core import accounts, games, moves, notify, thread, visibility
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Seat, User
from tests.minigame import MINI
from tests.security.concealed import Record, busy
from tests.security.site import log_in

ALL = sorted(set(GAMES) | {"mini"})


def _strings(obj, out=None) -> set[str]:
    out = set() if out is None else out
    if isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _strings(v, out)
        if obj and all(isinstance(x, int) and not isinstance(x, bool) for x in obj) and len(obj) >= 2:
            out.add(" ".join(map(str, obj)))  # e.g. a hand of numbered cards as rendered
    elif isinstance(obj, str) and len(obj.strip()) >= 4:
        out.add(obj.strip())
    return out


def _mail_surfaces(row: Outbound) -> list[tuple[str, str]]:
    return [("mail text", row.body_text), ("mail html", row.body_html or "")]


def _web_surfaces(client, gid: int) -> list[tuple[str, str]]:
    # the parts of the site drawn from a view; the move log and the thread are checked by
    # _log_and_thread_leaks (notation of moves is public once revealed: not in any view)
    out = []
    for url in (f"/games/{gid}/board", f"/games/{gid}/view.json"):
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code)
        out.append((f"web {url}", r.get_data(as_text=True)))
    return out


# ---------------------------------------------------------------- the move log and the thread


LOG_ROW = re.compile(r'<tr[^>]*><td>(\d+)</td><td>[^<]*</td>\s*<td>(.*?)</td>', re.S)
POST_DIV = re.compile(r'<div class="post (\w+)[^"]*" data-id="\d+">(.*?)</div>\s*</div>', re.S)
WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d \S+|\d\d-\d\d \d\d:\d\d")


def _section(page: str, name: str) -> str:
    m = re.search(rf'<section class="[^"]*" id="{name}"[^>]*>.*?</section>', page, re.S)
    assert m, f"no #{name} section on the game page"
    return m.group(0)


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def _log_and_thread_leaks(client, gid: int, viewer: int | None, rec: Record, forbidden: set[str]) -> list[str]:
    """What is wrong with ``viewer``'s move log and thread (the game page's two sections, and
    thread.json): the empty list when nothing leaks. ``forbidden``: other seats' hidden strings."""
    problems: list[str] = []
    # the page shows the newest moves and posts; ?all=1 every one (the same markup): each is checked
    newest = client.get(f"/games/{gid}")
    page = client.get(f"/games/{gid}?all=1")
    tj = client.get(f"/games/{gid}/thread.json")
    assert newest.status_code == 200 and page.status_code == 200 and tj.status_code == 200
    page, newest = page.get_data(as_text=True), newest.get_data(as_text=True)
    log, thread_html = _section(page, "log"), _section(page, "thread")
    newest_parts = [_section(newest, "log"), _section(newest, "thread"), _section(newest, "players")]
    posts = tj.get_json()["posts"]
    concealed = rec.concealed_from(viewer)
    who = "a visitor" if viewer is None else f"seat {viewer}"
    with unit_of_work() as s:
        hidden = visibility.secrets(s, games.get(s, gid))

    def at(ply: int) -> int:
        """The number the viewer is shown the move at ``ply`` with: the others' secret choices of the step in
        progress at its start, the viewer's own of that step by its own count, no withdrawn choice counted."""
        return hidden.shown_ply(ply, viewer)

    # each ply where it belongs: a secret one without its notation, any other with it
    cells: dict[int, list[str]] = {}
    for p, c in LOG_ROW.findall(log):
        cells.setdefault(int(p), []).append(_text(c).strip())
    thread_moves: dict[int, list[tuple[str, str]]] = {}
    for kind, body in POST_DIV.findall(thread_html):
        if kind == "move":
            m = re.search(r"· ply (\d+) ·", body)
            b = re.search(r'<div class="body">(.*)', body, re.S)
            thread_moves.setdefault(int(m.group(1)), []).append(("page", _text(b.group(1)).strip()))
    for p in posts:
        if p["kind"] == "move":
            thread_moves.setdefault(p["ply"], []).append(("thread.json", p["body"]))
    for ply, (seat, notation) in rec.plies.items():
        if ply in concealed:
            continue  # the others' secret choices of the step in progress: counted below
        shown = [("move log", c) for c in cells.get(at(ply), [])] + thread_moves.get(at(ply), [])
        if not any(notation in c for c in cells.get(at(ply), [])) or \
                sum(notation in t for _w, t in thread_moves.get(at(ply), [])) < 2:
            problems.append(f"ply {ply} {notation!r} (public to {who}) is not in its move log and thread (page and "
                            f"JSON): {shown}")
    def entries(ply: int) -> list[tuple[str, str]]:
        return [("move log", c) for c in cells.get(ply, [])] + thread_moves.get(ply, [])

    start = rec.step[0] - 1 if concealed else 0
    for ply in sorted(concealed):  # at its own number, or at the step's start (unless the move there says the same)
        seat, notation = rec.plies[ply]
        public_there = rec.plies.get(start, (None, None))[1]
        # at its ply, its number, or the step's start (where every seat is shown the others' secret choices)
        places = entries(ply) + (entries(hidden.number(ply)) if hidden.number(ply) != ply else []) + (
            entries(at(start)) if notation != public_there else [])
        for where in dict.fromkeys(w for w, text in places if notation in text):
            problems.append(f"seat {seat}'s secret ply {ply} {notation!r} in the {where} of {who}")
    # another seat's secret choices of the step in progress: one line a seat, numbered as the step's start (their
    # number, and their own plies, would tell how many parts each seat has sent), never the notation (below)
    if concealed:
        seats = {rec.plies[p][0] for p in concealed}
        shown_start = hidden.count(start)
        log_secret = [c for c in cells.get(shown_start, []) if "secret until revealed" in c]
        thread_secret = [t for _w, t in thread_moves.get(shown_start, []) if "made a secret choice" in t]
        numbered = sorted(({p for p in cells if p > shown_start} | {p for p in thread_moves if p > shown_start})
                          - {at(p) for p in rec.plies if p > start and p not in concealed})
        if len(log_secret) != len(seats) or len(thread_secret) != 2 * len(seats) or numbered:
            problems.append(f"{who} should see one secret choice of each of seats {sorted(seats)} at ply {start}: "
                            f"the log shows {log_secret}, the thread {thread_secret}; plies of the step shown: "
                            f"{numbered}")

    # then anywhere in those parts: take out what the viewer may read, look for what they may not
    visible_notes, other_notes = rec.notes_for(viewer)
    text = WHEN.sub(" ", "\n".join([_text(log), _text(thread_html)] + [_text(x) for x in newest_parts] + [
        str(v) for p in posts for v in p.values() if isinstance(v, str)]))
    allowed = {n for ply, (_, n) in rec.plies.items() if ply not in concealed} | visible_notes
    for a in sorted(allowed, key=len, reverse=True):
        text = text.replace(a, " ")
    secrets_ = {rec.plies[p][1]: f"seat {rec.plies[p][0]}'s secret ply {p}" for p in concealed}
    secrets_.update({b: "a private post to someone else" for b in other_notes})
    secrets_.update({f: "another seat's hidden information" for f in forbidden})
    for secret, what in secrets_.items():
        if secret in text:
            problems.append(f"{what} {secret!r} in the text of {who}'s log and thread")
    return problems


SURFACES = [_mail_surfaces]  # per mail row; the web pages are checked once per seat


def _drive(cfg, engine, n: int, plies: int, choose, when) -> dict:
    """Play ``engine`` with ``n`` seats through the services for up to ``plies`` plies (``choose``
    picks each move), and at each ply where ``when(ply, rec)`` says so, check every seat's mails
    and pages and a visitor's pages. Returns counts of what was checked."""
    from pbem.web import create_app

    web = create_app(cfg)
    name = engine.name
    rng = random.Random(5)
    talk = random.Random(name)
    seed = 987_654_321_123
    with unit_of_work() as s:
        users = [accounts.register(s, f"u{i}@x.test", f"U{i}", confirmed=True)[0] for i in range(n)]
        g = tables.create(s, users[0], engine.name, n, {}, seed=seed)
        for u in users[1:]:
            tables.join(s, u, g.id)
        gid = g.id
        seat_of_user = {x.user_id: x.seat for x in s.exec(select(Seat).where(Seat.game_id == gid))}
        user_of_seat = {k: s.get(User, uid) for uid, k in seat_of_user.items()}
    clients = {k: log_in(web, user_of_seat[k].email) for k in range(n)}
    rec = Record()
    counts = {"checked": 0, "secret_checks": 0, "deepest": 0, "ply": 0}
    for step in range(plies):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            if not engine.to_move(state):
                break
            seat = rng.choice(sorted(engine.to_move(state)))
            move = choose(rng, engine.legal_moves(state, seat))
            res = moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web")
            assert res.applied and res.applied[-1].ply == g.ply, res.error
        rec.applied(engine, state, seat, res)
        counts["ply"] = g.ply
        if not when(g.ply, rec):
            continue
        with unit_of_work() as s:
            g = games.get(s, gid)
            # the thread has talk too: one post to the table, one private post between two seats
            frm, to = talk.sample(range(n), 2)
            for body, to_seat in ((f"table talk {step} from {frm}", None), (f"whisper {step} from {frm} to {to}", to)):
                thread.post(s, g, user_of_seat[frm], body, to_seat=to_seat)
                rec.notes.append((body, frm, to_seat))
            before = len(list(s.exec(select(Outbound.id))))
            notify.queue_boards(s, g, "a move was made")
            s.flush()
            rows = list(s.exec(select(Outbound).order_by(Outbound.id)))[before:]
            state = games.state_at(s, g)
            public = _strings(engine.view(state, None))
            views = {k: engine.view(state, k) for k in range(n)}
            private = {k: _strings(views[k]) - public for k in range(n)}
            by_seat: dict[int, list[tuple[str, str]]] = {k: [] for k in range(n)}
            for row in rows:
                k = seat_of_user[s.exec(select(User.id).where(User.email == row.to_addr)).one()]
                for surface in SURFACES:
                    by_seat[k].extend(surface(row))
        for k in range(n):  # outside the transaction: the site opens its own
            by_seat[k].extend(_web_surfaces(clients[k], gid))
        for k, texts in by_seat.items():
            own = _strings(views[k]) | public
            # what the seat's own board (rendered from its view alone) says is not a leak:
            # a card name in its own hand, a rules word that happens to be a secret's text
            drawn = engine.render_text(views[k]) + engine.render_html(views[k]) + json.dumps(views[k]) + "\n".join(
                engine.format_move(state, k, m) for m in engine.legal_moves(state, k))
            # a word of the notation ("auto", in every seat's examples while it is to move) is nobody's secret
            hidden = {secret for j in range(n) if j != k for secret in private[j] - own if secret not in drawn
                      and secret.lower() not in getattr(engine, "notation_words", ())}
            # the mails tell each seat the moves it may read, in words ("since your last move", the
            # record): those words are public to it; the words of a move still secret from it are not
            concealed = rec.concealed_from(k)
            names = [user_of_seat[j].name for j in range(n)]
            readable = sorted({name_seats(w, names) for p, w in rec.words.items() if p not in concealed},
                              key=len, reverse=True)
            secret_words = {name_seats(rec.words[p], names) for p in concealed} - set(readable)
            for where, text in texts:
                assert str(seed) not in text, f"{name}: the seed in the {where} to seat {k}"
                assert json.dumps(seed) not in text
                for w in secret_words:
                    assert f" {w}\n" not in text and f" {w}<" not in text, \
                        f"{name} ply {g.ply}: a secret move in words {w!r} in the {where} to seat {k}"
                for w in readable:
                    text = text.replace(w, " ")
                for secret in hidden:
                    assert secret not in text, f"{name} ply {g.ply}: another seat's {secret!r} in the {where} to seat {k}"
            problems = _log_and_thread_leaks(clients[k], gid, k, rec, hidden | {str(seed)})
            assert not problems, f"{name} ply {g.ply}: " + "\n".join(problems)
            counts["secret_checks"] += bool(rec.concealed_from(k))
            counts["checked"] += 1
        if rec.secret:  # how far back the oldest secret ply lies
            counts["deepest"] = max(counts["deepest"], g.ply - min(rec.secret) + 1)
        observer = engine.view(state, None)  # a visitor who is not logged in sees the public board only
        drawn = engine.render_text(observer) + engine.render_html(observer) + json.dumps(observer)  # its keys too
        hidden = {secret for j in range(n) for secret in private[j] - public if secret not in drawn}
        visitor = web.test_client()
        for where, text in _web_surfaces(visitor, gid):
            assert str(seed) not in text, f"{name}: the seed in the {where} to a visitor"
            for secret in hidden:
                assert secret not in text, f"{name} ply {g.ply}: a seat's {secret!r} in the {where} to a visitor"
        problems = _log_and_thread_leaks(visitor, gid, None, rec, hidden | {str(seed)})
        assert not problems, f"{name} ply {g.ply}: " + "\n".join(problems)
    return counts


@pytest.mark.parametrize("name", ALL)
def test_no_mail_or_page_shows_another_seats_secrets(sqlite_cfg, name):
    engine = MINI if name == "mini" else get_game(name)
    n = max(engine.min_players, min(3, engine.max_players))
    when = random.Random(name)  # the random points where everything is checked
    counts = _drive(sqlite_cfg, engine, n, 30, lambda rng, legal: rng.choice(legal),
                    lambda ply, rec: when.random() < 0.35)
    assert counts["checked"] >= n
    if name == "iaww":  # simultaneous draft: some checks must have met picks still secret
        assert counts["secret_checks"] >= 2, counts


def test_a_long_simultaneous_step_stays_secret_past_ply_200(sqlite_cfg):
    """Five players plan It's a Wonderful World one decision at a time: a planning step runs
    past 64 plies (as far as visibility used to look back), and the game past ply 200. At the
    end of each long step, and at a few other plies, every seat's and a visitor's log, thread,
    board and mail are checked."""
    engine = get_game("iaww")
    when = random.Random(17)

    def check_at(ply, rec):
        depth = ply - min(rec.secret) + 1 if rec.secret else 0
        return depth in (64, 65, 70) or (depth > 70 and depth % 5 == 0) or when.random() < 0.01

    counts = _drive(sqlite_cfg, engine, 5, 215, busy, check_at)
    assert counts["ply"] >= 200, counts
    assert counts["deepest"] > 64, counts  # secret plies further back than the old window were checked
    assert counts["secret_checks"] >= 10, counts


def test_the_check_catches_a_leak(sqlite_cfg):
    """The mini game's view shows a seat its own hand only: prove the check
    above would see another seat's hand if a mail showed it."""
    state = MINI.initial_state(2, 3, {"hand": 3})
    public = _strings(MINI.view(state, None))
    private1 = _strings(MINI.view(state, 1)) - public
    leaked_mail = "Your hand: " + " ".join(map(str, state.hands[1]))
    assert any(p in leaked_mail for p in private1 - (_strings(MINI.view(state, 0)) | public)) \
        or state.hands[0] == state.hands[1]


def _iaww_pick_still_secret():
    """A two-seat It's a Wonderful World game where seat 0 has picked and seat 1 not yet:
    (game id, the record, a logged-in client per seat)."""
    from pbem.web import create_app

    web = create_app()
    engine = get_game("iaww")
    with unit_of_work() as s:
        users = [accounts.register(s, f"p{i}@x.test", f"P{i}", confirmed=True)[0] for i in range(2)]
        g = tables.create(s, users[0], "iaww", 2, {}, seed=3)
        tables.join(s, users[1], g.id)
        gid = g.id
        by_seat = {x.seat: s.get(User, x.user_id).email for x in s.exec(select(Seat).where(Seat.game_id == gid))}
    rec = Record()
    with unit_of_work() as s:
        g = games.get(s, gid)
        state = games.state_at(s, g)
        move = engine.legal_moves(state, 0)[0]
        moves.submit_moves(s, gid, 0, [engine.format_move(state, 0, move)], source="web")
    rec.played(engine, state, 0, move, 1)
    with unit_of_work() as s:
        g = games.get(s, gid)
        thread.post(s, g, accounts.find_user(s, by_seat[0]), "a whisper from seat 0 to seat 1", to_seat=1)
        thread.post(s, g, accounts.find_user(s, by_seat[1]), "a word to the table")
    rec.notes += [("a whisper from seat 0 to seat 1", 0, 1), ("a word to the table", 1, None)]
    return gid, rec, {k: log_in(web, by_seat[k]) for k in (0, 1)}, web


@pytest.mark.parametrize("leak", ["log and thread", "thread only", "thread.json only", "private post"])
def test_the_log_and_thread_check_catches_a_shown_pick(sqlite_cfg, monkeypatch, leak):
    """Seat 0's pick is secret from seat 1 and from visitors until seat 1 picks too. The real site
    passes the check; the same site made to show the pick (or a private post) fails it."""
    from pbem.web import games as web_games

    gid, rec, clients, web = _iaww_pick_still_secret()
    pick = rec.plies[1][1]
    assert rec.concealed_from(1) == {1} and rec.concealed_from(0) == set()
    for viewer, client in ((0, clients[0]), (1, clients[1]), (None, web.test_client())):
        assert _log_and_thread_leaks(client, gid, viewer, rec, set()) == [], viewer
    door = web_games.visibility  # services/core/visibility: plant each leak in the one door
    real_posts = door.posts
    if leak == "log and thread":
        monkeypatch.setattr(door.Secrets, "hides", lambda self, ply, seat: False)
    elif leak == "thread only":
        monkeypatch.setattr(door, "posts", lambda s, g, who, **kw: real_posts(s, g, who, **dict(kw, hidden=door.Secrets())))
    elif leak == "thread.json only":
        monkeypatch.setattr(door, "posts", lambda s, g, who, **kw: real_posts(
            s, g, who, **(dict(kw, hidden=door.Secrets()) if "thread.json" in web_games.request.path else kw)))
    else:
        from sqlalchemy import true

        monkeypatch.setattr(door, "_readable", lambda g, who: true())
    for viewer, client in ((1, clients[1]), (None, web.test_client())):
        problems = _log_and_thread_leaks(client, gid, viewer, rec, set())
        if leak == "private post":  # seat 1 may read it; a visitor may not
            assert (viewer is None) == any("private post" in p and "a whisper" in p for p in problems), problems
        else:
            assert any(f"secret ply 1 {pick!r}" in p for p in problems), problems
            assert any(("thread.json" if leak == "thread.json only" else "page") in p for p in problems), problems
            assert any("in the move log of" in p for p in problems) == (leak == "log and thread"), problems
            assert any("text of" in p for p in problems), problems  # the sweep over all the text sees it too
