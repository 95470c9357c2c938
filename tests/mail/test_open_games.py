"""Open games by mail: RESIGN before the start (it crashed the pipeline),
CANCEL, and NEW refusing words it does not understand. Every refusal says
what was wrong, shows an example, and changes nothing."""
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Post, Seat, User
from pbem.web import create_app
from tests.mailtools import CMD, confirm, outbox, process, seat_addr
from tests.web.conftest import log_in


def reply(addr: str) -> str:
    rows = [o for o in outbox(addr) if o.kind == "reply"]
    assert rows, f"no reply to {addr}"
    return rows[-1].body_text


def resign(frm: str, gid: int) -> str:
    """RESIGN by mail, confirmed as pbem asks (it cannot be undone): the answer."""
    process(frm, CMD, f"RESIGN {gid}")
    assert confirm(frm)[1] == "done"
    return reply(frm)


def notices(addr: str) -> list[str]:
    return [o.body_text for o in outbox(addr) if o.kind == "notice"]


def run(frm: str, body: str, to: str = CMD) -> str:
    iid, status = process(frm, to, body)
    assert status == "done", f"{body!r}: {status}"
    with unit_of_work() as s:
        assert s.get(Inbound, iid).error is None
    return reply(frm)


def table(players: int = 4, joined: int = 2) -> int:
    """An open mini game created by Ann, with ``joined`` others seated (Bob, Cy, ...)."""
    run("ann@x.test", "REGISTER Ann")
    run("ann@x.test", f"NEW mini players={players}")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    for name in ("Bob", "Cy", "Di")[:joined]:
        run(f"{name.lower()}@x.test", f"REGISTER {name}\nJOIN {gid}")
    return gid


def state(gid: int) -> tuple[str, list[tuple[int, str]]]:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        seats = s.exec(select(Seat, User).join(User, User.id == Seat.user_id).where(Seat.game_id == gid)
                       .order_by(Seat.seat)).all()
        return g.status, [(seat.seat, user.name) for seat, user in seats]


# ---------------------------------------------------------------- RESIGN before the start


def test_resign_of_an_open_game_frees_the_seat_and_tells_the_others(any_cfg):
    gid = table(players=4, joined=2)
    cy_token = seat_addr(gid, 2)
    r = resign("bob@x.test", gid)  # used to crash the pipeline: mail failed, nobody answered
    assert f"you have left game #{gid} before it started" in r
    assert state(gid) == ("open", [(0, "Ann"), (1, "Cy")])
    assert seat_addr(gid, 1) == cy_token  # Cy moved up a seat and keeps her reply address
    told = notices("ann@x.test")[-1]
    assert f"Bob has left game #{gid} before it started; 2 of its 4 seats are taken now" in told
    assert notices("cy@x.test") and not notices("bob@x.test")
    # the freed seat is taken by the next JOIN, and the game still starts as usual
    run("bob@x.test", f"JOIN {gid}")
    run("di@x.test", f"REGISTER Di\nJOIN {gid}")
    status, seats = state(gid)
    assert status == "running" and sorted(n for _, n in seats) == ["Ann", "Bob", "Cy", "Di"]
    assert [n for n, _ in seats] == [0, 1, 2, 3]


def test_resign_of_an_open_game_by_its_creator_cancels_it(sqlite_cfg):
    gid = table(players=4, joined=1)
    run("ann@x.test", f"BOT {gid}")  # a bot has no mailbox: nobody writes to it
    r = resign("ann@x.test", gid)
    assert f"you created game #{gid} and it had not started, so it is cancelled" in r
    assert state(gid)[0] == "cancelled"
    told = notices("bob@x.test")[-1]
    assert f"Ann has cancelled game #{gid} (Mini (test game)) before it started" in told
    assert not [o for o in outbox() if o.to_addr.endswith(".invalid")]
    # a cancelled game takes no joins and no moves; it says why
    assert f"game #{gid} is not open for joining (it is cancelled)" in run("cy@x.test", f"REGISTER Cy\nJOIN {gid}")
    assert "was cancelled before it started; no moves are accepted" in run("bob@x.test", "wait", seat_addr(gid, 1))
    assert f"game #{gid} (Mini (test game)) was cancelled before it started" in run("bob@x.test", f"STATUS {gid}")


def test_resign_of_an_open_game_on_the_web(sqlite_cfg):
    gid = table(players=3, joined=1)
    app = create_app(sqlite_cfg)
    app.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
    with unit_of_work() as s:
        bob = s.exec(select(User).where(User.email == "bob@x.test")).one().id
    c = app.test_client()
    log_in(c, bob)
    r = c.post(f"/games/{gid}/manage", data={"action": "resign", "confirm": "yes"}, follow_redirects=True)
    assert r.status_code == 200 and b"you have left the game before it started" in r.data
    assert state(gid) == ("open", [(0, "Ann")])


# ---------------------------------------------------------------- CANCEL


def test_the_creator_cancels_an_open_game_and_everyone_seated_is_told(any_cfg):
    gid = table(players=4, joined=2)
    r = run("ann@x.test", f"CANCEL {gid}")
    assert f"game #{gid} is cancelled; the 2 player(s) who had joined are told" in r
    assert state(gid)[0] == "cancelled"
    for who in ("bob@x.test", "cy@x.test"):
        told = notices(who)[-1]
        assert f"Ann has cancelled game #{gid}" in told and "NEW mini players=4" in told
        assert "Reply to this mail" not in told and "your move" not in told
        assert f"Game #{gid} was cancelled before it started; there is nothing to reply" in told
    with unit_of_work() as s:
        assert s.exec(select(Post).where(Post.game_id == gid)).one().body == \
            "Ann cancelled the game before it started."
    assert f"#{gid} mini (cancelled)" in run("ann@x.test", "GAMES")
    # the web page of a cancelled game says so (and shows no board)
    app = create_app(any_cfg)
    page = app.test_client().get(f"/games/{gid}")
    assert page.status_code == 200 and b"cancelled by its creator before it started" in page.data
    assert app.test_client().get(f"/games/{gid}/board").status_code == 404
    assert app.test_client().get(f"/games/{gid}/view.json").json["status"] == "cancelled"


def test_cancel_is_refused_to_anyone_but_the_creator_with_an_example(sqlite_cfg):
    gid = table(players=3, joined=1)
    before = state(gid)
    r = run("bob@x.test", f"CANCEL {gid}")
    assert f"only the creator of game #{gid} (Ann) can cancel it; to give up your own seat, RESIGN {gid}" in r
    assert f"e.g. RESIGN {gid}" in r
    r = run("zed@x.test", f"REGISTER Zed\nCANCEL {gid}")
    assert f"only the creator of game #{gid} (Ann) can cancel it" in r and "e.g. GAMES" in r
    assert "CANCEL needs a game number" in run("ann@x.test", "CANCEL") and "e.g. CANCEL 12" in reply("ann@x.test")
    assert "there is no game #999" in run("ann@x.test", "CANCEL 999")
    assert state(gid) == before
    assert not notices("bob@x.test") and not notices("ann@x.test")


def test_a_running_game_is_not_cancelled(sqlite_cfg):
    gid = table(players=2, joined=1)
    assert state(gid)[0] == "running"
    r = run("ann@x.test", f"CANCEL {gid}")
    assert f"game #{gid} has started, and a running game is not cancelled: to leave it, RESIGN {gid}" in r
    assert f"e.g. RESIGN {gid}" in r
    # on the seat's own address, CANCEL means this game
    assert "a running game is not cancelled" in run("bob@x.test", "CANCEL", seat_addr(gid, 1))
    assert state(gid)[0] == "running"


def test_cancel_is_in_the_help(sqlite_cfg):
    r = run("ann@x.test", "HELP")
    assert "CANCEL <game-id>" in r and "withdraw an open game you created" in r


def test_a_bot_added_after_a_seat_was_given_up_is_a_bot_of_its_own(sqlite_cfg):
    gid = table(players=4, joined=1)
    run("ann@x.test", f"BOT {gid}")  # seat 3: "Bot 3"
    resign("bob@x.test", gid)  # Bot 3 moves up to seat 2
    run("ann@x.test", f"BOT {gid}")  # seat 3 again: another bot, not Bot 3 a second time
    with unit_of_work() as s:
        users = [x.user_id for x in s.exec(select(Seat).where(Seat.game_id == gid))]
    assert len(set(users)) == 3


# ---------------------------------------------------------------- NEW with words it does not understand


def _games() -> int:
    with unit_of_work() as s:
        return len(s.exec(select(Game)).all())


def test_new_refuses_words_that_are_not_options_with_a_guess(any_cfg):
    run("ann@x.test", "REGISTER Ann")
    # each was a 5-player game before: the words were ignored
    for words, guess in [("NEW Spyrium 3 players", "players=3"), ("NEW spyrium players 3", "players=3"),
                         ("NEW spyrium 3p", "players=3"), ("NEW spyrium for 3", "players=3"),
                         ("NEW spyrium 3", "players=3"), ("NEW spyrium three players", "players=3"),
                         ("NEW 3 players spyrium", "players=3"), ("NEW spyrium 4-player", "players=4"),
                         ("NEW spyrium players:2", "players=2"), ("NEW spyrium 24h", "deadline=24"),
                         ("NEW spyrium deadline 24", "deadline=24"), ("NEW spyrium no weekends", "days=no-weekends"),
                         ("NEW squire world", "side=world"),
                         ("NEW squire 3 players, random", "players=3 boards=random"),
                         ("NEW spyrium player=3", "players=3"), ("NEW spyrium 3 players deadline=24",
                                                                 "players=3")]:
        r = run("ann@x.test", words)
        assert f"did you mean {guess}?" in r, (words, r)
        game = "squire" if "squire" in words else "spyrium"
        assert f"e.g. NEW {game} {guess}" in r, (words, r)
    assert "e.g. NEW spyrium players=3 deadline=24" in reply("ann@x.test")
    assert _games() == 0  # bad input changes nothing


def test_new_names_an_unknown_word_and_lists_the_options(any_cfg):
    run("ann@x.test", "REGISTER Ann")
    r = run("ann@x.test", "NEW spyrium fast")
    assert "NEW spyrium: 'fast' is not an option. Options are written key=value: players (2-5); " in r
    assert "deadline (hours per turn, 48); policy (wait, bot or abandon); days (all or no-weekends)" in r
    assert "and Spyrium's own: none" in r and "e.g. NEW spyrium players=2 deadline=48" in r
    r = run("ann@x.test", "NEW iaww colour=blue")
    assert "'colour=blue' is not an option" in r and "It's a Wonderful World's own: face (auto, A, B); " in r
    r = run("ann@x.test", "NEW squire 3 players quickly")
    assert "'quickly' is not an option" in r and "Did you mean players=3?" in r
    assert "e.g. NEW squire players=3" in r
    assert _games() == 0
    # what NEW does understand still works
    assert "is open" in run("ann@x.test", "NEW spyrium players=3 deadline=24 days=no-weekends")
    with unit_of_work() as s:
        g = s.exec(select(Game)).one()
        assert (g.players, g.deadline_hours, g.day_mask) == (3, 24, "no-weekends")
