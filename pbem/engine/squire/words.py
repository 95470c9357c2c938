"""Squire moves in words and the cards a player may ask about (issue 19).

``describe`` says what a move did (past tense, no subject, read from the state
before it), ``explain`` offers it as an option (imperative), ``cards`` lists
the message cards, exhibits, exhibit types with their exhibitions, player
boards and cities. Every number and text comes from the data files; other
seats are written "Player N" (the services put names in).
"""
from __future__ import annotations

import textwrap
from functools import lru_cache

from ..base import Card
from .data import ABILITY_KINDS, Data, load
from .rules import OFFERS, TAKE, Move, State, apply_move, hand_limit, path_cost, price, witness_path


def _n(k: int, what: str) -> str:
    return f"{k} {what}{'s' if k != 1 else ''}"


def describe_offer(d: Data, card: int) -> str:
    o = d.cards[card].offer
    what = {"buy": "buy", "sell": "sell", "buy_or_sell": "buy or sell"}[o.action]
    cond = []
    if o.type >= 0:
        cond.append(d.type_names[o.type].lower())
    else:
        cond.append("any exhibit")
    if o.region >= 0:
        cond.append(f"in a {d.region_ids[o.region]} city")
    gain = []
    if o.coins:
        gain.append(f"+{o.coins} coins")
    if o.tickets:
        gain.append(f"+{o.tickets} tickets")
    return f"{what} {' '.join(cond)}: {' '.join(gain) or 'nothing'}"


_TYPE_ORDER = ("painting", "ceramics", "sculpture", "rare_book", "jewellery")


def describe_commission(d: Data, card: int) -> str:
    c = d.cards[card].commission
    k = c.kind
    if k == "per_exhibit":
        parts = []
        if c.types:
            # in the order of §16.3 (display only), as the cards are written in §16.7
            parts.append(" or ".join(d.type_names[t].lower() for t in sorted(c.types, key=lambda t: (
                _TYPE_ORDER.index(d.type_ids[t]) if d.type_ids[t] in _TYPE_ORDER else 9, t))))
        if c.values:
            vals = "value " + " or ".join(str(v) for v in sorted(c.values))
            # §16.7 wording: "1 per exhibit of value 5 or 6", "1 per painting of value 5 or 6"
            parts.append(vals if c.types else "exhibit of " + vals)
        return f"{c.points} VP per {' of '.join(parts)}"
    if k == "per_complete_floor":
        return f"{c.points} VP per complete floor"
    if k == "per_complete_column":
        return f"{c.points} VP per complete column"
    if k == "per_full_set":
        return f"{c.points} VP per full set of 5 types"
    return f"{c.points} VP if at least {c.count} exhibits"


def _character(d: Data, state: State, seat: int) -> str:
    p = state.players[seat]
    return d.player_boards[p.board].characters[p.char] if p.board >= 0 else "their character"


def _reward(r, type_name: str) -> str:
    return r.describe(type_name).replace(" (up to limit)", ", never above the hand limit")


def _tok(d: Data, t: int) -> str:
    return f"{d.tokens[t][2]}, value {d.tokens[t][1]}"


def _diff(before: State, after: State, seat: int) -> str:
    """What the seat gained between two states: coins, tickets, royal items, hand limit, cards."""
    d = load(before.custom)
    p, q = before.players[seat], after.players[seat]
    parts = []
    for key, word in (("coins", "coin"), ("tickets", "ticket"), ("rcoins", "royal coin"),
                      ("rtickets", "royal ticket")):
        k = getattr(q, key) - getattr(p, key)
        if k > 0:
            parts.append(f"+{_n(k, word)}")
    lim = hand_limit(d, q) - hand_limit(d, p)
    if lim > 0:
        parts.append(f"hand limit +{lim}")
    drawn = len(q.hand) - len(p.hand)
    if drawn > 0:
        parts.append(f"+{_n(drawn, 'card')}")
    return ", ".join(parts)


def _cards(d: Data, cards: tuple) -> str:
    return " and ".join(d.cards[c].id for c in cards)


def _offers_gain(d: Data, cards: tuple) -> str:
    coins = sum(d.cards[c].offer.coins for c in cards)
    tickets = sum(d.cards[c].offer.tickets for c in cards)
    parts = ([f"+{_n(coins, 'coin')}"] if coins else []) + ([f"+{_n(tickets, 'ticket')}"] if tickets else [])
    return " and ".join(parts) or "nothing"


def _path(state: State, seat: int, m: Move) -> tuple[list[int], tuple[int, int, int]]:
    path = witness_path(state, seat, m.a, m.b) or [state.players[seat].pos, m.a]
    return path, path_cost(state, seat, path)


def _payment(free: int, royal: int, reg: int, route_kind: str, keeper: str = "you") -> str:
    parts = []
    if free:
        parts.append(f"{_n(free, 'free ' + (route_kind + ' ' if route_kind not in ('', 'any') else '') + 'step')}")
    if royal:
        parts.append(f"{_n(royal, 'royal ticket')} that {keeper} keep")
    if reg:
        parts.append(_n(reg, "ticket"))
    if len(parts) > 1:
        return ", ".join(parts[:-1]) + " and " + parts[-1]
    return parts[0] if parts else "nothing"


def _route_kind(d: Data, state: State, seat: int) -> str:
    p = state.players[seat]
    if p.board >= 0 and d.player_boards[p.board].ability.kind == "free_steps":
        return d.player_boards[p.board].ability.route_kind
    return ""


def _trade(d: Data, state: State, seat: int, m: Move) -> tuple[str, int, str, str]:
    """(token words, price, city name, extra) of a buy or sell in the seat's city."""
    p = state.players[seat]
    b = d.boards[state.side]
    city = p.pos
    pr = price(state, city)
    extra = ""
    if m.kind == "buy":
        royal = min(p.rcoins, pr)
        if royal:
            extra = f", {_n(royal, 'royal coin')} of them, kept"
    else:
        ab = d.player_boards[p.board].ability if p.board >= 0 else None
        if ab and ab.kind == "sale_bonus" and ab.coins:
            extra = f" and {d.player_boards[p.board].summary.split(':')[0]} bonus +{_n(ab.coins, 'coin')}"
    return _tok(d, state.cities[city]), pr, b.city_names[city], extra


def describe(state: State, seat: int, m: Move) -> str:
    d = load(state.custom)
    b = d.boards[state.side]
    k = m.kind
    if k == "board":
        pb = d.player_boards[m.a]
        return f"chose the {pb.id} board and {pb.characters[m.b]}: {pb.summary.rstrip('.')}"
    if k == "start":
        t = state.cities[m.a]
        there = f", where {_tok(d, t)} lies" if t >= 0 else ""
        there = there.replace(", value", " of value")
        return f"placed {_character(d, state, seat)} in {b.city_names[m.a]}{there}"
    if k == "move":
        path, (free, royal, reg) = _path(state, seat, m)
        return (f"moved {'-'.join(b.city_names[c] for c in path)}, {_n(len(path) - 1, 'step')} paid with "
                f"{_payment(free, royal, reg, _route_kind(d, state, seat), keeper='they')}")
    if k in ("buy", "sell"):
        tok, pr, city, extra = _trade(d, state, seat, m)
        did = (f"bought {tok}, in {city} for {_n(pr, 'coin')}{extra}" if k == "buy"
               else f"sold {tok}, in {city} for {_n(pr, 'coin')}{extra}")
        if m.a == 0:
            return did
        if not m.c:
            return did + ", and played no offer"
        return did + f", and played the offer of {_cards(d, m.c)}: {_offers_gain(d, m.c)}"
    if k == "offers":
        if not m.c:
            return "played no offer"
        return f"played the offer of {_cards(d, m.c)}: {_offers_gain(d, m.c)}"
    if k in ("cell", "take"):
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        gained = f", gaining {gained}" if gained else ""
        if k == "take":
            return f"took {_tok(d, m.a)}, from the exhibit discard into {d.cell_name(m.b)}{gained}"
        first = f"placed {_tok(d, state.bought)}, in {d.cell_name(m.a)}"
        if m.c:
            first += f" and took {_tok(d, m.c[0])}, from the exhibit discard into {d.cell_name(m.c[1])}"
        return first + gained
    if k == "exhibit":
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        s = f"held a {d.type_names[m.a].lower()} exhibition"
        if gained:
            s += f", taking {gained}"
        if m.b == 1:
            s += f", and accepted {_cards(d, m.c)} as a commission" if m.c else ", and accepted no commission"
        return s
    if k == "accept":
        if not m.c:
            return "accepted no commission"
        return f"accepted {_cards(d, m.c)} as a commission: " + "; ".join(describe_commission(d, c) for c in m.c)
    if k == "swap":
        if m.a < 0:
            return "kept their commissions, and will not be asked again" if m.b == 1 else "kept their commissions"
        return (f"gave up commission {d.cards[m.a].id} for {d.cards[m.b].id}: {describe_commission(d, m.b)}")
    return f"played {k}"


def explain(state: State, seat: int, m: Move) -> str:
    d = load(state.custom)
    b = d.boards[state.side]
    k = m.kind
    if k == "board":
        pb = d.player_boards[m.a]
        return f"take the {pb.id} board and play {pb.characters[m.b]}: {pb.summary.rstrip('.')}"
    if k == "start":
        t = state.cities[m.a]
        there = f"; there lies {_tok(d, t)}, price {price(state, m.a)}" if t >= 0 else ""
        return f"put your character in {b.city_names[m.a]}, free{there}"
    if k == "move":
        path, (free, royal, reg) = _path(state, seat, m)
        t = state.cities[m.a]
        there = f"; there lies {_tok(d, t)}, price {price(state, m.a)}" if t >= 0 else ""
        via = f" via {', '.join(b.city_names[c] for c in path[1:-1])}" if len(path) > 2 else ""
        return (f"go to {b.city_names[m.a]}{via}: "
                f"{_n(len(path) - 1, 'step')}, paid with {_payment(free, royal, reg, _route_kind(d, state, seat))}"
                f"{there}")
    if k in ("buy", "sell"):
        tok, pr, city, extra = _trade(d, state, seat, m)
        do = (f"buy {tok}, for {_n(pr, 'coin')}{extra}, and place it in step IV" if k == "buy"
              else f"sell {tok}, for {_n(pr, 'coin')}{extra}; it goes to the exhibit discard")
        if m.a == 0:
            return do + "; you are then asked which offers you play"
        if not m.c:
            return do + ", playing no offer card"
        return do + f", playing the offer of {_cards(d, m.c)} for {_offers_gain(d, m.c)} more"
    if k == "offers":
        if not m.c:
            return "play no offer card"
        return f"play the offer of {_cards(d, m.c)}: {_offers_gain(d, m.c)}; the card goes to the discard"
    if k == "cell":
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        s = f"put {_tok(d, state.bought)}, in {d.cell_name(m.a)}"
        if m.c:
            s += (f", then take {_tok(d, m.c[0])}, from the exhibit discard into {d.cell_name(m.c[1])}, "
                  f"the 3rd-floor bonus")
        return s + (f": {gained}" if gained else "")
    if k == "take":
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        return (f"take {_tok(d, m.a)}, from the exhibit discard into {d.cell_name(m.b)}"
                + (f": {gained}" if gained else ""))
    if k == "exhibit":
        ex = d.exhibitions[m.a]
        name = d.type_names[m.a].lower()
        now = _diff(state, apply_move(state, seat, m._replace(b=0, c=())), seat)
        s = f"hold a {name} exhibition; you: {_reward(ex.host, d.type_names[m.a])}"
        s += f", {now} now" if now else ""
        others = _reward(ex.others, d.type_names[m.a])
        s += f"; others who own one: {others}" if ex.others_need_own else f"; the others: {others}"
        if m.b == 1:
            s += (f"; and accept {_cards(d, m.c)} as a commission" if m.c else "; and accept no commission")
        return s
    if k == "accept":
        if not m.c:
            return "accept no commission"
        return f"accept {_cards(d, m.c)} as a commission: " + "; ".join(describe_commission(d, c) for c in m.c)
    if k == "swap":
        if m.a < 0:
            return ("keep your commissions, and never be asked to swap again" if m.b == 1
                    else "keep your commissions")
        return (f"give up commission {d.cards[m.a].id}, {describe_commission(d, m.a)}, for {d.cards[m.b].id} "
                f"from your hand: {describe_commission(d, m.b)}")
    return k


# ---------------------------------------------------------------- options, for notation_help


def options(state: State, seat: int, legal: list, fmt, limit: int = 8) -> list[str]:
    """Lines of "notation -- what it does" for the seat's legal moves, at most ``limit`` moves,
    grouped where there are many (cells with a 3rd-floor pick, offer combinations, moves)."""
    shown: list[Move] = []
    if state.phase == "move":
        best: dict[int, Move] = {}
        for m in legal:  # the cheapest way to each city
            if m.a not in best or m.b < best[m.a].b:
                best[m.a] = m
        shown = sorted(best.values(), key=lambda m: (m.b, m.a))
    elif state.phase == "trade":  # one line per offer card, not every combination
        shown = [m for m in legal if len(m.c) <= 1]
    elif state.phase == "exhibit":  # the types first, then the commission accepted with a sculpture
        shown = sorted(legal, key=lambda m: (m.b, m.a, m.c))
    else:  # the offers before the cells beside them; the cells are grouped below
        shown = sorted((m for m in legal if m.kind != "cell"), key=lambda m: (m.kind != "offers", m))
    out = []
    for m in shown[:limit]:
        out.append(f"  {fmt(m)}")
        out.extend(textwrap.wrap(explain(state, seat, m), 74, initial_indent="      ",
                                 subsequent_indent="      "))
    if len(shown) > limit:
        out.append(f"  ... and {len(shown) - limit} more of the same kind")
    out.extend(_cells(state, seat, [m for m in legal if m.kind == "cell" and not m.c]))
    picks = [m for m in legal if m.kind == "cell" and m.c]
    if picks:
        out.extend(wrap_lines(f"  A cell that completes floor 3 takes its 3rd-floor pick along: {fmt(picks[0])}",
                              "      "))
    return out


def _cells(state: State, seat: int, cells: list) -> list[str]:
    """The empty cells grouped by what filling them gives: "cell F1C2: +2 coins"."""
    if not cells:
        return []
    d = load(state.custom)
    groups: dict[str, list[str]] = {}
    for m in cells:
        gain = _diff(state, apply_move(state, seat, m), seat) or "no bonus"
        groups.setdefault(gain, []).append(d.cell_name(m.a))
    out = [f"  cell FxCy, to place {_tok(d, state.bought)}, in an empty cell:"]
    for gain, names in sorted(groups.items(), key=lambda g: g[0] == "no bonus"):
        out.extend(wrap_lines(f"      {' '.join(names)}: {gain}", "        "))
    return out


def wrap_lines(text: str, indent: str = "  ", first: int = 78) -> list[str]:
    """Lines of at most 78 columns; the first of at most ``first`` (a prefix goes before it)."""
    lines = textwrap.wrap(text, first, subsequent_indent=indent, drop_whitespace=True)
    if len(lines) > 1:
        lines = lines[:1] + textwrap.wrap(indent + " ".join(x.strip() for x in lines[1:]), 78,
                                          subsequent_indent=indent)
    return lines


def heading(state: State, seat: int) -> str:
    """What the seat decides now, as the first line of its options."""
    d = load(state.custom)
    ph = state.phase
    if ph == "board":
        return "Choose your player board and character (setup):"
    if ph == "start":
        return "Your first turn: place your character in any city, free, then buy or sell there:"
    if ph == "move":
        return "Step I, move: the cheapest way to each city you can reach:"
    if ph == "trade":
        return "Step II, buy or sell the exhibit in your city:"
    if ph == OFFERS:
        what = "buy" if state.txn[0] == 0 else "sell"
        place = "; and step IV, place the bought exhibit, in either order" if state.bought >= 0 else ""
        return f"Step II, the matching offers you play with your {what}{place}:"
    if ph == "cell":
        return f"Step IV, place {_tok(d, state.bought)}, in an empty cell of your gallery:"
    if ph == TAKE:
        return "The 3rd-floor bonus: take an exhibit from the exhibit discard into an empty cell:"
    if ph == "exhibit":
        return "Step V, you hold the exhibition token: choose the type to exhibit:"
    if ph == "accept":
        return "Your sculpture exhibition: accept a commission from your hand, or not:"
    if ph == "swap":
        return (f"Player {state.active + 1}'s sculpture exhibition: swap one of your commissions for a "
                f"card of your hand, or not:")
    return "Your options:"


def then(state: State, seat: int) -> str:
    """What comes after, up to the end of the turn (or of the step)."""
    ph = state.phase
    holds = state.token == seat
    last = ("then comes your exhibition: you hold the exhibition token" if holds
            else "then your turn ends")
    if ph == "board":
        return "When every player has chosen, Player 1 plays the first turn."
    if ph in ("start", "move"):
        return f"Next: buy or sell in that city; a bought exhibit goes in your gallery; {last}."
    if ph == "trade":
        return f"A buy is placed in your gallery next; {last}."
    if ph == OFFERS:
        both = " and the placement" if state.bought >= 0 else ""
        if holds:
            return f"Your exhibition comes after this answer{both}: you hold the exhibition token."
        return f"Your turn ends with this answer{both}."
    if ph in ("cell", TAKE):
        return ("After the placement comes your exhibition: you hold the exhibition token." if holds
                else "After the placement your turn ends.")
    if ph == "exhibit":
        return "The other players are served clockwise; the token passes and your turn ends."
    if ph == "accept":
        return "Then the other players are served, and your turn ends."
    if ph == "swap":
        return f"Then the exhibition goes on, and Player {state.active + 1}'s turn ends."
    return ""


# ---------------------------------------------------------------- cards


def _wrap(text: str) -> str:
    return "\n".join(line for para in text.split("\n")
                     for line in (textwrap.wrap(para, 76, subsequent_indent="  ") or [""]))


@lru_cache(maxsize=8)
def cards(custom: tuple = ()) -> tuple[Card, ...]:
    d = load(custom)
    out: list[Card] = []
    for i, c in enumerate(d.cards):
        out.append(Card(c.id, c.id, "message card", _wrap(
            f"Offer, played with your own buy or sell in step II: {describe_offer(d, i)}.\n"
            f"Commission, once accepted at a sculpture exhibition: {describe_commission(d, i)} at the end.\n"
            "A card is used once, for its offer or as a commission.")))
    for ti, tid in enumerate(d.type_ids):
        name = d.type_names[ti]
        vals = [v for t, v, _ in d.tokens if t == ti]
        text = (f"{name}: {_n(len(vals), 'token')}, {d.type_colours[ti]}, values {' '.join(map(str, vals))} "
                f"(victory points in a gallery).\n")
        ex = d.exhibitions[ti]
        if ex is None:
            text += f"{name} can never be exhibited."
        else:
            others = "each other player owning one" if ex.others_need_own else "each other player"
            text += (f"Exhibition (exhibit {tid}): the host takes {ex.host.describe(name)}; "
                     f"{others} takes {ex.others.describe(name)}.")
        if ti == d.ceramics:
            text += "\nEach ceramics in your gallery raises your hand limit by 1."
        if ti == d.sculpture:
            text += "\nEach sculpture in your gallery raises your commission limit by 1."
        out.append(Card(tid, name, "exhibit type and exhibition", _wrap(text)))
    for ti, value, tid in d.tokens:
        out.append(Card(tid, f"{d.type_names[ti]} {tid.rsplit('-', 1)[1]}", "exhibit",
                        _wrap(f"{d.type_names[ti]}, {d.type_colours[ti]}, value {value}: "
                              f"{_n(value, 'victory point')} in a gallery at the end.")))
    for pb in d.player_boards:
        ab = pb.ability
        out.append(Card(pb.id, f"{pb.characters[0]} and {pb.characters[1]}", "player board",
                        _wrap(f"Board {pb.id}, characters {pb.characters[0]} and {pb.characters[1]} "
                              f"(board {pb.id} \"{pb.characters[1]}\").\n{pb.summary}\nAbility: {ab.kind}"
                              + "".join(f", {k} {getattr(ab, k)}" for k in ("coins", "steps", "route_kind",
                                                                            "hand_limit", "commission_limit")
                                        if k in ABILITY_KINDS[ab.kind]) + ".")))
    cities: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for side in ("british", "world"):
        b = d.boards[side]
        for i, cid in enumerate(b.city_ids):
            r = b.city_region[i]
            routes = ", ".join(f"{b.city_names[nb]}{' by sea' if kind == 'sea' else ''}" for nb, kind in b.adj[i])
            names.setdefault(cid, b.city_names[i])
            cities.setdefault(cid, []).append(
                f"{b.name}: {d.region_ids[r]} region, {b.region_labels[r]} ({b.region_symbols[r]}). "
                f"Routes to {routes}; each step costs 1 ticket.")
    for cid, texts in cities.items():
        out.append(Card(cid, names[cid], "city", _wrap("\n".join(texts))))
    return tuple(out)
