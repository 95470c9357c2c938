"""Focused tests, one or more per rule and [ruling] of RULES.md (section in the name)."""
from collections import Counter
from dataclasses import replace

import pytest

from pbem.engine import IllegalMoveError, validate_options
from pbem.engine.squire import GAME
from pbem.engine.squire.rules import (
    ACCEPT, BOARD, CELL, EXHIBIT, MOVE, OVER, START, SWAP, TAKE, TRADE, Move, commission_limit, hand_limit,
    legal_moves, move_options, price,
)

from .util import D, at_move, card, cell, city, gallery, new, play, player, put, tok, typ


# ---------------------------------------------------------------- §3 setup


@pytest.mark.parametrize("n,removed,supply", [(2, 16, 24), (3, 7, 33), (4, 0, 40)])
@pytest.mark.parametrize("side", ["british", "world"])
def test_s3_setup_counts(n, removed, supply, side):
    s = GAME.initial_state(n, 11, validate_options(GAME, n, {"side": side}))
    assert len(s.removed) == removed and len(s.supply) == supply
    assert all(t >= 0 for t in s.cities) and len(s.cities) == 15
    assert len(set(s.removed + s.supply + s.cities)) == 55
    assert s.token == n - 1  # §3.10: seat n-1 takes the exhibition token
    for p in s.players:
        assert (p.coins, p.rcoins, p.tickets, p.rtickets, len(p.hand), p.pos) == (10, 0, 0, 1, 1, -1)
    assert len(s.deck) == 42 - n
    assert s.phase == BOARD and GAME.to_move(s) == {0}


def test_s3_2_boards_are_chosen_in_seat_order_and_distinct():
    s = GAME.initial_state(3, 1, validate_options(GAME, 3, {}))
    s = play(s, 0, 'board eagle "Lady Eagle"')
    assert GAME.to_move(s) == {1}
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 1, "board eagle")
    s = play(s, 1, "board lady badger")  # the character name alone picks its board
    assert D.player_boards[s.players[1].board].id == "badger" and s.players[1].char == 1
    s = play(s, 2, "board fox 2")
    assert s.players[2].char == 1
    assert s.phase == START and s.turn == 1 and GAME.to_move(s) == {0}


def test_s3_2_random_boards_use_the_first_character():
    s = GAME.initial_state(4, 3, validate_options(GAME, 4, {"boards": "random"}))
    assert sorted(p.board for p in s.players) == [0, 1, 2, 3]
    assert all(p.char == 0 for p in s.players)
    assert s.phase == START


def test_s3_setup_is_deterministic_per_seed():
    a = GAME.initial_state(4, 5, validate_options(GAME, 4, {}))
    b = GAME.initial_state(4, 5, validate_options(GAME, 4, {}))
    c = GAME.initial_state(4, 6, validate_options(GAME, 4, {}))
    assert a == b and a != c


# ---------------------------------------------------------------- §5 movement


def test_s5_1_first_turn_places_anywhere_for_free():
    s = new(2)
    assert s.phase == START
    assert len(legal_moves(s, 0)) == 15
    s2 = play(s, 0, "start aber")
    assert s2.players[0].pos == city(s, "aberdeen") and s2.players[0].rtickets == 1
    assert s2.phase == TRADE


def test_s5_2_a_move_must_end_elsewhere_round_trip_illegal():
    s = at_move(new(4), 1, "york")
    s = player(s, 1, tickets=3)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 1, "move york-london-york")
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 1, "move york")
    # revisits and passing through c0 are allowed (they only waste tickets)
    m = GAME.parse_move(s, 1, "move york-london-york-manchester")
    assert m == Move("move", city(s, "manchester"), 2)


def test_s5_2_no_route_no_move():
    s = at_move(new(4), 0, "york")
    with pytest.raises(IllegalMoveError, match="no route"):
        GAME.parse_move(s, 0, "move york-dublin")


def test_s5_3_regular_tickets_must_cover_the_rest():
    s = at_move(new(4), 0, "york")
    s = player(s, 0, tickets=0, rtickets=1)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 0, "move york-london-bristol")
    dests = {d for d, _ in move_options(s, 0)}
    assert dests == {city(s, c) for c in ("edinburgh", "manchester", "london")}


def test_s5_3_royal_tickets_pay_one_step_each_and_are_kept():
    s = at_move(new(4), 0, "york")
    s = player(s, 0, tickets=2, rtickets=2)
    after = play(s, 0, "move york-london-bristol-cork pay royal 2 regular 1")
    assert (after.players[0].rtickets, after.players[0].tickets) == (2, 1)


def test_s5_3_free_sea_step_of_the_eagle():
    s = at_move(new(4), 1, "liverpool")  # seat 1 is the eagle
    s = player(s, 1, tickets=0, rtickets=1)
    m = GAME.parse_move(s, 1, "move liverpool-dublin-cork pay free 1 royal 1 regular 0")
    assert m == Move("move", city(s, "cork"), 0)
    # land steps are not free: liverpool-manchester-york needs a regular ticket
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 1, "move liverpool-manchester-york")
    # the fox (seat 0) has no free step
    s0 = player(at_move(s, 0, "liverpool"), 0, tickets=0, rtickets=1)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s0, 0, "move liverpool-dublin-cork")


def test_s5_3_tickets_gained_later_do_not_pay_this_move():
    s = at_move(new(4), 0, "york")
    s = player(s, 0, tickets=0)
    assert all(reg == 0 for _, reg in move_options(s, 0))


def test_s5_3_move_to_destination_takes_the_cheapest_path():
    s = at_move(new(4), 0, "york")
    s = player(s, 0, tickets=3)
    assert GAME.parse_move(s, 0, "move bristol") == Move("move", city(s, "bristol"), 1)
    assert GAME.format_move(s, 0, Move("move", city(s, "bristol"), 1)) == "move York-London-Bristol"


# ---------------------------------------------------------------- §6 buy / sell


def test_s6_3_buy_needs_money_royal_coins_count_and_are_kept():
    s = at_move(new(4), 2, "london", TRADE)
    s = put(s, "london", "painting-11")  # painting 5 + red 5 = 10
    s = player(s, 2, coins=8, rcoins=1)
    assert Move("buy", 1) not in legal_moves(s, 2)
    with pytest.raises(IllegalMoveError, match="price is 10"):
        GAME.parse_move(s, 2, "buy")
    s = player(s, 2, coins=9, rcoins=1)
    after = play(s, 2, "buy offers none")
    assert (after.players[2].coins, after.players[2].rcoins) == (0, 1)


def test_s6_3_buy_needs_an_empty_cell():
    s = at_move(new(4), 2, "york", TRADE)
    full = tuple(tok(f"sculpture-{i:02d}") for i in range(1, 13) if i <= 11) + (tok("jewellery-01"),)
    s = player(s, 2, coins=50, gallery=full)
    assert {m.kind for m in legal_moves(s, 2)} == {"sell"}
    with pytest.raises(IllegalMoveError, match="gallery is full"):
        GAME.parse_move(s, 2, "buy")


def test_s6_4_sell_is_always_legal_and_only_the_fox_gets_a_bonus():
    s = at_move(new(4), 1, "london", TRADE)
    s = put(s, "london", "rare_book-01")
    s = player(s, 1, coins=0)
    after = play(s, 1, "sell offers none")
    assert after.players[1].coins == 1 + 5
    assert after.discard[-1] == tok("rare_book-01")


def test_s6_5_offer_gains_cannot_pay_for_the_purchase():
    s = at_move(new(4), 1, "london", TRADE)
    s = put(s, "london", "painting-01")  # 10
    s = player(s, 1, coins=9, hand=(card("M01"),))
    assert not any(m.kind == "buy" for m in legal_moves(s, 1))


def test_s6_5_only_matching_offers_and_several_at_once():
    s = at_move(new(4), 3, "london", TRADE)
    s = put(s, "london", "painting-01")
    s = player(s, 3, coins=20, tickets=0, hand=(card("M01"), card("M21"), card("M05"), card("M41")))
    with pytest.raises(IllegalMoveError, match="M05"):
        GAME.parse_move(s, 3, "buy offers M05")
    after = play(s, 3, "buy offers M01 M21 M41")
    p = after.players[3]
    assert p.coins == 20 - 10 + 3 + 3 + 2 and p.hand == (card("M05"),)
    assert set(after.mdiscard) == {card("M01"), card("M21"), card("M41")}


def test_s6_5_offer_action_buy_or_sell_only_with_replaced_data():
    texts = {"messages.toml": _msgs_with_actions()}
    s = _custom_game(texts)
    s = at_move(s, 0, "london", TRADE)
    s = put(s, "london", "painting-01")
    s = player(s, 0, coins=30, hand=(0, 1))  # X1: buy only, X2: sell only
    kinds = {(m.kind, m.c) for m in legal_moves(s, 0) if m.a == 1}
    assert ("buy", (0,)) in kinds and ("buy", (1,)) not in kinds
    assert ("sell", (1,)) in kinds and ("sell", (0,)) not in kinds


def _msgs_with_actions():
    return '''
[[cards]]
id = "X1"
offer = { action = "buy", gain = { coins = 1 } }
commission = { kind = "per_full_set", points = 1 }
[[cards]]
id = "X2"
offer = { action = "sell", gain = { tickets = 1 } }
commission = { kind = "per_full_set", points = 1 }
[[cards]]
id = "X3"
offer = { action = "sell", gain = { tickets = 1 } }
commission = { kind = "per_full_set", points = 1 }
[[cards]]
id = "X4"
offer = { action = "sell", gain = { tickets = 1 } }
commission = { kind = "per_full_set", points = 1 }
[[cards]]
id = "X5"
offer = { action = "sell", gain = { tickets = 1 } }
commission = { kind = "per_full_set", points = 1 }
'''


def _custom_game(texts, n=4):
    opts = validate_options(GAME, n, {"data": texts})
    s = GAME.initial_state(n, 1, opts)
    for seat, b in enumerate(("fox", "eagle", "lioness", "badger")[:n]):
        s = play(s, seat, f"board {b}")
    return s


def test_s6_6_refill_and_end_flag_when_the_supply_runs_out():
    s = at_move(new(2), 0, "york", TRADE)
    s = replace(s, supply=s.supply[:1])
    front = s.supply[0]
    after = play(s, 0, "sell offers none")
    assert after.cities[city(s, "york")] == front and after.supply == () and after.end
    assert after.phase == OVER  # seat 0 has no token: the turn ends, then the game
    assert GAME.outcome(after) is not None


def test_s12_1_the_last_turn_finishes_steps_iii_to_v():
    s = at_move(new(4), 3, "york", TRADE)  # seat 3 holds the token
    s = replace(s, supply=s.supply[:1])
    s = player(s, 3, coins=30)
    after = play(s, 3, "buy offers none")
    assert after.end and after.phase == CELL
    after = play(after, 3, "cell F1C1")
    assert after.phase == EXHIBIT
    after = play(after, 3, "exhibit painting")
    assert after.phase == OVER and GAME.to_move(after) == frozenset()


# ---------------------------------------------------------------- §7 market


def test_s7_marker_already_at_the_top_stays():
    s = at_move(new(4), 0, "london", TRADE)
    s = put(s, "london", "painting-01")
    s = player(s, 0, coins=30)
    after = play(s, 0, "buy offers none")
    assert after.mtypes == s.mtypes and after.mregions == s.mregions


def test_s7_sell_moves_to_the_bottom_others_shift_up():
    s = at_move(new(4), 0, "edinburgh", TRADE)
    s = put(s, "edinburgh", "jewellery-01")
    after = play(s, 0, "sell offers none")
    assert [D.type_ids[t] for t in after.mtypes] == ["painting", "sculpture", "ceramics", "rare_book", "jewellery"]
    assert [D.region_ids[r] for r in after.mregions] == ["red", "blue", "green", "yellow", "purple"]


# ---------------------------------------------------------------- §8 gallery


def _buy_and_place(s, seat, where, tid, cellname, coins=40):
    s = at_move(s, seat, where, TRADE)
    s = put(s, where, tid)
    s = player(s, seat, coins=coins)
    s = play(s, seat, "buy offers none")
    before = s.players[seat]
    return before, play(s, seat, f"cell {cellname}")


def test_s8_2_hall_bonus():
    s = new(4)
    before, after = _buy_and_place(s, 0, "york", "painting-01", "F2C1")
    assert after.players[0].coins == before.coins + 3
    before, after = _buy_and_place(s, 0, "york", "painting-01", "F1C3")
    assert after.players[0].tickets == before.tickets + 1
    before, after = _buy_and_place(s, 0, "york", "painting-01", "F1C1")
    assert (after.players[0].coins, after.players[0].tickets) == (before.coins, before.tickets)


def test_s8_2_left_column_royal_ticket_right_column_royal_coin():
    s = new(4)
    s = player(s, 0, gallery=gallery(("F1C1", "painting-01"), ("F2C1", "painting-02"),
                                     ("F1C4", "painting-03"), ("F2C4", "painting-04")))
    before, after = _buy_and_place(s, 0, "york", "ceramics-01", "F3C1")
    assert after.players[0].rtickets == before.rtickets + 1
    before, after = _buy_and_place(s, 0, "york", "ceramics-01", "F3C4")
    assert after.players[0].rcoins == before.rcoins + 1


def test_s8_2_several_bonuses_at_once_hall_column_floor():
    s = new(4)
    s = player(s, 0, gallery=gallery(("F1C1", "painting-01"), ("F1C2", "painting-02"), ("F1C3", "painting-03"),
                                     ("F2C2", "painting-04"), ("F2C3", "painting-05"), ("F2C4", "painting-06"),
                                     ("F3C1", "painting-07")))
    assert hand_limit(D, s.players[0]) == 1
    before, after = _buy_and_place(s, 0, "york", "jewellery-01", "F2C1")
    p = after.players[0]
    assert p.coins == before.coins + 3          # hall F2C1
    assert p.rtickets == before.rtickets + 1    # column 1 complete
    assert hand_limit(D, p) == 1 + 2            # floor 2 complete: +2, no card drawn
    assert len(p.hand) == len(before.hand)


def test_s8_2_royal_bonus_lost_when_the_royal_supply_is_empty():
    s = new(4)
    s = player(s, 1, rcoins=D.box_royal_coins)  # somebody holds every royal coin
    s = player(s, 0, gallery=gallery(("F1C4", "painting-03"), ("F2C4", "painting-04")))
    before, after = _buy_and_place(s, 0, "york", "ceramics-01", "F3C4")
    assert after.players[0].rcoins == 0


def _floor3_ready(s):
    return player(s, 0, gallery=gallery(("F3C1", "painting-01"), ("F3C2", "painting-02"), ("F3C3", "painting-03")))


def test_s8_3_third_floor_pick_is_mandatory_and_is_a_placement():
    s = _floor3_ready(new(4))
    s = replace(s, discard=(tok("sculpture-11"), tok("ceramics-02")))
    before, after = _buy_and_place(s, 0, "york", "jewellery-01", "F3C4")
    assert after.phase == TAKE and GAME.to_move(after) == {0}
    assert {m.kind for m in legal_moves(after, 0)} == {"take"}
    assert len(legal_moves(after, 0)) == 2 * 8
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(after, 0, "take sculpture-11 cell F3C1")
    done = play(after, 0, "take sculpture-11 cell F2C1")  # hall F2C1: +3 coins
    p = done.players[0]
    assert p.gallery[cell("F2C1")] == tok("sculpture-11") and done.discard == (tok("ceramics-02"),)
    assert p.coins == after.players[0].coins + 3
    assert done.mtypes == after.mtypes and done.supply == after.supply  # not a purchase


def test_s8_3_third_floor_pick_lost_when_the_discard_is_empty():
    s = _floor3_ready(new(4))
    before, after = _buy_and_place(s, 0, "york", "jewellery-01", "F3C4")
    assert after.phase != TAKE and after.takes == 0


def test_s8_3_third_floor_pick_lost_when_the_gallery_is_full():
    s = new(4)
    g = list(gallery(*[(f"F{f}C{c}", f"painting-{(f - 1) * 4 + c:02d}") for f in (1, 2, 3) for c in (1, 2, 3, 4)
                       if (f, c) != (3, 4) and (f - 1) * 4 + c <= 11]))
    g[cell("F2C4")] = tok("ceramics-01")
    s = player(s, 0, gallery=tuple(g))
    s = replace(s, discard=(tok("sculpture-11"),))
    before, after = _buy_and_place(s, 0, "york", "jewellery-01", "F3C4")
    assert after.phase != TAKE


# ---------------------------------------------------------------- §9 exhibitions


def _exhibit_state(n=4, host=None):
    s = new(n)
    host = n - 1 if host is None else host
    s = replace(s, token=host)
    return at_move(s, host, "london", EXHIBIT)


def test_s9_2_rare_books_cannot_be_exhibited_and_repeats_allowed():
    s = _exhibit_state()
    with pytest.raises(IllegalMoveError, match="never be exhibited"):
        GAME.parse_move(s, 3, "exhibit rare book")
    s = replace(s, last_exh=typ("painting"))
    assert GAME.parse_move(s, 3, "exhibit painting").a == typ("painting")
    assert sorted({m.a for m in legal_moves(s, 3)}) == sorted(typ(t) for t in ("painting", "ceramics", "sculpture",
                                                                               "jewellery"))


def test_s9_3_painting_host_per_own_includes_this_turns_exhibit():
    s = new(4)
    s = replace(s, token=3)
    s = player(s, 3, gallery=gallery(("F1C1", "painting-01")))
    before, after = _buy_and_place(s, 3, "york", "painting-02", "F1C4")
    assert after.phase == EXHIBIT
    coins = after.players[3].coins
    done = play(after, 3, "exhibit painting")
    assert done.players[3].coins == coins + 2 + 2


def test_s9_3_jewellery_tickets_and_the_lioness_access():
    s = _exhibit_state(4, host=3)
    s = player(s, 3, gallery=gallery(("F1C1", "jewellery-01"), ("F1C2", "jewellery-02")))
    s = player(s, 0, gallery=gallery(("F1C1", "jewellery-03")))
    before = [p.tickets for p in s.players]
    after = play(s, 3, "exhibit jewellery")
    # host 1 + 2; fox owns one: 1; eagle none: 0; lioness none but exhibition_access: 1
    assert [a.tickets - b for a, b in zip(after.players, before)] == [1, 0, 1, 3]


def test_s9_3_ceramics_host_draws_to_the_limit_others_draw_one():
    s = _exhibit_state(4, host=3)
    s = player(s, 3, hand=(), gallery=gallery(("F1C1", "ceramics-01"), ("F1C2", "ceramics-02")))  # limit 1+2+1
    s = player(s, 0, hand=(), gallery=gallery(("F1C1", "ceramics-03")))  # limit 2
    s = player(s, 1, hand=(card("M01"),), gallery=gallery(("F1C1", "ceramics-04")))  # limit 2, has 1
    s = player(s, 2, hand=(card("M02"),))  # lioness: access, limit 1, already full
    deck = s.deck
    after = play(s, 3, "exhibit ceramics")
    assert len(after.players[3].hand) == 4  # badger: 2 ceramics + 1 + 1
    assert after.players[3].hand == tuple(sorted(deck[:4]))
    assert after.players[0].hand == (deck[4],)  # clockwise from the host's left: seat 0 first
    assert after.players[1].hand == tuple(sorted((card("M01"), deck[5])))
    assert after.players[2].hand == (card("M02"),)
    assert after.deck == deck[6:]


def test_s9_3_draws_from_an_empty_deck_draw_nothing():
    s = _exhibit_state(4, host=3)
    s = replace(s, deck=(card("M40"),))
    s = player(s, 3, hand=())
    s = player(s, 0, hand=(), gallery=gallery(("F1C1", "ceramics-03")))
    after = play(s, 3, "exhibit ceramics")
    assert after.players[3].hand == (card("M40"),) and after.players[0].hand == () and after.deck == ()


def test_s10_3_sculpture_host_accepts_inline_or_pending():
    s = _exhibit_state(4, host=3)
    s = player(s, 3, hand=(card("M11"), card("M07")))
    inline = play(s, 3, "exhibit sculpture accept M11")
    assert inline.players[3].comms == (card("M11",),) and inline.players[3].hand == (card("M07"),)
    pend = play(s, 3, "exhibit sculpture")
    assert pend.phase == ACCEPT and GAME.to_move(pend) == {3}
    done = play(pend, 3, "accept none")
    assert done.players[3].comms == () and done.phase != ACCEPT


def test_s10_3_host_at_the_commission_limit_cannot_accept():
    s = _exhibit_state(4, host=0)  # the fox: commission limit 1
    s = player(s, 0, hand=(card("M11"),), comms=(card("M07"),))
    assert commission_limit(D, s.players[0]) == 1
    assert [m for m in legal_moves(s, 0) if m.b == 1] == []
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(s, 0, "exhibit sculpture accept M11")
    after = play(s, 0, "exhibit sculpture")
    assert after.phase not in (ACCEPT, SWAP)


def test_s10_3_commission_limit_counts_sculptures_and_badger():
    p = new(4).players[3]
    assert commission_limit(D, p) == 2
    p = replace(p, gallery=gallery(("F1C1", "sculpture-01"), ("F1C2", "sculpture-02")))
    assert commission_limit(D, p) == 4
    assert hand_limit(D, p) == 2


def test_s10_4_others_swap_clockwise_from_the_hosts_left():
    s = _exhibit_state(4, host=1)
    sc = gallery(("F1C1", "sculpture-01"))
    s = player(s, 2, gallery=sc, comms=(card("M07"),), hand=(card("M28"),))
    s = player(s, 3, gallery=sc, comms=(), hand=(card("M30"),))   # no commission: cannot swap
    s = player(s, 0, gallery=sc, comms=(card("M09"),), hand=(card("M10"),))
    s = player(s, 1, hand=())  # host with an empty hand: no accept decision
    after = play(s, 1, "exhibit sculpture")
    assert after.phase == SWAP and GAME.to_move(after) == {2}
    assert GAME.legal_moves(after, 1) == []
    after = play(after, 2, "swap M07 for M28")
    assert after.players[2].comms == (card("M28"),) and card("M07") in after.mdiscard
    assert GAME.to_move(after) == {0}
    after = play(after, 0, "swap none")
    assert after.players[0].comms == (card("M09"),)
    assert after.phase in (START, MOVE) and after.active == 2 and after.token == 0


def test_s10_4_lioness_may_swap_without_a_sculpture():
    s = _exhibit_state(4, host=1)
    s = player(s, 1, hand=())
    s = player(s, 2, comms=(card("M07"),), hand=(card("M28"),))
    after = play(s, 1, "exhibit sculpture")
    assert GAME.to_move(after) == {2}


def test_s9_4_token_passes_right_after_exhibiting_3_and_4_players():
    for n in (3, 4):
        s = _exhibit_state(n, host=1)
        after = play(s, 1, "exhibit painting")
        assert after.token == 0


def _schedule(n, side="british", seed=3):
    """Play a random game; list (turn, host) of every exhibition."""
    from pbem.engine.playout import random_playout
    hosts = []

    def on_move(before, seat, move, after):
        if move.kind == "exhibit":
            hosts.append((before.turn, seat))

    random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=on_move)
    return hosts


def test_s9_4_exhibition_schedule_4_players():
    h = _schedule(4)
    assert [t for t, _ in h] == list(range(4, 41, 3))
    assert Counter(s for _, s in h)[3] == 4 and len(h) == 13


def test_s9_4_exhibition_schedule_3_players():
    h = _schedule(3, "world")
    assert [t for t, _ in h] == list(range(3, 34, 2)) and len(h) == 16


def test_s9_4_exhibition_schedule_2_players():
    h = _schedule(2)
    assert [t for t, _ in h] == list(range(2, 24, 3))
    assert [s for _, s in h] == [1, 0] * 4


def test_s9_4_two_player_token_lies_on_the_board_then_is_picked_up():
    s = _exhibit_state(2, host=1)
    after = play(s, 1, "exhibit painting")
    assert after.token == -1 and after.active == 0
    after = at_move(after, 0, "york", TRADE)
    after = play(after, 0, "sell offers none")
    assert after.token == 0 and after.active == 1  # picked up at the end of the turn, no exhibition


@pytest.mark.parametrize("n,turns", [(2, 24), (3, 33), (4, 40)])
def test_s12_1_the_last_turn_number(n, turns):
    from pbem.engine.playout import random_playout
    final, _ = random_playout(GAME, n, 9, {"side": "world"}, rng_seed=9)
    assert final.turn == turns


# ---------------------------------------------------------------- §10 hand limit


def test_s10_2_hand_limit():
    p = new(4).players[0]
    assert hand_limit(D, p) == 1
    p = replace(p, gallery=gallery(("F1C1", "ceramics-01"), ("F3C3", "ceramics-02")))
    assert hand_limit(D, p) == 3


# ---------------------------------------------------------------- §12 scoring


def _final(players_kw):
    s = new(len(players_kw))
    for seat, kw in enumerate(players_kw):
        s = player(s, seat, **kw)
    return replace(s, phase=OVER)


def test_s12_2_score_parts():
    s = _final([dict(gallery=gallery(("F1C1", "painting-11"), ("F1C2", "ceramics-01")), comms=(card("M01"),),
                     coins=7, rcoins=1, tickets=1, rtickets=2, hand=(card("M05"),)),
                dict(coins=0, rtickets=0)])
    out = GAME.outcome(s)
    assert out.breakdown[0] == {"exhibits": 8, "commissions": 2, "leftovers": 2}
    assert out.scores == (12, 0) and out.winners == {0}


def test_s12_3_tie_broken_by_leftovers_then_exhibits_then_shared():
    g1 = gallery(("F1C1", "painting-11"))            # 6
    g2 = gallery(("F1C1", "painting-01"), ("F1C2", "painting-02"))  # 2 + 2
    # equal score 6: leftovers decide
    s = _final([dict(gallery=g1, coins=4, rtickets=0), dict(gallery=g2, coins=13, rtickets=1)])
    assert GAME.outcome(s).scores == (6, 6)
    assert GAME.outcome(s).winners == {1} and "leftovers" in GAME.outcome(s).notes[0]
    # equal score and leftovers: more exhibits
    s = _final([dict(gallery=g1, coins=9, rtickets=0), dict(gallery=g2, coins=13, rtickets=1)])
    assert GAME.outcome(s).scores == (7, 6)
    s = _final([dict(gallery=g1, coins=13, rtickets=1), dict(gallery=gallery(("F1C1", "painting-08"),
                                                                            ("F1C2", "painting-01")),
                                                              coins=13, rtickets=1)])
    out = GAME.outcome(s)
    assert out.scores == (8, 8) and out.winners == {1} and out.ranking == (1, 0)
    # all equal: shared
    s = _final([dict(gallery=g1, coins=3, rtickets=1), dict(gallery=g1, coins=4, rtickets=0)])
    out = GAME.outcome(s)
    assert out.winners == {0, 1} and "shared" in out.notes[0]


def test_s16_7_commission_kinds():
    from pbem.engine.squire.rules import commission_points as cp
    full = gallery(*[(f"F{f}C{c}", t) for (f, c), t in zip(
        [(f, c) for f in (1, 2, 3) for c in (1, 2, 3, 4)],
        ["painting-11", "ceramics-10", "sculpture-09", "rare_book-01", "jewellery-01",
         "painting-01", "ceramics-01", "sculpture-01", "rare_book-02", "jewellery-02", "painting-02",
         "ceramics-02"])])
    assert cp(D, card("M07"), full) == 9           # 3 complete floors x 3
    assert cp(D, card("M16"), full) == 8           # 4 complete columns x 2
    assert cp(D, card("M08"), full) == 8           # 2 full sets x 4
    assert cp(D, card("M09"), full) == 5           # >= 8 exhibits
    assert cp(D, card("M17"), full) == 3           # values 5 or 6: painting-11 (6), ceramics-10 (5), sculpture-09 (5)
    assert cp(D, card("M25"), full) == 9
    assert cp(D, card("M09"), gallery(("F1C1", "painting-01"))) == 0


# ---------------------------------------------------------------- §13 playouts


@pytest.mark.parametrize("side", ["british", "world"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_s13_random_games_always_have_a_legal_move_and_end(n, side):
    from pbem.engine.playout import random_playout
    for seed in (21, 22):
        final, rec = random_playout(GAME, n, seed, {"side": side}, rng_seed=seed)
        assert GAME.outcome(final) is not None
        assert len(final.supply) == 0


def test_apply_rejects_an_illegal_move_without_change():
    s = at_move(new(4), 0, "york")
    with pytest.raises(IllegalMoveError):
        GAME.apply(s, 0, Move("move", city(s, "cork"), 0))
    with pytest.raises(Exception):
        GAME.apply(s, 1, Move("move", city(s, "london"), 0))


def test_s6_5_no_offers_outside_step_ii():
    s = at_move(new(4), 3, "york", CELL)
    s = replace(s, bought=tok("painting-01"))
    s = player(s, 3, hand=(card("M41"),))
    with pytest.raises(IllegalMoveError, match=r"offers are played only in step II \(§6.5\)"):
        GAME.parse_move(s, 3, "offers M41")
    t = replace(s, phase=TAKE, discard=(tok("painting-02"),), takes=1)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(t, 3, "offers M41")


def test_s8_1_placed_exhibits_never_move():
    s = at_move(new(4), 3, "york", CELL)
    s = replace(s, bought=tok("painting-01"))
    s = player(s, 3, gallery=gallery(("F1C1", "sculpture-01")))
    with pytest.raises(IllegalMoveError, match="not empty"):
        GAME.parse_move(s, 3, "cell F1C1")
    assert Move("cell", cell("F1C1")) not in legal_moves(s, 3)


def test_s6_1_first_turn_trades_in_the_start_city():
    s = new(2)
    s = put(s, "cork", "jewellery-11")
    s = play(s, 0, "start cork")
    assert price(s, city(s, "cork")) == 4 + 2
    after = play(s, 0, "sell offers none")
    assert after.discard == (tok("jewellery-11"),)


def test_s8_2_column_and_floor_bonus_of_the_third_floor_pick_itself():
    """§8.3: the pick is a placement: it can complete a column (royal ticket) and a floor."""
    s = new(4)
    s = player(s, 0, gallery=gallery(("F3C1", "painting-01"), ("F3C2", "painting-02"), ("F3C3", "painting-03"),
                                     ("F1C1", "painting-04"), ("F2C2", "painting-05"), ("F2C3", "painting-06"),
                                     ("F2C4", "painting-07")))
    s = replace(s, discard=(tok("sculpture-11"),))
    before, after = _buy_and_place(s, 0, "york", "jewellery-01", "F3C4")
    rt = after.players[0].rtickets
    done = play(after, 0, "take sculpture-11 cell F2C1")
    p = done.players[0]
    assert p.rtickets == rt + 1                      # column 1 complete
    assert p.coins == after.players[0].coins + 3     # hall F2C1
    assert hand_limit(D, p) == 1 + 2                 # floor 2 complete


def test_s3_4_5_tokens_removed_then_cities_seeded_in_board_order_then_supply():
    from pbem.engine.base import rng_for
    for n, side in ((2, "world"), (3, "british"), (4, "world")):
        s = GAME.initial_state(n, 77, validate_options(GAME, n, {"side": side}))
        order = list(range(55))
        rng_for(77, "tokens").shuffle(order)
        r = {2: 16, 3: 7, 4: 0}[n]
        assert list(s.removed) == order[:r]
        assert list(s.cities) == order[r:r + 15]   # city i of the board file gets the i-th token
        assert list(s.supply) == order[r + 15:]


def test_s3_8_one_card_each_dealt_in_seat_order():
    from pbem.engine.base import rng_for
    s = GAME.initial_state(4, 5, validate_options(GAME, 4, {}))
    deck = list(range(42))
    rng_for(5, "messages").shuffle(deck)
    assert [p.hand for p in s.players] == [(deck[0],), (deck[1],), (deck[2],), (deck[3],)]
    assert list(s.deck) == deck[4:]


def test_s8_3_third_floor_pick_written_inline_with_the_cell():
    s = _floor3_ready(new(4))
    s = replace(s, discard=(tok("sculpture-11"), tok("ceramics-02")))
    s = at_move(s, 0, "york", TRADE)
    s = put(s, "york", "jewellery-01")
    s = player(s, 0, coins=40)
    s = play(s, 0, "buy offers none")
    inline = play(s, 0, "cell F3C4 take sculpture-11 cell F2C1")
    stepwise = play(s, 0, "cell F3C4", "take sculpture-11 cell F2C1")
    assert inline == stepwise and inline.phase != TAKE
    assert GAME.format_move(s, 0, GAME.parse_move(s, 0, "cell f3c4 take scul-11 f2c1")) == \
        "cell F3C4 take sculpture-11 cell F2C1"
    with pytest.raises(IllegalMoveError, match="does not complete") as e:
        GAME.parse_move(s, 0, "cell F1C1 take sculpture-11 cell F2C1")
    assert "write just 'cell F1C1'" in e.value.reason  # tell the player what to send instead
    with pytest.raises(IllegalMoveError, match="not in the exhibit discard"):
        GAME.parse_move(s, 0, "cell F3C4 take painting-05 cell F2C1")
    with pytest.raises(IllegalMoveError, match="will not be empty"):
        GAME.parse_move(s, 0, "cell F3C4 take sculpture-11 cell F3C4")


def test_s6_2_prices_run_from_2_to_10_and_buy_and_sell_use_the_same_price():
    """§6.2 / §16.2: type number + region number, 5..1 each, so 2..10; same price both ways."""
    s = at_move(new(4, "world"), 0, "cape_town", TRADE)      # yellow: region number 1
    s = put(s, "cape_town", "rare_book-11")                   # rare book: type number 1
    assert price(s, city(s, "cape_town")) == 2
    s = put(s, "london", "painting-11")                       # painting 5 + red 5
    assert price(s, city(s, "london")) == 10
    s = player(s, 0, coins=10)
    bought, sold = play(s, 0, "buy offers none"), play(s, 0, "sell offers none")
    assert s.players[0].coins - bought.players[0].coins == 2
    assert sold.players[0].coins - s.players[0].coins == 2 + 2   # + Sir Fox's sale bonus
