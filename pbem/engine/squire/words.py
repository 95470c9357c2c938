"""Squire moves in words and the cards a player may ask about.

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
from .data import Data, load
from .rules import OFFERS, TAKE, Move, State, apply_move, hand_limit, path_cost, price, witness_path
from . import texts
from .i18n import N_, _, board as board_name, current, ngettext, player


def _n(k: int, what: str) -> str:
    """"3 coins": a count of one of the game's things, in the current language."""
    if what == "coin":
        return ngettext("%(num)d coin", "%(num)d coins", k)
    if what == "ticket":
        return ngettext("%(num)d ticket", "%(num)d tickets", k)
    if what == "royal coin":
        return ngettext("%(num)d royal coin", "%(num)d royal coins", k)
    if what == "royal ticket":
        return ngettext("%(num)d royal ticket", "%(num)d royal tickets", k)
    if what == "card":
        return ngettext("%(num)d card", "%(num)d cards", k)
    if what == "step":
        return ngettext("%(num)d step", "%(num)d steps", k)
    if what == "token":
        return ngettext("%(num)d token", "%(num)d tokens", k)
    if what == "victory point":
        return ngettext("%(num)d victory point", "%(num)d victory points", k)
    if what == "free step":
        return ngettext("%(num)d free step", "%(num)d free steps", k)
    if what == "free sea step":
        return ngettext("%(num)d free sea step", "%(num)d free sea steps", k)
    if what == "free land step":
        return ngettext("%(num)d free land step", "%(num)d free land steps", k)
    return f"{k} {what}{'s' if k != 1 else ''}"


def _city(b, c: int) -> str:
    return texts.city(b.city_ids[c], b.city_names[c])


def _char(name: str) -> str:
    return texts.character(name)


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
    return _char(d.player_boards[p.board].characters[p.char]) if p.board >= 0 else _("their character")


def _reward(r, type_name: str) -> str:
    if not texts.english():
        return _reward_local(r, type_name)
    return r.describe(type_name).replace(" (up to limit)", ", never above the hand limit")


def _reward_local(r, type_name: str) -> str:
    parts = [texts.bonus(p) for p in r.describe(type_name).split(", ")]
    return ", ".join(p.replace(_("draw %(num)d (up to limit)", num=r.draw),
                               _("draw %(num)d, never above the hand limit", num=r.draw)) if r.draw else p
                     for p in parts)


def _exhibit(d: Data, t: int) -> str:
    """An exhibit in a sentence, by its type (the id is notation, for the notation to carry)."""
    return texts.exhibit_word(d.type_ids[d.tokens[t][0]])


def _tok(d: Data, t: int) -> str:
    return _("%(token)s, value %(value)d", token=_exhibit(d, t), value=d.tokens[t][1])


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
        parts.append(_("hand limit +%(num)d", num=lim))
    drawn = len(q.hand) - len(p.hand)
    if drawn > 0:
        parts.append(f"+{_n(drawn, 'card')}")
    return ", ".join(parts)


def _cards(d: Data, cards: tuple) -> str:
    return _(" and ").join(d.cards[c].id for c in cards)


def _offers_gain(d: Data, cards: tuple) -> str:
    coins = sum(d.cards[c].offer.coins for c in cards)
    tickets = sum(d.cards[c].offer.tickets for c in cards)
    parts = ([f"+{_n(coins, 'coin')}"] if coins else []) + ([f"+{_n(tickets, 'ticket')}"] if tickets else [])
    return _(" and ").join(parts) or _("nothing")


def _path(state: State, seat: int, m: Move) -> tuple[list[int], tuple[int, int, int]]:
    path = witness_path(state, seat, m.a, m.b) or [state.players[seat].pos, m.a]
    return path, path_cost(state, seat, path)


def _payment(free: int, royal: int, reg: int, route_kind: str, keeper: str = "you") -> str:
    parts = []
    if free:
        parts.append(f"{_n(free, 'free ' + (route_kind + ' ' if route_kind not in ('', 'any') else '') + 'step')}")
    if royal:
        parts.append(_("%(tickets)s that you keep", tickets=_n(royal, "royal ticket")) if keeper == "you" else
                     _("%(tickets)s that they keep", tickets=_n(royal, "royal ticket")))
    if reg:
        parts.append(_n(reg, "ticket"))
    if len(parts) > 1:
        return ", ".join(parts[:-1]) + _(" and ") + parts[-1]
    return parts[0] if parts else _("nothing")


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
            extra = _(", %(coins)s of them, kept", coins=_n(royal, "royal coin"))
    else:
        ab = d.player_boards[p.board].ability if p.board >= 0 else None
        if ab and ab.kind == "sale_bonus" and ab.coins:
            extra = _(" and %(ability)s bonus +%(coins)s",
                      ability=texts.ability(d.player_boards[p.board].summary).split(':')[0],
                      coins=_n(ab.coins, "coin"))
    return _tok(d, state.cities[city]), pr, _city(b, city), extra


def describe(state: State, seat: int, m: Move) -> str:
    d = load(state.custom)
    b = d.boards[state.side]
    k = m.kind
    if k == "board":
        pb = d.player_boards[m.a]
        return _("chose the %(board)s board and %(character)s: %(ability)s", board=board_name(pb.id),
                 character=_char(pb.characters[m.b]), ability=texts.ability(pb.summary).rstrip('.'))
    if k == "start":
        t = state.cities[m.a]
        if t >= 0:
            return _("placed %(character)s in %(city)s, where %(token)s of value %(value)d lies",
                     character=_character(d, state, seat), city=_city(b, m.a), token=_exhibit(d, t),
                     value=d.tokens[t][1])
        return _("placed %(character)s in %(city)s", character=_character(d, state, seat), city=_city(b, m.a))
    if k == "move":
        path, (free, royal, reg) = _path(state, seat, m)
        return _("moved %(path)s, %(steps)s paid with %(payment)s",
                 path="-".join(_city(b, c) for c in path), steps=_n(len(path) - 1, "step"),
                 payment=_payment(free, royal, reg, _route_kind(d, state, seat), keeper="they"))
    if k in ("buy", "sell"):
        tok, pr, city, extra = _trade(d, state, seat, m)
        did = (_("bought %(token)s, in %(city)s for %(price)s%(extra)s", token=tok, city=city,
                 price=_n(pr, "coin"), extra=extra) if k == "buy"
               else _("sold %(token)s, in %(city)s for %(price)s%(extra)s", token=tok, city=city,
                      price=_n(pr, "coin"), extra=extra))
        if m.a == 0:
            return did
        if m.b == 1:
            return _("%(did)s, and played no offer, and will not be asked again", did=did)
        if not m.c:
            return _("%(did)s, and played no offer", did=did)
        return _("%(did)s, and played the offer of %(cards)s: %(gain)s", did=did, cards=_cards(d, m.c),
                 gain=_offers_gain(d, m.c))
    if k == "offers":
        if m.b == 1:
            return _("played no offer, and will not be asked again")
        if not m.c:
            return _("played no offer")
        return _("played the offer of %(cards)s: %(gain)s", cards=_cards(d, m.c), gain=_offers_gain(d, m.c))
    if k in ("cell", "take"):
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        gained = _(", gaining %(gain)s", gain=gained) if gained else ""
        if k == "take":
            return _("took %(token)s, from the exhibit discard into %(cell)s%(gained)s", token=_tok(d, m.a),
                     cell=d.cell_name(m.b), gained=gained)
        if m.c:
            return _("placed %(token)s, in %(cell)s and took %(pick)s, from the exhibit discard into "
                     "%(pick_cell)s%(gained)s", token=_tok(d, state.bought), cell=d.cell_name(m.a),
                     pick=_tok(d, m.c[0]), pick_cell=d.cell_name(m.c[1]), gained=gained)
        return _("placed %(token)s, in %(cell)s%(gained)s", token=_tok(d, state.bought), cell=d.cell_name(m.a),
                 gained=gained)
    if k == "exhibit":
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        tname = texts.type_word(d.type_names[m.a].lower())
        if gained:
            s = _("held a %(type)s exhibition, taking %(gain)s", type=tname, gain=gained)
        else:
            s = _("held a %(type)s exhibition", type=tname)
        if m.b == 1:
            s = (_("%(did)s, and accepted %(cards)s as a commission", did=s, cards=_cards(d, m.c)) if m.c
                 else _("%(did)s, and accepted no commission", did=s))
        return s
    if k == "accept":
        if not m.c:
            return _("accepted no commission")
        return _("accepted %(cards)s as a commission: %(text)s", cards=_cards(d, m.c),
                 text="; ".join(texts.commission(describe_commission(d, c)) for c in m.c))
    if k == "swap":
        if m.a < 0:
            return (_("kept their commissions, and will not be asked again") if m.b == 1
                    else _("kept their commissions"))
        return _("gave up commission %(old)s for %(new)s: %(text)s", old=d.cards[m.a].id, new=d.cards[m.b].id,
                 text=texts.commission(describe_commission(d, m.b)))
    return _("played %(kind)s", kind=k)


def explain(state: State, seat: int, m: Move) -> str:
    d = load(state.custom)
    b = d.boards[state.side]
    k = m.kind
    if k == "board":
        pb = d.player_boards[m.a]
        return _("take the %(board)s board and play %(character)s: %(ability)s", board=board_name(pb.id),
                 character=_char(pb.characters[m.b]), ability=texts.ability(pb.summary).rstrip('.'))
    if k == "start":
        t = state.cities[m.a]
        there = _("; there lies %(token)s, price %(price)d", token=_tok(d, t), price=price(state, m.a)) \
            if t >= 0 else ""
        return _("put your character in %(city)s, free%(there)s", city=_city(b, m.a), there=there)
    if k == "move":
        path, (free, royal, reg) = _path(state, seat, m)
        t = state.cities[m.a]
        there = _("; there lies %(token)s, price %(price)d", token=_tok(d, t), price=price(state, m.a)) \
            if t >= 0 else ""
        via = _(" via %(cities)s", cities=", ".join(_city(b, c) for c in path[1:-1])) if len(path) > 2 else ""
        return _("go to %(city)s%(via)s: %(steps)s, paid with %(payment)s%(there)s", city=_city(b, m.a), via=via,
                 steps=_n(len(path) - 1, "step"),
                 payment=_payment(free, royal, reg, _route_kind(d, state, seat)), there=there)
    if k in ("buy", "sell"):
        tok, pr, city, extra = _trade(d, state, seat, m)
        do = (_("buy %(token)s, for %(price)s%(extra)s, and place it in step IV", token=tok,
                price=_n(pr, "coin"), extra=extra) if k == "buy"
              else _("sell %(token)s, for %(price)s%(extra)s; it goes to the exhibit discard", token=tok,
                     price=_n(pr, "coin"), extra=extra))
        if m.a == 0:
            if seat in state.no_offers:
                return _("%(do)s, playing no offer card, as your standing order offers none always says", do=do)
            return _("%(do)s; you are then asked which offers you play, unless your mail goes on past the "
                     "question or the sale ends your turn: then none", do=do)
        if m.b == 1:
            return _("%(do)s, playing no offer card, and never be asked again", do=do)
        if not m.c:
            return _("%(do)s, playing no offer card", do=do)
        return _("%(do)s, playing the offer of %(cards)s for %(gain)s more", do=do, cards=_cards(d, m.c),
                 gain=_offers_gain(d, m.c))
    if k == "offers":
        if m.b == 1:
            return _("play no offer card, and never be asked again: a plain buy or sell then plays none")
        if not m.c:
            return _("play no offer card")
        return _("play the offer of %(cards)s: %(gain)s; the card goes to the discard", cards=_cards(d, m.c),
                 gain=_offers_gain(d, m.c))
    if k == "cell":
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        if m.c:
            s = _("put %(token)s, in %(cell)s, then take %(pick)s, from the exhibit discard into %(pick_cell)s, "
                  "the 3rd-floor bonus", token=_tok(d, state.bought), cell=d.cell_name(m.a),
                  pick=_tok(d, m.c[0]), pick_cell=d.cell_name(m.c[1]))
        else:
            s = _("put %(token)s, in %(cell)s", token=_tok(d, state.bought), cell=d.cell_name(m.a))
        return s + (f": {gained}" if gained else "")
    if k == "take":
        after = apply_move(state, seat, m)
        gained = _diff(state, after, seat)
        return (_("take %(token)s, from the exhibit discard into %(cell)s", token=_tok(d, m.a),
                  cell=d.cell_name(m.b)) + (f": {gained}" if gained else ""))
    if k == "exhibit":
        ex = d.exhibitions[m.a]
        name = texts.type_word(d.type_names[m.a].lower())
        now = _diff(state, apply_move(state, seat, m._replace(b=0, c=())), seat)
        s = _("hold a %(type)s exhibition; you: %(reward)s", type=name, reward=_reward(ex.host, d.type_names[m.a]))
        s += _(", %(gain)s now", gain=now) if now else ""
        others = _reward(ex.others, d.type_names[m.a])
        s += (_("; others who own one: %(reward)s", reward=others) if ex.others_need_own
              else _("; the others: %(reward)s", reward=others))
        if m.b == 1:
            s += (_("; and accept %(cards)s as a commission", cards=_cards(d, m.c)) if m.c
                  else _("; and accept no commission"))
        return s
    if k == "accept":
        if not m.c:
            return _("accept no commission")
        return _("accept %(cards)s as a commission: %(text)s", cards=_cards(d, m.c),
                 text="; ".join(texts.commission(describe_commission(d, c)) for c in m.c))
    if k == "swap":
        if m.a < 0:
            return (_("keep your commissions, and never be asked to swap again") if m.b == 1
                    else _("keep your commissions"))
        return _("give up commission %(old)s, %(old_text)s, for %(new)s from your hand: %(new_text)s",
                 old=d.cards[m.a].id, old_text=texts.commission(describe_commission(d, m.a)), new=d.cards[m.b].id,
                 new_text=texts.commission(describe_commission(d, m.b)))
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
    elif state.phase == "trade":  # one line per offer card, not every combination; the standing order is in HELP
        shown = [m for m in legal if len(m.c) <= 1 and m.b != 1]
    elif state.phase == "exhibit":  # the types first, then the commission accepted with a sculpture
        shown = sorted(legal, key=lambda m: (m.b, m.a, m.c))
    else:  # the offers before the cells beside them; the cells are grouped below
        shown = sorted((m for m in legal if m.kind != "cell" and not (m.kind == "offers" and m.b == 1)),
                       key=lambda m: (m.kind != "offers", m))
    out = []
    for m in shown[:limit]:
        out.append(f"  {fmt(m)}")
        out.extend(textwrap.wrap(explain(state, seat, m), 74, initial_indent="      ",
                                 subsequent_indent="      "))
    if len(shown) > limit:
        out.append(_("  ... and %(num)d more of the same kind", num=len(shown) - limit))
    out.extend(_cells(state, seat, [m for m in legal if m.kind == "cell" and not m.c]))
    picks = [m for m in legal if m.kind == "cell" and m.c]
    if picks:
        out.extend(wrap_lines(_("  A cell that completes floor 3 takes its 3rd-floor pick along: %(move)s",
                                move=fmt(picks[0])), "      "))
    return out


def _cells(state: State, seat: int, cells: list) -> list[str]:
    """The empty cells grouped by what filling them gives: "cell F1C2: +2 coins"."""
    if not cells:
        return []
    d = load(state.custom)
    groups: dict[str, list[str]] = {}
    for m in cells:
        gain = _diff(state, apply_move(state, seat, m), seat) or _("no bonus")
        groups.setdefault(gain, []).append(d.cell_name(m.a))
    out = [_("  cell FxCy, to place %(token)s, in an empty cell:", token=_tok(d, state.bought))]
    for gain, names in sorted(groups.items(), key=lambda g: g[0] == _("no bonus")):
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
        return _("Choose your player board and character (setup):")
    if ph == "start":
        return _("Your first turn: place your character in any city, free, then buy or sell there:")
    if ph == "move":
        return _("Step I, move: the cheapest way to each city you can reach:")
    if ph == "trade":
        return _("Step II, buy or sell the exhibit in your city:")
    if ph == OFFERS:
        buy = state.txn[0] == 0
        if state.bought >= 0:
            return (_("Step II, the matching offers you play with your buy; and step IV, place the bought exhibit, "
                      "in either order:") if buy else
                    _("Step II, the matching offers you play with your sell; and step IV, place the bought "
                      "exhibit, in either order:"))
        return (_("Step II, the matching offers you play with your buy:") if buy else
                _("Step II, the matching offers you play with your sell:"))
    if ph == "cell":
        return _("Step IV, place %(token)s, in an empty cell of your gallery:", token=_tok(d, state.bought))
    if ph == TAKE:
        return _("The 3rd-floor bonus: take an exhibit from the exhibit discard into an empty cell:")
    if ph == "exhibit":
        return _("Step V, you hold the exhibition token: choose the type to exhibit:")
    if ph == "accept":
        return _("Your sculpture exhibition: accept a commission from your hand, or not:")
    if ph == "swap":
        return _("%(player)s's sculpture exhibition: swap one of your commissions for a card of your hand, or not:",
                 player=player(state.active))
    return _("Your options:")


def then(state: State, seat: int) -> str:
    """What comes after, up to the end of the turn (or of the step)."""
    ph = state.phase
    holds = state.token == seat
    last = (_("then comes your exhibition: you hold the exhibition token") if holds
            else _("then your turn ends"))
    if ph == "board":
        return _("When every player has chosen, %(player)s plays the first turn.", player=player(0))
    if ph in ("start", "move"):
        return _("Next: buy or sell in that city; a bought exhibit goes in your gallery; %(then)s.", then=last)
    if ph == "trade":
        return _("A buy is placed in your gallery next; %(then)s.", then=last)
    if ph == OFFERS:
        if state.bought >= 0:
            return (_("Your exhibition comes after this answer and the placement: you hold the exhibition token.")
                    if holds else _("Your turn ends with this answer and the placement."))
        if holds:
            return _("Your exhibition comes after this answer: you hold the exhibition token.")
        return _("Your turn ends with this answer.")
    if ph in ("cell", TAKE):
        return (_("After the placement comes your exhibition: you hold the exhibition token.") if holds
                else _("After the placement your turn ends."))
    if ph == "exhibit":
        return _("The other players are served clockwise; the token passes and your turn ends.")
    if ph == "accept":
        return _("Then the other players are served, and your turn ends.")
    if ph == "swap":
        return _("Then the exhibition goes on, and %(player)s's turn ends.", player=player(state.active))
    return ""


# ---------------------------------------------------------------- cards


def _wrap(text: str) -> str:
    return "\n".join(line for para in text.split("\n")
                     for line in (textwrap.wrap(para, 76, subsequent_indent="  ") or [""]))


def cards(custom: tuple = ()) -> tuple[Card, ...]:
    """Every card a player may ask about, in the current language (cached per language)."""
    return _cards_in(custom, current())


_KINDS = {"message card": N_("message card"), "exhibit type and exhibition": N_("exhibit type and exhibition"),
          "exhibit": N_("exhibit"), "player board": N_("player board"), "city": N_("city")}


def _kind(k: str) -> str:
    return _(_KINDS[k])


@lru_cache(maxsize=16)
def _cards_in(custom: tuple, lang: str) -> tuple[Card, ...]:
    d = load(custom)
    out: list[Card] = []
    for i, c in enumerate(d.cards):
        out.append(Card(c.id, c.id, _kind("message card"), _wrap(
            _("Offer, played with your own buy or sell in step II: %(offer)s.",
              offer=texts.offer(describe_offer(d, i))) + "\n"
            + _("Commission, once accepted at a sculpture exhibition: %(commission)s at the end.",
                commission=texts.commission(describe_commission(d, i))) + "\n"
            + _("A card is used once, for its offer or as a commission."))))
    for ti, tid in enumerate(d.type_ids):
        name = texts.type_title(tid, d.type_names[ti])
        vals = [v for t, v, _v in d.tokens if t == ti]
        text = _("%(type)s: %(tokens)s, %(colour)s, values %(values)s (victory points in a gallery).",
                 type=name, tokens=_n(len(vals), "token"), colour=_(texts.COLOURS.get(d.type_colours[ti],
                                                                                    d.type_colours[ti])),
                 values=" ".join(map(str, vals))) + "\n"
        ex = d.exhibitions[ti]
        if ex is None:
            text += _("%(type)s can never be exhibited.", type=name)
        else:
            host = texts.bonus(ex.host.describe(d.type_names[ti]))
            others = texts.bonus(ex.others.describe(d.type_names[ti]))
            text += (_("Exhibition (exhibit %(id)s): the host takes %(host)s; each other player owning one takes "
                       "%(others)s.", id=tid, host=host, others=others) if ex.others_need_own else
                     _("Exhibition (exhibit %(id)s): the host takes %(host)s; each other player takes %(others)s.",
                       id=tid, host=host, others=others))
        if ti == d.ceramics:
            text += "\n" + _("Each ceramics in your gallery raises your hand limit by 1.")
        if ti == d.sculpture:
            text += "\n" + _("Each sculpture in your gallery raises your commission limit by 1.")
        out.append(Card(tid, name, _kind("exhibit type and exhibition"), _wrap(text)))
    for ti, value, tid in d.tokens:
        name = texts.type_title(d.type_ids[ti], d.type_names[ti])
        out.append(Card(tid, f"{name} {tid.rsplit('-', 1)[1]}", _kind("exhibit"),
                        _wrap(_("%(type)s, %(colour)s, value %(value)d: %(points)s in a gallery at the end.",
                                type=name, colour=_(texts.COLOURS.get(d.type_colours[ti], d.type_colours[ti])),
                                value=value, points=_n(value, "victory point")))))
    for pb in d.player_boards:
        c0, c1 = _char(pb.characters[0]), _char(pb.characters[1])
        out.append(Card(pb.id, _("%(first)s and %(second)s", first=c0, second=c1), _kind("player board"),
                        # the board by its name in the reader's language; its id only inside the notation a
                        # player types, and its ability in words (texts.ability), never as the data's keys
                        _wrap(_('Board %(board)s, characters %(first)s and %(second)s (board %(id)s "%(notation)s").',
                                board=board_name(pb.id), id=pb.id, first=c0, second=c1, notation=pb.characters[1])
                              + "\n" + texts.ability(pb.summary))))
    cities: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for side in ("british", "world"):
        b = d.boards[side]
        for i, cid in enumerate(b.city_ids):
            r = b.city_region[i]
            routes = ", ".join(_("%(city)s by sea", city=_city(b, nb)) if kind == "sea" else _city(b, nb)
                               for nb, kind in b.adj[i])
            names.setdefault(cid, _city(b, i))
            cities.setdefault(cid, []).append(
                _("%(side)s: %(region)s region, %(label)s (%(symbol)s). Routes to %(routes)s; each step costs 1 ticket.",
                  side=texts.side(side, b.name), region=texts.region(d.region_ids[r]),
                  label=texts.region_label(b.region_labels[r]),
                  symbol=_(texts.SYMBOLS.get(b.region_symbols[r], b.region_symbols[r])), routes=routes))
    for cid, texts_ in cities.items():
        out.append(Card(cid, names[cid], _kind("city"), _wrap("\n".join(texts_))))
    return tuple(out)
