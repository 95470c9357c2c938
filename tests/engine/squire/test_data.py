"""The data set: house data matches RULES.md §16; replacement sets are validated with clear errors."""
import json

import pytest

from pbem.engine import OptionError, validate_options
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from pbem.engine.squire.data import FILES, house_texts, load

HOUSE = house_texts()


def test_house_data_matches_section_16():
    d = load(())
    for side, land, sea in (("british", 16, 9), ("world", 11, 9)):
        b = d.boards[side]
        kinds = [k for _, _, k in b.routes]
        assert (kinds.count("land"), kinds.count("sea")) == (land, sea)
        assert all(2 <= len(a) <= 5 for a in b.adj)  # §16.1 checks
    assert len(d.tokens) == 55 and sum(v for _, v, _ in d.tokens) == 195
    assert len(d.cards) == 42 and len(d.player_boards) == 4
    assert [d.type_ids[i] for i in d.type_start] == ["painting", "jewellery", "sculpture", "ceramics", "rare_book"]
    assert d.type_values == (5, 4, 3, 2, 1) == d.region_values
    assert d.tokens_removed == {2: 16, 3: 7, 4: 0}
    w = d.boards["world"]
    assert w.city_region[w.city_ids.index("rio_de_janeiro")] == d.region_ids.index("blue")


def test_shipped_files_equal_the_rules_folder_copies():
    assert set(HOUSE) == set(FILES)


def _broken(fname, old, new):
    text = HOUSE[fname]
    assert old in text, old
    return {fname: text.replace(old, new, 1)}


BROKEN = [
    (_broken("board-world.toml", 'b = "tokyo",           kind = "land"', 'b = "osaka", kind = "land"'),
     "board-world.toml: routes[15]: 'osaka' is not a city id"),
    (_broken("board-british.toml", 'kind = "sea"  },', 'kind = "air"  },'), "kind must be 'land' or 'sea'"),
    (_broken("board-world.toml", '{ a = "new_york",        b = "san_francisco",   kind = "land" },', ''),
     None),  # still connected: fine
    (_broken("market.toml", 'start = ["red", "purple", "blue", "green", "yellow"]',
             'start = ["red", "purple", "blue", "green", "green"]'), "market.toml: [regions] start"),
    (_broken("market.toml", 'values = [5, 4, 3, 2, 1]', 'values = [5, 4, 3]'), "[types] values"),
    (_broken("exhibits.toml", "total_tokens = 55", "total_tokens = 54"), "total_tokens is 54"),
    (_broken("exhibits.toml", 'exhibitable = false', 'exhibitable = true'), "rare books can never be exhibited"),
    (_broken("exhibits.toml", 'count = 11\nvalues = [2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6]\n\n[[types]]\nid = "ceramics"',
             'count = 12\nvalues = [2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6]\n\n[[types]]\nid = "ceramics"'),
     "values lists 11 tokens but count is 12"),
    (_broken("exhibits.toml", 'colour = "red"\nexhibitable = true', 'colour = "red"\nexhibitable = false'),
     "painting can be exhibited"),
    (_broken("exhibits.toml", 'colour = "purple"', 'colour = "orange"'), "must be the 5 region colours"),
    (_broken("board-world.toml", 'symbol = "rose"', 'symbol = "tulip"'), "the rose [printed]"),
    (_broken("characters.toml", 'kind = "sale_bonus"', 'kind = "teleport"'), "kind must be one of"),
    (_broken("characters.toml", 'route_kind = "sea"', 'route_kind = "air"'), "route_kind must be"),
    (_broken("messages.toml", 'region = "red", gain = { coins = 3 } }', 'region = "pink", gain = { coins = 3 } }'),
     "card M01 offer: region 'pink'"),
    (_broken("messages.toml", 'commission = { kind = "per_complete_floor"', 'commission = { kind = "per_floor"'), "card M07 commission: kind"),
    (_broken("messages.toml", 'id = "M02"', 'id = "M01"'), "card M01: card id appears twice"),
    (_broken("components.toml", "start_royal_tickets = 1", "start_royal_tickets = 0"), "unable to move"),
    (_broken("components.toml", "tokens_removed = { 2 = 16, 3 = 7, 4 = 0 }", "tokens_removed = { 2 = 40, 3 = 7, 4 = 0 }"),
     "leaves no supply"),
    (_broken("gallery.toml", "floor = 3\ncolumn = 3\nbonus = { coins = 3 }", "floor = 4\ncolumn = 3\nbonus = { coins = 3 }"),
     "[[halls]] #6: cell floor 4"),
    (_broken("gallery.toml", "bonus = { tickets = 1 }", "bonus = { gold = 1 }"), "unknown key 'gold'"),
    (_broken("exhibitions.toml", 'type = "painting"', 'type = "rare_book"'), "not exhibitable"),
    (_broken("exhibitions.toml", 'others = { coins = 2 }', 'others = { coins = -2 }'), "must be 0 or more"),
    ({"market.toml": "positions = [oops"}, "market.toml: not valid TOML"),
    ({"rules.toml": "x = 1"}, "unknown file 'rules.toml'"),
]


@pytest.mark.parametrize("texts,message", BROKEN)
def test_validator_rejects_broken_sets_with_clear_messages(texts, message):
    if message is None:
        validate_options(GAME, 2, {"data": texts})
        return
    with pytest.raises(OptionError) as e:
        validate_options(GAME, 2, {"data": texts})
    assert message in str(e.value), str(e.value)


def test_validator_rejects_a_disconnected_map():
    text = HOUSE["board-british.toml"]
    for line in ('{ a = "belfast",         b = "dublin",          kind = "land" },',):
        assert line in text
    # cut Ireland+... away: remove every route touching cork/dublin/belfast except among themselves
    kept = [ln for ln in text.splitlines()
            if not (("cork" in ln or "dublin" in ln or "belfast" in ln) and "kind" in ln
                    and not all(c in ln for c in ("belfast", "dublin")) and not all(c in ln for c in ("dublin", "cork")))]
    with pytest.raises(OptionError, match="not connected"):
        validate_options(GAME, 2, {"data": {"board-british": "\n".join(kept)}})


def test_a_replacement_set_plays_and_is_carried_by_the_record():
    # swap the painting and jewellery reward currencies, as the exhibitions.toml comment suggests
    ex = HOUSE["exhibitions.toml"]
    ex = ex.replace('host = { coins = 2, coins_per_own = 1 }\nothers = { coins = 2 }',
                    'host = { tickets = 2, tickets_per_own = 1 }\nothers = { tickets = 2 }', 1)
    opts = validate_options(GAME, 3, {"data": {"exhibitions.toml": ex}, "side": "world"})
    assert json.loads(json.dumps(opts))  # the record stays JSON
    final, rec = random_playout(GAME, 3, 5, opts, rng_seed=5)
    assert GAME.outcome(final) is not None
    again = GAME.from_json(json.loads(json.dumps(GAME.to_json(final))))
    assert again == final
    d = final.data
    painting = d.type_ids.index("painting")
    assert d.exhibitions[painting].host.tickets == 2
    # options restored from JSON give the very same game
    opts2 = json.loads(json.dumps(opts))
    assert GAME.initial_state(3, 5, opts2) == GAME.initial_state(3, 5, opts)


def test_combined_single_text_form():
    text = '[market]\npositions = 5\n[market.types]\nvalues = [6, 4, 3, 2, 1]\n' \
           'start = ["painting", "jewellery", "sculpture", "ceramics", "rare_book"]\n' \
           '[market.regions]\nvalues = [5, 4, 3, 2, 1]\nstart = ["red", "purple", "blue", "green", "yellow"]\n'
    opts = validate_options(GAME, 2, {"data": text})
    s = GAME.initial_state(2, 1, opts)
    assert s.data.type_values == (6, 4, 3, 2, 1)
    with pytest.raises(OptionError, match="unknown table 'rules'"):
        validate_options(GAME, 2, {"data": "[rules]\nx = 1\n"})


def test_side_and_boards_options():
    assert validate_options(GAME, 2, {"side": "World"})["side"] == "world"
    with pytest.raises(OptionError):
        validate_options(GAME, 2, {"side": "mars"})
    with pytest.raises(OptionError):
        validate_options(GAME, 2, {"boards": "auction"})


def test_generic_reward_vocabulary_plays_out():
    """§16.5 vocabulary beyond the house values: accept/swap N, draw N, rewards on any row."""
    ex = HOUSE["exhibitions.toml"]
    ex = ex.replace("host = { accept_commission = 1 }\nothers = { swap_commission = 1 }",
                    "host = { accept_commission = 2, coins = 1 }\nothers = { accept_commission = 1, swap_commission = 2 }")
    ex = ex.replace("others = { draw = 1 }\nothers_need_own = true", "others = { draw = 2 }\nothers_need_own = false")
    gal = HOUSE["gallery.toml"].replace("floor = 1\nbonus = {}", "floor = 1\nbonus = { take_from_discard = 2, hand_limit = 1 }")
    opts = validate_options(GAME, 4, {"data": {"exhibitions.toml": ex, "gallery.toml": gal}})
    kinds = set()
    for seed in range(4):
        def on_move(before, seat, move, after):
            kinds.add((move.kind, len(move.c)))
        final, _ = random_playout(GAME, 4, seed, opts, rng_seed=seed, on_move=on_move)
        assert GAME.outcome(final) is not None
    assert any(k == "swap" for k, _ in kinds) and any(k == "accept" for k, _ in kinds)
    # the host may accept 2 at once when room and hand allow
    from dataclasses import replace
    from pbem.engine.squire.rules import EXHIBIT, Move
    s = GAME.initial_state(4, 1, opts)
    for seat, b in enumerate(("fox", "eagle", "lioness", "badger")):
        s = GAME.apply(s, seat, GAME.parse_move(s, seat, f"board {b}"))
    p = replace(s.players[3], hand=(0, 1), pos=0)
    s = replace(s, players=s.players[:3] + (p,), phase=EXHIBIT, active=3, token=3, turn=4)
    sculpture = s.data.type_ids.index("sculpture")
    assert Move("exhibit", sculpture, 1, (0, 1)) in GAME.legal_moves(s, 3)
    after = GAME.apply(s, 3, GAME.parse_move(s, 3, "exhibit sculpture accept M01 M02"))
    assert after.players[3].comms == (0, 1) and after.players[3].coins == p.coins + 1

    # floor 1 now gives 2 picks from the discard and +1 hand limit
    from pbem.engine.squire.rules import CELL, TAKE, hand_limit
    d = s.data
    toks = [t[2] for t in d.tokens]
    g = [-1] * 12
    for i, tid in enumerate(("painting-01", "painting-02", "painting-03")):
        g[i] = toks.index(tid)
    p = replace(s.players[3], gallery=tuple(g))
    s2 = replace(s, players=s.players[:3] + (p,), phase=CELL, bought=toks.index("jewellery-01"),
                 discard=(toks.index("ceramics-01"), toks.index("ceramics-02"), toks.index("ceramics-03")))
    s2 = GAME.apply(s2, 3, GAME.parse_move(s2, 3, "cell F1C4"))
    assert s2.phase == TAKE and s2.takes == 2
    s2 = GAME.apply(s2, 3, GAME.parse_move(s2, 3, "take ceramics-01 cell F2C2"))
    assert s2.phase == TAKE and s2.takes == 1
    s2 = GAME.apply(s2, 3, GAME.parse_move(s2, 3, "take ceramics-03 cell F2C3"))
    assert s2.phase != TAKE and s2.discard == (toks.index("ceramics-02"),)
    assert hand_limit(d, s2.players[3]) == 1 + 1 + 2 + 1  # base + floor-1 bonus + 2 ceramics + badger
