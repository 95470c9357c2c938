"""Spyrium in English, Russian, Bulgarian and Italian: the catalog is complete,
every board, drawing, description, help and refusal speaks the language it is asked for,
English stays the source, the rulebooks' card names appear, and the players' own words
(aliases) read as the English notation."""
from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pbem.engine import IllegalMoveError, MoveError, MoveSyntaxError, NotYourTurnError
from pbem.engine.i18n import language
from pbem.engine.spyrium import GAME
from pbem.engine.spyrium import cardtexts, notation
from pbem.engine.spyrium.data import CARDS
from pbem.engine.spyrium.i18n import ALIASES, NAMES, name_key
from pbem.engine.spyrium.state import PASS, PLACE

LANGS = ("en", "ru", "bg", "it")
LOCALE = Path(__file__).resolve().parents[3] / "pbem" / "engine" / "spyrium" / "locale"

# a phrase each language writes on every text board (its English one must not be there)
BOARD = {"en": "Final scores", "ru": "Итоговый счёт", "bg": "Краен резултат", "it": "Punteggi finali"}
MARKET = {"en": "Market (position", "ru": "Рынок (позиция", "bg": "Пазар (позиция", "it": "Mercato (posizione"}
ROUND = {"en": "Round ", "ru": "Раунд ", "bg": "Рунд ", "it": "Turno "}
UNKNOWN_WORD = {"en": "I do not know the word", "ru": "Я не знаю слова", "bg": "Не познавам думата",
                "it": "Non conosco la parola"}
PHASE1_PASS = {"en": "you are in Phase I", "ru": "вы в фазе I", "bg": "вие сте във фаза I", "it": "sei in Fase I"}


def _play(n, seed, stop):
    rng = random.Random(seed)
    st = GAME.initial_state(n, seed, {})
    while not st.over and not stop(st):
        legal = GAME.legal_moves(st, st.turn)
        p = st.ps[st.turn]
        keep = [m for m in legal if m[0] == PLACE] if p.phase == 1 and p.active and rng.random() < 0.8 else []
        st = GAME.apply(st, st.turn, (keep or legal)[rng.randrange(len(keep or legal))])
    return st


def _positions():
    start = GAME.initial_state(3, 1, {})
    mid = _play(4, 11, lambda s: s.round >= 3 and sum(len(x) for x in s.spaces) >= 6 and not s.pending)
    pending = _play(4, 7, lambda s: bool(s.pending) and s.round >= 2)
    end = _play(3, 3, lambda s: False)
    assert pending.pending and end.over and not mid.over
    return {"start": start, "mid": mid, "pending": pending, "end": end}


POS = _positions()


# ---------------------------------------------------------------- the catalogs


def test_every_card_text_is_in_the_catalog():
    assert {c.text for c in CARDS if c.text} == set(cardtexts.TEXTS)


# ---------------------------------------------------------------- every output in every language


def _outputs(st, seat, lang):
    """Everything the engine writes for a person about ``st``, in ``lang``."""
    with language(lang):
        out = []
        for who in (seat, None):
            view = GAME.view(st, who)
            out.append(view["status"])
            out.append(GAME.render_text(view))
            out.append(GAME.render_html(view))
            svg = GAME.draw_svg(view, [GAME.format_move(st, seat, m) for m in GAME.legal_moves(st, seat)]
                                if who is not None and not st.over else ())
            ET.fromstring(svg)  # valid XML
            out.append(svg)
            out.append(GAME.notation_help(st, who))
        if not st.over:
            for m in GAME.legal_moves(st, seat)[:60]:
                out.append(GAME.describe_move(st, seat, m))
                out.append(GAME.explain_move(st, seat, m))
        for card in GAME.cards():
            out.append(f"{card.name}\n{card.kind}\n{card.text}")
        return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(POS))
def test_boards_drawings_help_and_words_speak_the_language(lang, name):
    st = POS[name]
    seat = st.turn if not st.over else 0
    out = _outputs(st, seat, lang)
    text = "\n".join(out)
    with language(lang):
        board = GAME.render_text(GAME.view(st, seat))
    if st.over:
        assert BOARD[lang] in board
    else:
        assert MARKET[lang] in board and ROUND[lang] in board
    if lang != "en":
        for other, phrase in MARKET.items():
            if other != lang:
                assert phrase not in text
        assert "Final scores" not in text and "Your move, e.g." not in text
        assert re.search(r"[а-яА-Я]" if lang in ("ru", "bg") else r"\b(il|la|di|per|con)\b", text)
    else:
        assert not re.search(r"[а-яА-Я]", text)


@pytest.mark.parametrize("name", sorted(POS))
def test_english_is_the_same_with_and_without_a_language(name):
    st = POS[name]
    seat = st.turn if not st.over else 0
    plain = []
    for who in (seat, None):
        view = GAME.view(st, who)
        plain += [GAME.render_text(view), GAME.render_html(view), GAME.draw_svg(view), GAME.notation_help(st, who)]
    with language("en"):
        same = []
        for who in (seat, None):
            view = GAME.view(st, who)
            same += [GAME.render_text(view), GAME.render_html(view), GAME.draw_svg(view), GAME.notation_help(st, who)]
    assert plain == same


@pytest.mark.parametrize("lang", LANGS)
def test_a_view_holds_english_only_and_the_decision_view_is_the_same_in_every_language(lang):
    for st in POS.values():
        seat = st.turn if not st.over else 0
        english = GAME.view(st, seat)
        with language(lang):
            view = GAME.view(st, seat)
            decision = GAME.decision_view(st, seat)
        assert {k: v for k, v in view.items() if k != "status"} == {k: v for k, v in english.items() if k != "status"}
        assert decision == GAME.decision_view(st, seat)


def test_the_pending_choice_is_translated_on_the_board():
    st = POS["pending"]
    with language("ru"):
        board = GAME.render_text(GAME.view(st, st.turn))
        html = GAME.render_html(GAME.view(st, st.turn))
    assert "Ожидается:" in board and "укажите" in board and "Pending:" not in board
    assert "Ожидается:" in html


def _pending_positions():
    """Positions of random games with a decision pending, one of each kind of decision."""
    out = {}
    for n in (2, 3, 4, 5):
        for seed in range(1, 6):
            rng = random.Random(seed)
            st = GAME.initial_state(n, seed, {})
            while not st.over:
                if st.pending:
                    answer = GAME.format_move(st, st.turn, GAME.legal_moves(st, st.turn)[0])
                    out.setdefault(re.sub(r"\d", "#", answer), st)
                legal = GAME.legal_moves(st, st.turn)
                st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
    return list(out.values())


def test_a_pending_decision_is_kept_as_words_and_said_in_the_readers_language():
    """The view keeps the question and each choice's price as a message and its values (the same in every
    language, JSON as a stored picture keeps it), and each board says them in its reader's words: the
    event's and the cards' names from names.csv, the answers and the move in the reader's notation words."""
    import json

    from pbem.engine.spyrium.i18n import say

    positions = _pending_positions()
    assert len(positions) >= 6
    for st in positions:
        view = GAME.view(st, st.turn)
        pend = view["pending"]
        assert say(pend["words"]["question"]) == pend["question"] and say(pend["words"]["ask"]) == pend["ask"]
        assert [say(c["words"]) for c in pend["choices"]] == [c["text"] for c in pend["choices"]]
        for lang in LANGS:
            with language(lang):
                view = GAME.view(st, st.turn)
                stored = json.loads(json.dumps(view))
                assert GAME.render_text(stored) == GAME.render_text(view)
                assert GAME.draw_svg(stored) == GAME.draw_svg(view)
    windfall = next(st for st in positions if "money" in
                    {GAME.format_move(st, st.turn, m) for m in GAME.legal_moves(st, st.turn)})
    with language("it"):
        board = GAME.render_text(GAME.view(windfall, None))
    assert "Gettone fortunato" in board and "Token Windfall" not in board
    assert re.search(r"^  denaro +£\d", board, re.M) and re.search(r"^  spyrium +\d S", board, re.M)
    assert re.search(r"^  PV +\d PV", board, re.M)
    assert "'fase2 evento'" in board or "'evento'" in board  # the move the decision belongs to


@pytest.mark.parametrize("lang", ("ru", "bg", "it"))
def test_every_answer_a_board_shows_is_a_reply_the_notation_reads(lang):
    """A board shows a decision's answers in the reader's words ("denaro", "+рабочий"): each, written as
    shown, is the answer it stands for."""
    from pbem.engine.spyrium.i18n import shown

    checked = 0
    for st in _pending_positions():
        with language(lang):
            for c in GAME.view(st, st.turn)["pending"]["choices"]:
                if c["possible"]:
                    move = GAME.parse_move(st, st.turn, shown(c["answer"]))
                    assert GAME.format_move(st, st.turn, move) == c["answer"], (lang, c["answer"], shown(c["answer"]))
                    checked += 1
    assert checked >= 10


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("lang", LANGS)
def test_refusals_speak_the_language(lang):
    st = POS["start"]
    seat = st.turn
    with language(lang):
        with pytest.raises(MoveSyntaxError) as e:
            GAME.parse_move(st, seat, "xyzzy 4-5")
        assert UNKNOWN_WORD[lang] in e.value.reason and e.value.examples
        with pytest.raises(IllegalMoveError) as e:
            GAME.parse_move(st, seat, "pass")
        assert PHASE1_PASS[lang] in e.value.reason and e.value.describe()
        with pytest.raises(NotYourTurnError):
            GAME.parse_move(st, (seat + 1) % st.n, "place 4-5")
        with pytest.raises(MoveError) as e:
            GAME.parse_move(st, seat, "place 1-9")
        assert "1-9" in e.value.reason
        mid = POS["mid"]
        try:  # a rules refusal (rules.Illegal): written in the reader's language when shown
            GAME.apply(mid, mid.turn, ("nonsense",))
        except MoveError as err:
            assert err.reason
    if lang != "en":
        assert "I do not know" not in e.value.reason


def test_the_refusal_to_russian_words_shows_russian_examples():
    st = POS["start"]
    with language("ru"):
        with pytest.raises(IllegalMoveError) as e:
            GAME.parse_move(st, st.turn, "пас")
    assert e.value.text == "пас"
    assert "вы в фазе I" in e.value.reason and "'фаза2 пас'" in e.value.reason and "'поставить 1-2'" in e.value.reason
    assert e.value.examples and all(re.search(r"[а-я]", x) for x in e.value.examples)
    assert any(x.startswith("поставить ") for x in e.value.examples)
    assert "фаза2 пас" in e.value.examples
    with pytest.raises(MoveSyntaxError) as e:  # the same in English words: English examples
        GAME.parse_move(st, st.turn, "place 1-9")
    assert all(not re.search(r"[а-я]", x) for x in e.value.examples)


# ---------------------------------------------------------------- the rulebooks' names


SEED_NAMES = {
    "ru": {"mine": "Шахта", "workshop": "Мастерская", "bureaucrat": "Бюрократ",
           "workers_quarters": "Рабочий Посёлок", "taylorism": "Тейлоризм", "palace": "Дворец"},
    "it": {"bureaucrat": "Burocrate", "miner": "Minatore", "laboratory": "Laboratorio",
           "university": "Università", "crane": "Gru", "palace": "Palazzo"},
}


def test_names_from_the_seeds():
    for lang, names in SEED_NAMES.items():
        for key, name in names.items():
            assert NAMES.name(key, lang=lang) == name
        with language(lang):
            shown = "\n".join(c.name for c in GAME.cards())
            board = GAME.render_text(GAME.view(POS["start"], 0)) + GAME.draw_svg(GAME.view(POS["start"], 0))
        assert sum(name in shown for name in names.values()) >= 5
        assert sum(name in board for name in names.values()) >= 1
    # no seed names Bulgarian cards: the names are ours; a key without a row keeps the English
    # it is given, else is itself
    assert NAMES.name("mine", lang="bg") == "Мина"
    assert NAMES.name("no_such_card", "No Such Card", lang="bg") == "No Such Card"
    assert NAMES.name("no_such_card", lang="bg") == "no_such_card"
    with language("bg"):
        shown = "\n".join(c.name for c in GAME.cards())
        board = GAME.render_text(GAME.view(POS["start"], 0))
    assert "Начална карта" in shown and "Мина £5" in shown
    assert "Родово имение" in board and "Country Seat" not in board  # the event of the round
    assert {name_key(c.name) for c in CARDS} <= set(NAMES.table())
    with language("ru"):
        assert GAME.cards()[0].key == CARDS[0].label  # the key stays the English notation


# ---------------------------------------------------------------- aliases


def _all_moves():
    for st in POS.values():
        if st.over:
            continue
        seat = st.turn
        for m in GAME.legal_moves(st, seat):
            yield st, seat, m


def test_aliases_mean_one_thing_each():
    assert ALIASES.clashes() == []
    english = set(notation.VERBS) | set(notation.WORDS) | notation.PHASE2 | notation.NOISE | set(notation._JOIN)
    for lang, table in ALIASES.table.items():
        for alias, canonical in table.items():
            assert alias.casefold() not in english, (lang, alias)
            assert ALIASES.to_canonical(alias)[0] == canonical, (lang, alias)


def test_aliases_do_not_change_english_notation():
    for st, seat, m in _all_moves():
        text = GAME.format_move(st, seat, m)
        assert ALIASES.to_canonical(text) == (text, None)
    for word in set(notation.VERBS) | set(notation.WORDS):
        assert ALIASES.to_canonical(word) == (word, None)


@pytest.mark.parametrize("lang", ("ru", "bg", "it"))
def test_every_move_written_in_a_language_parses_to_the_same_move(lang):
    used = set()
    for st, seat, m in _all_moves():
        text = GAME.format_move(st, seat, m)
        local = ALIASES.localize(text, lang)
        if local != text:
            used.update(w for w in local.split() if re.search(r"[^\x00-\x7f]|[a-z]{3,}", w))
        with language(lang):
            move = GAME.parse_move(st, seat, local)
        assert GAME.format_move(st, seat, move) == text, (local, text)
    assert len(used) >= 3


@pytest.mark.parametrize("lang", ("ru", "bg", "it"))
def test_every_alias_of_a_notation_word_reads_as_that_word(lang):
    """Each alias in a move: written where its English word stands, the same move."""
    moves = [(st, seat, m, GAME.format_move(st, seat, m)) for st, seat, m in _all_moves()]
    checked = 0
    for alias, canonical in ALIASES.table[lang].items():
        for st, seat, m, text in moves:
            words = text.split()
            if canonical in words:
                local = " ".join(alias if w == canonical else w for w in words)
                assert GAME.format_move(st, seat, GAME.parse_move(st, seat, local)) == text, (alias, text)
                checked += 1
                break
    assert checked >= 6


def test_a_word_two_languages_share_is_the_readers_own():
    st = POS["start"]
    for lang, word in (("bg", "постави"), ("ru", "поставить")):
        with language(lang):
            with pytest.raises(IllegalMoveError) as e:
                GAME.parse_move(st, st.turn, "пас")
        assert f"{word} 1-2" in e.value.examples and "фаза2 пас" in e.value.examples


def test_a_russian_line_is_read_as_a_move():
    from pbem.engine.base import looks_like_move
    assert {"пас", "поставить", "фаза2", "piazza", "постави"} <= GAME.notation_words
    for line in ("пас", "Пас.", "фаза 2 пас", "поставить 4-5", "вперёд", "piazza 4-5", "Fase II passo", "постави 4-5"):
        assert looks_like_move(GAME, line), line
    for talk in ("Привет всем", "место встречи изменить нельзя", "Ciao a tutti", "Здравейте"):
        assert not looks_like_move(GAME, talk), talk
    st = POS["mid"]
    moves = {GAME.format_move(st, st.turn, m) for m in GAME.legal_moves(st, st.turn)}
    if "phase2 pass" in moves or "pass" in moves:
        mv = GAME.parse_move(st, st.turn, "фаза2 пас" if "phase2 pass" in moves else "пас")
        assert mv[0] == PASS
    assert GAME.format_move(st, st.turn, GAME.parse_move(st, st.turn, "Фаза2 ПАС")) == "phase2 pass" \
        if "phase2 pass" in moves else True


# ---------------------------------------------------------------- the notation docs


DOCS = Path(__file__).resolve().parents[3] / "docs" / "notation"


@pytest.mark.parametrize("lang", ("ru", "bg", "it"))
def test_the_notation_doc_of_each_language_has_every_section_and_every_alias(lang):
    english = (DOCS / "spyrium.md").read_text(encoding="utf-8")
    doc = (DOCS / lang / "spyrium.md").read_text(encoding="utf-8")
    assert f"({lang}/spyrium.md)" in english
    sections = lambda t: [line for line in t.splitlines() if line.startswith("## ")]  # noqa: E731
    assert len(sections(doc)) == len(sections(english)) + 1  # the same sections, and the aliases
    assert doc.count("```") == english.count("```")
    for alias, canonical in ALIASES.table[lang].items():
        assert f"| `{alias}` | `{canonical}` |" in doc
    for example in re.findall(r"`([^`]+)` = `([^`]+)`", doc.split(sections(doc)[-1])[1]):
        with language(lang):
            canonical, used = ALIASES.to_canonical(example[0])
        assert used == lang and notation._tokens(canonical) == notation._tokens(example[1])


def test_no_english_prose_is_left_in_russian():
    """Every Latin word a Russian reader sees is notation, an event's name (the Russian
    rules name none), the game's name or an HTML entity: no English sentence slipped through."""
    events = {w.lower() for c in CARDS if c.kind in ("event", "start") for w in c.name.split()}
    notation_words = (set(notation.VERBS) | set(notation.WORDS) | notation.PHASE2
                      | {"new", "adv", "score", "worker", "money", "spy", "vp", "lob", "phase2", "lot", "pass"})
    allowed = events | notation_words | {"spyrium", "player", "pound", "middot", "larr", "amp", "quot", "nbsp",
                                         "lob", "worker", "commerce", "token", "option", "replace"}
    for st in POS.values():
        seat = st.turn if not st.over else 0
        text = "\n".join(_outputs(st, seat, "ru"))
        text = re.sub(r"<[^>]*>", " ", text)
        words = {w.lower() for w in re.findall(r"(?<![\w-])[A-Za-z][a-z]{2,}(?![\w-])", text)}
        assert words <= allowed, sorted(words - allowed)


@pytest.mark.parametrize("lang", LANGS)
def test_text_boards_help_and_cards_fit_a_mail_in_every_language(lang):
    with language(lang):
        for st in POS.values():
            for who in {st.turn if not st.over else 0, None}:
                for text in (GAME.render_text(GAME.view(st, who)), GAME.notation_help(st, who)):
                    assert max(len(line) for line in text.splitlines()) <= 78, text
        for card in GAME.cards():
            assert max(len(line) for line in card.text.splitlines()) <= 76, card.text
