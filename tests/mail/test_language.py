"""Mail in the players' languages: the LANGUAGE command, the
first mail's language, refusals and receipts in the sender's language, the
mail templates in every language, and replies quoted by Russian, Bulgarian
and Italian mail clients read correctly."""
from __future__ import annotations

from email.message import EmailMessage

import pytest
from sqlmodel import select

from pbem import i18n
from pbem.mail.pipeline import Result
from pbem.mail.quotes import strip_reply
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Outbound, User
from pbem.store.outbox import MARKER, render_html, render_text
from tests import mailclients as mc
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, PATIENCE, after_marker, mail, outbox, process, seat_addr, start_game, store_inbound, wait_for

# what each language's receipts say, and their heading (templates/mail/message.txt)
ERROR = {"en": "ERROR", "ru": "ОШИБКА", "bg": "ГРЕШКА", "it": "ERRORE"}
RESULTS = {"en": "Results for your mail:", "ru": "Итоги вашего письма:", "bg": "Резултати от писмото ви:",
           "it": "Esito della tua mail:"}
NOW = {"ru": "теперь ваш язык — Русский", "bg": "езикът ви вече е Български", "it": "ora la tua lingua è Italiano",
       "en": "your language is now English"}


def user(email: str) -> User:
    with unit_of_work() as s:
        return s.exec(select(User).where(User.email == email)).one()


def last_reply(to: str) -> Outbound:
    return [o for o in outbox(to) if o.kind == "reply"][-1]


def raw_mail(frm: str, body: str, *, charset: str = "utf-8", content_language: str | None = None,
             subject: str = "hello") -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, CMD, subject
    m["Message-ID"] = f"<lang.{abs(hash((frm, body, charset)))}@client.test>"
    m.set_content(body, charset=charset, cte="8bit" if charset != "utf-8" else None)
    if content_language:  # after set_content, which drops the Content-* headers
        m["Content-Language"] = content_language
    return m.as_bytes()


# ------------------------------------------------------------------ LANGUAGE, over SMTP and the worker


def test_language_command_through_the_receiver_and_the_worker(sqlite_cfg):
    from pbem import config, tasks

    cfg = sqlite_cfg.with_(smtpd_rate_per_ip=0, smtpd_rate_per_sender=0)
    config.set_settings(cfg)
    tasks.configure(cfg)
    ann = "ann@x.test"
    sent = 0

    def send(body: str) -> Outbound:
        nonlocal sent
        assert send_mail(cfg, mail(ann, CMD, body), ann, CMD) == 250
        sent += 1
        wait_for(lambda: len([r for r in _inbound() if r.status == "done"]) == sent, timeout=PATIENCE)
        wait_for(lambda: len([o for o in outbox(ann) if o.kind == "reply"]) == sent, timeout=PATIENCE)
        return last_reply(ann)

    with smtp_receiver(cfg), celery_worker(cfg):
        first = send("REGISTER Ann")
        assert first.headers["Content-Language"] == "en" and "welcome, Ann" in first.body_text
        assert user(ann).language == "en" and not user(ann).language_chosen
        for line, code in (("LANGUAGE ru", "ru"), ("language Italiano", "it"), ("LANGUAGE български", "bg"),
                           ("Language RUSSIAN", "ru"), ("LANGUAGE it", "it"), ("LANGUAGE English", "en")):
            answer = send(line)
            assert answer.headers["Content-Language"] == code, (line, answer.headers)
            assert NOW[code] in answer.body_text, (line, answer.body_text)
            assert RESULTS[code] in answer.body_text and NOW[code] in answer.body_html
            assert user(ann).language == code and user(ann).language_chosen
        send("LANGUAGE bg")
        alone = send("LANGUAGE")  # the current one and the list, in it
        assert alone.headers["Content-Language"] == "bg"
        assert "езикът ви е bg (Български)" in alone.body_text
        assert "en (English), ru (Русский), bg (Български), it (Italiano)" in alone.body_text
        bad = send("LANGUAGE klingon")  # refused with the list and an example, in the language still set
        assert bad.headers["Content-Language"] == "bg" and ERROR["bg"] in bad.body_text
        assert "klingon" in bad.body_text and "LANGUAGE ru" in bad.body_text and "Italiano" in bad.body_text
        assert user(ann).language == "bg"
        helped = send("HELP")  # the help in Bulgarian, with LANGUAGE in it; command words stay English
        assert "Команди (по една на ред" in helped.body_text and "LANGUAGE [en|ru|bg|it]" in helped.body_text
        assert "REGISTER <име>" in helped.body_text


def _inbound() -> list[Inbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Inbound)))


# ------------------------------------------------------------------ the first mail's language


@pytest.mark.parametrize("charset, content_language, expected", [
    ("utf-8", "it", "it"), ("utf-8", "bg-BG", "bg"), ("utf-8", "ru-RU, en;q=0.5", "ru"),
    ("koi8-r", None, "ru"), ("windows-1251", None, "ru"), ("utf-8", None, "en"), ("utf-8", "de", "en"),
])
def test_an_account_made_by_mail_takes_the_mails_language(sqlite_cfg, charset, content_language, expected):
    frm = "vera@x.test"
    iid = store_inbound(raw_mail(frm, "REGISTER Вера\nпривет", charset=charset, content_language=content_language),
                        CMD, frm)
    from pbem.mail import pipeline

    assert pipeline.process_inbound(iid) == "done"
    u = user(frm)
    assert u.name == "Вера" and u.language == expected and not u.language_chosen
    answer = last_reply(frm)
    assert answer.headers["Content-Language"] == expected
    assert RESULTS[expected] in answer.body_text


def test_the_first_mail_of_a_web_account_sets_its_language_and_no_later_mail_does(sqlite_cfg):
    from pbem.mail import pipeline
    from pbem.services.core import accounts
    from pbem.store.db import unit_of_work

    frm = "ivan@x.test"
    with unit_of_work() as s:  # made on the web (an English browser), never written from yet
        accounts.register(s, frm, "Ivan", confirmed=True, language="en")
    # the first mail comes from a Russian Thunderbird (Content-Language ru, KOI8-R): Russian it is
    iid = store_inbound(raw_mail(frm, "GAMES", charset="koi8-r", content_language="ru"), CMD, frm)
    assert pipeline.process_inbound(iid) == "done"
    assert user(frm).language == "ru" and not user(frm).language_chosen
    assert last_reply(frm).headers["Content-Language"] == "ru" and RESULTS["ru"] in last_reply(frm).body_text
    # a later mail from another client (a phone set to Italian) changes nothing: only the first mail guesses
    orig = mc.Original.from_outbound(last_reply(frm), CMD)
    raw = mc.thunderbird(orig, mc.Player("Ivan", frm), mc.Answer(["GAMES"]), loc="it", style="top")
    assert pipeline.process_inbound(store_inbound(raw, CMD, frm)) == "done"
    iid = store_inbound(raw_mail(frm, "GAMES", content_language="it", subject="again"), CMD, frm)
    assert pipeline.process_inbound(iid) == "done"
    assert user(frm).language == "ru" and last_reply(frm).headers["Content-Language"] == "ru"
    process(frm, CMD, "LANGUAGE it")  # chosen: no mail's language changes it again
    iid = store_inbound(raw_mail(frm, "HELP", content_language="bg", subject="once more"), CMD, frm)
    assert pipeline.process_inbound(iid) == "done"
    assert user(frm).language == "it" and user(frm).language_chosen
    assert last_reply(frm).headers["Content-Language"] == "it"


def test_a_later_mail_of_an_account_made_by_mail_keeps_its_language(sqlite_cfg):
    from pbem.mail import pipeline

    frm = "olga@x.test"
    process(frm, CMD, "REGISTER Olga")  # an English mail made the account: English
    assert user(frm).language == "en"
    iid = store_inbound(raw_mail(frm, "GAMES", charset="windows-1251", content_language="ru"), CMD, frm)
    assert pipeline.process_inbound(iid) == "done"
    assert user(frm).language == "en" and last_reply(frm).headers["Content-Language"] == "en"


def test_an_unknown_sender_is_answered_in_the_mails_language(sqlite_cfg):
    from pbem.mail import pipeline

    iid = store_inbound(raw_mail("nobody@x.test", "GAMES", content_language="ru"), CMD, "nobody@x.test")
    assert pipeline.process_inbound(iid) == "done"
    answer = last_reply("nobody@x.test")
    assert answer.headers["Content-Language"] == "ru"
    assert "pbem не знает адрес nobody@x.test" in answer.body_text and "REGISTER <ваше имя>" in answer.body_text


# ------------------------------------------------------------------ refusals in the player's language


@pytest.mark.parametrize("lang", ["en", "ru", "bg", "it"])
def test_a_refused_move_is_answered_in_the_players_language(sqlite_cfg, lang):
    from pbem.services.core import accounts

    gid = start_game(2)
    with unit_of_work() as s:
        accounts.set_language(s, accounts.find_user(s, "ann@x.test"), lang)
    process("ann@x.test", seat_addr(gid, 0), "play 99")  # no such card in the hand
    answer = last_reply("ann@x.test")
    assert answer.headers["Content-Language"] == lang
    assert f"> play 99\n  {ERROR[lang]}: " in answer.body_text, answer.body_text
    assert RESULTS[lang] in answer.body_text and ERROR[lang] in answer.body_html
    summary = after_marker(answer.body_text).splitlines()[0]
    assert summary == {"en": "Results of your mail: 1 error.", "ru": "Итоги вашего письма: 1 ошибка.",
                       "bg": "Резултати от писмото ви: 1 грешка.", "it": "Esito della tua mail: 1 errore."}[lang]
    # the move notation stays English in every language: the stored result too
    with unit_of_work() as s:
        row = s.exec(select(Inbound).order_by(Inbound.id.desc())).first()
    assert row.result.startswith("ERROR: play 99")


# ------------------------------------------------------------------ the templates in every language


FULL = dict(summary="S", title="T", greeting="G", paragraphs=["P"], not_applied=["x"], ignored="2 lines",
            ignored_lines=["hi"], since_lines=["Bob played: pass"], record_lines=["1. pass"], deadline_text="D",
            board_text="B", board_html="<p>B</p>", board_title="BT", help_text="H", footer="F")
HEADINGS = {
    "en": ("Since your last move:", "The whole game, move by move:", "Not applied (after the error above):"),
    "ru": ("С вашего последнего хода:", "Вся партия, ход за ходом:", "Не применено (после ошибки выше):"),
    "bg": ("След последния ви ход:", "Цялата игра, ход по ход:", "Не е приложено (след грешката по-горе):"),
    "it": ("Dalla tua ultima mossa:", "L'intera partita, mossa per mossa:", "Non applicate (dopo l'errore sopra):"),
}


@pytest.mark.parametrize("lang", ["en", "ru", "bg", "it"])
def test_the_mail_templates_render_in_every_language(lang):
    ctx = dict(FULL, results=[Result("pass", "OK", "ply 3"), Result("play 9", "ERROR", "no"),
                              Result("wait", "NOT APPLIED", "later")])
    with i18n.use(lang):
        text, html = render_text(ctx), render_html(ctx)
    # the marker first, the same in every language, and the summary under it
    assert text.splitlines()[0] == MARKER and text.splitlines()[2] == "S" and MARKER in html
    assert html.index(MARKER) < html.index(">S<")
    for heading in HEADINGS[lang] + (RESULTS[lang], f"{ERROR[lang]}: no"):
        assert heading in text, (lang, heading)
    assert "=== pbem board === BT ===" in text  # quotes.py finds our board by it
    import html as htmllib

    shown = htmllib.unescape(html)
    assert all(h in shown for h in HEADINGS[lang][:2]) and ERROR[lang] in shown
    for marker in ("{%", "{{", "%("):
        assert marker not in text and marker not in html
    if lang != "en":
        assert "Since your last move" not in text and "not applied" not in html


def test_english_rendering_is_unchanged():
    ctx = dict(FULL, results=[Result("pass", "OK", "ply 3")])
    text = render_text(ctx)
    assert "Results for your mail:\n\n> pass\n  OK: ply 3\n" in text
    assert "\nNot applied (after the error above):\n> x\n" in text and "\nIgnored: 2 lines\n" in text
    assert "Not read as moves or commands (talk, greetings, signatures):\n  | hi\n" in text


# ------------------------------------------------------------------ quoted replies in ru, bg, it


QUOTED = "> ##- pbem: please type your reply above this line -##\n> Dear Ann,\n> Your move."


@pytest.mark.parametrize("attribution", [
    "пн, 25 нояб. 2026 г. в 10:15, pbem <game-1.abcdef@pbem.test>:",  # Gmail, Russian
    "На пн, 25.11.2026 в 10:15 pbem написа:",  # Thunderbird, Bulgarian
    "На пн, 25.11.2026 г. в 10:15 ч. pbem <game-1.abcdef@pbem.test> написа:",  # Gmail, Bulgarian
    "Il giorno lun 25 nov 2026 alle ore 10:15 pbem <game-1.abcdef@pbem.test> ha scritto:",  # Gmail, Italian
    "Il 25/11/26 10:15, pbem ha scritto:",  # Thunderbird, Italian
    "25 нояб. 2026 г., в 10:15, pbem <game-1.abcdef@pbem.test> написал(а):",  # Apple Mail, Russian
    "25.11.2026 10:15, pbem пишет:",  # Thunderbird, Russian
    "Понедельник, 25 ноября 2026, 10:15 +03:00 от pbem <game-1.abcdef@pbem.test>:",  # Mail.ru
])
@pytest.mark.parametrize("style", ["top", "bottom"])
def test_attribution_lines_of_russian_bulgarian_and_italian_clients(attribution, style):
    if style == "top":  # the quote unmarked after the attribution: reading ends there
        text = f"pass\n\n{attribution}\n\nDear Ann,\nYour move.\n"
    else:
        text = f"{attribution}\n{QUOTED}\n\npass\n"
    assert strip_reply(text).text == "pass"


@pytest.mark.parametrize("block", [
    "От: pbem <game-1.abcdef@pbem.test>\nОтправлено: 25 ноября 2026 г. 10:15\nКому: ann@x.test\nТема: Re: Spyrium",
    "Da: pbem <game-1.abcdef@pbem.test>\nInviato: mercoledì 25 novembre 2026 10:15\nA: ann@x.test\n"
    "Oggetto: Re: Spyrium",
    "От: pbem <game-1.abcdef@pbem.test>\nИзпратено: сряда, 25 ноември 2026 г. 10:15\nДо: ann@x.test\n"
    "Относно: Re: Spyrium",
    "-----Исходное сообщение-----\nОт: pbem",
    "-----Messaggio originale-----\nDa: pbem",
    "-----Оригинално съобщение-----\nОт: pbem",
])
def test_outlook_header_blocks_of_russian_bulgarian_and_italian(block):
    text = f"pass\nРад играть\n\n________________________________\n{block}\n\nDear Ann,\nYour move.\n"
    assert strip_reply(text).text == "pass\nРад играть"
    assert strip_reply(f"pass\n\n{block}\n\nDear Ann,\nplay 5\n").text == "pass"


@pytest.mark.parametrize("client, loc", [("gmail", "ru"), ("gmail", "bg"), ("gmail", "it"), ("outlook_text", "ru"),
                                         ("outlook_text", "it"), ("thunderbird", "ru"), ("thunderbird", "it"),
                                         ("apple", "ru"), ("apple", "it")])
def test_replies_of_real_clients_to_a_board_in_the_players_language(sqlite_cfg, client, loc):
    """A board mail pbem really sent in the player's language, answered as
    the client writes it in that language: the move is read, the quote not."""
    from pbem.mail import pipeline
    from pbem.services.core import accounts

    gid = start_game(2)
    with unit_of_work() as s:
        accounts.set_language(s, accounts.find_user(s, "p1@x.test"), loc)
    process("ann@x.test", seat_addr(gid, 0), "wait")  # P1's turn: its board, in its language
    board = [o for o in outbox("p1@x.test") if o.game_id == gid and o.headers.get("Reply-To", "").startswith("game-")]
    board = board[-1]
    assert board.headers["Content-Language"] == loc
    orig = mc.Original.from_outbound(board, CMD)
    builder = getattr(mc, client)
    kw = {"style": "top"} if client in ("gmail", "thunderbird", "apple") else {}
    raw = builder(orig, mc.Player("P1", "p1@x.test"), mc.Answer(["wait"]), loc=loc, **kw)
    before = len(outbox("p1@x.test"))
    iid = store_inbound(raw, board.headers["Reply-To"], "p1@x.test")
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        row = s.get(Inbound, iid)
    assert row.result.lower().startswith("ok: wait") and "ERROR" not in row.result, row.result  # (phones: "Wait")
    receipt = [o for o in outbox("p1@x.test")[before:] if o.kind == "reply"][-1]
    assert receipt.headers["Content-Language"] == loc


# ------------------------------------------------------------------ the mail catalog


def test_new_with_words_that_are_not_options_is_refused_in_the_senders_language(sqlite_cfg):
    from pbem.services.core import accounts

    process("ann@x.test", CMD, "REGISTER Ann")
    with unit_of_work() as s:
        accounts.set_language(s, accounts.find_user(s, "ann@x.test"), "ru")
    process("ann@x.test", CMD, "NEW spyrium 3 players")
    answer = last_reply("ann@x.test")
    assert "параметры пишутся как ключ=значение; может быть, вы имели в виду players=3? Ничего не создано" \
        in answer.body_text, answer.body_text
    assert "NEW spyrium players=3" in answer.body_text  # the example: the command, never translated


STARTED = {"en": "Game #%d has started: ", "ru": "Партия #%d началась: ", "bg": "Игра #%d започна: ",
           "it": "La partita #%d è iniziata: "}


def test_a_game_started_by_mail_is_announced_in_each_readers_language(sqlite_cfg):
    """The headline a mail's command makes for the whole table (a game started, a move made) is a lazy
    string: each player's board mail writes it in that player's language (once the services write
    each board in its reader's language: pbem.services.core.lang)."""
    import importlib.util

    from pbem.mail import pipeline
    from pbem.store.models import Game

    people = {"en": "ann@x.test", "ru": "boris@x.test", "bg": "vesela@x.test", "it": "giulia@x.test"}
    for lang, frm in people.items():
        iid = store_inbound(raw_mail(frm, f"REGISTER {frm.split('@')[0].title()}", content_language=lang,
                                     subject=f"hello {lang}"), CMD, frm)
        assert pipeline.process_inbound(iid) == "done"
    process(people["en"], CMD, "NEW mini players=4")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id)).first()
    for lang in ("ru", "bg", "it"):
        process(people[lang], CMD, f"JOIN {gid}")
    per_reader = importlib.util.find_spec("pbem.services.core.lang") is not None
    for lang, frm in people.items():
        boards = [o for o in outbox(frm) if o.game_id == gid and o.kind != "reply"]
        assert boards and all(o.headers["Content-Language"] == lang for o in boards), lang
        if per_reader or lang == "it":  # (the last to join: its receipt's language made the headline)
            assert any(STARTED[lang] % gid in after_marker(o.body_text).splitlines()[0] for o in boards), \
                (lang, [after_marker(o.body_text).splitlines()[0] for o in boards])
