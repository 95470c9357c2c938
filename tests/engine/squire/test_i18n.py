"""Squire in English, Russian, Bulgarian and Italian: every text a player reads is
translated, English stays byte for byte, the seeds' Russian names appear, and the notation
aliases of each language mean exactly what the English notation means."""
from __future__ import annotations

import functools
import random
import re
import xml.etree.ElementTree as ET

import pytest

from pbem.engine.base import IllegalMoveError, MoveError, MoveSyntaxError, NotYourTurnError
from pbem.engine.i18n import language
from pbem.engine.squire import GAME
from pbem.engine.squire.data import load
from pbem.engine.squire.i18n import ALIASES, NAMES
from pbem.engine.squire.notation import VERBS
from pbem.engine.squire.rules import ACCEPT, MOVE, SWAP

LANGS = ("en", "ru", "bg", "it")

# a phrase each language's board, help and drawing must show, and the English it replaces
MARKERS = {
    "text": {"en": "MARKET        types", "ru": "РЫНОК         типы", "bg": "ПАЗАР         видове",
             "it": "MERCATO       tipi"},
    "html": {"en": ">Regions</th>", "ru": ">Регионы</th>", "bg": ">Региони</th>", "it": ">Regioni</th>"},
    "svg": {"en": "Market: price = type + region", "ru": "Рынок: цена = тип + регион",
            "bg": "Пазар: цена = вид + регион", "it": "Mercato: prezzo = tipo + regione"},
    "help": {"en": "One decision per line", "ru": "Одно решение в строке", "bg": "По едно решение на ред",
             "it": "Una decisione per riga"},
    "reference": {"en": "Squire notation (one decision per line", "ru": "Нотация «Сквайра»",
                  "bg": "Нотация на „Скуайър“", "it": "Notazione di Squire"},
    "not_your_turn": {"en": "it is not your turn", "ru": "сейчас не ваш ход", "bg": "не е ваш ред",
                      "it": "non è il tuo turno"},
    "syntax": {"en": "is not a Squire move", "ru": "не ход «Сквайра»", "bg": "не е ход в „Скуайър“",
               "it": "non è una mossa di Squire"},
    "card": {"en": "Offer, played with your own buy or sell", "ru": "Предложение, разыгрывается",
             "bg": "Оферта, играе се", "it": "Offerta, giocata con"},
}


def _play(seed: int, n: int, side: str, stop) -> object:
    st = GAME.initial_state(n, seed, {"side": side})
    rng = random.Random(seed)
    for _ in range(3000):
        if stop(st):
            return st
        tm = sorted(GAME.to_move(st))
        if not tm:
            return st
        seat = tm[0]
        st = GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
    raise AssertionError("position not reached")


@functools.lru_cache(maxsize=None)
def positions() -> dict:
    out = {
        "start": GAME.initial_state(3, 7, {"side": "british"}),
        "mid": _play(11, 3, "world", lambda s: s.phase == MOVE and s.turn >= 6),
        "over": _play(5, 2, "world", lambda s: GAME.outcome(s) is not None),
    }
    for seed in range(1, 40):  # a pending choice: an exhibition's commission (accept) or swap
        try:
            out["pending"] = _play(seed, 4, "british", lambda s: s.phase in (ACCEPT, SWAP))
            break
        except AssertionError:
            continue
    assert "pending" in out
    return out


def _seat(st) -> int:
    tm = sorted(GAME.to_move(st))
    return tm[0] if tm else 0


def _other(st) -> int:
    tm = GAME.to_move(st)
    return next(s for s in range(st.n) if s not in tm) if len(tm) < st.n else None


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["start", "mid", "pending", "over"])
def test_every_output_in_the_language(lang, name):
    st = positions()[name]
    seat = _seat(st)
    with language(lang):
        for viewer in (seat, None):
            v = GAME.view(st, viewer)
            text, html, svg = GAME.render_text(v), GAME.render_html(v), GAME.draw_svg(v)
            ET.fromstring(svg)  # valid XML
            assert MARKERS["text"][lang] in text
            assert MARKERS["html"][lang] in html
            assert MARKERS["svg"][lang] in svg
            if lang != "en":
                assert MARKERS["text"]["en"] not in text
                assert MARKERS["svg"]["en"] not in svg
        ET.fromstring(GAME.draw_svg(GAME.view(st, seat), [GAME.format_move(st, seat, m)
                                                          for m in GAME.legal_moves(st, seat)]))
        help_ = GAME.notation_help(st, seat)
        key = "help" if GAME.to_move(st) else "reference"
        assert MARKERS[key][lang] in help_
        if lang != "en":
            assert MARKERS[key]["en"] not in help_
        for m in GAME.legal_moves(st, seat) if GAME.to_move(st) else ():
            d, e = GAME.describe_move(st, seat, m), GAME.explain_move(st, seat, m)
            assert d and e
            with language("en"):
                d_en, e_en = GAME.describe_move(st, seat, m), GAME.explain_move(st, seat, m)
            if lang != "en":
                assert d != d_en and e != e_en, (m, d)
        if GAME.outcome(st) is not None:
            with pytest.raises(MoveError) as exc:
                GAME.parse_move(st, 0, "buy")
            assert exc.value.code == "game_over"
            return
        with pytest.raises(MoveSyntaxError) as exc:
            GAME.parse_move(st, seat, "frobnicate")
        assert MARKERS["syntax"][lang] in str(exc.value)
        assert exc.value.examples  # the examples stay the notation
        other = _other(st)
        if other is not None:
            with pytest.raises(NotYourTurnError) as exc:
                GAME.parse_move(st, other, "move london")
            assert MARKERS["not_your_turn"][lang] in str(exc.value)
        with pytest.raises(IllegalMoveError) as exc:
            GAME.parse_move(st, seat, "swap M07 for M28" if st.phase != SWAP else "board fox")
        with language("en"):
            try:
                GAME.parse_move(st, seat, "swap M07 for M28" if st.phase != SWAP else "board fox")
            except IllegalMoveError as en:
                if lang != "en":
                    assert str(en) != str(exc.value)


@pytest.mark.parametrize("lang", LANGS)
def test_cards_status_and_options(lang):
    with language(lang):
        cards = GAME.cards()
        assert cards
        text = "\n".join(f"{c.name} {c.kind} {c.text}" for c in cards)
        assert MARKERS["card"][lang] in text
        if lang != "en":
            assert MARKERS["card"]["en"] not in text
            assert "message card" not in {c.kind for c in cards}
        st = positions()["mid"]
        status = GAME.view(st, None)["status"]
        assert status.startswith({"en": "Turn ", "ru": "Ход ", "bg": "Ход ", "it": "Turno "}[lang])
    # cached per language: English again is English
    assert GAME.cards()[0].kind == "message card"


def test_english_unchanged_and_views_neutral():
    st = positions()["mid"]
    v_en = GAME.view(st, 0)
    with language("ru"):
        v_ru = GAME.view(st, 0)
        dv = GAME.decision_view(st, _seat(st))
    assert {k: x for k, x in v_en.items() if k != "status"} == {k: x for k, x in v_ru.items() if k != "status"}
    assert v_ru["status"] != v_en["status"]
    with language("en"):
        assert dv == GAME.decision_view(st, _seat(st))
    over = positions()["over"]
    with language("it"):
        out = GAME.outcome(over)
    assert out == GAME.outcome(over)  # the outcome is data: notes and breakdown keys stay English
    with language("bg"):
        assert GAME.format_move(st, _seat(st), GAME.legal_moves(st, _seat(st))[0]) == \
            GAME.format_move(st, _seat(st), GAME.legal_moves(st, _seat(st))[0])
        assert [GAME.format_move(st, _seat(st), m) for m in GAME.legal_moves(st, _seat(st))][0].split()[0] in VERBS


def test_seed_names_in_russian():
    rows = NAMES.table()
    assert rows["city:tokyo"]["ru"] == "Токио"
    assert rows["city:samarkand"]["ru"] == "Самарканд"
    assert rows["city:rio_de_janeiro"]["ru"] == "Рио-де-Жанейро"
    assert rows["character:sir_fox"]["ru"] == "Сэр Лис"
    assert rows["character:sir_badger"]["ru"] == "Сэр Барсук"
    # the seeds give no Squire names in Bulgarian or Italian: ours, and every cell is filled
    assert all(r["bg"] and r["it"] for r in rows.values())
    assert rows["city:london"]["bg"] == "Лондон" and rows["city:london"]["it"] == "Londra"
    assert rows["character:sir_eagle"]["ru"] == "Сэр Орёл" and rows["character:lady_fox"]["it"] == "Lady Volpe"
    d = load(())
    for side in ("british", "world"):
        for cid in d.boards[side].city_ids:
            assert f"city:{cid}" in rows
    st = positions()["mid"]  # the world side
    with language("ru"):
        text = GAME.render_text(GAME.view(st, None)) + GAME.draw_svg(GAME.view(st, None))
        cards = "\n".join(f"{c.name} {c.text}" for c in GAME.cards())
    for name in ("Токио", "Самарканд", "Рио-де-Жанейро", "Карта мира"):
        assert name in text
    for name in ("Токио", "Самарканд", "Рио-де-Жанейро", "Сэр Лис", "Сэр Барсук", "Картина", "Скульптура"):
        assert name in cards
    with language("en"):
        assert "Tokyo" in GAME.render_text(GAME.view(st, None)) and "Токио" not in GAME.render_text(GAME.view(st, None))


# ---------------------------------------------------------------- aliases


def _outcome(st, seat, text):
    try:
        return ("ok", GAME.format_move(st, seat, GAME.parse_move(st, seat, text)))
    except MoveError as exc:
        return ("refused", exc.code)


@functools.lru_cache(maxsize=None)
def _samples() -> list:
    """(state, seat, English notation) over many positions: every legal move's format, plus a few
    forms format_move never writes (payments)."""
    out = []
    for seed, n, side in ((3, 3, "british"), (4, 2, "world"), (8, 4, "world"), (9, 4, "british")):
        st = GAME.initial_state(n, seed, {"side": side})
        rng = random.Random(seed)
        for _ in range(600):
            tm = sorted(GAME.to_move(st))
            if not tm:
                break
            seat = tm[0]
            legal = GAME.legal_moves(st, seat)
            for m in legal[:40]:
                t = GAME.format_move(st, seat, m)
                out.append((st, seat, t))
                if m.kind == "move":
                    out.append((st, seat, t + " pay royal 1 regular 1 free 0"))
            if len(out) % 5 == 0:  # forms rarely legal: a 3rd-floor pick, a rare book
                out += [(st, seat, "take sculpture-11 cell F1C3"), (st, seat, "take rare_book-06 cell F1C1"),
                        (st, seat, "exhibit rare_book")]
            st = GAME.apply(st, seat, rng.choice(legal))
    return out


def _find(canonical: str):
    pats = {canonical, canonical.replace("_", " ")}
    for st, seat, text in _samples():
        for p in pats:
            m = re.search(r"(?<![\w])" + re.escape(p) + r"(?![\w])", text, re.I)
            if m:
                return st, seat, text, m
    return None


@pytest.mark.parametrize("lang", ["ru", "bg", "it"])
def test_every_alias_means_its_notation(lang):
    missing = []
    for alias, canonical in ALIASES.table[lang].items():
        hit = _find(canonical)
        if hit is None:
            missing.append(alias)
            continue
        st, seat, text, m = hit
        written = text[:m.start()] + alias + text[m.end():]
        assert _outcome(st, seat, written) == _outcome(st, seat, text), (alias, text, written)
        assert _outcome(st, seat, written.upper()) == _outcome(st, seat, text), (alias, written.upper())
    assert not missing, missing


def test_aliases_clash_with_nothing():
    assert ALIASES.clashes() == []
    d = load(())
    english = set(VERBS) | {"none", "for", "always", "never", "forever", "pay", "royal", "regular", "free",
                            "take", "cell", "in", "to", "offers", "accept"}
    english |= {t.lower() for t in d.type_ids} | {n.lower() for n in d.type_names}
    english |= {p.id for p in d.player_boards} | {c.lower() for p in d.player_boards for c in p.characters}
    for side in ("british", "world"):
        english |= {c.lower() for c in d.boards[side].city_ids} | {c.lower() for c in d.boards[side].city_names}
    for lang, table in ALIASES.table.items():
        for alias in table:
            assert alias.casefold() not in english, alias
    # the English notation is never rewritten: no legal move's text holds an alias word
    for st, seat, text in _samples()[::7]:
        assert ALIASES.to_canonical(text) == (text, None), text


def test_alias_words_begin_a_move_line():
    for w in ("купить", "продать", "перемещение", "купи", "продай", "compra", "vendi", "muovi"):
        assert w in GAME.notation_words
    assert "на" not in GAME.notation_words and "per" not in GAME.notation_words  # not verbs: never a move line


def test_refusal_to_russian_words_answers_in_russian_words():
    st = positions()["mid"]
    seat = _seat(st)
    assert st.phase == MOVE
    with language("ru"):
        with pytest.raises(IllegalMoveError) as exc:
            GAME.parse_move(st, seat, "купить")  # a buy before the move
    e = exc.value
    assert e.text == "купить"
    assert "сначала перемещение" in str(e)
    assert e.examples and all(x.startswith("перемещение ") for x in e.examples), e.examples
    with pytest.raises(IllegalMoveError) as exc:
        GAME.parse_move(st, seat, "buy")
    assert all(x.startswith("move ") for x in exc.value.examples)
    # a move written in Russian words is the same move
    legal = [GAME.format_move(st, seat, m) for m in GAME.legal_moves(st, seat)]
    path = legal[0].split(" ", 1)[1]
    m = GAME.parse_move(st, seat, "перемещение " + path)
    assert GAME.format_move(st, seat, m) == legal[0]
    st0 = positions()["start"]
    m = GAME.parse_move(st0, 0, "планшет сэр лис")
    assert GAME.format_move(st0, 0, m) == 'board fox "Sir Fox"'
    m = GAME.parse_move(st0, 0, "Планшет Барсук")
    assert GAME.format_move(st0, 0, m) == 'board badger "Sir Badger"'
