"""The game page offers only what it will accept: every button of its legal-move list and every
pickable part of its drawing (``data-moves``), sent alone as the page's Send posts it, is accepted
-- or its preview said beforehand that it is not, and what else it needs (a new secret order in
place of a finished one must finish the step too: the preview says so, and the endings it
suggests are accepted). And the preview is Send's answer: what it accepts, Send accepts, applying
the moves it listed.

Positions come from random legal play of each game (every seat count, several seeds, every
phase), with secret orders on file (some of them replaced), turns made in part and questions
pending. For each seat the page offers moves to, the page is read as that seat's player through
the Flask test client, and each offered move is previewed and sent from the same position: the
move route runs whole, in a transaction rolled back instead of committed (nothing else differs)."""
from __future__ import annotations

import json
import random
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest

from pbem.engine import get_game
from pbem.services.core import games, moves, seating
from pbem.services.lobby import tables
from pbem.store import db
from pbem.store.db import unit_of_work
from pbem.store.models import User
from tests.web.conftest import log_in, make_user

pytestmark = pytest.mark.slow  # about two minutes: every offer of some 170 positions, sent

# per title: the games played (seats, seed), the plies a game lasts about per seat (random play), and the
# checks per game besides the first of each kind of position: at plies drawn over the whole game
PLAN = {
    "iaww": dict(games=((1, 3), (2, 8), (3, 3), (4, 8), (5, 3)), plies_per_seat=80, spread=1),
    "spyrium": dict(games=tuple((n, seed) for n in (2, 3, 4, 5) for seed in (3, 8)), plies_per_seat=40, spread=3),
    "squire": dict(games=tuple((n, seed) for n in (2, 3, 4) for seed in (3, 8)), plies_per_seat=35, spread=3),
}



class Offers(HTMLParser):
    """What a game page offers its reader: the legal-move list's buttons (``pick``), the drawing's
    pickable parts (``data-moves``), and the move form's fields that Send posts with the move."""

    def __init__(self, page: str):
        super().__init__()
        self.moves: list[str] = []
        self.form: dict[str, str] = {}
        self._in_move_form = False
        self.feed(page)
        self.moves = list(dict.fromkeys(self.moves))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "button" and a.get("name") == "pick":
            self.moves.append(a["value"])
        if "data-moves" in a:
            self.moves += json.loads(a["data-moves"])
        if tag == "form":
            self._in_move_form = a.get("id") == "move-form"
        if tag == "input" and self._in_move_form and a.get("type") == "hidden":
            self.form[a["name"]] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_move_form = False


@contextmanager
def _rolled_back(url: str | None = None):
    """The move route's unit of work, rolled back where it would commit: Send's whole path runs,
    and every offer is tried from the same position."""
    s = db.UnitOfWork(db.get_engine(url), expire_on_commit=False)
    try:
        yield s
    finally:
        s.rollback()
        s.close()


@dataclass
class Findings:
    checks: int = 0
    tried: int = 0
    needs: int = 0  # refused alone, its preview having said what else it needs
    refused: list[str] = field(default_factory=list)  # offered, refused, and the preview did not say what it needs
    odd: list[str] = field(default_factory=list)  # the preview and Send disagree otherwise
    kinds: set = field(default_factory=set)


class Table:
    """One game played at random through the services, and its players' pages."""

    def __init__(self, app, title: str, players: int, seed: int):
        self.app, self.title, self.engine = app, title, get_game(title)
        self.rng = random.Random(f"{title}-{players}-{seed}")
        uids = [make_user(f"p{seed}-{players}-{k}-{title}@x.test", f"P{k + 1} {title} {players}-{seed}")
                for k in range(players)]
        with unit_of_work() as s:
            g = tables.create(s, s.get(User, uids[0]), title, players, {}, seed=seed)
            for uid in uids[1:]:
                tables.join(s, s.get(User, uid), g.id)
            self.gid = g.id
            self.users = {x.seat: x.user_id for x in seating.seats(s, g.id)}
        self.clients = {}
        self.moved: set[int] = set()  # seats that moved in the secret step in progress
        self.last: int | None = None  # the seat that moved last

    def client(self, seat: int):
        if seat not in self.clients:
            c = self.app.test_client()
            log_in(c, self.users[seat])
            self.clients[seat] = c
        return self.clients[seat]

    def deciding(self) -> dict[int, bool]:
        """The seats the page offers moves to now: seat -> whether it replaces an order on file."""
        with unit_of_work() as s:
            g = games.get(s, self.gid)
            out = {}
            for seat in range(g.players):
                d = moves.deciding_state(s, g, seat)
                if d is not None:
                    out[seat] = d[1]
            return out

    def kind(self) -> tuple | None:
        """What sort of position this is, read from the state alone (each sort is checked the first
        time it comes): the phase, a question pending, a turn made in part (the last mover moves
        on), and seats whose orders on file for a secret step the page offers to replace. None when
        the game is over."""
        with unit_of_work() as s:
            g = games.get(s, self.gid)
            if g.status != "running":
                return None
            state = games.state_at(s, g)
        view, to_move = self.engine.view(state, None), self.engine.to_move(state)
        return (view.get("phase"), bool(view.get("pending")), self.last in to_move,
                bool(to_move) and bool(self.moved - to_move))

    def play(self) -> bool:
        """One random legal move of a seat to move, sent as the page sends it; now and then a
        seat with a finished secret order replaces it with another (a new move, then the step
        ended). False when the game is over."""
        with unit_of_work() as s:
            g = games.get(s, self.gid)
            if g.status != "running":
                return False
            before = games.state_at(s, g)
            to_move = self.engine.to_move(before)
            waiting = sorted(self.moved - to_move) if to_move else []
            if waiting and self.rng.random() < 0.15:
                seat = self.rng.choice(waiting)
                base = moves.deciding_state(s, g, seat)[0]
                text = self.engine.format_move(base, seat, self.rng.choice(self.engine.legal_moves(base, seat)))
                # a draft's pick is a whole order; a step's order is ended (auto decides what is left, done
                # may not be legal yet); a refused order changes nothing: the order on file stands
                if not moves.submit_moves(s, g.id, seat, [text], source="web").ok:
                    moves.submit_moves(s, g.id, seat, [text, self.rng.choice(moves.ENDINGS)], source="web")
            else:
                seat = self.rng.choice(sorted(to_move))
                move = self.rng.choice(self.engine.legal_moves(before, seat))
                res = moves.submit_moves(s, g.id, seat, [self.engine.format_move(before, seat, move)], source="web")
                assert res.ok, (self.title, res.error)
            after = games.state_at(s, g)
        # the seats with an order on file in a secret step: moved since its start, no longer to move
        secret = getattr(self.engine, "simultaneous", False) and len(self.users) > 1
        self.moved = set() if not secret or self.engine.reveals(before, after) else self.moved | {seat}
        self.last = seat
        return True

    def send(self, seat: int, text: str, form: dict[str, str], monkeypatch) -> tuple[bool, list[tuple[str, str]]]:
        """``text`` posted with the move form's own fields, as its Send posts it, and rolled back:
        (accepted, the messages flashed for the page)."""
        c = self.client(seat)
        with monkeypatch.context() as m:
            m.setattr("pbem.web.games.unit_of_work", _rolled_back)
            r = c.post(f"/games/{self.gid}/move", data={**form, "text": text})
        assert r.status_code == 303, r.status_code
        with c.session_transaction() as sess:
            flashes = list(sess.pop("_flashes", []))
        errors = [m for cat, m in flashes if cat == "error-move"]
        return not errors and any(cat == "ok-move" for cat, _ in flashes), flashes

    def check(self, found: Findings, monkeypatch) -> None:
        """Every move each deciding seat's page offers, previewed and sent alone."""
        deciding = self.deciding()
        found.checks += 1
        found.kinds.add(self.kind())
        for seat, replacing in sorted(deciding.items()):
            c = self.client(seat)
            page = Offers(c.get(f"/games/{self.gid}").get_data(as_text=True))
            assert page.moves, f"{self.title} #{self.gid}: seat {seat + 1} decides but the page offers nothing"
            assert {"csrf_token", "ply"} <= set(page.form), page.form
            ended = False
            for text in page.moves:
                found.tried += 1
                where = f"{self.title} {len(self.users)}p #{self.gid} seat {seat + 1}" \
                        f"{' (replacing)' if replacing else ''}: {text!r}"
                p = c.get(f"/games/{self.gid}/preview", query_string={"text": text}).get_json()
                ok, flashes = self.send(seat, text, page.form, monkeypatch)
                if ok and p["ok"]:
                    said = "; ".join(m["notation"] for m in p["moves"])
                    if not any(said in msg for cat, msg in flashes if cat == "ok-move"):
                        found.odd.append(f"{where}: preview listed {said!r}, Send applied {flashes}")
                elif ok:
                    found.odd.append(f"{where}: Send accepted what the preview refused ({p['error']})")
                elif p["code"] != moves.UNFINISHED or not p["examples"]:
                    # the preview accepted it, or refused an offered move without saying what it needs
                    found.refused.append(f"{where}: preview {p['error'] or 'accepts it'}; Send: {flashes}")
                else:  # a new secret order in place of a finished one: the preview said it must finish the step
                    found.needs += 1
                    if not ended:  # ... and the endings it suggests are accepted (tried once a page)
                        ended = True
                        for example in p["examples"]:
                            if not self.send(seat, example, page.form, monkeypatch)[0]:
                                found.odd.append(f"{where}: the preview's ending {example!r} is refused")

@pytest.mark.parametrize("title", sorted(PLAN))
def test_every_move_the_page_offers_is_accepted_or_its_preview_says_what_it_needs(title, app, monkeypatch):
    plan = PLAN[title]
    found = Findings()
    engine = get_game(title)
    for players, seed in plan["games"]:
        assert engine.min_players <= players <= engine.max_players
        table = Table(app, title, players, seed)
        seen: set = set()
        odds = plan["spread"] / (plan["plies_per_seat"] * players)
        table.check(found, monkeypatch)  # the opening position
        while table.play():
            kind = table.kind()
            if kind is not None and (kind not in seen or table.rng.random() < odds):
                seen.add(kind)
                table.check(found, monkeypatch)
    print(f"\n{title}: {found.checks} positions, {found.tried} offered moves sent, {found.needs} refused after "
          f"a preview that said what they need, {len(found.refused)} refused unannounced, {len(found.odd)} "
          f"disagreements; {len(found.kinds)} kinds of position: {sorted(found.kinds, key=str)}")
    assert not found.refused, "\n".join(found.refused[:20])
    assert not found.odd, "\n".join(found.odd[:20])
