"""RULES.md §15: every worked example, with exact numbers."""
from dataclasses import replace

import pytest

from pbem.engine import IllegalMoveError
from pbem.engine.squire import GAME
from pbem.engine.squire.rules import (
    CELL, EXHIBIT, OFFERS, TRADE, commission_points, matching_cards, price,
)

from .util import D, at_move, card, city, gallery, new, play, player, put, tok, typ


def _market(s):
    return ([D.type_ids[t] for t in s.mtypes], [D.region_ids[r] for r in s.mregions])


def test_start_market_matches_section_15():
    s = new(4, "world")
    assert _market(s) == (["painting", "jewellery", "sculpture", "ceramics", "rare_book"],
                          ["red", "purple", "blue", "green", "yellow"])


def test_e1_movement_with_a_royal_ticket():
    """§15 E1: Sir Fox, Rome -> Samarkand -> Tokyo, 1 royal + 1 regular ticket."""
    s = new(4, "world")
    s = at_move(s, 0, "rome")
    s = player(s, 0, rtickets=1, tickets=1)
    assert D.player_boards[s.players[0].board].characters[s.players[0].char] == "Sir Fox"
    for text in ("move rome-samarkand-tokyo", "move rome-samarkand-tokyo pay royal 1 regular 1",
                 "MOVE  Rome - Samarkand - Tokyo", "move samarkand-tokyo", "move rom-sam-tok"):
        after = play(s, 0, text)
        p = after.players[0]
        assert p.pos == city(s, "tokyo")
        assert (p.rtickets, p.tickets) == (1, 0)
        assert after.phase == TRADE  # step II target: the exhibit in Tokyo
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 0, "move rome-samarkand-tokyo pay royal 0 regular 2")


def test_e2_price_of_ceramics_in_rio():
    """§15 E2: ceramics in Rio (blue) = 2 + 3 = 5; buying leaves 5 of 10 coins."""
    s = new(4, "world")
    s = put(s, "rio_de_janeiro", "ceramics-05")
    s = at_move(s, 0, "rio_de_janeiro", TRADE)
    s = player(s, 0, coins=10, rcoins=0)
    assert price(s, city(s, "rio_de_janeiro")) == 5
    after = play(s, 0, "buy offers none")
    assert after.players[0].coins == 5
    assert after.phase == CELL


def test_e3_market_after_the_purchase_and_the_sell_variant():
    """§15 E3: both blue markers to the top on a buy, to the bottom on a sell."""
    s = new(4, "world")
    s = put(s, "rio_de_janeiro", "ceramics-05")
    s = at_move(s, 0, "rio_de_janeiro", TRADE)
    front = s.supply[0]
    bought = play(s, 0, "buy offers none")
    assert _market(bought) == (["ceramics", "painting", "jewellery", "sculpture", "rare_book"],
                               ["blue", "red", "purple", "green", "yellow"])
    assert bought.cities[city(s, "rio_de_janeiro")] == front  # refill
    probe = put(bought, "new_york", "ceramics-01")
    assert price(probe, city(s, "new_york")) == 10
    sold = play(s, 0, "sell offers none")
    assert sold.players[0].coins == 10 + 5 + 2  # price + Sir Fox's sale_bonus
    assert tok("ceramics-05") in sold.discard
    assert _market(sold) == (["painting", "jewellery", "sculpture", "rare_book", "ceramics"],
                             ["red", "purple", "green", "yellow", "blue"])
    assert sold.cities[city(s, "rio_de_janeiro")] == front
    probe = put(sold, "new_york", "ceramics-01")
    assert price(probe, city(s, "new_york")) == 2


def test_e4_the_rose_offer():
    """§15 E4: Lady Badger sells the rare book in Paris (6) and plays M01 (+3): 9 in all."""
    s = new(4, "world", boards=('badger "Lady Badger"', "fox", "eagle", "lioness"))
    assert D.player_boards[s.players[0].board].characters[s.players[0].char] == "Lady Badger"
    s = put(s, "paris", "rare_book-03")
    s = at_move(s, 0, "paris", TRADE)
    s = player(s, 0, hand=(card("M01"),), coins=10)
    assert price(s, city(s, "paris")) == 6
    after = play(s, 0, "sell offers M01")
    assert after.players[0].coins == 10 + 9
    assert after.players[0].hand == ()
    assert after.mdiscard == (card("M01"),)
    # the pending form: sell, then say which offers
    mid = play(s, 0, "sell")
    assert mid.phase == OFFERS and mid.players[0].coins == 16
    assert play(mid, 0, "offers m1").players[0].coins == 19
    # scope: London, Paris, Rome qualify; Tokyo does not
    for name, ok in (("london", True), ("paris", True), ("rome", True), ("tokyo", False)):
        t = put(s, name, "rare_book-05")
        assert bool(matching_cards(t, 0, 1, city(t, name), tok("rare_book-05"))) is ok


def test_e5_the_commission():
    """§15 E5: 2 ceramics, 1 sculpture, 2 paintings, 1 jewellery with M11 -> 3 VP (M28 the same)."""
    g = gallery(("F1C1", "ceramics-01"), ("F1C2", "ceramics-02"), ("F1C3", "sculpture-01"),
                ("F1C4", "painting-01"), ("F2C1", "painting-02"), ("F2C2", "jewellery-01"))
    assert commission_points(D, card("M11"), g) == 3
    assert commission_points(D, card("M28"), g) == 3
    s = new(2)
    s = player(s, 0, gallery=g, comms=(card("M11"),), coins=0, tickets=0, rtickets=0, rcoins=0)
    s = replace(s, phase="over")
    out = GAME.outcome(s)
    assert out.breakdown[0]["commissions"] == 3


def test_e6_exhibiting_a_type_you_do_not_own():
    """§15 E6: host with no painting takes 2; others with a painting take 2; token to the right."""
    s = new(4)
    s = replace(s, token=2)
    s = at_move(s, 2, "london", EXHIBIT)
    s = player(s, 3, gallery=gallery(("F1C1", "painting-01")))
    s = player(s, 0, gallery=gallery(("F1C1", "painting-02"), ("F1C2", "painting-03")))
    # seat 1 (eagle) owns none; seat 2 is the lioness host (her ability concerns others' exhibitions)
    before = [p.coins for p in s.players]
    after = play(s, 2, "exhibit painting")
    gained = [a.coins - b for a, b in zip(after.players, before)]
    assert gained == [2, 0, 2, 2]
    assert after.token == 1  # the host's right neighbour
    assert after.last_exh == typ("painting")
