"""Views and renderers: no leaks, golden boards, replay determinism, reveals."""
import json
import re

import pytest

from pbem.engine import MoveError, replay, validate_options
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from pbem.engine.squire.data import load

from .util import check_golden, golden_playout, golden_positions

WORD = re.compile(r"[A-Za-z_]+-\d+|[A-Z]\d+")
D = load(())


def _hidden_for(state, seat):
    """Every string that `seat` may not see: other hands, deck, supply, removed tokens."""
    cards = set()
    for s, p in enumerate(state.players):
        if s != seat:
            cards |= {D.cards[c].id for c in p.hand}
    cards |= {D.cards[c].id for c in state.deck}
    tokens = {D.tokens[t][2] for t in state.supply + state.removed}
    return cards | tokens


@pytest.mark.parametrize("n,side", [(2, "world"), (3, "british"), (4, "world")])
def test_no_leak_of_hands_deck_supply_in_views_and_renders(n, side):
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        if len(after.deck) == 0 and not any(p.hand for p in after.players):
            return
        for who in [None, *range(n)]:
            v = GAME.view(after, who)
            blobs = [json.dumps(v), GAME.render_text(v), GAME.render_html(v)]
            hidden = _hidden_for(after, who)
            for blob in blobs:
                seen = set(WORD.findall(blob))
                assert not (seen & hidden), (who, seen & hidden)
            checked += 1
            assert "seed" not in v and "supply" not in v and "deck" not in v

    random_playout(GAME, n, 17, {"side": side}, rng_seed=17, on_move=on_move)
    assert checked > 100


def _twin_without_matches(state, seat):
    """``state`` with ``seat``'s hand swapped for as many cards whose offers match neither a buy nor
    a sell here (hand sizes are public, their cards are not, RULES.md §2); None if the data has too
    few such cards."""
    from dataclasses import replace as swap

    from pbem.engine.squire.rules import matching_cards

    p = state.players[seat]
    city, tok = p.pos, state.cities[p.pos]
    probe = lambda c: swap(state, players=tuple(swap(q, hand=(c,)) if i == seat else q  # noqa: E731
                                                 for i, q in enumerate(state.players)))
    dull = [c for c in range(len(D.cards)) if not any(matching_cards(probe(c), seat, a, city, tok) for a in (0, 1))]
    if len(dull) < len(p.hand):
        return None
    return swap(state, players=tuple(swap(q, hand=tuple(dull[:len(q.hand)])) if i == seat else q
                                     for i, q in enumerate(state.players)))


@pytest.mark.parametrize("n,seed", [(2, 4), (3, 5), (4, 6)])
def test_a_plain_buy_or_sell_tells_the_table_nothing_about_the_hand(n, seed):
    """The hand is secret (RULES.md §2): whatever the active seat's hand holds,
    the other seats and observers see the same after a buy or a sell written without its offers
    (plain, or 'offers none'), and after the 'offers none' that answers a plain one: the same
    notation in the move log and the mails, the same seats to move (the waiting-for text), the same
    views (board, status line). Before, a plain buy/sell opened the offers question only while a
    card matched, and every seat saw it open."""
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        if before.phase != "trade" or not before.players[seat].hand:
            return
        twin = _twin_without_matches(before, seat)
        if twin is None:
            return
        others = [None] + [k for k in range(n) if k != seat]
        for text in ("buy", "sell", "buy offers none", "sell offers none"):
            try:
                real = GAME.apply(before, seat, GAME.parse_move(before, seat, text))
            except MoveError:
                with pytest.raises(MoveError):  # not a buyer there either
                    GAME.parse_move(twin, seat, text)
                continue
            fake = GAME.apply(twin, seat, GAME.parse_move(twin, seat, text))
            told = [GAME.format_move(st, seat, GAME.parse_move(st, seat, text)) for st in (before, twin)]
            assert told[0] == told[1], (text, told)
            for a, b in [(real, fake)] + ([(GAME.apply(real, seat, GAME.parse_move(real, seat, "offers none")),
                                            GAME.apply(fake, seat, GAME.parse_move(fake, seat, "offers none")))]
                                          if real.phase == "offers" else []):  # the question, answered alike
                assert GAME.to_move(a) == GAME.to_move(b), text
                for who in others:
                    assert GAME.view(a, who) == GAME.view(b, who), (text, who)
            checked += 1

    random_playout(GAME, n, seed, {"side": "world"}, rng_seed=seed, on_move=on_move)
    assert checked > 10, checked


def test_own_hand_is_in_the_own_view_only():
    s = GAME.initial_state(3, 2, validate_options(GAME, 3, {}))
    mine = D.cards[s.players[1].hand[0]].id
    assert mine in json.dumps(GAME.view(s, 1)) and mine in GAME.render_text(GAME.view(s, 1))
    assert mine not in json.dumps(GAME.view(s, 0)) and mine not in json.dumps(GAME.view(s, None))


def test_replay_determinism_and_reveals():
    opts = validate_options(GAME, 3, {"side": "world"})
    final, rec = random_playout(GAME, 3, 8, opts, rng_seed=8)
    s = GAME.initial_state(3, 8, opts)
    texts = []
    revealing = 0
    for seat, m in rec:
        texts.append((seat, GAME.format_move(s, seat, m)))
        nxt = GAME.apply(s, seat, m)
        r = GAME.reveals(s, nxt)
        if m.kind in ("buy", "sell"):
            assert r  # the refill shows a new token
        if m.kind in ("board", "start", "move", "cell"):
            assert not r
        revealing += r
        s = nxt
    again = replay(GAME, 3, 8, opts, texts)
    assert again == final
    assert GAME.render_text(GAME.view(again, 0)) == GAME.render_text(GAME.view(final, 0))


@pytest.mark.parametrize("pos,seats", [("setup4", (None, 0)), ("mid4", (None, 0, 2)), ("final2", (None, 1)),
                                       ("move4", ("active",))])
def test_golden_boards(pos, seats):
    state = golden_positions()[pos]
    for who in seats:
        who = state.active if who == "active" else who
        v = GAME.view(state, who)
        if pos in ("mid4", "move4"):
            v["names"] = ["Ann", "Bob <b>", "", "Dee"]
        tag = "obs" if who is None else f"seat{who}"
        text = GAME.render_text(v)
        assert max(len(line) for line in text.splitlines()) <= 78
        check_golden(f"{pos}-{tag}.txt", text)
        h = GAME.render_html(v)
        assert "<script" not in h and "<style" not in h and "Bob <b>" not in h
        check_golden(f"{pos}-{tag}.html", h)


def test_view_keys_and_status():
    s = GAME.initial_state(2, 1, validate_options(GAME, 2, {}))
    v = GAME.view(s, None)
    assert v["status"] == "Setup - Player 1 to choose a board and character"
    for key in ("game", "seat", "players", "to_move", "over", "status", "outcome", "cities", "routes", "market",
                "seats", "supply_count", "deck_count", "exhibit_discard", "message_discard", "exhibition_token"):
        assert key in v


def test_golden_playthrough():
    """A whole seeded game as notation plus the final scores (OpenSpiel-style golden playthrough)."""
    opts = validate_options(GAME, 3, {"side": "world"})
    s = GAME.initial_state(3, 303, opts)
    final, rec = golden_playout(3, 303, opts)
    lines = []
    for seat, m in rec:
        lines.append(f"{s.turn:>2} P{seat + 1} {GAME.format_move(s, seat, m)}")
        s = GAME.apply(s, seat, m)
    out = GAME.outcome(s)
    lines.append(f"scores {list(out.scores)} winners {sorted(out.winners)} breakdown {list(out.breakdown)}")
    check_golden("playthrough-3p-world.txt", "\n".join(lines) + "\n")


def test_commission_texts_read_like_section_16_7():
    """The board tells a player what a card scores in the words of RULES.md §16.7."""
    from pbem.engine.squire.game import describe_commission
    from .util import card
    assert describe_commission(D, card("M17")) == "1 VP per exhibit of value 5 or 6"
    assert describe_commission(D, card("M42")) == "1 VP per exhibit of value 2 or 3"
    assert describe_commission(D, card("M11")) == "1 VP per ceramics or sculpture"
    assert describe_commission(D, card("M09")) == "5 VP if at least 8 exhibits"


def test_text_board_lists_the_exhibition_rewards():
    """A player choosing `exhibit TYPE` must see what each type pays (§9.3), within 78 columns."""
    s = GAME.initial_state(4, 1, validate_options(GAME, 4, {}))
    text = GAME.render_text(GAME.view(s, None))
    assert "EXHIBITIONS" in text
    block = text.split("EXHIBITIONS", 1)[1].split("\n\n", 1)[0]
    assert "painting" in block and "2 coins + 1 per own painting" in block
    assert "jewellery" in block and "1 ticket + 1 per own jewellery" in block
    assert "draw to hand limit" in block and "may accept 1 commission" in block
    assert "rare book" in block.lower() and "never" in block
    assert max(len(line) for line in text.splitlines()) <= 78


def test_text_board_spells_out_the_floor_bonuses():
    """'take1' and 'hand+2' were cryptic; the floor bonus column has room for words (§8.2)."""
    s = GAME.initial_state(2, 1, validate_options(GAME, 2, {}))
    text = GAME.render_text(GAME.view(s, 0))
    assert "take 1 from discard" in text and "hand limit +2" in text
    assert "hall bonus" in text and "RT royal ticket" in text   # the cell shorthand is explained
    assert max(len(line) for line in text.splitlines()) <= 78
