"""Each mail in its recipient's language: a table of four players
who speak English, Russian, Bulgarian and Italian gets four board mails, each
in its reader's language (the services' sentences, the engine's board, the
dates in the reader's zone); reminders, digests, invitations, login links and
refusals likewise; English stays as it always was."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from pbem import i18n
from pbem.engine import register_game
from pbem.services.core import accounts, games, lang, moves, notify, seating
from pbem.services.follow import messages
from pbem.services.identity import auth
from pbem.services.lobby import invites, tables
from pbem.services.core.errors import NotFound, UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, User
from tests.mailtools import after_marker
from tests.minigame import MiniGame

# the board's own word in each language: the engine renders the board in the language it is asked in
BOARD_WORD = {"en": "Board", "ru": "Поле", "bg": "Дъска", "it": "Tabellone"}


class PolyglotGame(MiniGame):
    """The test game, with a board that speaks the current language (as the real engines' boards do)."""

    name = "polyglot"
    title = "Polyglot (test game)"
    aliases = ()

    def render_text(self, view):
        return f"{BOARD_WORD[i18n.current()]}:\n" + super().render_text(view)

    def render_html(self, view):
        return f"<p>{BOARD_WORD[i18n.current()]}</p>" + super().render_html(view)


register_game(PolyglotGame())

PEOPLE = [("ann@x.test", "Ann", "en", "Europe/London"), ("boris@x.test", "Boris", "ru", "Europe/Moscow"),
          ("vera@x.test", "Vera", "bg", "Europe/Sofia"), ("marco@x.test", "Marco", "it", "Europe/Rome")]
# a phrase of each language that a board mail to a player who is not to move holds: its greeting
GREETING = {"en": "Dear {name},", "ru": "Здравствуйте, {name}!", "bg": "Здравейте, {name},", "it": "Ciao {name},"}
PLAYED = {"en": "Ann played: ", "ru": "Ann сходил(а): ", "bg": "Ann изигра: ", "it": "Ann ha giocato: "}
FOOTER = {"en": "Reply to this mail", "ru": "Ответьте на это письмо", "bg": "Отговорете на това писмо",
          "it": "Rispondi a questa mail"}


def _table(s, game="polyglot"):
    users = []
    for email, name, code, tz in PEOPLE:
        u = accounts.register(s, email, name, confirmed=True, language=code)[0]
        u.timezone = tz
        s.add(u)
        users.append(u)
    s.flush()
    g = tables.create(s, users[0], game, 4, {"hand": "3"}, seed=7)
    for u in users[1:]:
        tables.join(s, u, g.id)
    return games.get(s, g.id), users


def _mails(s, since: int = 0, **where) -> dict[str, Outbound]:
    rows = s.exec(select(Outbound).where(Outbound.id > since).order_by(Outbound.id)).all()
    return {r.to_addr: r for r in rows if all(getattr(r, k) == v for k, v in where.items())}


def _flat(text: str) -> str:
    """The text with its lines joined (the text part is wrapped)."""
    return " ".join(text.split())


def _last(s) -> int:
    return s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0


def test_one_move_four_board_mails_four_languages(sqlite_cfg):
    with unit_of_work() as s:
        g, users = _table(s)
        since = _last(s)
        state = games.state_at(s, g)
        res = moves.submit_moves(s, g.id, 0, [f"play {state.hands[0][0]}"], source="web")
        assert res.ok
        g = games.get(s, g.id)
        # one move, a board to each of the four seats (the mover's own too), each in its reader's language
        assert notify.queue_boards(s, g, notify.played_headline("Ann", res.applied[0].notation)) == 4
        mails = _mails(s, since, kind="board")
    assert len(mails) == 4
    for (email, name, code, _tz) in PEOPLE:
        m = mails[email]
        assert m.headers["Content-Language"] == code
        for body in (m.body_text, m.body_html):
            assert GREETING[code].format(name=name) in body
            assert PLAYED[code] in body
            assert FOOTER[code] in body
            assert BOARD_WORD[code] in body  # the engine's board, rendered in the reader's language
        for other in {"ru", "bg", "it"} - {code}:  # nothing of another reader's language leaks in
            assert FOOTER[other] not in m.body_text and BOARD_WORD[other] + ":" not in m.body_text
    # Boris (Russian) is to move: his summary says so in Russian, with the deadline in his zone
    boris = _flat(mails["boris@x.test"].body_text)
    assert "Ваш ход. Ann сходил(а): play" in boris
    assert "Ваш ход нужно сделать до" in boris and "(Europe/Moscow)" in boris
    assert "На каждый ход даётся 48 часов;" in boris  # Russian plural form for 48
    # English as it always was
    ann = _flat(mails["ann@x.test"].body_text)
    assert "Dear Ann," in ann and "Each move has 48 hours; when a deadline passes, the table is told" in ann
    assert "Game #1 at ply 1. Reply to this mail" in ann


def test_reminder_dates_in_the_readers_zone_and_language(sqlite_cfg):
    due = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)  # a Wednesday
    want = {"en": ("Reminder: your move is due Wed 09:00.", "Wed 02 Dec 2026 09:00 (Europe/London)"),
            "ru": ("Напоминание: ваш ход нужно сделать до ср 12:00 MSK.", "ср, 2 дек. 2026, 12:00 MSK (Europe/Moscow)"),
            "bg": ("Напомняне: трябва да изиграете хода си до ср 11:00 EET.", "2 дек 2026, 11:00"),
            "it": ("Promemoria: la tua mossa scade mer 10:00 CET.", "mer, 2 dic 2026, 10:00")}
    with unit_of_work() as s:
        g, users = _table(s)
        since = _last(s)
        for seat in seating.seats(s, g.id):
            notify.queue_reminder(s, g, seat, due)
        mails = _mails(s, since, kind="notice")
    for (email, _name, code, _tz) in PEOPLE:
        m = mails[email]
        assert m.headers["Content-Language"] == code
        summary, when = want[code]
        assert summary in _flat(m.body_text)
        assert when in _flat(m.body_text) and when in m.body_html


def test_digest_in_each_readers_language(sqlite_cfg):
    with unit_of_work() as s:
        g, users = _table(s)
        for u in users:
            u.notify = "digest"
            s.add(u)
        messages.say(s, users[0], g, "good luck, everyone!")
        since = _last(s)
        assert messages.send_digests(s, datetime.now(timezone.utc) + timedelta(minutes=1)) == 4
        mails = _mails(s, since)
    title = {"en": "Your games today", "ru": "Ваши партии за сегодня", "bg": "Вашите игри днес",
             "it": "Le tue partite di oggi"}
    line = {"en": "Game #1 (Polyglot (test game)), ply 0:", "ru": "Партия №1 («Polyglot (test game)»), полуход 0:",
            "bg": "Игра №1 („Polyglot (test game)“), полуход 0:", "it": "Partita #1 (Polyglot (test game)), semimossa 0:"}
    subject = {"en": "pbem: your daily digest", "ru": "pbem: ваша ежедневная сводка",
               "bg": "pbem: вашият дневен обзор", "it": "pbem: il tuo riepilogo quotidiano"}
    for (email, _name, code, _tz) in PEOPLE:
        m = mails[email]
        assert m.headers["Content-Language"] == code
        assert m.subject == subject[code] and title[code] in m.body_html
        assert GREETING[code].format(name=_name) in m.body_text
        assert line[code] in _flat(m.body_text)
        assert BOARD_WORD[code] + ":" in m.body_text
        assert "Ann: good luck, everyone!" in m.body_text  # what a person wrote is never translated


def test_invitations_in_the_invitees_language_else_the_inviters(sqlite_cfg):
    with unit_of_work() as s:
        users = [accounts.register(s, e, n, confirmed=True, language=c)[0] for e, n, c, _tz in PEOPLE]
        g = tables.create(s, users[2], "polyglot", 4, seed=1)  # Vera (Bulgarian) invites
        since = _last(s)
        invites.invite(s, users[2], g.id, "boris@x.test", link="https://pbem.test/games/1")
        invites.invite(s, users[2], g.id, "stranger@x.test", link="https://pbem.test/games/1")
        mails = _mails(s, since)
    boris, stranger = mails["boris@x.test"], mails["stranger@x.test"]
    assert boris.headers["Content-Language"] == "ru"
    assert boris.subject == "pbem: приглашение сыграть в «Polyglot (test game)» (партия №1)"
    assert "Vera, игрок партии №1 в pbem, приглашает вас" in _flat(boris.body_text)
    assert "JOIN 1" in boris.body_text  # the command word stays as it is
    assert stranger.headers["Content-Language"] == "bg"
    assert "Vera, играч в игра №1 в pbem, ви кани" in _flat(stranger.body_text)
    assert "Vera, играч в игра №1 в pbem, ви кани" in stranger.body_html


def test_login_links_in_the_accounts_language(sqlite_cfg):
    with unit_of_work() as s:
        for e, n, c, _tz in PEOPLE:
            accounts.register(s, e, n, confirmed=True, language=c)
        since = _last(s)
        for e, *_rest in PEOPLE:
            auth.mail_link(s, e)
        with i18n.use("it"):  # an address without an account: the language of the page that asked
            auth.mail_link(s, "nuovo@x.test")
        mails = _mails(s, since, kind="login")
    want = {"ann@x.test": ("en", "pbem: your login link", "Open this link to log in to pbem:"),
            "boris@x.test": ("ru", "pbem: ваша ссылка для входа", "Откройте эту ссылку, чтобы войти в pbem:"),
            "vera@x.test": ("bg", "pbem: вашата връзка за вход", "Отворете тази връзка, за да влезете в pbem:"),
            "marco@x.test": ("it", "pbem: il tuo link di accesso", "Apri questo link per accedere a pbem:"),
            "nuovo@x.test": ("it", "pbem: il tuo link di registrazione", "Apri questo link per creare il tuo")}
    for email, (code, subject, phrase) in want.items():
        m = mails[email]
        assert m.headers["Content-Language"] == code and m.subject == subject
        assert phrase in _flat(m.body_text) and phrase in m.body_html


@pytest.mark.parametrize("code, words, eg", [
    ("en", "there is no game #999", "e.g."), ("ru", "партии №999 нет", "напр."),
    ("bg", "няма игра №999", "напр."), ("it", "non esiste la partita #999", "es.")])
def test_refusals_in_the_senders_language(sqlite_cfg, code, words, eg):
    with unit_of_work() as s, i18n.use(code):
        with pytest.raises(NotFound) as e:
            games.get(s, 999)
        # the shape stays: the message, then two spaces, one word and the example (a command, never translated)
        assert e.value.describe() == f"{words}\n  {eg} GAMES"


def test_user_errors_fill_their_values_in_every_language(sqlite_cfg):
    with unit_of_work() as s:
        g, users = _table(s)  # four seats taken: the game runs
        for code, phrase in (("en", "game #1 is not open for joining (it is running)"),
                             ("ru", "партия №1 закрыта для присоединения (она идёт)"),
                             ("bg", "игра №1 не е отворена за присъединяване (тя е в ход)"),
                             ("it", "la partita #1 non è aperta a nuovi giocatori (è in corso)")):
            with i18n.use(code), pytest.raises(UserError) as e:
                tables.join(s, users[1], g.id)
            assert e.value.message == phrase


def test_english_is_unchanged_and_dates_are_the_old_ones():
    when = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)
    with i18n.use("en"):
        assert lang.when(when, "Europe/Moscow") == "Wed 02 Dec 2026 12:00"
        assert lang.when(when, "UTC", short=True) == "Wed 09:00"
        assert lang.day(when.date()) == "2026-12-02"
    with i18n.use("ru"):
        assert lang.when(when, "Europe/Moscow") == "ср, 2 дек. 2026, 12:00 MSK"
    assert lang.of(None) == "en" and lang.of(User(email="a@x.test", name="A", language="bg")) == "bg"


def test_notices_told_in_each_readers_language_and_stored_in_english(sqlite_cfg):
    from datetime import date

    from pbem.services.turns import vacations
    from pbem.store.models import Post

    with unit_of_work() as s:
        g, users = _table(s)
        since = _last(s)
        vacations.declare(s, users[0], g, date(2026, 12, 20), date(2026, 12, 27), date(2026, 12, 1))
        mails = _mails(s, since, kind="notice")
        posts = [p.body for p in s.exec(select(Post).where(Post.game_id == g.id, Post.kind == "notice"))]
    assert set(mails) == {"boris@x.test", "vera@x.test", "marco@x.test"}  # the others are told
    want = {"ru": ("Отпуск", "Ann отсутствует с 20 дек. 2026 г. по 27 дек. 2026 г."),
            "bg": ("Отпуск", "Ann отсъства от 20.12.2026 г. до 27.12.2026 г."),
            "it": ("Vacanza", "Ann è assente dal 20 dic 2026 al 27 dic 2026")}
    for (email, _name, code, _tz) in PEOPLE[1:]:
        m = mails[email]
        summary, phrase = want[code]
        assert m.headers["Content-Language"] == code
        assert after_marker(m.body_text).startswith(summary) and phrase in _flat(m.body_text), m.body_text
    # the thread keeps the English record
    assert posts == ["Ann is away from 2026-12-20 to 2026-12-27; their clock pauses on those days."]


def test_an_observer_reads_the_public_board_in_their_own_language(sqlite_cfg):
    with unit_of_work() as s:
        g, users = _table(s)
        watcher = accounts.register(s, "guarda@x.test", "Giulia", confirmed=True, language="it")[0]
        assert messages.observe(s, watcher, g)
        since = _last(s)
        notify.queue_boards(s, g, notify.played_headline("Ann", "wait"))
        mails = _mails(s, since, kind="board")
    m = mails["guarda@x.test"]
    assert m.headers["Content-Language"] == "it"
    text = _flat(m.body_text)
    assert "Ciao Giulia," in text and "Ann ha giocato: wait" in text and "Tabellone:" in text
    assert "Stai osservando la partita #1. Invia UNOBSERVE 1 o STOP" in text
    assert mails["boris@x.test"].headers["Content-Language"] == "ru"  # the table keeps its own languages
