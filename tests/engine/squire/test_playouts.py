"""The shared contract checks on the World side and with random boards, plus game invariants
(RULES.md §1, §2, §10.2, §10.3, §13) checked after every move of random games."""
import json
import random
import re
from collections import Counter

import pytest

from pbem.engine import validate_options
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from pbem.engine.squire.data import house_texts
from pbem.engine.squire.rules import OFFERS, TRADE, commission_limit, hand_limit, matching_cards, offer_matches
from tests.engine.test_conformance import _check_step

from .util import D


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("opts", [{"side": "world"}, {"side": "british", "boards": "random"}])
def test_contract_on_other_options(n, opts):
    rng = random.Random(n)
    options = validate_options(GAME, n, opts)

    def on_move(before, seat, move, after):
        _check_step(GAME, before, seat, move, after, rng)
        assert GAME.from_json(json.loads(json.dumps(GAME.to_json(after)))) == after

    final, rec = random_playout(GAME, n, 40 + n, options, rng_seed=n, on_move=on_move)
    assert GAME.outcome(final) is not None


def _invariants(state):
    n = state.n
    # every token is in exactly one place (§1: 55 tokens)
    places = list(state.cities) + list(state.supply) + list(state.removed) + list(state.discard)
    places += [t for p in state.players for t in p.gallery]
    if state.bought >= 0:
        places.append(state.bought)
    places = [t for t in places if t >= 0]
    assert sorted(places) == list(range(55))
    # every message card is in exactly one place
    cards = list(state.deck) + list(state.mdiscard) + [c for p in state.players for c in p.hand + p.comms]
    assert sorted(cards) == list(range(42))
    # markets are permutations
    assert sorted(state.mtypes) == list(range(5)) and sorted(state.mregions) == list(range(5))
    for p in state.players:
        if p.board < 0:
            continue
        assert len(p.hand) <= hand_limit(D, p)             # §10.2
        assert len(p.comms) <= commission_limit(D, p)      # §10.3
        assert p.rtickets >= 1                             # §13 step I
        assert min(p.coins, p.tickets, p.rcoins) >= 0
    assert sum(p.rcoins for p in state.players) <= D.box_royal_coins
    assert sum(p.rtickets for p in state.players) <= D.box_royal_tickets
    # §6.6 cities are full at the start of every turn
    if state.phase in ("start", "move"):
        assert all(t >= 0 for t in state.cities)


@pytest.mark.parametrize("n,side", [(2, "british"), (3, "world"), (4, "british"), (4, "world")])
def test_invariants_hold_in_random_games(n, side):
    turns = Counter()
    for seed in range(6):
        def on_move(before, seat, move, after):
            _invariants(after)
            if move.kind in ("start", "move"):
                turns[seat] += 1

        final, _ = random_playout(GAME, n, 300 + seed, {"side": side}, rng_seed=seed, on_move=on_move)
        _invariants(final)
    # §12.1: everyone has had the same number of turns: 12, 11 or 10
    per = {2: 12, 3: 11, 4: 10}[n]
    assert dict(turns) == {s: 6 * per for s in range(n)}


def test_s5_2_characters_may_share_a_city():
    s = GAME.initial_state(2, 1, validate_options(GAME, 2, {"boards": "random"}))
    s = GAME.apply(s, 0, GAME.parse_move(s, 0, "start york"))
    s = GAME.apply(s, 0, GAME.parse_move(s, 0, "sell offers none"))
    s = GAME.apply(s, 1, GAME.parse_move(s, 1, "start york"))
    assert s.players[0].pos == s.players[1].pos


def _matching_by_rule(state, seat, action, city, tok):
    """The cards of the seat's hand whose offer the transaction matches, card by card (§6.5)."""
    d = state.data
    region = d.boards[state.side].city_region[city]
    return tuple(c for c in state.players[seat].hand if offer_matches(d, c, action, region, d.tokens[tok][0]))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_cards_an_offer_matches_are_the_rules_in_the_house_set_and_in_a_replacement(n):
    """The cards a buy or sell matches, as the trade step's and the offers question's moves and
    ``matching_cards`` give them, are those the offer rule gives card by card: with the house cards,
    and with a replacement set whose offers say buy or sell (not both) played in the same process."""
    from itertools import combinations

    house = house_texts()["messages.toml"]
    turn = iter(["buy", "sell"] * 21)
    replaced = re.sub(r'action = "buy_or_sell"', lambda _m: f'action = "{next(turn)}"', house)
    assert replaced.count('action = "buy"') == replaced.count('action = "sell"') == 21
    checked = Counter()

    def on_move(before, seat, move, after):
        for state in (before, after):
            if state.phase == TRADE:
                (me,) = GAME.to_move(state)
                p = state.players[me]
                legal = GAME.legal_moves(state, me)
                tok = state.cities[p.pos]
                for action, kind in ((0, "buy"), (1, "sell")):
                    m = _matching_by_rule(state, me, action, p.pos, tok)
                    assert matching_cards(state, me, action, p.pos, tok) == m
                    stated = sorted(x.c for x in legal if x.kind == kind and x.a == 1 and x.b == 0)
                    if any(x.kind == kind for x in legal):
                        assert stated == sorted(s for r in range(len(m) + 1) for s in combinations(m, r))
                        checked["trade", bool(m)] += 1
            elif state.phase == OFFERS:
                (me,) = GAME.to_move(state)
                action, city, tok = state.txn
                m = _matching_by_rule(state, me, action, city, tok)
                offered = sorted(x.c for x in GAME.legal_moves(state, me) if x.kind == "offers" and x.b == 0)
                assert offered == sorted(s for r in range(len(m) + 1) for s in combinations(m, r))
                checked["offers", bool(m)] += 1

    for seed in range(3):
        for options in ({}, {"data": {"messages.toml": replaced}}):
            final, _ = random_playout(GAME, n, 500 + seed, options, rng_seed=seed, on_move=on_move)
            assert GAME.outcome(final) is not None
    # with a matching card and without, at both decisions
    assert all(checked[k, has] for k in ("trade", "offers") for has in (True, False)), checked
