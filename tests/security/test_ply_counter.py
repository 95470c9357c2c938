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
from pbem.store.models import Game, Inbound, Outbound, Post, User
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


def _planning_game():
    """Ann and Bob in a two-seat It's a Wonderful World, drafted through to the planning step (each
    draft pick a move by mail); returns the game and a way to submit a seat's moves as by mail."""
    from pbem.services.core import games, moves as moves_service

    with unit_of_work() as s:
        users = [accounts.register(s, f"{n}@x.test", n.title(), confirmed=True)[0] for n in NAMES[:2]]
        g = tables.create(s, users[0], "iaww", 2, {}, seed=19)
        tables.join(s, users[1], g.id)
        gid = g.id

    def submit(seat: int, texts: list[str]) -> None:
        with unit_of_work() as s:
            assert moves_service.submit_moves(s, gid, seat, texts, source="mail").ok

    def phase() -> str:
        with unit_of_work() as s:
            return games.state_at(s, games.get(s, gid)).phase

    while phase() == "draft":
        for seat in (0, 1):
            submit(seat, ["pick 1"])
    return gid, submit


def _user_id(email: str) -> int:
    with unit_of_work() as s:
        return s.exec(select(User.id).where(User.email == email)).one()


def _board(gid: int, to: str) -> Outbound:
    with unit_of_work() as s:
        return s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "board",
                                             Outbound.game_id == gid).order_by(Outbound.id.desc())).first()


def _hand(gid: int, seat: int) -> list[str]:
    from pbem.services.core import games

    with unit_of_work() as s:
        return [c["id"] for c in games.view_for(s, games.get(s, gid), seat)["you"]["hand"]]


def _pick(cfg, gid: int, who: str, seat: int, card: str, n: int) -> None:
    _send(cfg, gid, who, seat, f"pick {card}", n)


def _send(cfg, gid: int, who: str, seat: int, text: str, n: int) -> None:
    """``text`` as a reply to the seat's latest board, over SMTP; waits until the worker has done the
    ``n``-th mail."""
    board = _board(gid, f"{who}@x.test")
    raw = mail(f"{who}@x.test", seat_addr(gid, seat), f"{text}\n\n> the board", "Re: " + board.subject,
               headers={"In-Reply-To": board.message_id, "References": board.message_id})
    assert send_mail(cfg, raw.replace(b"\n", b"\r\n"), f"{who}@x.test", seat_addr(gid, seat)) == 250

    def done():
        with unit_of_work() as s:
            rows = list(s.exec(select(Inbound)))
        return len(rows) == n and all(r.status in DONE for r in rows)
    wait_for(done, 90)


def _reply(gid: int, to: str) -> str:
    with unit_of_work() as s:
        return s.exec(select(Outbound.body_text).where(Outbound.to_addr == to, Outbound.kind == "reply",
                                                       Outbound.game_id == gid).order_by(Outbound.id.desc())).first()


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
    history = b.get(f"/games/{gid}/history").get_data(as_text=True)
    view = b.get(f"/games/{gid}/view.json").get_json()
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
        "view": view.get("ply"),
        "secret lines": page.count("made a secret choice"),
        # the numbers each move is shown with: the move log, the thread (page and JSON), HISTORY
        "log plies": sorted(int(n) for n in re.findall(r'<tr class="[^"]*"><td>(\d+)</td>', page)),
        "thread plies": sorted(int(n) for n in re.findall(r" · ply (\d+) · ", page)),
        "json plies": sorted(p["ply"] for p in data["posts"] if p["kind"] == "move"),
        "history plies": sorted(int(n) for n in re.findall(r"(?:^|>)\s*(\d+)\. ", history, re.M)),
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
        assert {k: v for k, v in before.items() if not isinstance(v, list) and k not in ("secret lines", "replaced")} \
            == {"page": 0, "slider": 0, "form": 0, "json": 0, "stamp": 0, "manage": 0, "mail header": 0, "mail id": 0,
                "view": 0}
        # the secret picks are numbered as the step's start: 0 (the history shows no secret choice of others)
        assert set(before["log plies"]) | set(before["thread plies"]) | set(before["json plies"]) == {0}
        assert before["secret lines"] == 2 * 2 and before["replaced"] == 0  # Ann and Bob once each (log, thread)
        # Cat's pick reveals the step: the counter moves on, by the picks Cat can see
        _pick(cfg, gid, "cat", 2, _hand(gid, 2)[0], 4)
    after = _seen_by(app, gid, "cat@x.test")
    with unit_of_work() as s:
        ply = s.exec(select(Game.ply).where(Game.id == gid)).one()
    print(f"after the reveal, the game's ply {ply}; Cat is shown {after}")
    # Ann's replaced pick is a ply of the game (4) that nobody else ever sees: the counter and the numbers
    # count the three picks Cat can see, with no gap where the replaced one was
    assert ply == 4
    assert {k: v for k, v in after.items() if not isinstance(v, list) and k not in ("secret lines", "replaced")} == {
        "page": 3, "slider": 3, "form": 3, "json": 3, "stamp": 3, "manage": 3, "mail header": 3, "mail id": 3,
        "view": 3}
    assert after["log plies"] == after["history plies"] == [1, 2, 3]
    assert after["thread plies"] == after["json plies"] == [1, 2, 3]
    # the history slider goes to 3, the board after the last pick; 4 is no ply Cat was shown
    with unit_of_work() as s:
        cat = s.exec(select(User.id).where(User.email == "cat@x.test")).one()
    b = Browser(app)
    b.login_as(cat)
    assert b.get(f"/games/{gid}/board?ply=3").status_code == 200
    assert b.get(f"/games/{gid}/board?ply=4").status_code == 400
    assert b.get(f"/games/{gid}/view.json?ply=3").get_json()["ply"] == 3


def test_status_and_dispute_name_the_counter_shown(sqlite_cfg):
    """STATUS in the secret step answers with the counter Cat is shown (the step's start), and after the
    reveal a DISPUTE's range and its answer are the numbers Cat was shown (1 to 3: the game's ply 4 counts
    Ann's replaced pick); the dispute keeps the game's ply for the admin."""
    from pbem.store.models import Dispute

    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    gid = _game()
    ann_hand, bob_hand = _hand(gid, 0), _hand(gid, 1)
    with smtp_receiver(cfg), celery_worker(cfg):
        _pick(cfg, gid, "ann", 0, ann_hand[0], 1)
        _pick(cfg, gid, "ann", 0, ann_hand[1], 2)  # replaces her first
        _pick(cfg, gid, "bob", 1, bob_hand[0], 3)
        _send(cfg, gid, "cat", 2, f"STATUS {gid}", 4)
        status = _reply(gid, "cat@x.test")
        said = re.search(r"game #\d+: .*", status).group(0)
        print(f"\nSTATUS in the secret step (the game's ply 3): {said}")
        assert "(ply 0)" in status and "(ply 3)" not in status
        _pick(cfg, gid, "cat", 2, _hand(gid, 2)[0], 5)
        _send(cfg, gid, "cat", 2, "DISPUTE 9 the card was misread", 6)
        refused = _reply(gid, "cat@x.test")
        said = re.search(r"has plies [^.]*", refused).group(0)
        print(f"DISPUTE 9 after the reveal (the game's ply 4): {said}")
        assert "has plies 1 to 3" in refused and "DISPUTE 3 " in refused
        _send(cfg, gid, "cat", 2, "DISPUTE 3 the card was misread", 7)
        assert "about ply 3 is open" in _reply(gid, "cat@x.test")
    with unit_of_work() as s:
        assert s.exec(select(Dispute.ply).where(Dispute.game_id == gid)).one() == 4  # Cat's pick, for the admin
        notice = s.exec(select(Post.body).where(Post.game_id == gid, Post.kind == "notice")
                        .order_by(Post.id.desc())).first()
    assert "disputes ply 3:" in notice


def test_a_plan_in_parts_shows_the_others_one_secret_choice(sqlite_cfg):
    """Planning in parts (each card a move, then "auto"): Bob's page, the log and the thread show one
    secret choice of Ann's, numbered as the step's start, and the counter stays there; Ann sees all of
    her own."""
    from pbem.services.core import games, visibility

    config.set_settings(sqlite_cfg)
    gid, submit = _planning_game()
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


def test_a_seat_is_shown_its_own_count_of_its_parts(sqlite_cfg):
    """Ann plans in parts while Bob has sent one: the take-back offered on Ann's page, its answer, and the
    receipt of her next part by mail number her parts from the step's start among her own alone (the
    game's ply would count Bob's part too)."""
    from pbem.services.core import games, visibility

    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    gid, submit = _planning_game()
    ann = _user_id("ann@x.test")
    with unit_of_work() as s:
        g = games.get(s, gid)
        shown = visibility.public_ply(s, g)
        ann_cards = [c["id"] for c in games.view_for(s, g, 0)["you"]["to_plan"]]
        bob_cards = [c["id"] for c in games.view_for(s, g, 1)["you"]["to_plan"]]
    submit(1, [f"C {bob_cards[0]}"])  # Bob's part: a ply of the game before Ann's
    submit(0, [f"C {ann_cards[0]}"])
    with unit_of_work() as s:
        real = games.get(s, gid).ply
    app = create_app(cfg)
    app.config["TESTING"] = True
    b = Browser(app)
    b.login_as(ann)
    page = b.get(f"/games/{gid}").get_data(as_text=True)
    offered = int(re.search(r'Take back your last move \(ply (\d+)', page).group(1))
    form = int(re.search(r'action="/games/\d+/takeback"><input[^>]*><input type="hidden" name="ply" value="(\d+)"',
                         page).group(1))
    print(f"\nAnn's first part is the game's ply {real}; her page offers to take back ply {offered} (form {form}); "
          f"the counter shows {shown}")
    assert offered == form == shown + 1 and real == shown + 2
    r = b.post(f"/games/{gid}/takeback", {"ply": str(offered)}, page=f"/games/{gid}")
    assert r.status_code == 303
    said = b.get(f"/games/{gid}").get_data(as_text=True)
    assert f"your move at ply {shown + 1}," in said and f"ply {real}," not in said
    # her parts again, the second by mail: its receipt numbers it as her own second part
    submit(0, [f"C {ann_cards[0]}"])
    with unit_of_work() as s:
        notify.queue_boards(s, games.get(s, gid), "Your turn.")
    with smtp_receiver(cfg), celery_worker(cfg):
        _send(cfg, gid, "ann", 0, f"C {ann_cards[1]}", 1)
    receipt = _reply(gid, "ann@x.test")
    with unit_of_work() as s:
        real = games.get(s, gid).ply
    line = re.search(rf"C {ann_cards[1]}\n\s*OK: .*", receipt).group(0)
    print(f"the receipt of her second part (the game's ply {real}): {line}")
    assert f"ply {shown + 2}" in line and f"ply {real}" not in line


def test_an_undo_request_does_not_count_the_others_parts(sqlite_cfg):
    """Bob asks by mail to take back his part of a secret step after Ann has sent two of hers: the request
    Ann is mailed, the thread's notice and Bob's answer name his move by the step's start, and say nothing
    of moves after it (the game's plies would tell that Ann sent two)."""
    from pbem.services.core import games, visibility

    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    gid, submit = _planning_game()
    with unit_of_work() as s:
        g = games.get(s, gid)
        shown = visibility.public_ply(s, g)
        ann_cards = [c["id"] for c in games.view_for(s, g, 0)["you"]["to_plan"]]
        bob_cards = [c["id"] for c in games.view_for(s, g, 1)["you"]["to_plan"]]
    submit(1, [f"C {bob_cards[0]}"])
    submit(0, [f"C {ann_cards[0]}"])
    submit(0, [f"C {ann_cards[1]}"])
    with unit_of_work() as s:
        g = games.get(s, gid)
        real = g.ply
        notify.queue_boards(s, g, "Your turn.")
    with smtp_receiver(cfg), celery_worker(cfg):
        _send(cfg, gid, "bob", 1, "UNDO", 1)
    with unit_of_work() as s:
        asked = s.exec(select(Outbound.body_text).where(Outbound.to_addr == "ann@x.test", Outbound.kind == "notice",
                                                        Outbound.game_id == gid).order_by(Outbound.id.desc())).first()
        notice = s.exec(select(Post.body).where(Post.game_id == gid, Post.kind == "notice")
                        .order_by(Post.id.desc())).first()
    answer = _reply(gid, "bob@x.test")
    said = re.search(r"Bob asks to take back[^.]*", asked).group(0)
    print(f"\nBob's part is the game's ply {real - 2}, Ann's two follow (the game's ply {real}); Ann is told: {said}")
    for text in (asked, notice):
        assert f"move at ply {shown} (a secret choice)" in text and "after it" not in text, text
        assert f"ply {real - 2}" not in text
    assert f"take back ply {shown}" in answer and f"ply {real - 2}" not in answer
