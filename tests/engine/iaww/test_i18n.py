"""It's a Wonderful World in English, Russian, Bulgarian and Italian:
boards, drawings, help, moves in words, card texts and refusals in each
language; the Bulgarian rulebook's card names; the notation's aliases; the
catalogs complete. English stays byte-identical (the golden files say so)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pbem.engine.base import IllegalMoveError, MoveError, MoveSyntaxError, NotYourTurnError
from pbem.engine.i18n import language
from pbem.engine.iaww.data import CARDS
from pbem.engine.iaww.i18n import _BG_CARDS, ALIASES, NAMES
from pbem.engine.iaww.notation import KEYWORDS
from pbem.engine.iaww.rules import OVER, PROD, legal

from .helpers import G, player, site, state
from .test_views import POS

LANGS = ("en", "ru", "bg", "it")
# a phrase of each board and its translation: the board is in the language when the one is there and the
# other is not
BOARD_PHRASE = {"en": "For example:", "ru": "Например:", "bg": "Например:", "it": "Per esempio:"}
HELP_PHRASE = {"en": "Your options:", "ru": "Ваши варианты:", "bg": "Вашите възможности:", "it": "Le tue opzioni:"}
CARD_PHRASE = {"en": "Victory points:", "ru": "Победные очки:", "bg": "Точки за победа:", "it": "Punti vittoria:"}
UNKNOWN = {"en": "is not a move I know", "ru": "такого хода я не знаю", "bg": "не е познат ход",
           "it": "non è una mossa che conosco"}


def _positions():
    """(name, state, seat) over the start, the middle, a pending choice and the end of games."""
    out = [("start", G.initial_state(3, 11, {}), 0)]
    for name, (st, seats) in POS.items():
        out += [(name, st, s) for s in seats]
    return out


POSITIONS = _positions()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name,st,seat", POSITIONS, ids=[f"{n}-{s}" for n, _st, s in POSITIONS])
def test_everything_renders_in_every_language(lang, name, st, seat):
    with language(lang):
        v = G.view(st, seat)
        v["names"] = ["Ann", "Bob", "Cleo", "Dan", "Eve"][: st.n]
        text = G.render_text(v)
        html = G.render_html(v)
        svg = G.draw_svg(v)
        ET.fromstring(svg)  # valid XML
        assert max(len(line) for line in text.splitlines()) <= 78  # a mail's plain text, in every language
        if seat is not None and seat in G.to_move(st):
            for other in LANGS:
                if other != lang and BOARD_PHRASE[other] != BOARD_PHRASE[lang]:
                    assert BOARD_PHRASE[other] not in text
            assert BOARD_PHRASE[lang] in text
            assert BOARD_PHRASE[lang] in html
        help_text = G.notation_help(st, seat)
        assert help_text and max(len(line) for line in help_text.splitlines()) <= 78
        if seat is not None and legal(st, seat):
            assert HELP_PHRASE[lang] in help_text
            for m in legal(st, seat):
                assert G.describe_move(st, seat, m)
                assert G.explain_move(st, seat, m)
        if lang != "en":
            assert "Under construction" not in text and "Your options" not in help_text


@pytest.mark.parametrize("lang", LANGS)
def test_card_texts_in_every_language(lang):
    with language(lang):
        cards = G.cards()
    assert len(cards) == 78 + 5
    for c in cards:
        assert c.name and c.kind and c.text
    assert all(CARD_PHRASE[lang] in c.text for c in cards[:78])
    if lang != "en":
        assert not any(CARD_PHRASE["en"] in c.text for c in cards)


def test_english_is_the_source_and_unchanged():
    """Inside language("en") everything is what it is without a language."""
    for name, st, seat in POSITIONS:
        v = G.view(st, seat)
        with language("en"):
            assert G.view(st, seat) == v
            assert G.render_text(v) == G.render_text(G.view(st, seat))
            assert G.draw_svg(v) == G.draw_svg(G.view(st, seat))
            en_help = G.notation_help(st, seat)
        assert en_help == G.notation_help(st, seat)
    with language("en"):
        cards = G.cards()
    assert cards == G.cards()
    assert cards[0].text.startswith("Financial Center (structure; 5 in the deck)")


def test_views_stay_language_neutral_but_the_status():
    st, seats = POS["prod4"]
    en = G.view(st, 0)
    with language("ru"):
        ru = G.view(st, 0)
        assert G.decision_view(st, 0) == G.decision_view(st, 0)
    assert {k: v for k, v in ru.items() if k != "status"} == {k: v for k, v in en.items() if k != "status"}
    assert ru["status"] != en["status"] and ru["status"].startswith("Раунд 3 из 4")
    with language("ru"):
        dv = G.decision_view(st, 0)
    assert dv == G.decision_view(st, 0)


def test_seed_names_in_bulgarian():
    """The Bulgarian rulebook names 22 cards; they show as it names them, the rest in names of our own."""
    with language("bg"):
        names = {c.key: c.name for c in G.cards()}
    assert names["wind_turbines"] == "Вятърни турбини"
    assert names["polar_base"] == "Полярна база"
    assert names["financial_center"] == "Финансов център"
    assert names["center_of_the_earth"] == "Ядрото на земята"
    assert names["saucer_squadron"] == "Хиперзвукова ескадрила"
    assert names["industrial_complex"] == "Промишлен комплекс"  # the rulebook's misprint "Промислен" mended
    assert names["zeppelin"] == "Цепелин"  # not in the seed: our own name
    rows = {cid: NAMES.table()[cid] for cid in CARDS}
    assert sum(1 for cid in CARDS if NAMES.name(cid, lang="bg") != CARDS[cid].name) == len(CARDS)
    for lang in ("ru", "it"):  # every card has a name in each language, English only where it is the same word
        assert all(rows[cid][lang] for cid in CARDS)
        assert [cid for cid in CARDS if NAMES.name(cid, CARDS[cid].name, lang=lang) == CARDS[cid].name] == \
            ([] if lang == "ru" else ["roswell"])
    # on a board
    st = state([player(draft=["wind_turbines", "polar_base", "zeppelin"])])
    with language("bg"):
        text = G.render_text(G.view(st, 0))
        svg = G.draw_svg(G.view(st, 0))
        help_text = G.notation_help(st, 0)
    for t in (text, svg, help_text):
        assert "Вятърни турбини" in t and "Полярна база" in t and "Цепелин" in t
    assert "Wind Turbines" not in text and "Zeppelin" not in text


# ---------------------------------------------------------------- refusals


def _solo():
    return state([player(draft=["wind_turbines", "polar_base", "zeppelin"])], deck=tuple(CARDS)[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_refusals_in_every_language(lang):
    st = _solo()
    with language(lang):
        with pytest.raises(MoveSyntaxError) as e:
            G.parse_move(st, 0, "fly to the moon")
        assert UNKNOWN[lang] in e.value.reason
        with pytest.raises(IllegalMoveError) as e:
            G.parse_move(st, 0, "C 9")
        assert e.value.examples
        with pytest.raises(IllegalMoveError):
            G.parse_move(st, 0, "done")
        over = POS["final2"][0]
        assert over.phase == OVER
        with pytest.raises(MoveError):
            G.parse_move(over, 0, "done")
        draft, seats = POS["draft3"]
        waiting = next(s for s in range(draft.n) if s not in G.to_move(draft))
        with pytest.raises(NotYourTurnError):
            G.parse_move(draft, waiting, "pick 1")
    if lang != "en":
        assert UNKNOWN["en"] not in e.value.reason or lang == "en"


def test_a_russian_refusal_shows_russian_examples():
    st = _solo()
    with language("ru"):
        with pytest.raises(IllegalMoveError) as e:
            G.parse_move(st, 0, "строить 9")
    assert e.value.text == "строить 9"
    assert "в вашей руке нет карты номер 9" in e.value.reason
    assert any(x.startswith("строить ") for x in e.value.examples)
    assert not any(x.startswith("C ") for x in e.value.examples)
    with pytest.raises(IllegalMoveError) as e:  # the same move in English: English examples
        G.parse_move(st, 0, "C 9")
    assert any(x.startswith("C ") for x in e.value.examples)


def test_bulgarian_card_names_in_examples_and_moves():
    st = _solo()
    assert G.format_move(st, 0, G.parse_move(st, 0, "строй Вятърни турбини")) == "C wind_turbines"
    assert G.format_move(st, 0, G.parse_move(st, 0, "рециклирай полярна база>империя")) == "R polar_base>E"
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "строй 9")
    assert any("Вятърни турбини" in x for x in e.value.examples)


# ---------------------------------------------------------------- aliases


_EXTRA = {
    "solo": _solo(),
    # Krystallium, a financier and a general to place
    "tokens": state([player(kry=1, fin=1, gen=1, draft=["zeppelin"],
                            sites=[site("universal_exposition"), site("parallel_dimension"), site("icebreaker")])]),
    # the science supremacy choice
    "sci": state([player(sci=True, sites=[site("icebreaker")]), player()], phase=PROD, step=2),
    # cubes of every kind waiting (recycled)
    "cubes": state([player(cubes=(1, 1, 1, 1, 1), draft=["zeppelin"])]),
    # a solo swap's five revealed cards
    "keep": state([player(draft=["zeppelin", "museum"],
                          shown=("atlantis#1", "roswell#1", "lunar_base#1", "satellites#1", "aquaculture#1"))],
                  deck=tuple(CARDS)[:20]),
}


def _english_texts():
    """(state, seat, English notation) for every legal move of the test positions, plus the longer
    English words the parser reads (materials>E, place ..., ...>empire, pass)."""
    out = []
    for _name, st, seat in POSITIONS + [(n, st, 0) for n, st in _EXTRA.items()]:
        if seat is None or not legal(st, seat):
            continue
        for m in legal(st, seat):
            t = G.format_move(st, seat, m)
            out.append((st, seat, t))
            if m.kind == "place":
                word = ("materials", "energy", "science", "gold", "exploration")[m.res]
                out.append((st, seat, word + t[1:]))
                out.append((st, seat, "place " + t))
            if t.endswith(">E"):
                out.append((st, seat, t[:-1] + "empire"))
            if t == "done":
                out.append((st, seat, "pass"))
    return out


TEXTS = _english_texts()


def test_every_alias_parses_to_its_english_notation():
    cards = {v for v in _BG_CARDS.values()}
    seen = set()
    for lang, table in ALIASES.table.items():
        for alias, canonical in table.items():
            if canonical in cards:
                st = state([player(draft=[canonical, "zeppelin"])])
                want = G.format_move(st, 0, G.parse_move(st, 0, f"C {canonical}"))
                assert G.format_move(st, 0, G.parse_move(st, 0, f"C {alias}")) == want
                assert G.format_move(st, 0, G.parse_move(st, 0, f"строй {alias.lower()}")) == want
                seen.add((lang, alias))
                continue
            pat = re.compile(rf"(?<![\w#]){re.escape(canonical)}(?![\w#])", re.IGNORECASE)
            for st, seat, text in TEXTS:
                if pat.search(text):
                    written = pat.sub(alias, text, count=1)
                    with language(lang):
                        got = G.format_move(st, seat, G.parse_move(st, seat, written))
                    assert got == G.format_move(st, seat, G.parse_move(st, seat, text)), (alias, written)
                    seen.add((lang, alias))
                    break
    missing = [(lang, a) for lang, t in ALIASES.table.items() for a in t if (lang, a) not in seen]
    assert not missing, missing


def test_aliases_mean_one_thing_and_leave_english_alone():
    assert ALIASES.clashes() == []
    english_words = set(KEYWORDS) | {"materials", "energy", "science", "gold", "exploration", "empire", "e",
                                     "m", "s", "g", "x", "k", "f", "gen", "end", "krystallium", "financier",
                                     "general"}
    folded = {a.casefold() for t in ALIASES.table.values() for a in t}
    assert not folded & english_words
    for cid, c in CARDS.items():  # no alias is (the start of) an English card id or name
        for a in folded:
            assert not cid.startswith(a.replace(" ", "_")) and not c.name.lower().startswith(a)
    for _st, _seat, text in TEXTS:
        assert ALIASES.to_canonical(text) == (text, None)
    for lang, table in ALIASES.table.items():
        for alias in table:
            assert alias.split()[0].casefold().replace("ё", "е") in G.notation_words
    assert "пас" in G.notation_words and "готово" in G.notation_words and "fatto" in G.notation_words


def test_format_move_stays_english():
    st = _solo()
    with language("ru"):
        assert (G.format_move(st, 0, G.parse_move(st, 0, "переработать 1>империя"))
                == G.format_move(st, 0, G.parse_move(st, 0, "R 1>E")))
        assert [G.format_move(st, 0, m) for m in legal(st, 0)] == [G.format_move(st, 0, m) for m in legal(st, 0)]


# ---------------------------------------------------------------- catalogs


@pytest.mark.parametrize("lang,written,word", [("ru", "взять 1", "взять"), ("bg", "избери 1", "избери"),
                                                ("it", "prendi 1", "prendi")])
def test_refusals_quote_and_exemplify_the_players_words(lang, written, word):
    st = _solo()  # planning: pick is no move now
    with language(lang):
        with pytest.raises(MoveSyntaxError) as e:
            G.parse_move(st, 0, written)
    assert f"'{word}'" in e.value.reason and "'pick'" not in e.value.reason
    first = {"ru": "строить ", "bg": "строй ", "it": "costruisci "}[lang]
    assert any(x.startswith(first) for x in e.value.examples)
