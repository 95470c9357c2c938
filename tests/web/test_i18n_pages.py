"""The site in its four languages: every page renders in English,
Russian, Bulgarian and Italian, by the user's language and by the visitor's
Accept-Language, with the right ``lang``; the language menu and the
profile's select choose and persist; a sign-up takes the browser's
language; dates are written in the reader's zone and language."""
from __future__ import annotations

import re
from html import unescape
from datetime import datetime, timezone

import pytest
from babel import dates
from sqlmodel import select

from pbem import i18n
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.web import pages
from tests.web.conftest import last_link, make_user

LANGS = ("en", "ru", "bg", "it")
# the header's first link, on every page, and a word of each page's own, in each language
LOBBY = {"en": "Lobby", "ru": "Лобби", "bg": "Фоайе", "it": "Sala d'attesa"}
PHRASES = {
    "home": {"en": "Slow board games", "ru": "Неспешные настольные игры", "bg": "Бавни настолни игри",
             "it": "Giochi da tavolo lenti"},
    "lobby": {"en": "Open games", "ru": "Открытые игры", "bg": "Отворени игри", "it": "Partite aperte"},
    "rules": {"en": "The rules in short", "ru": "Правила вкратце", "bg": "Правилата накратко",
              "it": "Le regole in breve"},
    "cards": {"en": "Find a card", "ru": "Найти карту", "bg": "Намери карта", "it": "Trova una carta"},
    "login": {"en": "Mail me a login link", "ru": "Прислать ссылку для входа", "bg": "Изпрати ми връзка за вход",
              "it": "Mandami un link di accesso"},
    "signup": {"en": "Send me the link", "ru": "Прислать ссылку", "bg": "Изпрати ми връзката",
               "it": "Mandami il link"},
    "profile": {"en": "Your profile", "ru": "Ваш профиль", "bg": "Вашият профил", "it": "Il tuo profilo"},
    "dashboard": {"en": "whose turn", "ru": "чей ход", "bg": "чий ход", "it": "a chi tocca"},
    "game": {"en": "Game thread", "ru": "Обсуждение игры", "bg": "Нишка на играта",
             "it": "Discussione della partita"},
    "history": {"en": "the game move by move", "ru": "игра ход за ходом", "bg": "играта ход по ход",
                "it": "la partita mossa per mossa"},
    "manage": {"en": "Table talk", "ru": "Разговор за столом", "bg": "Разговор на масата",
               "it": "Chiacchiere al tavolo"},
    "admin": {"en": "Admin console", "ru": "Консоль администратора", "bg": "Администраторска конзола",
              "it": "Console di amministrazione"},
    "admin_game": {"en": "Move log", "ru": "Журнал ходов", "bg": "Дневник на ходовете",
                   "it": "Registro delle mosse"},
    "admin_inbound": {"en": "Raw message", "ru": "Исходное письмо", "bg": "Необработено писмо",
                      "it": "Messaggio originale"},
    "disputes": {"en": "Settled", "ru": "Решённые", "bg": "Решени", "it": "Risolte"},
    "dispute": {"en": "Resolve", "ru": "Решить", "bg": "Реши", "it": "Risolvi"},
    "outbox": {"en": "newest first", "ru": "сначала новые", "bg": "първо най-новите", "it": "prima la più recente"},
    "outbox_message": {"en": "Plain text", "ru": "Простой текст", "bg": "Обикновен текст", "it": "Testo semplice"},
    "404": {"en": "There is no such page", "ru": "Такой страницы нет", "bg": "Няма такава страница",
            "it": "Questa pagina non esiste"},
    "400": {"en": "Nothing was changed", "ru": "Ничего не изменено", "bg": "Нищо не е променено",
            "it": "Non è stato cambiato nulla"},
    "403": {"en": "administrators only", "ru": "только администраторам", "bg": "само за администратори",
            "it": "riservata agli amministratori"},
}


def _lang_of(html: str) -> str:
    m = re.search(r'<html lang="([^"]+)">', html)
    assert m, "no lang attribute"
    return m.group(1)


def _check(r, lang: str, phrase_key: str, status: int = 200, url: str = ""):
    html = unescape(r.get_data(as_text=True))
    assert r.status_code == status, (url, lang, r.status_code)
    assert _lang_of(html) == lang, (url, lang)
    assert r.headers["Content-Language"] == lang, url
    assert LOBBY[lang] in html.split("</header>")[0], (url, lang)
    want = PHRASES[phrase_key][lang]
    assert want in html, (url, lang, want)


def _set_language(uid: int, lang: str, tz: str = "UTC") -> None:
    with unit_of_work() as s:
        u = s.get(User, uid)
        u.language, u.timezone = lang, tz
        s.add(u)


def _two_player_game(a: int, b: int, name: str) -> int:
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, a), name, 2, {}, seed=5)
        tables.join(s, s.get(User, b), g.id)
        return g.id


@pytest.fixture
def site(app):
    built = pages.build()
    others = {"squire": _two_player_game(built.anna, built.boris, "squire"),
              "iaww": _two_player_game(built.anna, built.boris, "iaww")}
    with unit_of_work() as s:
        assert all(s.get(Game, gid).status == "running" for gid in others.values())
    return built, {"spyrium": built.game, **others}


def _as(web, uid: int):
    b = web()
    b.login_as(uid)
    return b


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_in_the_users_language(web, site, lang):
    s, running = site
    for uid in (s.anna, s.boris, s.cleo, s.admin):
        _set_language(uid, lang)
    anna, cleo, admin = _as(web, s.anna), _as(web, s.cleo), _as(web, s.admin)
    for url, key, who in (
        ("/", "home", anna), ("/lobby", "lobby", anna), ("/me", "dashboard", anna), ("/profile", "profile", anna),
        ("/rules/spyrium", "rules", anna), ("/rules/squire", "rules", anna), ("/rules/iaww", "rules", anna),
        ("/rules/spyrium/cards", "cards", anna), ("/outbox", "outbox", anna),
        (f"/outbox/{s.mail}", "outbox_message", anna),
        (f"/games/{s.finished}", "game", anna), (f"/games/{s.finished}/history", "history", anna),
        (f"/games/{s.game}/manage", "manage", anna), (f"/games/{s.game}/manage", "manage", cleo),
        ("/admin", "admin", admin), (f"/admin/games/{s.game}", "admin_game", admin),
        (f"/admin/games/{s.game}?ply=2", "admin_game", admin),
        (f"/admin/inbound/{s.inbound}", "admin_inbound", admin), ("/admin/disputes", "disputes", admin),
        (f"/admin/disputes/{s.open_dispute}", "dispute", admin),
        (f"/admin/disputes/{s.settled_dispute}", "admin_game", admin),
        ("/no-such-page", "404", anna), (f"/games/{s.game}/board?ply=abc", "400", anna),
        ("/admin", "403", anna),
    ):
        status = {"404": 404, "400": 400, "403": 403}.get(key, 200)
        _check(who.get(url), lang, key, status, url)
    # a game page of each game, as a player (Anna, Boris) and as an observer (Cleo)
    for name, gid in running.items():
        for who in (anna, _as(web, s.boris), cleo):
            _check(who.get(f"/games/{gid}"), lang, "game", 200, f"{name} {gid}")
        _check(anna.get(f"/games/{gid}/history"), lang, "history", 200, name)


@pytest.mark.parametrize("lang", LANGS)
def test_visitors_pages_follow_accept_language(web, site, lang):
    s, running = site
    header = {"en": "en-GB,en;q=0.9", "ru": "ru-RU,ru;q=0.9,en;q=0.5", "bg": "bg,en;q=0.3",
              "it": "it-IT;q=0.9,de;q=0.8"}[lang]
    visitor = web()
    for url, key, status in (("/", "home", 200), ("/lobby", "lobby", 200), ("/login", "login", 200),
                             ("/signup", "signup", 200), ("/rules/squire", "rules", 200),
                             ("/rules/iaww/cards", "cards", 200), (f"/games/{running['iaww']}", "game", 200),
                             (f"/games/{s.finished}/history", "history", 200), ("/nowhere", "404", 404)):
        _check(visitor.get(url, headers={"Accept-Language": header}), lang, key, status, url)
    # a page for logged-in users sends a visitor to log in, in the visitor's language
    r = visitor.get("/me", headers={"Accept-Language": header}, follow_redirects=True)
    _check(r, lang, "login", 200, "/me")


def test_an_unknown_accept_language_is_english(web):
    r = web().get("/", headers={"Accept-Language": "de-DE,fr;q=0.8"})
    assert _lang_of(r.get_data(as_text=True)) == "en" and r.headers["Content-Language"] == "en"
    assert "Accept-Language" in r.headers["Vary"]


def test_the_language_menu_for_a_visitor_is_a_cookie(web):
    b = web()
    html = b.get("/lobby").get_data(as_text=True)
    assert 'id="language-menu"' in html and 'lang="ru"' in html and "Български" in html and "Italiano" in html
    r = b.post("/language", {"language": "bg", "next": "/lobby"}, page="/lobby")
    assert r.status_code == 303 and r.headers["Location"].endswith("/lobby")
    assert "pbem_lang=bg" in r.headers["Set-Cookie"]
    _check(b.get("/lobby"), "bg", "lobby")
    # the choice outweighs the browser's header, and stays until changed again
    _check(b.get("/", headers={"Accept-Language": "it"}), "bg", "home")
    b.post("/language", {"language": "it", "next": "/"}, page="/")
    _check(b.get("/"), "it", "home")
    # not a language of the site: refused, nothing changed; a foreign next is not followed
    r = b.post("/language", {"language": "xx", "next": "https://evil.example/"}, page="/")
    assert r.status_code == 303 and r.headers["Location"] == "/"
    _check(b.get("/"), "it", "home")
    # without the form's token it is refused like every form
    assert b.post("/language", {"language": "ru"}, csrf=False).status_code == 400


def test_the_language_menu_and_the_profile_set_a_users_language(web):
    uid = make_user("ann@example.org", "Ann")
    b = _as(web, uid)
    r = b.post("/language", {"language": "ru", "next": "/profile"}, page="/profile")
    assert r.status_code == 303
    with unit_of_work() as s:
        u = s.get(User, uid)
        assert (u.language, u.language_chosen) == ("ru", True)
    # the user's language outweighs a cookie and the browser, in a new browser too
    other = _as(web, uid)
    page = other.get("/profile", headers={"Accept-Language": "it"})
    _check(page, "ru", "profile")
    assert re.search(r'<option value="ru" lang="ru" selected>Русский</option>', page.get_data(as_text=True))
    # the profile's select: the saved page and its flash already speak the new language
    r = other.post("/profile", {"name": "Ann", "language": "bg", "mail_format": "html", "notify": "every",
                                "timezone": "UTC"}, page="/profile", follow_redirects=True)
    _check(r, "bg", "profile")
    assert "Профилът е запазен." in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert s.get(User, uid).language == "bg"
    # an unknown language is refused with the services' answer, nothing saved
    r = other.post("/profile", {"name": "Ann", "language": "xx", "mail_format": "html", "notify": "every",
                                "timezone": "UTC"}, page="/profile")
    assert r.status_code == 400
    with unit_of_work() as s:
        assert s.get(User, uid).language == "bg"


def test_a_sign_up_takes_the_browsers_language(web):
    b = web()
    bg = {"Accept-Language": "bg-BG,bg;q=0.9,en;q=0.5"}
    r = b.client.post("/signup", data={"email": "ivan@example.org", "csrf_token": b.token("/signup")}, headers=bg)
    assert r.status_code == 200 and "Проверете пощата си" in r.get_data(as_text=True)
    path = "/" + last_link("ivan@example.org").split("/", 3)[3]
    r = b.client.post(path, data={"name": "Иван", "csrf_token": b.token(path)}, headers=bg)
    assert r.status_code == 302
    with unit_of_work() as s:
        u = s.exec(select(User).where(User.email == "ivan@example.org")).one()
        assert (u.language, u.language_chosen) == ("bg", False)
    # from now on the account's language, whatever the browser says
    r = b.get("/me", headers={"Accept-Language": "en"})
    assert _lang_of(r.get_data(as_text=True)) == "bg"
    assert "Добре дошли, Иван! Влязохте." in r.get_data(as_text=True)


@pytest.mark.parametrize("lang", LANGS)
def test_dates_in_the_readers_zone_and_language(web, lang):
    admin = make_user("ada@example.org", "Ada", admin=True)
    _set_language(admin, lang, "Europe/Moscow")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, admin), "mini", 2, {"hand": "1"})
        g.updated_at = datetime(2026, 11, 25, 14, 5, tzinfo=timezone.utc)
        s.add(g)
    html = _as(web, admin).get("/admin").get_data(as_text=True)
    day = dates.format_skeleton("yMMMd", datetime(2026, 11, 25), locale=lang)
    hour = dates.format_skeleton("Hm", datetime(2026, 11, 25, 17, 5), locale=lang)
    assert day in html and hour in html and "MSK" in html, (lang, day, hour)
    assert "14:05" not in html  # the reader's zone, not UTC
    if lang != "en":
        assert "Nov" not in html


def test_web_examples_whatever_the_word_for_eg():
    from pbem.web.wording import web_text

    with i18n.use("en"):
        assert web_text("no such game\n  e.g. STATUS 2") == "no such game (see the game's page)"
    with i18n.use("ru"):
        assert web_text("нет такой игры\n  напр. STATUS 2") == "нет такой игры (см. страницу игры)"
        assert web_text("слишком длинно\n  например: SAY 3: привет") == "слишком длинно (например привет)"
    with i18n.use("it"):
        assert web_text("nessuna partita\n  ad es. JOIN 4") == (
            "nessuna partita (usa il pulsante Unisciti nella sala d'attesa)")
    with i18n.use("bg"):
        assert web_text("текст без пример") == "текст без пример"


def test_the_rules_page_shows_the_notation_in_the_pages_language(web, tmp_path, monkeypatch):
    from pbem.web import public

    (tmp_path / "docs" / "notation" / "ru").mkdir(parents=True)
    (tmp_path / "docs" / "notation" / "squire.md").write_text("# Squire\n\nEnglish notation: `move Oxford`\n")
    (tmp_path / "docs" / "notation" / "ru" / "squire.md").write_text("# Сквайр\n\nРусская нотация: `move Oxford`\n")
    monkeypatch.setattr(public, "NOTATION", tmp_path / "docs" / "notation")
    b = web()
    ru = b.get("/rules/squire", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Русская нотация" in ru and "English notation" not in ru
    for lang in ("en", "bg", "it"):  # no file of their own: the English one
        page = b.get("/rules/squire", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert "English notation" in page and "Русская нотация" not in page, lang
    # the summary is the translated one
    assert "Ход состоит из пяти шагов" in ru


def test_the_game_page_speaks_the_language_to_its_script(web, site):
    s, running = site
    _set_language(s.anna, "it")
    html = _as(web, s.anna).get(f"/games/{s.game}").get_data(as_text=True)
    words = re.search(r"data-words='([^']*)'", html).group(1)
    import json

    assert json.loads(words)["Sending this will:"] == "Inviandola succederà questo:"
    assert "Mosse legali" in html or "Nessun altro" in html or "Non tocca a te" in html


def test_status_words_and_lists_keep_english_as_it_was():
    from flask import Flask

    from pbem.web import wording

    with Flask(__name__).test_request_context():
        assert wording.and_list(["Ann", "Ben", "Cleo"]) == "Ann and Ben and Cleo"
        assert wording.status_word("running") == "running"
        with i18n.use("ru"):
            assert wording.status_word("running") == "идёт" and wording.status_word("weird") == "weird"
            assert wording.and_list(["Анна", "Борис"]) == "Анна и Борис"


@pytest.mark.parametrize("lang", LANGS)
def test_the_link_pages_and_an_open_game_in_every_language(web, lang):
    """The pages a mailed link opens, and a game waiting for players, render in each language."""
    from pbem.services.identity import auth as auth_service

    words = {"auth": {"en": "Make my account", "ru": "Создать мой аккаунт", "bg": "Създай профила ми",
                      "it": "Crea il mio account"},
             "dead": {"en": "This link does not work", "ru": "Эта ссылка не работает", "bg": "Тази връзка не работи",
                      "it": "Questo link non funziona"},
             "open": {"en": "Waiting for players (1 / 2)", "ru": "Набор игроков (1 / 2)",
                      "bg": "Чакат се играчи (1 / 2)", "it": "Si aspettano giocatori (1 / 2)"}}
    header = {"Accept-Language": lang}
    with unit_of_work() as s:
        token = auth_service.mail_link(s, f"new-{lang}@example.org")
    b = web()
    for url, key, status in ((f"/auth/{token}", "auth", 200), ("/auth/unknown-token-123", "dead", 400),
                             ("/confirm/unknown-token-123", "dead", 404),
                             ("/unsubscribe/not-a-token-of-ours", "dead", 404)):
        r = b.get(url, headers=header)
        html = unescape(r.get_data(as_text=True))
        assert r.status_code == status and _lang_of(html) == lang, (url, r.status_code)
        assert words[key][lang] in html, (url, lang)
    ann = make_user("ann@example.org", "Ann")
    with unit_of_work() as s:
        gid = tables.create(s, s.get(User, ann), "spyrium", 2, {}).id
    for who in (b, _as(web, ann)):
        if who is not b:
            _set_language(ann, lang)
        html = unescape(who.get(f"/games/{gid}", headers=header).get_data(as_text=True))
        assert _lang_of(html) == lang and words["open"][lang] in html, lang
