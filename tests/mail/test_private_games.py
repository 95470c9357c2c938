"""Private games by mail: NEW ... private and NEW ... password=<word>, JOIN <id> <password>,
invitations answered with ACCEPT / DECLINE, REMOVE before the start, GAMES showing only what the
sender may join. Every refusal says what was wrong, shows an example, and changes nothing."""
from sqlmodel import select

from pbem.services.lobby import invites, tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Invitation, JoinAttempt, Seat, User
from tests.mailtools import CMD, outbox, process


def reply(addr: str) -> str:
    rows = [o for o in outbox(addr) if o.kind == "reply"]
    assert rows, f"no reply to {addr}"
    return rows[-1].body_text


def run(frm: str, body: str) -> str:
    iid, status = process(frm, CMD, body)
    assert status == "done", f"{body!r}: {status}"
    with unit_of_work() as s:
        assert s.get(Inbound, iid).error is None
    return reply(frm)


def new_game(options: str, players: int = 3) -> int:
    run("ann@x.test", "REGISTER Ann")
    r = run("ann@x.test", f"NEW mini players={players} {options}")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    assert f"game #{gid}" in r
    return gid


def seated(gid: int) -> list[str]:
    with unit_of_work() as s:
        rows = s.exec(select(Seat, User).join(User, User.id == Seat.user_id).where(Seat.game_id == gid)
                      .order_by(Seat.seat)).all()
        return [u.name for _, u in rows]


def invite(gid: int, email: str, by: str = "ann@x.test") -> None:
    with unit_of_work() as s:
        inviter = s.exec(select(User).where(User.email == by)).one()
        invites.invite(s, inviter, gid, email, link=f"http://pbem.test/games/{gid}")


# ---------------------------------------------------------------- private: invitation only


def test_private_game_refuses_a_stranger_and_admits_the_invited_even_registered_later(any_cfg):
    gid = new_game("private")
    assert "is open and private" in reply("ann@x.test")
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.access == "private" and g.password_hash is None
    r = run("bob@x.test", f"REGISTER Bob\nJOIN {gid}")
    assert f"Game #{gid} is private: only the people its players invite may join it" in r and "e.g. GAMES" in r
    assert seated(gid) == ["Ann"]
    # the invitation goes to an address with no account yet: it counts once its owner registers
    invite(gid, "cy@x.test")
    mailed = [o for o in outbox("cy@x.test") if o.kind == "notice"][-1].body_text
    assert f"ACCEPT {gid}" in mailed and f"DECLINE {gid}" in mailed
    r = run("cy@x.test", f"REGISTER Cy\nJOIN {gid}")
    assert f"you have seat 2 in game #{gid}" in r
    assert seated(gid) == ["Ann", "Cy"]
    with unit_of_work() as s:
        assert s.exec(select(Invitation.status).where(Invitation.game_id == gid)).one() == "accepted"


def test_games_lists_a_private_game_only_to_its_invitees_and_players(any_cfg):
    public = new_game("")
    private = new_game("private")
    word = new_game("password=owl42")
    invite(private, "cy@x.test")
    stranger = run("bob@x.test", "REGISTER Bob\nGAMES")
    assert f"#{public} " in stranger and f"#{private} " not in stranger
    assert f"#{word} Mini (test game)" in stranger and f"needs a password — JOIN {word} <password>" in stranger
    invitee = run("cy@x.test", "REGISTER Cy\nGAMES")
    assert f"#{private} Mini (test game): private" in invitee
    creator = run("ann@x.test", "GAMES")
    assert f"#{private} Mini (test game): private" in creator
    # nor does STATUS say anything of it to a stranger: as if there were no such game
    r = run("bob@x.test", f"STATUS {private}")
    assert f"there is no game #{private}" in r


# ---------------------------------------------------------------- password


def test_password_game_join_refused_without_and_with_a_wrong_word_accepted_with_the_right_one(any_cfg):
    gid = new_game("password=Owl-42")
    created = reply("ann@x.test")
    assert "open to those who give its password, Owl-42" in created  # to the creator alone
    with unit_of_work() as s:
        stored = s.get(Game, gid).password_hash
    assert "Owl-42" not in stored and stored.startswith("scrypt$")
    r = run("bob@x.test", f"REGISTER Bob\nJOIN {gid}")
    assert f"Game #{gid} needs a password to join: write it after the game's number" in r
    assert f"e.g. JOIN {gid} <password>" in r
    r = run("bob@x.test", f"JOIN {gid} owl-42")  # the word is case-sensitive
    assert f"That is not the password of game #{gid}, so you have not joined: check its capital letters" in r
    assert seated(gid) == ["Ann"]
    assert "Owl-42" not in "".join(o.body_text for o in outbox("bob@x.test"))
    r = run("bob@x.test", f"JOIN {gid} Owl-42")
    assert f"you have seat 2 in game #{gid}" in r
    assert seated(gid) == ["Ann", "Bob"]


def test_password_guessing_is_refused_after_ten_tries_in_an_hour(sqlite_cfg):
    gid = new_game("password=owl42")
    run("bob@x.test", "REGISTER Bob")
    run("bob@x.test", "\n".join(f"JOIN {gid} guess{i}" for i in range(tables.MAX_TRIES)))
    with unit_of_work() as s:
        assert len(s.exec(select(JoinAttempt).where(JoinAttempt.game_id == gid)).all()) == tables.MAX_TRIES
    r = run("bob@x.test", f"JOIN {gid} owl42")  # even the right word, now
    assert f"a wrong password {tables.MAX_TRIES} times in the last hour" in r
    assert seated(gid) == ["Ann"]
    r = run("cy@x.test", f"REGISTER Cy\nJOIN {gid} owl42")  # the limit is Bob's, not the game's
    assert f"you have seat 2 in game #{gid}" in r


def test_new_refuses_private_with_a_password_and_a_password_with_spaces(sqlite_cfg):
    run("ann@x.test", "REGISTER Ann")
    r = run("ann@x.test", "NEW mini private password=owl")
    assert "either private (invitation only) or has a password, not both" in r and "e.g. NEW mini private" in r
    r = run("ann@x.test", "NEW mini password=")
    assert "a game's password is one word" in r and "e.g. NEW mini password=owl42" in r
    with unit_of_work() as s:
        assert s.exec(select(Game)).all() == []


# ---------------------------------------------------------------- invitations answered


def test_accept_joins_and_decline_tells_the_inviter(any_cfg):
    gid = new_game("private")
    invite(gid, "bob@x.test")
    invite(gid, "cy@x.test")
    r = run("bob@x.test", f"REGISTER Bob\nACCEPT {gid}")
    assert f"you have seat 2 in game #{gid}" in r
    r = run("cy@x.test", f"REGISTER Cy\nDECLINE {gid}")
    assert f"you have declined the invitation to game #{gid}" in r
    told = [o for o in outbox("ann@x.test") if o.kind == "notice"][-1]
    assert f"Cy has declined your invitation to game #{gid}" in told.body_text
    with unit_of_work() as s:
        rows = dict(s.exec(select(Invitation.email, Invitation.status).where(Invitation.game_id == gid)).all())
    assert rows == {"bob@x.test": "accepted", "cy@x.test": "declined"}
    r = run("di@x.test", f"REGISTER Di\nACCEPT {gid}\nDECLINE {gid}")
    assert r.count(f"you have no invitation to game #{gid} to answer") == 2
    assert seated(gid) == ["Ann", "Bob"]
    # "Accept my apologies" is talk, not the command
    r = run("cy@x.test", "Accept my apologies")
    assert "no invitation" not in r


# ---------------------------------------------------------------- REMOVE before the start


def test_the_creator_removes_a_player_before_the_start_and_only_the_creator(any_cfg):
    gid = new_game("", players=4)
    run("bob@x.test", f"REGISTER Bob\nJOIN {gid}")
    run("cy@x.test", f"REGISTER Cy\nJOIN {gid}")
    r = run("bob@x.test", f"REMOVE {gid} Cy")
    assert f"only the creator of game #{gid} removes players from it" in r
    r = run("ann@x.test", f"REMOVE {gid} Zed")
    assert f"game #{gid} has no player 'Zed'; its players are Ann, Bob, Cy" in r
    r = run("ann@x.test", f"REMOVE {gid} Ann")
    assert f"to withdraw the game, CANCEL {gid}" in r
    assert seated(gid) == ["Ann", "Bob", "Cy"]
    r = run("ann@x.test", f"REMOVE {gid} bob")
    assert f"Bob is no longer in game #{gid} and is told so; 2 of its 4 seats are taken" in r
    assert seated(gid) == ["Ann", "Cy"]
    told = [o for o in outbox("bob@x.test") if o.kind == "notice"][-1].body_text
    assert f"Ann, who created game #{gid} (Mini (test game)), has removed you from it before it started" in told
    run("ann@x.test", f"START {gid}")
    r = run("ann@x.test", f"REMOVE {gid} 2")
    assert f"game #{gid} has started (or is over), and a player is removed only before the start" in r


def test_cancel_withdraws_a_private_game_too(sqlite_cfg):
    gid = new_game("private")
    invite(gid, "bob@x.test")
    run("bob@x.test", f"REGISTER Bob\nACCEPT {gid}")
    r = run("ann@x.test", f"CANCEL {gid}")
    assert f"game #{gid} is cancelled; the 1 player(s) who had joined are told" in r
    with unit_of_work() as s:
        assert s.get(Game, gid).status == "cancelled"



def test_a_stranger_can_neither_observe_nor_take_over_a_seat_of_a_private_game(sqlite_cfg):
    from pbem.services.core import accounts
    from pbem.services.lobby import seats

    gid = new_game("private", players=2)
    invite(gid, "bob@x.test")
    run("bob@x.test", f"REGISTER Bob\nACCEPT {gid}")  # the game is full: it starts
    with unit_of_work() as s:
        assert s.get(Game, gid).status == "running"
        root, _ = accounts.register(s, "root@x.test", "Root", confirmed=True)
        root.is_admin = True
        seats.open_seat(s, root, s.get(Game, gid), 2, "Bob is gone")  # a seat anyone could take, if public
    r = run("cy@x.test", f"REGISTER Cy\nOBSERVE {gid}\nREPLACE {gid} 2\nHISTORY {gid}\nSTATUS {gid}")
    assert r.count(f"there is no game #{gid}") == 4
    with unit_of_work() as s:
        cy = s.exec(select(User).where(User.email == "cy@x.test")).one()
        assert s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == cy.id)).first() is None
