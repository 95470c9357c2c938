"""The reviewer's pass over the Russian, Bulgarian and Italian catalogs, kept by a test: no rulebook
section number ("§6.3") and no word for the software's "engine" in what players read; in Russian and
Bulgarian the ply is полуход, never the ход that means a move or a turn; a number of It's a
Wonderful World's resources or tokens agrees with its noun (ngettext: Russian three forms)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from pbem import i18n
from pbem.engine.i18n import language
from pbem.engine.iaww.i18n import amount

DOMAINS = i18n.catalog_dirs()
PLY = re.compile(r"\bpl(?:y|ies)\b", re.I)
# a form of ход right before a number: the ply count written as a move
BARE_HOD = re.compile(r"(?<![\w-])[Хх]од(?:а|у|ом|е|ы|ов|ът|ове)?\s*(?:№\s*)?(?:<[^>]+>)?\s*%\(")


def _messages(lang: str):
    for domain, base in DOMAINS:
        path = Path(base) / lang / "LC_MESSAGES" / f"{domain}.po"
        with path.open("rb") as f:
            for m in read_po(f, locale=lang):
                if not m.id:
                    continue
                msgid = m.id if isinstance(m.id, str) else m.id[0]
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                yield domain, msgid, strings


@pytest.mark.parametrize("lang", ["ru", "bg", "it"])
def test_no_section_numbers_nor_engine_in_what_players_read(lang):
    bad = [(d, msgid) for d, msgid, strings in _messages(lang)
           for s in strings if "§" in s or re.search(r"движ(?:ок|ка|ком)\b|\bengine\b", s)]
    assert not bad, bad[:10]


@pytest.mark.parametrize("lang", ["ru", "bg"])
def test_the_ply_is_polukhod(lang):
    bad = [(d, msgid, s) for d, msgid, strings in _messages(lang) if PLY.search(msgid)
           for s in strings if BARE_HOD.search(s)]
    assert not bad, bad[:10]


@pytest.mark.parametrize("lang,cases", [
    ("ru", {(1, "materials"): "1 материал", (3, "materials"): "3 материала", (5, "materials"): "5 материалов",
            (3, "gold"): "3 золота", (2, "general"): "2 генерала", (21, "energy"): "21 энергия",
            (2, "science"): "2 науки"}),
    ("bg", {(1, "materials"): "1 суровина", (3, "materials"): "3 суровини", (2, "general"): "2 генерала"}),
    ("it", {(1, "materials"): "1 materiale", (2, "materials"): "2 materiali", (2, "general"): "2 generali",
            (1, "financier"): "1 finanziere"}),
])
def test_a_number_agrees_with_its_resource(lang, cases):
    with language(lang):
        assert {k: amount(*k) for k in cases} == cases


@pytest.mark.parametrize("lang", ["ru", "bg", "it"])
def test_the_translated_notation_reference_keeps_its_column(lang):
    """It's a Wonderful World's HELP: each notation stands apart from its words ("x>T поставьте")."""
    from pbem.engine.iaww.words import reference

    with language(lang):
        lines = reference()
    assert not [x for x in lines[1:] if x.startswith("  ") and not x.startswith(" " * 22) and x[21] != " "], lines


def test_moves_are_told_in_one_past_tense_in_russian():
    """A move described in Russian names its mover's past in both genders, as every game does
    ("спасовал(а)", "переместился(ась)"), never the masculine alone."""
    from pbem.engine import get_game
    from pbem.engine.base import validate_options
    import random

    bare = re.compile(r"^[А-яЁё]+(?:ал|ил|ел|ял|ул|ыл)(?:ся)?(?![\w(])")
    found = set()
    for name in ("spyrium", "squire", "iaww"):
        game = get_game(name)
        state = game.initial_state(2, 5, validate_options(game, 2, {}))
        rng = random.Random(1)
        for _ in range(60):
            seats = sorted(game.to_move(state))
            if not seats:
                break
            move = rng.choice(game.legal_moves(state, seats[0]))
            with language("ru"):
                said = game.describe_move(state, seats[0], move)
            if bare.match(said):
                found.add((name, said[:60]))
            state = game.apply(state, seats[0], move)
    assert not found, sorted(found)
