"""Web identity, the services' part: names that are one name,
sessions that end, links that tell nobody whether an address has an account,
invitations with limits. Real SQLite and PostgreSQL (``any_cfg``)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import func, select

from pbem.services.core import accounts, sessions
from pbem.services.identity import auth
from pbem.services.lobby import invites, tables
from pbem.services.core.errors import UserError
from pbem.store import names
from pbem.store.db import unit_of_work
from pbem.store.models import Invitation, LoginToken, Outbound, User, WebSession, utcnow

# ---------------------------------------------------------------- one name, however it is written

SAME = [
    ("Ann", "ann"), ("Ann", "ANN"), ("Ann", "  Ann "), ("Ann Lee", "Ann \t  Lee"),
    ("Ann", "\u0410nn"),  # Cyrillic capital A
    ("Ann", "\u0430nn"),  # Cyrillic small a
    ("Bob", "\u0412ob"),  # Cyrillic capital Ve: its small letter is no "b", the capital is a "B"
    ("Petr", "\u0420\u0435tr"), ("Petr", "\u03a1etr"),  # Cyrillic Er and Ie; Greek Rho
    ("Kim", "\u041aim"), ("Tom", "\u0422om"), ("Max", "\u041c\u0430\u0445"), ("Iris", "\u0406ris"),
    ("Ann", "A\u200bnn"), ("Ann", "A\u200dn\u2060n\ufeff"), ("Ann", "Ann\u202e"), ("Ann", "\u00adAnn"),
    ("Ann", "Ann\u3164"), ("Bob", "Bob\ufe0f"),  # a Hangul filler, a variation selector: invisible
    ("Ann", "\uff21\uff4e\uff4e"), ("Ann", "\U0001d400\U0001d427\U0001d427"),  # full-width, mathematical bold
    ("Bob", "B0b"), ("Bill", "BiII"), ("Bill", "Bi11"), ("Emma", "Ernrna"),
    ("Zo\u00eb", "Zo\u0435\u0308"),  # e with diaeresis: precomposed Latin, or Cyrillic e and a combining mark
]
DIFFERENT = [("Ann", "Anne"), ("Ann", "Anna"), ("Ann", "\u00c5nn"), ("Oleg", "\u041e\u043b\u0435\u0433"),
             ("Ann", "An n"), ("Zoe", "Zo\u00eb")]


@pytest.mark.parametrize("a,b", SAME, ids=[ascii(b) for _, b in SAME])
def test_names_that_look_the_same_are_one_name(a, b):
    assert names.key(a) == names.key(b)


@pytest.mark.parametrize("a,b", DIFFERENT, ids=[ascii(b) for _, b in DIFFERENT])
def test_names_that_look_different_are_different(a, b):
    assert names.key(a) != names.key(b)


def test_a_name_is_stored_as_it_is_shown():
    assert names.display("  A\u200bnn \u00a0 Lee\u202e ") == "Ann Lee"
    assert names.display("\uff21\uff4e\uff4e") == "Ann"


def _user(s, email, name):
    return accounts.register(s, email, name, confirmed=True)[0]


def test_a_taken_name_is_refused_with_a_free_one_and_nothing_changes(any_cfg):
    with unit_of_work() as s:
        _user(s, "ann@x.test", "Ann")
        _user(s, "ann2@x.test", "Ann 2")
        ben = _user(s, "ben@x.test", "Ben")
    for attempt in ("ann", "\u0410nn", "A\u200bnn", " ANN "):
        with pytest.raises(UserError) as e, unit_of_work() as s:
            accounts.rename(s, s.get(User, ben.id), attempt)
        assert e.value.code == "name_taken" and "is taken" in e.value.message and " 3' is free" in e.value.message
        with pytest.raises(UserError) as e, unit_of_work() as s:
            accounts.register(s, "eve@x.test", attempt, confirmed=True)  # the mail's REGISTER
        assert e.value.code == "name_taken"
    with unit_of_work() as s:
        assert s.get(User, ben.id).name == "Ben"
        assert s.exec(select(func.count()).select_from(User)).one() == 3
        # one's own name again, in another case, is one's own
        assert accounts.rename(s, s.get(User, ben.id), "BEN").name == "BEN"


@pytest.mark.parametrize("name", ["Bot 2", "bot12", "Seat 3", "PBEM", "\u0412ot 1"])
def test_names_pbem_shows_for_bots_and_seats_are_reserved(any_cfg, name):
    with pytest.raises(UserError) as e, unit_of_work() as s:
        accounts.register(s, "eve@x.test", name)
    assert e.value.code == "name_reserved" and e.value.example


def test_two_accounts_taking_one_name_at_once(pg_cfg):
    """The unique key decides a race that both requests' checks missed: the second is refused."""
    import threading
    import time

    holding, errors = threading.Event(), []

    def first():
        try:
            with unit_of_work() as s:
                _user(s, "ann@x.test", "Ann")
                holding.set()
                time.sleep(1.0)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=first)
    t.start()
    assert holding.wait(10)
    with pytest.raises(UserError) as e, unit_of_work() as s:
        _user(s, "eve@x.test", "ANN")
    t.join(30)
    assert errors == [] and e.value.code == "name_taken"


# ---------------------------------------------------------------- sessions


def test_sessions_end_one_by_one_or_all_at_once(any_cfg):
    with unit_of_work() as s:
        ann, ben = _user(s, "ann@x.test", "Ann"), _user(s, "ben@x.test", "Ben")
        a1, a2, b1 = sessions.start(s, ann), sessions.start(s, ann), sessions.start(s, ben)
    with unit_of_work() as s:
        assert [sessions.user_id(s, x) for x in (a1, a2, b1, "forged", None)] == [ann.id, ann.id, ben.id, None, None]
        sessions.end(s, a1)
    with unit_of_work() as s:
        assert [sessions.user_id(s, x) for x in (a1, a2, b1)] == [None, ann.id, ben.id]
        token = auth.mail_link(s, "ann@x.test")
        assert sessions.end_all(s, s.get(User, ann.id)) == 1
    with unit_of_work() as s:
        assert [sessions.user_id(s, x) for x in (a1, a2, b1)] == [None, None, ben.id]
        assert auth.peek(s, token) is None  # the login link not yet spent is void too
        assert sessions.live_count(s, s.get(User, ben.id)) == 1


def test_a_session_idle_for_longer_than_a_month_has_ended(any_cfg):
    with unit_of_work() as s:
        secret = sessions.start(s, _user(s, "ann@x.test", "Ann"))
        row = s.exec(select(WebSession)).one()
        row.last_seen_at = utcnow() - sessions.IDLE - timedelta(minutes=1)
        s.add(row)
    with unit_of_work() as s:
        assert sessions.user_id(s, secret) is None
    with unit_of_work() as s:
        assert s.exec(select(WebSession)).one().ended_at is not None


def test_a_new_address_ends_every_session_and_link(any_cfg):
    with unit_of_work() as s:
        ann = _user(s, "ann@x.test", "Ann")
        _user(s, "ben@x.test", "Ben")
        secret = sessions.start(s, ann)
        token = auth.mail_link(s, "ann@x.test")
    with pytest.raises(UserError) as e, unit_of_work() as s:
        accounts.change_email(s, s.get(User, ann.id), "ben@x.test")
    assert e.value.code == "address_taken"
    with unit_of_work() as s:
        assert sessions.user_id(s, secret) == ann.id  # the refusal changed nothing
        accounts.change_email(s, s.get(User, ann.id), "Ann.New@X.test")
    with unit_of_work() as s:
        assert s.get(User, ann.id).email == "ann.new@x.test"
        assert sessions.user_id(s, secret) is None and auth.peek(s, token) is None


# ---------------------------------------------------------------- links: the same work for every address


def _rows(s):
    return (s.exec(select(func.count()).select_from(LoginToken)).one(),
            s.exec(select(func.count()).select_from(Outbound)).one(),
            s.exec(select(func.count()).select_from(User)).one())


def test_a_link_costs_the_same_for_an_address_with_an_account_or_without(any_cfg):
    with unit_of_work() as s:
        _user(s, "ann@x.test", "Ann")
    seen = []
    for addr in ("ann@x.test", "nobody@x.test"):
        with unit_of_work() as s:
            before = _rows(s)
            auth.mail_link(s, addr)
            after = _rows(s)
        seen.append(tuple(b - a for a, b in zip(before, after)))
    assert seen == [(1, 1, 0), (1, 1, 0)]  # one link, one mail, and no account made for a stranger's address
    with unit_of_work() as s:
        kinds = {t.email: (t.purpose, t.user_id is None) for t in s.exec(select(LoginToken))}
    assert kinds == {"ann@x.test": ("login", False), "nobody@x.test": ("signup", True)}


def test_an_account_is_made_by_the_link_with_the_name_its_opener_chooses(any_cfg):
    with unit_of_work() as s:  # a squatter types Ann's address: no account, no name held
        token = auth.mail_link(s, "ann@x.test")
        assert _rows(s)[2] == 0
    with unit_of_work() as s:
        _user(s, "ben@x.test", "Ben")
    with pytest.raises(UserError) as e, unit_of_work() as s:  # the owner opens it; a taken name is asked again
        auth.redeem(s, token, "ben")
    assert e.value.code == "name_taken"
    with unit_of_work() as s:
        assert auth.peek(s, token) is not None  # not spent
        u = auth.redeem(s, token, "Ann")
        assert (u.email, u.name, u.confirmed) == ("ann@x.test", "Ann", True)


def test_an_unconfirmed_account_from_before_gets_its_name_from_its_owner(any_cfg):
    with unit_of_work() as s:  # made by the old sign-up form, with a name typed by whoever typed the address
        s.add(User(email="ann@x.test", name="Squatter", confirmed=False))
    with unit_of_work() as s:
        token = auth.mail_link(s, "ann@x.test")
        assert auth.needs_name(s, auth.peek(s, token))
        u = auth.redeem(s, token, "Ann")
        assert (u.name, u.confirmed) == ("Ann", True)


# ---------------------------------------------------------------- invitations


@pytest.fixture
def table(any_cfg):
    with unit_of_work() as s:
        ann, ben, eve = _user(s, "ann@x.test", "Ann"), _user(s, "ben@x.test", "Ben"), _user(s, "eve@x.test", "Eve")
        g = tables.create(s, ann, "mini", 3, {"hand": "3"}, seed=1)
        tables.join(s, ben, g.id)
        return g.id, ann.id, ben.id, eve.id


def _invite(uid, gid, addr):
    with unit_of_work() as s:
        return invites.invite(s, s.get(User, uid) if uid else None, gid, addr, link="http://site/games/1").email


def _invitations():
    with unit_of_work() as s:
        return s.exec(select(func.count()).select_from(Invitation)).one(), \
            s.exec(select(func.count()).select_from(Outbound)).one()


def test_invitations_have_limits_and_each_refusal_changes_nothing(table):
    gid, ann, ben, eve = table
    assert _invite(ben, gid, "Friend@Example.org") == "friend@example.org"
    with unit_of_work() as s:
        mail = s.exec(select(Outbound).where(Outbound.to_addr == "friend@example.org")).one()
    assert mail.subject == f"pbem: an invitation to play Mini (test game) (game #{gid})"
    cases = [(eve, "x@example.org", "invite_not_a_player"), (None, "x@example.org", "invite_login"),
             (ann, "friend@example.org", "invited"), (ann, "FRIEND@example.org", "invited"),
             (ann, "not an address", "bad_email"), (ann, "a@b", "bad_email"), (ann, "a..b@example.org", "bad_email")]
    for uid, addr, code in cases:
        before = _invitations()
        with pytest.raises(UserError) as e:
            _invite(uid, gid, addr)
        assert e.value.code == code, (addr, e.value.code)
        assert _invitations() == before
    # one address, three a day, whoever invites
    with unit_of_work() as s:
        others = [tables.create(s, s.get(User, ann), "mini", 2, {"hand": "3"}, seed=n).id for n in range(3)]
    _invite(ann, others[0], "friend@example.org")
    _invite(ann, others[1], "friend@example.org")
    with pytest.raises(UserError) as e:
        _invite(ann, others[2], "friend@example.org")
    assert e.value.code == "address_invited_enough" and "3 invitations in the last day" in e.value.message
    # one inviter, ten an hour (two sent above)
    for n in range(invites.PER_INVITER_HOUR - 2):
        _invite(ann, gid, f"p{n}@example.org")
    before = _invitations()
    with pytest.raises(UserError) as e:
        _invite(ann, gid, "late@example.org")
    assert e.value.code == "too_many_invites" and _invitations() == before
    assert _invite(ben, gid, "late@example.org")  # another inviter still may


def test_admins_and_the_creator_invite_players_who_resigned_do_not(table):
    gid, ann, ben, eve = table
    with unit_of_work() as s:
        root = _user(s, "root@x.test", "Root")
        root.is_admin = True
        s.add(root)
        tables.leave(s, s.get(User, ben), gid)
    assert _invite(root.id, gid, "a@example.org") and _invite(ann, gid, "b@example.org")
    with pytest.raises(UserError) as e:
        _invite(ben, gid, "c@example.org")
    assert e.value.code == "invite_not_a_player"  # leaving before the start frees the seat
