"""The names of every game's components in each language (each game's data/names.csv).

Every cell is filled and every name says where it comes from: a rulebook seed (000/001 Spyrium
in Russian, 002 Spyrium on BGA in Italian, 003 Squire in Russian, 004 It's a Wonderful World in
Bulgarian), the published edition, or our own translation. A name written as English writes it
is marked ``same`` with the reason in the ``note``, so English never stands in by accident.
Each language keeps to its script, the names fit the drawings, and every component the engines
name has a row whose English is the data's."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from pbem.engine.i18n import LANGUAGES, Names, language
from pbem.engine.iaww import GAME as IAWW
from pbem.engine.iaww.data import CARDS as IAWW_CARDS, EMPIRE_FACES, RESOURCES, SCENARIOS, SOLO_TITLES
from pbem.engine.spyrium import GAME as SPYRIUM
from pbem.engine.spyrium.data import CARDS as SPYRIUM_CARDS
from pbem.engine.spyrium.i18n import name_key
from pbem.engine.spyrium.render import SHORT
from pbem.engine.squire import GAME as SQUIRE
from pbem.engine.squire.data import load

ENGINE = Path(__file__).resolve().parents[2] / "pbem" / "engine"
GAMES = {"spyrium": SPYRIUM, "squire": SQUIRE, "iaww": IAWW}
COLUMNS = ["key", "en", "ru", "bg", "it", "ru_src", "bg_src", "it_src", "note"]
OTHERS = ("ru", "bg", "it")
# the seeds that can name a game's components, by language
SEEDS = {
    "spyrium": {"ru": {"seed-000", "seed-001"}, "it": {"seed-002"}},
    "squire": {"ru": {"seed-003"}},
    "iaww": {"bg": {"seed-004"}},
}
SOURCES = {"edition", "ours", "same"}
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
LATIN = re.compile(r"[A-Za-z]")
RUSSIAN_ONLY = re.compile(r"[ыэёЫЭЁ]")  # letters Bulgarian does not have: a Russian name pasted into bg
# A drawing cuts a long name (an It's a Wonderful World tile at 18 characters, a Spyrium cell of the
# text board at 20 with its price): a name of our own stays near its English length.
LONGEST = 24


def rows(game: str) -> list[dict[str, str]]:
    with (ENGINE / game / "data" / "names.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def fold(name: str) -> str:
    """The letters of a name, case and punctuation aside: "Super-Sonar" and "Supersonar" are one word."""
    return "".join(ch for ch in name.casefold() if ch.isalpha())


ALL = [(game, row) for game in GAMES for row in rows(game)]
IDS = [f"{game}:{row['key']}" for game, row in ALL]


@pytest.mark.parametrize("game", GAMES)
def test_columns_and_keys(game):
    with (ENGINE / game / "data" / "names.csv").open(encoding="utf-8", newline="") as f:
        assert next(csv.reader(f)) == COLUMNS
    keys = [r["key"] for r in rows(game)]
    assert len(keys) == len(set(keys))
    for r in rows(game):
        assert all(v == v.strip() for v in r.values()), r


@pytest.mark.parametrize("game,row", ALL, ids=IDS)
def test_every_name_filled_with_its_source(game, row):
    for lang in ("en",) + OTHERS:
        assert row[lang], f"{row['key']}: no {lang} name"
    for lang in OTHERS:
        src = row[f"{lang}_src"]
        assert src in SOURCES | SEEDS[game].get(lang, set()), f"{row['key']}: {lang} source {src!r}"


@pytest.mark.parametrize("game,row", ALL, ids=IDS)
def test_english_only_where_marked_the_same(game, row):
    for lang in OTHERS:
        same = fold(row[lang]) == fold(row["en"])
        marked = row[f"{lang}_src"] == "same"
        assert same == marked, (f"{row['key']}: {lang} {row[lang]!r} is the English {row['en']!r}"
                                if same else f"{row['key']}: {lang} marked 'same' but differs from the English")
        if marked:
            assert row["note"], f"{row['key']}: say why {lang} writes it as English does"


@pytest.mark.parametrize("game,row", ALL, ids=IDS)
def test_each_language_in_its_script(game, row):
    assert not CYRILLIC.search(row["it"]), row["it"]
    for lang in ("ru", "bg"):
        assert not LATIN.search(row[lang]), f"{row['key']}: Latin letters in {lang} {row[lang]!r}"
    assert not RUSSIAN_ONLY.search(row["bg"]), f"{row['key']}: not Bulgarian: {row['bg']!r}"


@pytest.mark.parametrize("game,row", ALL, ids=IDS)
def test_names_fit_the_drawings(game, row):
    for lang in OTHERS:
        if row[f"{lang}_src"] in ("ours", "same"):  # a seed's or an edition's name is as printed
            assert len(row[lang]) <= max(LONGEST, len(row["en"]) + 4), f"{row['key']}: {lang} {row[lang]!r}"


def _expected(game: str) -> dict[str, str]:
    """Every key the engines look a name up by, with the English the data gives it."""
    out = {"title": GAMES[game].title}
    if game == "spyrium":
        out |= {name_key(c.name): c.name for c in SPYRIUM_CARDS}
        # the text board's short forms ("Quarters"), where a language has one of its own
        shorts = {"short:" + name_key(full): short for short, full in SHORT.items()}
        out |= {k: v for k, v in shorts.items() if k in {r["key"] for r in rows(game)}}
    elif game == "squire":
        d = load(())
        for side, b in d.boards.items():
            out[f"side:{side}"] = b.name
            out |= {f"city:{cid}": name for cid, name in zip(b.city_ids, b.city_names)}
            out |= {"region:" + re.sub(r"\W+", "_", label.lower()): label for label in b.region_labels}
        out |= {f"type:{tid}": name for tid, name in zip(d.type_ids, d.type_names)}
        for pb in d.player_boards:
            out[f"board:{pb.id}"] = pb.id.capitalize()
            out |= {"character:" + c.lower().replace(" ", "_"): c for c in pb.characters}
    else:
        out |= {cid: c.name for cid, c in IAWW_CARDS.items()}
        out |= {eid: ef.name for (eid, face), ef in EMPIRE_FACES.items()}
        out |= {r: r for r in RESOURCES} | {"krystallium": "krystallium", "financier": "financier",
                                            "general": "general"}
        out |= {f"type:{t}": t for t in {c.type for c in IAWW_CARDS.values()}}
        out |= {f"scenario:{k}": title for k, (title, _cards, _medals) in SCENARIOS.items()}
        out |= {"solo_title:" + t.lower().replace(" ", "_"): t for _score, t in SOLO_TITLES}
    return out


@pytest.mark.parametrize("game", GAMES)
def test_every_component_has_a_row(game):
    table = {r["key"]: r["en"] for r in rows(game)}
    expected = _expected(game)
    assert {k: table.get(k) for k in expected} == expected
    assert set(table) == set(expected), "rows no engine looks up"


@pytest.mark.parametrize("game", GAMES)
def test_the_loader_reads_the_languages_only(game):
    table = Names(ENGINE / game / "data" / "names.csv").table()
    assert table and all(set(r) == set(LANGUAGES) for r in table.values())


def test_the_seeds_names_and_the_mended_misprint():
    """A few names as the rulebooks print them, and the one the Bulgarian rulebook misprints."""
    named = {(g, r["key"], lang): r[lang] for g, r in ALL for lang in OTHERS}
    assert named["spyrium", "workers_quarters", "ru"] == "Рабочий Посёлок"  # seed 000
    assert named["spyrium", "title", "ru"] == "Спирий"
    assert named["spyrium", "taylorism", "it"] == "Taylorismo"  # seed 002
    assert named["squire", "character:sir_badger", "ru"] == "Сэр Барсук"  # seed 003
    assert named["squire", "title", "ru"] == "Сквайр"
    assert named["iaww", "industrial_complex", "bg"] == "Промишлен комплекс"  # seed 004 prints "Промислен"
    assert named["iaww", "center_of_the_earth", "bg"] == "Ядрото на земята"  # as scenario 1 lists the card
    assert named["iaww", "title", "bg"] == "Един прекрасен свят"
    assert named["iaww", "scenario:S6", "bg"] == "Парите не миришат"


@pytest.mark.parametrize("lang", OTHERS)
def test_no_english_name_on_a_board(lang):
    """The cards of each game as a player lists them: none keeps its English name unless marked."""
    for game, g in GAMES.items():
        same = {r["en"] for r in rows(game) if r[f"{lang}_src"] == "same"}
        english = {c.name for c in g.cards()}
        with language(lang):
            shown = {c.name for c in g.cards()}
        assert not {n for n in shown & english if n not in same and re.search(r"[A-Za-z]{3}", n)
                    and n.split(" £")[0] not in same}, (game, lang)
