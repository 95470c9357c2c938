"""Absence across all games. AWAY <from> <to> by mail, with the
days written the ways players write them, read in the player's own time
zone (TIMEZONE by mail), applied to every game within each game's
allowance, each table told; AWAY alone and AWAY CANCEL; the profile's form
does the same. Every refusal says what was wrong and changes nothing."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from sqlmodel import select

from pbem.services.turns import vacations
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Seat, User, Vacation
from tests.mailtools import CMD, outbox, process, seat_addr, start_game
from tests.web.conftest import Browser

TODAY = date(2026, 11, 28)


@pytest.mark.parametrize("words,span", [
    ("2026-12-20 2026-12-27", ((2026, 12, 20), (2026, 12, 27))),
    ("20.12.2026 27.12.2026", ((2026, 12, 20), (2026, 12, 27))),
    ("20.12.2026-27.12.2026", ((2026, 12, 20), (2026, 12, 27))),
    ("20.12. - 3.1.", ((2026, 12, 20), (2027, 1, 3))),  # no year: the next such days, the last after the first
    ("20.12.26 27.12.26", ((2026, 12, 20), (2026, 12, 27))),
    ("20/12/2026 to 27/12/2026", ((2026, 12, 20), (2026, 12, 27))),
    ("12/20/2026 12/27/2026", ((2026, 12, 20), (2026, 12, 27))),  # month first: it cannot be read the other way
    ("20 December 2026 to 27 December 2026", ((2026, 12, 20), (2026, 12, 27))),
    ("December 20 - December 27", ((2026, 12, 20), (2026, 12, 27))),
    ("20 - 27 December", ((2026, 12, 20), (2026, 12, 27))),
    ("с 20 по 27 декабря", ((2026, 12, 20), (2026, 12, 27))),
    ("20 декември 2026 - 5 януари 2027", ((2026, 12, 20), (2027, 1, 5))),
    ("dal 20 al 27 dicembre 2026", ((2026, 12, 20), (2026, 12, 27))),
    ("3 feb", ((2027, 2, 3), (2027, 2, 3))),  # one day alone; February has passed this year
    ("28.11.2026", ((2026, 11, 28), (2026, 11, 28))),  # today itself
])
def test_days_as_players_write_them(words, span):
    first, last = vacations.parse_span(words.split(), TODAY)
    assert (first, last) == (date(*span[0]), date(*span[1]))


@pytest.mark.parametrize("words,said", [
    ("03/04/2026 05/04/2026", "could be read two ways"),
    ("31.02.2026 1.3.2026", "is not a day pbem can read"),
    ("tomorrow 2026-12-27", "is not a day pbem can read"),
    ("2026-12 2027-01", "is not a day pbem can read"),
    ("1.12.2026 2.12.2026 3.12.2026", "AWAY takes two days"),
])
def test_days_it_cannot_read_are_refused_with_an_example(words, said):
    with pytest.raises(UserError) as e:
        vacations.parse_span(words.split(), TODAY)
    assert said in e.value.describe() and "AWAY 20.12.2026 27.12.2026" in e.value.describe()


def _vacations(email: str) -> list[tuple[int, date, date]]:
    with unit_of_work() as s:
        uid = s.exec(select(User.id).where(User.email == email)).one()
        return sorted((v.game_id, v.starts_on, v.ends_on) for v in s.exec(select(Vacation).where(
            Vacation.user_id == uid)))


def _deadline(gid: int, email: str):
    with unit_of_work() as s:
        uid = s.exec(select(User.id).where(User.email == email)).one()
        return s.exec(select(Seat).where(Seat.game_id == gid, Seat.user_id == uid)).one().deadline_at


def test_away_by_mail_pauses_every_game_and_tells_each_table(sqlite_cfg):
    g1 = start_game(2)
    g2 = start_game(2)  # Ann and P1 again, a second game
    soon = date.today() + timedelta(days=2)
    before = {g: _deadline(g, "ann@x.test") for g in (g1, g2)}
    told = len(outbox("p1@x.test"))
    process("ann@x.test", CMD, f"AWAY {soon:%d.%m.%Y} {soon + timedelta(days=2):%d.%m.%Y}")
    answer = outbox("ann@x.test")[-1].body_text
    assert f"your clock pauses on those days in #{g1}, #{g2}" in answer and "each table is told" in answer
    assert _vacations("ann@x.test") == [(g1, soon, soon + timedelta(days=2)), (g2, soon, soon + timedelta(days=2))]
    for g in (g1, g2):  # a clock running now moves by the days paused
        if before[g] is not None:
            assert _deadline(g, "ann@x.test") > before[g]
    news = [m.body_text for m in outbox("p1@x.test")[told:]]
    assert sum("Ann is away from" in t for t in news) == 2  # each table told, once
    # AWAY alone lists them; AWAY CANCEL withdraws them, the clocks go back, the tables are told
    process("ann@x.test", CMD, "AWAY")
    assert f"#{g1}, #{g2}" in outbox("ann@x.test")[-1].body_text
    process("ann@x.test", CMD, "AWAY CANCEL")
    assert "2 absences withdrawn" in outbox("ann@x.test")[-1].body_text
    assert _vacations("ann@x.test") == []
    for g in (g1, g2):
        assert _deadline(g, "ann@x.test") == before[g]
    assert any("will not be away" in m.body_text for m in outbox("p1@x.test"))


def test_each_game_keeps_its_own_allowance(sqlite_cfg):
    g1 = start_game(2)
    allowance = sqlite_cfg.vacation_days
    first = date.today() + timedelta(days=1)
    with unit_of_work() as s:  # game 1's allowance spent already
        ann = s.exec(select(User).where(User.email == "ann@x.test")).one()
        s.add(Vacation(user_id=ann.id, game_id=g1, starts_on=first + timedelta(days=60),
                       ends_on=first + timedelta(days=59 + allowance)))
    g2 = start_game(2)
    process("ann@x.test", CMD, f"AWAY {first} {first + timedelta(days=1)}")
    answer = outbox("ann@x.test")[-1].body_text
    assert f"in #{g2}" in answer and f"not in #{g1}: game #{g1} allows {allowance} vacation days" in answer
    assert [v[0] for v in _vacations("ann@x.test")] == [g1, g2]  # the spent one, and g2's new one
    # when no game takes it, nothing is stored and the answer says why
    process("p1@x.test", CMD, f"AWAY {first} {first + timedelta(days=allowance + 1)}")
    refused = outbox("p1@x.test")[-1].body_text
    assert f"allows {allowance} vacation days" in refused and "AWAY 20.12.2026 27.12.2026" in refused
    assert _vacations("p1@x.test") == []


def test_bad_absences_change_nothing(sqlite_cfg):
    start_game(2)
    for words, said in [("AWAY 27.12.2099 20.12.2099", "the last day comes before the first"),
                        ("AWAY 1.1.2020 2.1.2020", "that absence is over already"),
                        ("AWAY sometime soon", "is not a day pbem can read"),
                        ("AWAY CANCEL", "you have no absence still to come")]:
        process("ann@x.test", CMD, words)
        assert said in outbox("ann@x.test")[-1].body_text, words
    assert _vacations("ann@x.test") == []
    process("zed@x.test", CMD, "REGISTER Zed")
    process("zed@x.test", CMD, "AWAY 20.12.2099 27.12.2099")
    assert "no open or running games" in outbox("zed@x.test")[-1].body_text


def test_away_is_talk_when_it_does_not_name_days(sqlite_cfg):
    gid = start_game(2)
    with unit_of_work() as s:
        seat = s.exec(select(Seat).join(User, User.id == Seat.user_id).where(
            Seat.game_id == gid, User.email == "ann@x.test")).one().seat
    process("ann@x.test", seat_addr(gid, seat), "Away from home until Monday, sorry!")
    assert _vacations("ann@x.test") == []
    assert not any("AWAY needs" in m.body_text or "not a day" in m.body_text for m in outbox("ann@x.test"))


def test_timezone_by_mail_and_today_in_it(sqlite_cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "TIMEZONE Europe/Sofia")
    assert "your time zone is now Europe/Sofia" in outbox("ann@x.test")[-1].body_text
    process("ann@x.test", CMD, "TIMEZONE new york")  # a city alone, in any case
    assert "your time zone is now America/New_York" in outbox("ann@x.test")[-1].body_text
    process("ann@x.test", CMD, "TIMEZONE Europe/Sofya")
    said = outbox("ann@x.test")[-1].body_text
    assert "is not a time zone pbem knows; did you mean Europe/Sofia" in said and "TIMEZONE Europe/Sofia" in said
    process("ann@x.test", CMD, "TIMEZONE")
    assert "your time zone is America/New_York" in outbox("ann@x.test")[-1].body_text
    with unit_of_work() as s:
        ann = s.exec(select(User).where(User.email == "ann@x.test")).one()
        assert ann.timezone == "America/New_York"
        # 02:00 UTC on the 28th is still the 27th in New York, already the 28th in Sofia
        at = datetime(2026, 11, 28, 2, 0, tzinfo=timezone.utc)
        assert vacations.local_today(ann, at) == date(2026, 11, 27)
        ann.timezone = "Europe/Sofia"
        assert vacations.local_today(ann, at) == date(2026, 11, 28)


def test_the_profiles_absence_is_the_same_across_games(sqlite_cfg):
    from pbem.web import create_app

    g1, g2 = start_game(2), start_game(2)
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    b = Browser(app)
    with unit_of_work() as s:
        ann = s.exec(select(User.id).where(User.email == "ann@x.test")).one()
    b.login_as(ann)
    d0 = date.today() + timedelta(days=3)
    b.post("/profile/vacation", {"starts_on": str(d0), "ends_on": str(d0 + timedelta(days=1))}, page="/profile")
    html = b.get("/profile").get_data(as_text=True)
    assert f"#{g1}, #{g2}; each table is told" in html
    assert [v[0] for v in _vacations("ann@x.test")] == [g1, g2]
