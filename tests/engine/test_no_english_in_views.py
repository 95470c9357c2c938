"""No English reaches a Russian, Bulgarian or Italian reader of a board, whatever the position: for each
game, random playouts (several seeds, every number of players) give positions of every kind (each
kind of decision a seat may face, a decision pending, the end), and everything a reader gets from a
view of them -- the text board, the HTML board, the drawing (wide and narrow), the notation help, each
legal move described and explained -- read by an observer and by each seat in each language, holds
no English name of the game (data/names.csv) and no raw key (an identifier such as ``wind_turbines``,
a decision's answer such as ``money`` standing as a label, a move such as ``'phase2 event'`` quoted
in a sentence). The notation a player types is English by design and is left aside: the moves legal
now, the examples after "e.g.", a drawing's ``data-moves``, the notation reference.
"""
from __future__ import annotations

import json
import random
import re
from functools import lru_cache

import pytest
from babel.messages.pofile import read_po

from pbem.engine import get_game
from pbem.engine.i18n import language
from tests.english import ROOT, LANGS, english_names, found, names_table, visible_text, without_notation

# every game, with the options that change what its boards name
GAMES = {
    "spyrium": ({},),
    "squire": ({"side": "british"}, {"side": "world"}),
    "iaww": ({}, {"face": "B"}),
}
SEEDS = (1, 2)
LAZY = 0.3  # how often a random player leaves a move's choices to be asked afterwards (its shortest moves)
PER_GAME = 24  # positions of a game that are read, the first of each kind of decision first
MOVES = 24  # legal moves of a seat described and explained, spread over the list

# a raw key: an identifier of the data ("wind_turbines", "phase2_event")
IDENTIFIER = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+(?![\w-])")
# the notation words a board must not use as its labels or its sentences' words (Spyrium's answers to
# a decision, Squire's player boards "fox", "badger"), written where a reader reads words: a word joined
# to another notation word by a slash ("money/spy/vp", in the notation reference) is the notation
RAW = {
    "spyrium": ("money", "spy", "vp"),
    "squire": tuple(key.removeprefix("board:") for key in names_table("squire") if key.startswith("board:")),
    "iaww": (),
}
RAW_WORD = r"(?<![\w/+-])(?:{})(?![\w/+-])"
# a move quoted in a sentence ("for 'phase2 event'"): the reader's words for it, never the English
QUOTED = {
    "spyrium": re.compile(r"'(?:phase2 )?(?:place|event|earn|act|use|pass)\b[^'\n]{0,40}'"),
    "squire": None,
    "iaww": None,
}


def _shapes(game, state) -> set[str]:
    """The kinds of decision a position asks for: the shapes of the moves legal in it (their first
    words, what follows a ">" and digits aside)."""
    shapes = set()
    for seat in game.to_move(state):
        for move in game.legal_moves(state, seat):
            first = game.format_move(state, seat, move).split()[0]
            shapes.add(re.sub(r"\d+", "#", first.split(">")[0]))
    return shapes


@lru_cache(maxsize=None)
def _positions(name: str) -> list:
    """(label, state, the notation typed so far) for about PER_GAME positions of ``name``'s random
    playouts: the first to ask each kind of decision, a few games' ends, then positions spread over the
    games. The notation typed so far is the record and the moves legal at the start (the notation
    reference's examples, such as Squire's 'board fox "Sir Fox"')."""
    game = get_game(name)
    first, seen, rest, ends = [], set(), [], []
    for options in GAMES[name]:
        for n in range(game.min_players, game.max_players + 1):
            for seed in SEEDS:
                rng = random.Random(seed * 100 + n)
                state = game.initial_state(n, seed, options)
                typed = [game.format_move(state, s, m) for s in game.to_move(state) for m in game.legal_moves(state, s)]
                ply = 0
                while game.to_move(state):
                    label = f"{n}p seed {seed} {options or ''} ply {ply}"
                    shapes = _shapes(game, state)
                    if shapes - seen:
                        seen |= shapes
                        first.append((label, state, tuple(typed)))
                    elif ply % 17 == 0:
                        rest.append((label, state, tuple(typed)))
                    seat = rng.choice(sorted(game.to_move(state)))
                    legal = game.legal_moves(state, seat)
                    if rng.random() < LAZY:
                        words = {m: len(game.format_move(state, seat, m).split()) for m in legal}
                        legal = [m for m in legal if words[m] == min(words.values())]
                    move = rng.choice(legal)
                    typed.append(game.format_move(state, seat, move))
                    state = game.apply(state, seat, move)
                    ply += 1
                ends.append((f"{n}p seed {seed} {options or ''} end", state, tuple(typed)))
    picked = first + ends[:: max(1, len(ends) // 3)]
    room = max(0, PER_GAME - len(picked))
    picked += rest[:: max(1, len(rest) // room)][:room] if room and rest else []
    return picked + _made(name)


def _made(name: str) -> list:
    """Positions random playouts hardly ever reach, made by hand: Spyrium's Overtime asking which of two
    turned buildings to use again, then which option."""
    if name != "spyrium":
        return []
    from tests.engine.spyrium.helpers import RED, play, player, state

    ps = [player(spy=3, phase=2, active=2, lots=("Workshop £2", "Mine £5"), turned=(True, True)), player()]
    st = state(ps, market={1: "Commerce", 2: "Apprentice", 4: "Factory £6", 5: "Mine £7"}, event="Overtime")
    building = play(st, RED, "event")
    option = play(building, RED, "lot2")
    assert building.pending and option.pending
    return [("Overtime, which building", building, ("event",)), ("Overtime, which option", option, ("event", "lot2"))]


def _readings(game, state, record, lang: str) -> dict[str, tuple[str, list[str]]]:
    """Everything a reader gets from ``state`` in ``lang``: {where: (text, the notation typed there)}."""
    out: dict[str, tuple[str, list[str]]] = {}
    seats = sorted(game.to_move(state))
    players = game.view(state, None)["players"]
    # the moves any seat may type now, as the boards offer them, and those typed before; a move of one
    # plain word ("money", an answer) is a word the boards must say in the reader's words where they
    # use it as one
    typed = [t for t in {*record, *(game.format_move(state, seat, m) for seat in seats
                                    for m in game.legal_moves(state, seat))}
             if not re.fullmatch(r"[A-Za-z]+", t)]
    with language(lang):
        for seat in [None, *range(players)]:
            view = game.view(state, seat)
            mine = ([game.format_move(state, seat, m) for m in game.legal_moves(state, seat)]
                    if seat is not None and seat in seats else [])
            here = typed + list(view.get("examples") or ())
            who = "observer" if seat is None else f"seat {seat + 1}"
            out[f"{who}: text"] = (_no_examples(game.render_text(view)), here)
            out[f"{who}: HTML"] = (_no_examples(visible_text(_no_code(game.render_html(view)))), here)
            if seat is None or seat in seats or (not seats and seat == 0):  # a drawing is slow: the seats to move
                for layout in ("wide", "narrow"):
                    out[f"{who}: drawing, {layout}"] = (visible_text(game.draw_svg(view, mine, layout=layout)), here)
            out[f"{who}: help"] = (game.notation_help(state, seat), here)
        for seat in seats:
            moves = game.legal_moves(state, seat)
            for move in moves[:: max(1, len(moves) // MOVES)][:MOVES]:
                said = f"{game.describe_move(state, seat, move)}\n{game.explain_move(state, seat, move)}"
                out[f"seat {seat + 1}: {game.format_move(state, seat, move)!r} in words"] = (said, typed)
    return out


def _no_examples(text: str) -> str:
    """``text`` without its example moves: what follows "e.g." to the end of its paragraph."""
    return re.sub(r"(?:e\.g\.|ad es\.|напр\.|например|Например|Per esempio|For example)[^\n]*(?:\n[ \t]+\S[^\n]*)*",
                  " ", text)


def _no_code(html: str) -> str:
    """An HTML board without its example moves (``<code>`` after "e.g.")."""
    return re.sub(r"(?:e\.g\.|ad es\.|напр\.|например|Например|Per esempio|For example)[^<]*(?:\s*;?\s*<code>[^<]*</code>)+",
                  " ", html)


def _listed(game, lang: str) -> re.Pattern:
    """A card's notation beside its name in ``lang`` ("casino_city   Город-казино": the list of the cards a
    seat decides about, so that it knows what to type; "Зона порта (>harbor_zone)"): It's a Wonderful
    World's keys ("wind_turbines") are the notation, and a player reads them there, and in the notation
    help, only."""
    with language(lang):
        pairs = {card.key: card.name for card in game.cards() if "_" in card.key}
    if not pairs:
        return re.compile(r"(?!x)x")
    # "R 2>T - recycle ... put on Harbor Zone (>harbor_zone)": the name, then the notation that names it
    return re.compile("|".join(rf"(?<![\w-]){re.escape(k)}(?:#\d+)?\s+{re.escape(n)}|{re.escape(n)} \(>{re.escape(k)}(?:#\d+)?\)"
                               for k, n in sorted(pairs.items(), key=lambda kv: -len(kv[0]))))


def _keys(game) -> frozenset[str]:
    """How the notation writes the game's cards (It's a Wonderful World's "wind_turbines")."""
    return frozenset(card.key for card in game.cards())


def probe(name: str, lang: str) -> dict[str, list[str]]:
    """Every English name or raw key a ``lang`` reader meets in the positions of ``name``."""
    game = get_game(name)
    names = english_names(name, lang)
    keys, listed = _keys(game), _listed(game, lang)
    out: dict[str, list[str]] = {}
    for label, state, record in _positions(name):
        for where, (text, typed) in _readings(game, state, record, lang).items():
            if QUOTED[name] is not None:
                hits = [f"quoted move {m.group(0)}" for m in QUOTED[name].finditer(text)]
            else:
                hits = []
            plain = without_notation(listed.sub(" ", " ".join(text.split())), typed, lang)
            help_ = where.endswith(": help")  # the notation help names the cards as the notation does
            hits += found(plain, names) + found(plain, {w for w in IDENTIFIER.findall(plain)
                                                        if not (help_ and w.split("#")[0] in keys)})
            hits += found(plain, RAW[name], RAW_WORD)
            if hits:
                out[f"{label}, {where}"] = hits
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_english_name_or_raw_key_in_what_a_view_gives(name, lang):
    leaks = probe(name, lang)
    assert not leaks, f"{len(leaks)} readings hold English:\n" + json.dumps(dict(list(leaks.items())[:30]),
                                                                            ensure_ascii=False, indent=1)


# the notation a catalog's message may quote: Squire's board choice ('board fox "Sir Fox"')
CATALOG_NOTATION = re.compile(r'board \w+ "[^"]*"')


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_translation_names_a_component_in_english(name, lang):
    """What the playouts may not reach (a refusal, a tie, a card's text) is in the catalog: no translation
    writes a name of the game in English where the language has its own (names.csv)."""
    with (ROOT / "pbem" / "engine" / name / "locale" / lang / "LC_MESSAGES" / f"{name}.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    names = english_names(name, lang)
    leaks = {}
    for message in catalog:
        for text in (message.string if isinstance(message.string, tuple) else (message.string,)):
            hits = found(without_notation(CATALOG_NOTATION.sub(" ", text or ""), (), lang), names)
            if hits:
                leaks[str(message.id)[:60]] = hits
    assert not leaks, json.dumps(leaks, ensure_ascii=False, indent=1)


# the notation a card's text quotes for the player to type: Squire's board choice ('board fox "Sir Fox"')
CARD_NOTATION = re.compile(r'\(board \w+ "[^"]*"\)')


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_what_card_answers_names_nothing_in_english(name, lang):
    """CARD answers with a component's whole text: its name, kind and text in the reader's language, no
    English name of the game nor a key of its data ("route_kind", a player board's id in prose)."""
    game = get_game(name)
    names = english_names(name, lang)
    leaks = {}
    with language(lang):
        for card in game.cards():
            # the card's own key is its notation ("Notation: wind_turbines"), what the player types
            text = without_notation(CARD_NOTATION.sub(" ", " ".join((card.name, card.kind, card.text))), (card.key,),
                                    lang)
            hits = found(text, names) + found(text, set(IDENTIFIER.findall(text)))
            if hits:
                leaks[card.key] = hits
    assert not leaks, json.dumps(dict(list(leaks.items())[:20]), ensure_ascii=False, indent=1)
