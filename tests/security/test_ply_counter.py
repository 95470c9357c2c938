"""In a secret simultaneous step the ply counter told every seat how many
parts each seat had sent, and that a pick was replaced: each secret choice
is a ply, and the page, its JSON, the log and the mails all showed the
game's ply. Now, through the visibility door (visibility.public_ply,
Secrets.shown_ply), the counter stays at the step's start until a move
reveals the step, a live page's stamp does not change with secret choices,
and the others see one "made a secret choice" a seat, numbered as the step's
start.

For real: the picks go over SMTP to the running receiver and a Celery worker
plays them; Cat reads the game page, its thread.json, the management page
and her mail as she would."""
from __future__ import annotations

import re

from sqlmodel import select

from pbem import config
from pbem.services.core import accounts, notify
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Outbound, User
from pbem.web import create_app
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import mail, seat_addr, wait_for
from tests.web.conftest import Browser

NAMES = ("ann", "bob", "cat")
DONE = ("done", "ignored", "failed")


def _game() -> int:
    with unit_of_work() as s:
        users = [accounts.register(s, f"{n}@x.test", n.title(), confirmed=True)[0] for n in NAMES]
        g = tables.create(s, users[0], "iaww", 3, {}, seed=7)
        for u in users[1:]:
            tables.join(s, u, g.id)
        notify.queue_boards(s, g, "The game has started.")
        return g.id


def _board(gid: int, to: str) -> Outbound:
    with unit_of_work() as s:
        return s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "board",
                                             Outbound.game_id == gid).order_by(Outbound.id.desc())).first()


def _hand(gid: int, seat: int) -> list[str]:
    from pbem.services.core import games

    with unit_of_work() as s:
        return [c["id"] for c in games.view_for(s, games.get(s, gid), seat)["you"]["hand"]]


def _pick(cfg, gid: int, who: str, seat: int, card: str, n: int) -> None:
    board = _board(gid, f"{who}@x.test")
    raw = mail(f"{who}@x.test", seat_addr(gid, seat), f"pick {card}\n\n> the board", "Re: " + board.subject,
               headers={"In-Reply-To": board.message_id, "References": board.message_id})
    assert send_mail(cfg, raw.replace(b"\n", b"\r\n"), f"{who}@x.test", seat_addr(gid, seat)) == 250

    def done():
        with unit_of_work() as s:
            rows = list(s.exec(select(Inbound)))
        return len(rows) == n and all(r.status in DONE for r in rows)
    wait_for(done, 90)


def _seen_by(app, gid: int, email: str) -> dict:
    """Every counter Cat (or anyone) is shown: the page, the slider, the move form, thread.json, the
    management page, the log's plies, and her latest mail of the game."""
    with unit_of_work() as s:
        uid = s.exec(select(User.id).where(User.email == email)).one()
    b = Browser(app)
    b.login_as(uid)
    page = b.get(f"/games/{gid}?all=1").get_data(as_text=True)
    data = b.get(f"/games/{gid}/thread.json").get_json()
    manage = b.get(f"/games/{gid}/manage").get_data(as_text=True)
    with unit_of_work() as s:
        last = s.exec(select(Outbound).where(Outbound.to_addr == email, Outbound.game_id == gid)
                      .order_by(Outbound.id.desc())).first()
    return {
        "page": int(re.search(r'id="cur-ply">(\d+)<', page).group(1)),
        "slider": int(re.search(r'id="ply-slider" min="0" max="(\d+)"', page).group(1)),
        "form": int(re.search(r'name="ply" value="(\d+)"', page).group(1)),
        "json": data["ply"], "stamp": int(data["stamp"].split(":")[0]),
        "manage": int(re.search(r"Ply (\d+)", manage).group(1)),
        "mail header": int(re.search(r", ply (\d+)", last.body_text).group(1)),
        "mail id": int(last.message_id.split(".")[3]),
        "secret lines": page.count("made a secret choice"),
        "replaced": page.count("(replaced)"),
    }


def test_the_counter_moves_only_at_a_reveal(sqlite_cfg):
    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    gid = _game()
    app = create_app(cfg)
    app.config["TESTING"] = True
    ann_hand, bob_hand = _hand(gid, 0), _hand(gid, 1)
    with smtp_receiver(cfg), celery_worker(cfg):
        _pick(cfg, gid, "ann", 0, ann_hand[0], 1)
        _pick(cfg, gid, "ann", 0, ann_hand[1], 2)  # Ann changes her mind: her pick is replaced
        _pick(cfg, gid, "bob", 1, bob_hand[0], 3)
        with unit_of_work() as s:
            ply = s.exec(select(Game.ply).where(Game.id == gid)).one()
        before = _seen_by(app, gid, "cat@x.test")
        print(f"\nthe game's ply {ply} (Ann: two picks, one replacing the other; Bob: one); Cat is shown {before}")
        assert ply == 3
        assert {k: v for k, v in before.items() if k not in ("secret lines", "replaced")} == {
            "page": 0, "slider": 0, "form": 0, "json": 0, "stamp": 0, "manage": 0, "mail header": 0, "mail id": 0}
        assert before["secret lines"] == 2 * 2 and before["replaced"] == 0  # Ann and Bob once each (log, thread)
        # Cat's pick reveals the step: the counter moves to the game's ply
        _pick(cfg, gid, "cat", 2, _hand(gid, 2)[0], 4)
    after = _seen_by(app, gid, "cat@x.test")
    with unit_of_work() as s:
        ply = s.exec(select(Game.ply).where(Game.id == gid)).one()
    print(f"after the reveal, the game's ply {ply}; Cat is shown {after}")
    assert after["page"] == after["json"] == after["manage"] == after["mail header"] == ply


def test_a_plan_in_parts_shows_the_others_one_secret_choice(sqlite_cfg):
    """Planning in parts (each card a move, then "auto"): Bob's page, the log and the thread show one
    secret choice of Ann's, numbered as the step's start, and the counter stays there; Ann sees all of
    her own."""
    from pbem.services.core import games, moves as moves_service, visibility

    config.set_settings(sqlite_cfg)
    with unit_of_work() as s:
        users = [accounts.register(s, f"{n}@x.test", n.title(), confirmed=True)[0] for n in NAMES[:2]]
        g = tables.create(s, users[0], "iaww", 2, {}, seed=19)
        tables.join(s, users[1], g.id)
        gid = g.id

    def submit(seat, texts):
        with unit_of_work() as s:
            assert moves_service.submit_moves(s, gid, seat, texts, source="mail").ok

    def state():
        with unit_of_work() as s:
            return games.state_at(s, games.get(s, gid))

    while state().phase == "draft":
        for seat in (0, 1):
            submit(seat, ["pick 1"])
    with unit_of_work() as s:
        g = games.get(s, gid)
        start, cards = g.ply, [c["id"] for c in games.view_for(s, g, 0)["you"]["to_plan"]]
    submit(0, [f"C {cards[0]}"])
    submit(0, [f"C {cards[1]}"])
    submit(0, [f"R {cards[2]}>E"])
    with unit_of_work() as s:
        g = games.get(s, gid)
        bob, ann = visibility.Viewer(seat=1), visibility.Viewer(seat=0)
        log_bob = [m for m in visibility.moves(s, g, bob) if m.seat == 0 and m.hidden]
        posts_bob = [p for p in visibility.posts(s, g, bob) if p.kind == "move" and p.seat == 0 and p.hidden]
        mine = [m for m in visibility.moves(s, g, ann) if m.seat == 0 and m.ply > start]
        shown, real = visibility.public_ply(s, g), g.ply
    print(f"\nAnn sent {len(mine)} parts (plies {[m.ply for m in mine]}); Bob sees {len(log_bob)} log line and "
          f"{len(posts_bob)} post, numbered {[m.ply for m in log_bob]}; the counter: {shown} (the game's ply {real})")
    assert len(mine) == 3 and [m.ply for m in log_bob] == [p.ply for p in posts_bob] == [start]
    assert shown == start < real
