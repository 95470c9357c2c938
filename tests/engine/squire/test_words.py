"""Squire moves in words: describe_move, explain_move, cards(), the options in words, and boards that fit an
80-column mail and a phone, with the players' names."""
import re
from dataclasses import replace

import pytest

from pbem.engine.base import find_cards
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from pbem.engine.squire.rules import CELL, EXHIBIT, TRADE, Move

from .test_orders import mail
from .util import D, at_move, card, cell, city, gallery, new, play, player, put, tok, typ

DEBRIS = re.compile(r"None|\{|\(|\)|\bMove\b|\[")


@pytest.mark.parametrize("n,seed,side", [(2, 31, "world"), (3, 32, "british"), (4, 33, "world")])
def test_every_legal_move_is_described_and_explained_in_one_clean_line(n, seed, side):
    kinds = set()

    def on_move(before, seat, move, after):
        for m in GAME.legal_moves(before, seat)[:40]:
            for text in (GAME.describe_move(before, seat, m), GAME.explain_move(before, seat, m)):
                assert text and "\n" not in text and not DEBRIS.search(text), (m, text)
            kinds.add(m.kind)

    random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=on_move)
    assert {"board", "start", "move", "buy", "sell", "offers", "cell", "exhibit"} <= kinds


def _eagle_in_liverpool():
    s = at_move(new(4, boards=("fox", "eagle", "lioness", "badger")), 1, "liverpool")
    return player(s, 1, tickets=2, rtickets=1, coins=10, rcoins=0)


def test_move_words():
    s = _eagle_in_liverpool()
    m = GAME.parse_move(s, 1, "move liverpool-dublin-cork")
    assert GAME.describe_move(s, 1, m) == \
        "moved Liverpool-Dublin-Cork, 2 steps paid with 1 free sea step and 1 royal ticket that they keep"
    ex = GAME.explain_move(s, 1, m)
    assert ex.startswith("go to Cork via Dublin: 2 steps, paid with 1 free sea step and 1 royal ticket that "
                         "you keep; there lies ")
    m = GAME.parse_move(s, 1, "move liverpool-manchester-york")
    assert GAME.describe_move(s, 1, m) == \
        "moved Liverpool-Manchester-York, 2 steps paid with 1 royal ticket that they keep and 1 ticket"


def test_trade_and_offer_words():
    s = at_move(new(4), 3, "york", TRADE)
    s = put(s, "york", "ceramics-05")
    s = player(s, 3, hand=(card("M05"), card("M09")), coins=10, rcoins=1)
    assert GAME.describe_move(s, 3, GAME.parse_move(s, 3, "buy offers M05")) == \
        ("bought ceramics, value 3, in York for 5 coins, 1 royal coin of them, kept, and played the offer "
         "of M05: +3 coins")
    assert GAME.explain_move(s, 3, GAME.parse_move(s, 3, "buy")) == \
        ("buy ceramics, value 3, for 5 coins, 1 royal coin of them, kept, and place it in step IV; you are "
         "then asked which offers you play, unless your mail goes on past the question or the sale ends your "
         "turn: then none")
    assert GAME.explain_move(s, 3, GAME.parse_move(s, 3, "buy offers none always")) == \
        ("buy ceramics, value 3, for 5 coins, 1 royal coin of them, kept, and place it in step IV, playing no "
         "offer card, and never be asked again")
    fox = at_move(new(4), 0, "york", TRADE)
    fox = put(fox, "york", "ceramics-05")
    assert GAME.describe_move(fox, 0, GAME.parse_move(fox, 0, "sell offers none")) == \
        "sold ceramics, value 3, in York for 5 coins and Dealer bonus +2 coins, and played no offer"
    asked = play(s, 3, "sell")
    assert GAME.describe_move(asked, 3, GAME.parse_move(asked, 3, "offers M05")) == "played the offer of M05: +3 coins"
    assert GAME.explain_move(asked, 3, GAME.parse_move(asked, 3, "offers none")) == "play no offer card"


def test_cell_take_exhibit_accept_swap_words():
    s = at_move(new(4), 3, "york", CELL)
    s = replace(s, bought=tok("painting-01"))
    assert GAME.describe_move(s, 3, Move("cell", cell("F1C2"))) == \
        "placed painting, value 2, in F1C2, gaining +2 coins"
    assert GAME.explain_move(s, 3, Move("cell", cell("F1C1"))) == "put painting, value 2, in F1C1"
    g = gallery(("F3C1", "painting-02"), ("F3C2", "painting-03"), ("F3C3", "painting-04"))
    t = replace(player(s, 3, gallery=g), discard=(tok("sculpture-11"),))
    m = GAME.parse_move(t, 3, "cell F3C4 take sculpture-11 cell F1C1")
    assert GAME.describe_move(t, 3, m) == ("placed painting, value 2, in F3C4 and took sculpture, value 6, "
                                           "from the exhibit discard into F1C1")
    e = at_move(new(4), 3, "york", EXHIBIT)
    e = replace(player(e, 3, gallery=gallery(("F1C1", "painting-02")), hand=(card("M11"),)), token=3)
    assert GAME.describe_move(e, 3, Move("exhibit", typ("painting"))) == \
        "held a painting exhibition, taking +3 coins"
    assert GAME.explain_move(e, 3, Move("exhibit", typ("painting"))) == \
        ("hold a painting exhibition; you: 2 coins + 1 per own painting, +3 coins now; others who own one: "
         "2 coins")
    m = GAME.parse_move(e, 3, "exhibit sculpture accept M11")
    assert GAME.describe_move(e, 3, m) == "held a sculpture exhibition, and accepted M11 as a commission"
    assert GAME.explain_move(e, 3, Move("swap", card("M07"), card("M28"))) == \
        ("give up commission M07, 3 VP per complete floor, for M28 from your hand: 1 VP per ceramics or "
         "sculpture")
    assert GAME.describe_move(e, 3, Move("swap", -1, 1)) == "kept their commissions, and will not be asked again"


def test_board_and_start_words():
    s = GAME.initial_state(2, 1, {"side": "british", "boards": "choose", "data": ""})
    m = GAME.parse_move(s, 0, 'board badger "Lady Badger"')
    assert GAME.describe_move(s, 0, m) == \
        "chose the badger board and Lady Badger: Correspondent: hand limit +1 and commission limit +1"
    s = at_move(new(2), 0, "", "start")
    s = put(s, "york", "ceramics-05")
    assert GAME.describe_move(s, 0, GAME.parse_move(s, 0, "start york")) == \
        "placed Sir Fox in York, where ceramics of value 3 lies"


def test_cards_cover_messages_exhibits_types_boards_and_cities():
    cards = GAME.cards()
    keys = [c.key for c in cards]
    assert len(keys) == len(set(keys))
    kinds = {c.kind for c in cards}
    assert kinds == {"message card", "exhibit type and exhibition", "exhibit", "player board", "city"}
    assert len([c for c in cards if c.kind == "message card"]) == len(D.cards)
    assert len([c for c in cards if c.kind == "exhibit"]) == len(D.tokens)
    for c in cards:
        assert all(len(line) <= 76 for line in c.text.splitlines()), c
    m01 = find_cards(GAME, "M01")[0]
    assert "buy or sell any exhibit in a red city: +3 coins" in m01.text.replace("\n  ", " ")
    assert "1 VP per painting or ceramics" in m01.text.replace("\n  ", " ")
    assert find_cards(GAME, "m1") == [] or find_cards(GAME, "M01")[0].key == "M01"
    assert "value 3" in find_cards(GAME, "painting-05")[0].text
    assert "2 coins + 1 per own painting" in find_cards(GAME, "painting")[0].text
    assert "Navigator" in find_cards(GAME, "eagle")[0].text
    assert find_cards(GAME, "Lady Eagle")[0].key == "eagle"
    london = find_cards(GAME, "london")[0].text.replace("\n  ", " ")
    assert "British Isles: red region, South England (rose). Routes to" in london
    assert "World: red region, Europe" in london
    assert find_cards(GAME, "new york")[0].key == "new_york"


def test_the_options_name_every_cell_group_and_the_offers_first():
    s = mail(at_move(new(4), 1, "manchester"), 1, "move york; buy")
    h = GAME.notation_help(s, 1)
    lines = h.splitlines()
    assert lines[0].startswith("Step II, the matching offers you play with your buy; and step IV")
    assert h.index("offers none") < h.index("cell FxCy")
    assert "F1C2: +2 coins, hand limit +1" in h and "F2C1 F3C3: +3 coins" in h  # a ceramics raises the limit


# ---------------------------------------------------------------- boards: 80 columns, phones, names


@pytest.mark.parametrize("n,seed,side", [(2, 41, "world"), (4, 42, "british")])
def test_text_boards_and_help_fit_80_columns_for_every_seat(n, seed, side):
    names = ["Anna-Maria Longname", "Bob", "Cleo", "Dee"][:n]
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        if checked > 150:
            return
        for who in [None, *range(n)]:
            v = GAME.view(after, who)
            v["names"] = names
            for text in (GAME.render_text(v),
                         "Your move. " + GAME.notation_help(after, who) if who in GAME.to_move(after) else ""):
                for line in text.splitlines():
                    assert len(line) <= 80, line
            checked += 1

    random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=on_move)


def test_html_fits_a_phone():
    s = at_move(new(4), 1, "liverpool")
    v = GAME.view(s, 1)
    v["names"] = ["Ann", "Bob", "Cleo", "Dee"]
    h = GAME.render_html(v)
    for w in re.findall(r"(?<![-\w])width\s*[:=]\s*\"?(\d+)", h):
        assert int(w) <= 360, w
    assert h.count("<table") == h.count('<div style="overflow-x:auto;max-width:100%"><table')
    # the map is the drawing's now (draw.py, shown beside the HTML board); the HTML board draws none
    assert "<svg" not in h


def test_names_everywhere_in_the_boards_and_player_n_in_the_status():
    s = at_move(new(4), 1, "liverpool")
    s = player(s, 2, pos=city(s, "liverpool"))
    v = GAME.view(s, None)
    assert v["status"] == "Turn 5 - Player 2 to move"
    v["names"] = ["Ann", "Bob", "Cleo", "Dee"]
    text, html = GAME.render_text(v), GAME.render_html(v)
    assert re.search(r"Liverpool .* Bob, Cleo", text)
    assert not re.search(r"\bP\d\b|Player \d", text), re.findall(r".*(?:\bP\d\b|Player \d).*", text)
    assert not re.search(r"\bP\d\b|Player \d", html)


def test_the_board_shows_what_decides():
    """Reachable cities with their cost, the discard and a bought exhibit with values, the hand in full."""
    s = _eagle_in_liverpool()
    s = replace(player(s, 1, hand=(card("M17"),)), discard=(tok("painting-05"), tok("sculpture-11")))
    v = GAME.view(s, 1)
    text = GAME.render_text(v)
    assert "YOUR MOVE from Liverpool: you hold 1 royal ticket and 2 tickets; 1 sea step of each move is free" \
        in text.replace("\n  ", " ")
    assert re.search(r"  Cork +\S+ \(\d\) +\d+  free \+ royal +Dublin", text)
    assert "painting-05 (3)" in text and "sculpture-11 (6)" in text
    assert "M17 offer: buy or sell any exhibit in a purple city: +3 coins" in text
    assert "commission: 1 VP per exhibit of value 5 or 6" in text
    assert GAME.view(s, 0)["reach"] is None and GAME.view(s, None)["reach"] is None
    bought = replace(s, phase=CELL, bought=tok("jewellery-11"))
    assert "Bought, waiting to be placed: jewellery (value 6)" in GAME.render_text(GAME.view(bought, None))
