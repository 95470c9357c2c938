"""The Squire game object behind the engine contract (DESIGN.md §2)."""
from __future__ import annotations

from typing import Any, Mapping

from ..base import Card, Implied, Option, OptionError, Outcome, default_decision_view
from . import draw, notation, orders, render, words
from .notation import STATUS_WHAT
from .words import describe_commission, describe_offer  # noqa: F401 (tests and the secrecy sweep import them here)
from .data import Data, load, parse_data_option
from .i18n import CATALOG, ALIASES, NAMES, N_, _, ngettext, player
from .rules import (
    ACCEPT, BOARD, MOVE, OFFERS, OVER, SWAP, Move, Player, State, apply_move, commission_limit, hand_limit,
    is_legal, legal_moves, move_options, new_state, path_cost, price, score_breakdown, to_move, witness_path,
)


def _side(raw: Any) -> str:
    v = str(raw).strip().lower()
    aliases = {"british": "british", "british isles": "british", "britain": "british", "uk": "british",
               "world": "world"}
    if v not in aliases:
        raise OptionError(_("option side: %(value)s is not british or world", value=repr(raw)))
    return aliases[v]


def _boards(raw: Any) -> str:
    v = str(raw).strip().lower()
    if v not in ("choose", "random"):
        raise OptionError(_("option boards: %(value)s is not choose or random", value=repr(raw)))
    return v


def _token(d: Data, t: int) -> dict:
    ti, value, tid = d.tokens[t]
    return {"id": tid, "type": d.type_ids[ti], "value": value}


def _reach_view(state: State, seat: int | None) -> dict | None:
    """Where the seat to move can go this turn (§5.2-5.3), for the seat's own view: each city with
    the cheapest payment (free steps, royal tickets, regular tickets) and a path that pays it,
    and what its exhibit costs there. None for everyone else."""
    if seat is None or state.phase != MOVE or seat != state.active or seat not in to_move(state):
        return None
    d = load(state.custom)
    b = d.boards[state.side]
    p = state.players[seat]
    cheapest: dict[int, int] = {}
    for dest, reg in move_options(state, seat):
        cheapest[dest] = min(reg, cheapest.get(dest, reg))
    cities = []
    for dest in sorted(cheapest, key=lambda c: (cheapest[c], c)):
        path = witness_path(state, seat, dest, cheapest[dest])
        free, royal, reg = path_cost(state, seat, path)
        tok = state.cities[dest]
        cities.append({"city": b.city_names[dest], "path": [b.city_names[c] for c in path], "free": free,
                       "royal": royal, "tickets": reg,
                       "exhibit": {**_token(d, tok), "price": price(state, dest)} if tok >= 0 else None})
    ab = d.player_boards[p.board].ability if p.board >= 0 else None
    free = f"{ab.steps} {'' if ab.route_kind == 'any' else ab.route_kind + ' '}step" if ab and \
        ab.kind == "free_steps" and ab.steps else None
    return {"from": b.city_names[p.pos], "royal_tickets": p.rtickets, "tickets": p.tickets, "free": free,
            "cities": cities}


# the notation reference (HELP squire): one message, translated whole where shown (the notation stays English)
REFERENCE_TEXT = N_(
    "Squire notation (one decision per line, or separate them with ';'):\n"
    '  board fox "Sir Fox"          setup: your player board and character\n'
    "  start york                   first turn: place your character\n"
    "  move york-london-bristol     step I: the path from your city (cities by\n"
    "                               unique prefix); 'move bristol' takes the\n"
    "                               cheapest path; optional: pay royal 1 regular 1\n"
    "  buy / sell                   step II; add 'offers M01 M18' or 'offers none'\n"
    "  offers M01 / offers none     the matching offers you play, if asked; after\n"
    "                               a plain buy you may place the exhibit first\n"
    "  offers none always           standing order: never ask me the offers\n"
    "  cell F2C1                    step IV: floor 1-3 (bottom-top), column 1-4;\n"
    "                               if it completes floor 3, add the bonus pick:\n"
    "                               cell F3C4 take sculpture-11 cell F1C3\n"
    "  take sculpture-11 cell F1C3  3rd-floor bonus: pick from the exhibit discard\n"
    "  exhibit sculpture            step V; add 'accept M11' or 'accept none'\n"
    "  accept M11 / accept none     accept a commission (sculpture host)\n"
    "  swap M07 for M28 / swap none another player's sculpture exhibition\n"
    "  swap none always             standing order: never ask me to swap again\n"
    "A whole turn in one mail: move york-london; buy offers none; cell F1C2\n"
    "A plain buy or sell plays no offer when your mail goes on past it (move\n"
    "york-london; sell; exhibit painting) or the sale ends your turn; it is asked\n"
    "only when your mail stops there and your turn goes on.")

REFERENCE = tuple(REFERENCE_TEXT.split("\n"))


def _side_words(side: str) -> str:
    """A board side on a form: the edition's name of the side and what it means for the game."""
    named = NAMES.name("side:" + side, side)
    if side == "world":
        return _("%(side)s: the harder board, with the world's cities", side=named)
    return _("%(side)s: the easier board, for a first game", side=named)


def _boards_words(how: str) -> str:
    if how == "random":
        return _("dealt at random: each player gets a board and its first character")
    return _("chosen: each player picks a board and a character, in seat order")


class SquireGame:
    name = "squire"
    catalog = CATALOG  # its words in each language: base.option_text
    english_title = "Squire"

    @property
    def title(self) -> str:
        """The game's title as its edition in the reader's language prints it (data/names.csv, row ``title``)."""
        return NAMES.name("title", self.english_title)
    aliases = ("сквайр", "squire club")
    min_players = 2
    max_players = 4
    # the descriptions are marked for the squire catalog (N_); shown translated with i18n._(option.description)
    options = (
        Option("side", "british", N_("board side: british (easier) or world (harder)"), ("british", "world"), _side,
               label=N_("Board side"), words=lambda v: _side_words(v)),
        Option("boards", "choose", N_("player boards: each seat chooses in seat order, or random (first character)"),
               ("choose", "random"), _boards, label=N_("Player boards"), words=lambda v: _boards_words(v)),
        Option("data", "", N_("replacement component data: TOML text(s) replacing the house files "
                              "(validated on load)"), None, parse_data_option, label=N_("Component data"),
               admin_only=True),
    )
    batch = "atomic"  # RULES.md §14: the parts of a turn are validated in order, first illegal part rejects all
    # the words that begin a line meant as a move (base.looks_like_move: the talk around moves is not refused),
    # in English and in the players' own words
    notation_words = frozenset({"board", "character", "start", "place", "move", "go", "buy", "sell", "offers", "offer", "play", "cell", "take", "exhibit", "exhibition", "accept", "swap", "pay"}) \
        | frozenset(alias.split()[0].casefold().replace("ё", "е") for words in ALIASES.table.values()
                    for alias, canonical in words.items() if canonical in notation.VERBS)
    random_seating = True  # RULES.md §3.3: the first player is drawn at random and sits in seat 0

    # ------------------------------------------------------------ setup

    def initial_state(self, players: int, seed: int, options: Mapping[str, Any]) -> State:
        side = _side(options.get("side", "british"))
        custom = parse_data_option(options.get("data", ""))
        d = load(custom)
        if not d.min_players <= players <= d.max_players:
            raise OptionError(ngettext("Squire with this data set is for %(min)d to %(num)d player",
                                       "Squire with this data set is for %(min)d to %(num)d players", d.max_players,
                                       min=d.min_players))
        return new_state(players, int(seed), side, custom, _boards(options.get("boards", "choose")) == "random")

    # the rules' own functions, not methods that call them: the caller asks both every move
    to_move = staticmethod(to_move)
    legal_moves = staticmethod(legal_moves)

    def parse_move(self, state: State, seat: int, text: str) -> Move:
        # the turn is checked in notation.parse_move, after the verb, so a refusal can say the
        # real reason ("you do not hold the exhibition token"), not only whose turn it is
        return notation.parse_move(self, state, seat, text)

    def format_move(self, state: State, seat: int, move: Move) -> str:
        return notation.format_move(state, seat, move)

    def implied_move(self, state: State, seat: int, order: tuple, text: str | None) -> Implied | None:
        # a plain buy or sell whose order goes on past the offers question answers it "offers none"
        return orders.implied_move(self, state, seat, order, text)

    def apply(self, state: State, seat: int, move: Move) -> State:
        if state.phase == OVER or seat not in to_move(state) or not isinstance(move, Move) \
                or not is_legal(state, seat, move):
            raise notation.refusal(self, state, seat, move)
        return apply_move(state, seat, move)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        d = load(state.custom)
        bd = [score_breakdown(d, p) for p in state.players]
        scores = tuple(b["total"] for b in bd)
        key = [(b["total"], b["leftover_items"], b["exhibit_count"]) for b in bd]
        ranking = tuple(sorted(range(state.n), key=lambda s: (tuple(-x for x in key[s]), s)))
        best = key[ranking[0]]
        winners = frozenset(s for s in range(state.n) if key[s] == best)
        notes = []
        top = [s for s in range(state.n) if scores[s] == scores[ranking[0]]]
        if len(top) > 1:
            # stored in English (the Outcome is data); render.py translates them where shown
            if len(winners) > 1:
                notes.append(N_("Tied on score, leftovers and exhibits: the victory is shared (§12.3)."))
            elif len({key[s][1] for s in top}) > 1:
                notes.append(N_("Tie on score broken by leftovers (§12.3)."))
            else:
                notes.append(N_("Tie on score and leftovers broken by the number of exhibits (§12.3)."))
        breakdown = tuple({"exhibits": b["exhibits"], "commissions": b["commissions"], "leftovers": b["leftovers"]}
                          for b in bd)
        return Outcome(scores, winners, breakdown, ranking, tuple(notes))

    # ------------------------------------------------------------ views

    def view(self, state: State, seat: int | None) -> dict:
        d = load(state.custom)
        b = d.boards[state.side]
        out = self.outcome(state)
        tm = sorted(to_move(state))
        cities = []
        for i, cid in enumerate(b.city_ids):
            tok = state.cities[i]
            ex = None
            if tok >= 0:
                ti, v, tid = d.tokens[tok]
                ex = {"id": tid, "type": d.type_ids[ti], "value": v, "price": price(state, i)}
            cities.append({
                "id": cid, "name": b.city_names[i], "region": d.region_ids[b.city_region[i]], "exhibit": ex,
                "here": [s for s, p in enumerate(state.players) if p.pos == i],
            })
        seats = []
        for s, p in enumerate(state.players):
            pb = d.player_boards[p.board] if p.board >= 0 else None
            gallery = []
            for t in p.gallery:
                gallery.append(None if t < 0 else {"id": d.tokens[t][2], "type": d.type_ids[d.tokens[t][0]],
                                                   "value": d.tokens[t][1]})
            entry = {
                "board": pb.id if pb else None,
                "character": pb.characters[p.char] if pb else None,
                "ability": pb.summary if pb else None,
                "city": b.city_names[p.pos] if p.pos >= 0 else None,
                "coins": p.coins, "royal_coins": p.rcoins, "tickets": p.tickets, "royal_tickets": p.rtickets,
                "hand_count": len(p.hand), "hand_limit": hand_limit(d, p),
                "commission_limit": commission_limit(d, p),
                "commissions": [{"id": d.cards[c].id, "text": describe_commission(d, c)} for c in p.comms],
                "gallery": gallery,
                "exhibition_token": state.token == s,
            }
            if seat == s:
                entry["hand"] = [{"id": d.cards[c].id, "offer": describe_offer(d, c),
                                  "commission": describe_commission(d, c)} for c in p.hand]
            seats.append(entry)
        pending = None
        if state.phase in (ACCEPT, SWAP):
            pending = {"seat": state.pending[0][0], "decision": state.phase}
        bought = _token(d, state.bought) if state.bought >= 0 else None
        return {
            "game": self.name, "seat": seat, "players": state.n, "to_move": tm,
            "over": out is not None, "outcome": out.to_dict() if out else None,
            "status": self._status(state, out),
            "side": state.side, "side_name": b.name, "turn": state.turn, "active": state.active,
            "phase": state.phase, "last_turn": state.end,
            "regions": [{"id": r, "label": b.region_labels[i], "symbol": b.region_symbols[i]}
                        for i, r in enumerate(d.region_ids)],
            "cities": cities,
            "routes": [[b.city_names[a], b.city_names[c], k] for a, c, k in b.routes],
            "market": {
                "types": [[d.type_ids[t], d.type_values[i]] for i, t in enumerate(state.mtypes)],
                "regions": [[d.region_ids[r], d.region_values[i]] for i, r in enumerate(state.mregions)],
            },
            "type_names": dict(zip(d.type_ids, d.type_names)),
            "supply_count": len(state.supply),
            "exhibit_discard": [_token(d, t) for t in state.discard],
            "deck_count": len(state.deck),
            "message_discard": [d.cards[c].id for c in state.mdiscard],
            "exhibition_token": state.token if state.token >= 0 else None,
            "last_exhibition": d.type_ids[state.last_exh] if state.last_exh >= 0 else None,
            "bought": bought,
            "pending": pending,
            "standing_swap_none": list(state.no_swap),
            "standing_offers_none": list(state.no_offers),
            "exhibitions": [
                {"type": d.type_ids[i], "name": d.type_names[i],
                 "host": ex.host.describe(d.type_names[i]) if ex else None,
                 "others": ex.others.describe(d.type_names[i]) if ex else None}
                for i, ex in enumerate(d.exhibitions)],
            "gallery_layout": {
                "floors": d.floors, "columns": d.columns,
                "halls": [d.halls[i].describe() if d.halls[i] else "" for i in range(d.floors * d.columns)],
                "floor_bonus": [x.describe() for x in d.floor_bonus],
                "column_bonus": [x.describe() for x in d.column_bonus],
            },
            "seats": seats,
            "reach": _reach_view(state, seat),
        }

    def _status(self, state: State, out: Outcome | None) -> str:
        """The status line, in the current language (the only translated field of a view)."""
        if out is not None:
            ws = sorted(out.winners)
            if len(ws) == 1:
                return _("Game over after turn %(turn)d: %(player)s wins", turn=state.turn, player=player(ws[0]))
            return _("Game over after turn %(turn)d: %(players)s win", turn=state.turn,
                     players=_(" and ").join(player(s) for s in ws))
        what = _(STATUS_WHAT[state.phase])
        if state.phase == OFFERS and state.bought >= 0:
            what = _(notation.STATUS_OFFERS_AND_CELL)
        s = min(to_move(state))
        if state.phase == BOARD:
            return _("Setup - %(player)s to %(what)s", player=player(s), what=what)
        if state.end:
            return _("Turn %(turn)d (last turn) - %(player)s to %(what)s", turn=state.turn, player=player(s),
                     what=what)
        return _("Turn %(turn)d - %(player)s to %(what)s", turn=state.turn, player=player(s), what=what)

    def to_json(self, state: State) -> Any:
        out = {
            "n": state.n, "side": state.side, "custom": [list(x) for x in state.custom],
            "players": [[p.board, p.char, p.pos, p.coins, p.rcoins, p.tickets, p.rtickets, list(p.hand),
                         list(p.comms), list(p.gallery)] for p in state.players],
            "cities": list(state.cities), "supply": list(state.supply), "removed": list(state.removed),
            "discard": list(state.discard), "mtypes": list(state.mtypes), "mregions": list(state.mregions),
            "deck": list(state.deck), "mdiscard": list(state.mdiscard), "token": state.token,
            "last_exh": state.last_exh, "turn": state.turn, "active": state.active, "phase": state.phase,
            "end": state.end, "bought": state.bought, "txn": list(state.txn), "takes": state.takes,
            "exhibited": state.exhibited, "exh": state.exh, "queue": list(state.queue),
            "pending": [list(x) for x in state.pending], "no_swap": list(state.no_swap),
        }
        if state.traded:  # only once someone has traded: the JSON of earlier states stays as it was
            out["traded"] = list(state.traded)
        if state.no_offers:  # likewise, only once a seat gave the standing order
            out["no_offers"] = list(state.no_offers)
        return out

    def from_json(self, data: Any) -> State:
        t = tuple
        return State(
            n=data["n"], side=data["side"], custom=t(t(x) for x in data["custom"]),
            players=t(Player(p[0], p[1], p[2], p[3], p[4], p[5], p[6], t(p[7]), t(p[8]), t(p[9]))
                      for p in data["players"]),
            cities=t(data["cities"]), supply=t(data["supply"]), removed=t(data["removed"]),
            discard=t(data["discard"]), mtypes=t(data["mtypes"]), mregions=t(data["mregions"]),
            deck=t(data["deck"]), mdiscard=t(data["mdiscard"]), token=data["token"], last_exh=data["last_exh"],
            turn=data["turn"], active=data["active"], phase=data["phase"], end=data["end"],
            bought=data["bought"], txn=t(data["txn"]), takes=data["takes"], exhibited=data["exhibited"],
            exh=data["exh"], queue=t(data["queue"]), pending=t(t(x) for x in data["pending"]),
            no_swap=t(data.get("no_swap", ())), traded=t(data.get("traded", ())),
            no_offers=t(data.get("no_offers", ())),
        )

    def notation_help(self, state: State, seat: int | None) -> str:
        if seat is not None and seat in to_move(state):
            fmt = lambda m: notation.format_move(state, seat, m)  # noqa: E731
            lines = words.wrap_lines(words.heading(state, seat), first=66)  # after "Your move. "
            lines += words.options(state, seat, legal_moves(state, seat), fmt, limit=6)
            lines += words.wrap_lines(words.then(state, seat))
            lines.append(_("One decision per line, or separate them with ';'. HELP squire: every form."))
            return "\n".join(lines)
        return _(REFERENCE_TEXT)

    def describe_move(self, state: State, seat: int, move: Move) -> str:
        return words.describe(state, seat, move)

    def explain_move(self, state: State, seat: int, move: Move) -> str:
        return words.explain(state, seat, move)

    def cards(self) -> tuple[Card, ...]:
        return words.cards(())

    def seat_facts(self, view: Mapping[str, Any], seat: int) -> tuple[str, tuple[tuple[str, str], ...]]:
        return render.seat_facts(view, seat)

    def render_text(self, view: Mapping[str, Any]) -> str:
        return render.render_text(view)

    def render_html(self, view: Mapping[str, Any]) -> str:
        return render.render_html(view)

    def draw_svg(self, view: Mapping[str, Any], moves=(), layout: str = "wide") -> str:
        return draw.draw_svg(view, moves, layout)

    def reveals(self, before: State, after: State) -> bool:
        if before.supply != after.supply or before.deck != after.deck:
            return True
        return any(a.hand != b.hand for a, b in zip(before.players, after.players))

    def thread_round(self, state: State) -> int:
        """The turn (0: choosing the boards): the active player's steps and the others' answers to its
        offers and exhibition make one line of the game thread."""
        return state.turn

    def decision_view(self, state: State, seat: int) -> dict:
        return default_decision_view(self.view(state, seat))  # one seat to move: anything seen may matter


GAME = SquireGame()
