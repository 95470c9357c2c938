"""The Game object of It's a Wonderful World (DESIGN.md §2)."""
from __future__ import annotations

import re
from typing import Any, Mapping

from ..base import (
    IllegalMoveError, MoveSyntaxError, Option, OptionError, Outcome, check_turn, default_decision_view, rng_for,
)
from . import draw, render, words
from ..i18n import player
from .cardtext import card_fields, card_list, empire_vp
from .i18n import CATALOG, ALIASES, NAMES, N_, _, ngettext
from .texts import note as t_note
from .data import CARD_IDS, CARD_OF, EMPIRE_FACES, EMPIRES, RESOURCES, SCENARIOS, SOLO_TITLES, SUPREMACY
from .notation import ERRORS, _Err, fmt_target, format_move, parse
from .rules import (
    DRAFT, OVER, PLAN, PROD, ZERO5, Move, Player, Site, State, check, finished, initial, just_listed, legal,
    numbered_draft, numbered_sites, play, productions, score, sort_cards,
)


def _parse_consult(raw: Any) -> str:
    """'Consult me every step' (§17 D12) as an option: "no", "all", or 1-based seats such as "1,3"."""
    if isinstance(raw, bool):
        return "all" if raw else "no"
    text = str(raw).strip().lower().replace(" ", "")
    if text in ("no", "off", "false", "0", "none", ""):
        return "no"
    if text in ("yes", "on", "true", "all"):
        return "all"
    parts = text.split(",")
    if all(p.isascii() and p.isdigit() and 1 <= int(p) <= 5 for p in parts):
        return ",".join(str(n) for n in sorted({int(p) for p in parts}))
    raise OptionError(_("option consult: expected no, all or seat numbers like 1,3 - got %(raw)s", raw=repr(raw)))


def _solo_title(adjusted: int) -> str:
    for limit, title in SOLO_TITLES:
        if adjusted >= limit:
            return title
    return "Recruit"


def _face_words(face: str) -> str:
    """An empire face on a form, in words with what it means."""
    if face == "A":
        return _("side A for everyone: the same empire boards for all")
    if face == "B":
        return _("side B for everyone: each empire its own powers")
    return _("as the rules say: side A with 2 to 5 players, side B in solo")


def _scenario_words(scenario: str) -> str:
    if scenario not in SCENARIOS:
        return _("none: a free solo game (or a game of 2 to 5)")
    return _("scenario %(n)s, «%(title)s»: a solo challenge with its own goal",
             n=scenario.lstrip("S"), title=NAMES.name("scenario:" + scenario, SCENARIOS[scenario][0]))


def _consult_words(consult: str) -> str:
    if consult == "all":
        return _("every player, even with nothing to decide")
    if consult == "no":
        return _("nobody: only a player with something to decide is asked")
    return _("the players of seats %(seats)s, even with nothing to decide", seats=consult.replace(",", ", "))


def _empire_words(empire: str) -> str:
    if empire in EMPIRES:
        return NAMES.name(empire, EMPIRE_FACES[(empire, "A")].name)
    return _("drawn at random")


class IawwGame:
    name = "iaww"
    catalog = CATALOG  # its words in each language: base.option_text
    english_title = "It's a Wonderful World"

    @property
    def title(self) -> str:
        """The game's title as its edition in the reader's language prints it (data/names.csv, row ``title``)."""
        return NAMES.name("title", self.english_title)
    aliases = ("its-a-wonderful-world", "itsawonderfulworld", "wonderful-world", "wonderfulworld")
    min_players = 1
    max_players = 5
    batch = "atomic"  # §17: an order with any illegal action is rejected whole
    simultaneous = True  # draft, planning and production: everyone decides at once, revealed together
    # the words that begin a line meant as a move (base.looks_like_move: the talk around moves is not refused)
    notation_words = frozenset({"pick", "p", "c", "construct", "r", "recycle", "sci", "science", "swap", "keep", "discard", "build", "done", "auto", "place", "pass"}) | ALIASES.words()
    # option descriptions: marked here, translated where shown (_(option.description))
    options = (
        Option("face", "auto", N_("empire face for everyone: A, B, or auto (A with 2-5 players, B in solo)"),
               choices=("auto", "A", "B"), label=N_("Empire boards"), words=lambda v: _face_words(v)),
        Option("scenario", "none", N_("solo scenario S1-S6 (forces face B unless face A is chosen as a house rule)"),
               choices=("none",) + tuple(SCENARIOS), label=N_("Solo scenario"), words=lambda v: _scenario_words(v)),
        Option("consult", "no", N_("players consulted at every production step even with nothing to decide:"
               " no, all, or seat numbers such as 1,3"), parse=lambda raw: _parse_consult(raw),
               offered=("no", "all"), label=N_("Ask at every production step"), words=lambda v: _consult_words(v)),
        Option("empire", "random", N_("solo only: the empire to play"), choices=("random",) + EMPIRES,
               label=N_("Empire (solo)"), words=lambda v: _empire_words(v)),
    )

    # ------------------------------------------------------------ setup and flow

    def initial_state(self, players: int, seed: int, options: Mapping[str, Any]) -> State:
        if not isinstance(players, int) or not 1 <= players <= 5:
            raise OptionError(_("%(title)s is for 1 to 5 players, not %(players)s", title=self.title,
                                players=players))
        opts = {o.name: o.coerce(options[o.name]) if o.name in options else o.default for o in self.options}
        scenario = "" if opts["scenario"] == "none" else opts["scenario"]
        if scenario and players != 1:
            raise OptionError(_("the scenarios S1-S6 are for the solo game (1 player)"))
        if opts["empire"] != "random" and players != 1:
            raise OptionError(_("empires are dealt at random with 2-5 players; the empire option is for solo"))
        face = opts["face"]
        if face == "auto":
            face = "B" if players == 1 else "A"
        consult = opts["consult"]
        seats = tuple(range(players)) if consult == "all" else (
            () if consult == "no" else tuple(sorted({int(x) - 1 for x in consult.split(",")})))
        if any(not 0 <= s < players for s in seats):
            raise OptionError(ngettext("option consult: there is only %(num)d seat",
                                       "option consult: there are only %(num)d seats", players))
        return initial(players, int(seed), face, scenario, seats, opts["empire"])

    def to_move(self, state: State) -> frozenset[int]:
        if state.phase == OVER:
            return frozenset()
        seats = []  # a loop: a comprehension is a function call of its own, and this is asked every move
        for i, p in enumerate(state.players):
            if not p.done:
                seats.append(i)
        return frozenset(seats)

    legal_moves = staticmethod(legal)  # the rules' function itself: the caller asks it every move

    # discard last: it is rarely wanted and never undone
    _PREFERRED = ("pick", "keep", "c", "r", "place", "sci", "kry", "fin", "gen", "swap", "build", "done",
                  "auto", "discard")

    def _examples(self, state, seat, limit=5):
        """A few legal moves, taking kinds in turn in a useful order (for errors and help)."""
        by_kind: dict[str, list] = {}
        draft = state.players[seat].draft if 0 <= seat < state.n else ()
        for m in sorted(legal(state, seat), key=lambda m: (m.target in ("", "E"), m)):  # cards before E
            if m.kind in ("discard", "build") and m.target in draft:
                continue  # legal before its C (§6 two passes), but a poor example
            by_kind.setdefault(m.kind, []).append(m)
        queues = [by_kind[k] for k in self._PREFERRED if k in by_kind]
        out = []
        depth = 0
        while len(out) < limit and any(depth < len(q) for q in queues):
            for q in queues:
                if depth < len(q) and len(out) < limit:
                    out.append(self.format_move(state, seat, q[depth]))
            depth += 1
        return tuple(out)

    def parse_move(self, state: State, seat: int, text: str) -> Move:
        check_turn(self, state, seat, text)
        if not isinstance(text, str) or len(text) > 200:
            raise MoveSyntaxError(_("that is not a move (too long)"), text=str(text)[:60], seat=seat,
                                  examples=self._examples(state, seat))
        # the player's words (aliases) to the English notation; refusals quote the text as written
        canonical, used = ALIASES.to_canonical(text)
        try:
            move = parse(state, seat, canonical)
        except _Err as e:
            reason = e.reason
            if used:  # what the reason quotes of the move, in the words the player wrote
                reason = re.sub(r"'([^']*)'", lambda q: "'" + ALIASES.localize(q.group(1), used) + "'", reason)
            if e.kind == "syntax":
                reason += "; " + self._hint(state, seat)
            raise ERRORS[e.kind](reason, text=text, seat=seat,
                                 examples=ALIASES.localize_all(self._examples(state, seat), used)) from None
        why = check(state, seat, move)
        if why is not None:
            raise IllegalMoveError(why, text=text, seat=seat,
                                   examples=ALIASES.localize_all(self._examples(state, seat), used))
        return move

    @staticmethod
    def _hint(state: State, seat: int) -> str:
        """What a move looks like at this decision point (for syntax errors)."""
        if state.phase == DRAFT:
            return _("write pick <card> (its id, the start of its name, or its number in your hand)")
        if state.players[seat].shown:
            return _("write keep <card> (one of the five revealed cards)")
        if state.phase == PLAN:
            return _("write C <card>, R <card>>E or R <card>><card>, a cube like m><card>, or done / auto")
        return _("write a cube target like m><card> or m>E, or done / auto")

    def timeout_move(self, state: State, seat: int) -> Move:
        """The moderator's default when a player does not answer (§17): a
        seeded random card for a draft pick or a solo keep (§17 D1, D11), else auto."""
        moves = legal(state, seat)
        if not moves:
            raise IllegalMoveError(_("nothing to decide"), seat=seat)
        if moves[0].kind in ("pick", "keep"):
            p = state.players[seat]
            rng = rng_for(state.seed, "timeout", state.round, state.phase, state.step, seat,
                          len(p.hand) + len(p.shown) + len(state.deck))
            return moves[rng.randrange(len(moves))]
        return Move("auto")

    def format_move(self, state: State, seat: int, move: Move) -> str:
        return format_move(state, seat, move)

    def apply(self, state: State, seat: int, move: Move) -> State:
        # a seat still to decide in a running game passes check_turn; only the
        # others pay for its outcome and to_move (and get its errors)
        if not (state.phase != OVER and type(seat) is int and 0 <= seat < len(state.players)
                and not state.players[seat].done):
            check_turn(self, state, seat)
        if not isinstance(move, Move):
            raise IllegalMoveError(_("not a move of this game"), seat=seat, examples=self._examples(state, seat))
        # a well-formed move from the list legal() has just given needs no check (the usual caller);
        # one equal to a listed move, with fields of the same types, is well-formed as that move is
        listed = just_listed(state, seat, move)
        if (listed and type(move) is Move and type(move.kind) is str and type(move.card) is str
                and type(move.target) is str and type(move.res) is int):
            why = None
        else:
            why = _malformed(move) or (None if listed else check(state, seat, move))
        if why is not None:
            raise IllegalMoveError(why, seat=seat, examples=self._examples(state, seat))
        return play(state, seat, move)

    def reveals(self, before: State, after: State) -> bool:
        return ((before.round, before.phase, before.step) != (after.round, after.phase, after.step)
                or len(before.deck) != len(after.deck))

    def thread_round(self, state: State) -> tuple:
        """The draft, the planning or the production of a round: everyone acts in it at once, and its
        moves make one line of the game thread (a change of either is a reveal: ``reveals``)."""
        return state.round, state.phase

    def decision_view(self, state: State, seat: int) -> dict:
        """What a seat decides from: its view without whose turn it is and
        the other seats' "done" flags. Within a decision point nobody's order
        changes what another may do (§4.3 independence; picks are secret until
        the reveal, §5), so another seat's move changes nothing here until the
        step is revealed (replies to the same board are not stale)."""
        v = default_decision_view(self.view(state, seat))
        v["seats"] = [p if p["seat"] == seat else {k: x for k, x in p.items() if k != "done"} for p in v["seats"]]
        return v

    def closing_move(self, state: State, seat: int) -> Move | None:
        """``done`` when the seat has nothing left to decide in this planning
        phase or production step (§6: every card decided, no cube left to
        place; nor a science choice, Krystallium or a token with a place to
        go): the player need not send it."""
        if state.phase == OVER or not 0 <= seat < state.n or not finished(state.players[seat], state.phase):
            return None
        return Move("done")

    # ------------------------------------------------------------ the end

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        parts = [score(p, state.face) for p in state.players]
        scores = tuple(b["total"] for b in parts)
        keys = [(scores[i], len(p.built), p.fin + p.gen) for i, p in enumerate(state.players)]
        best = max(keys)
        winners = frozenset(i for i, k in enumerate(keys) if k == best)
        ranking = tuple(sorted(range(state.n), key=lambda i: (-keys[i][0], -keys[i][1], -keys[i][2], i)))
        notes = []
        top = [i for i in range(state.n) if scores[i] == best[0]]
        if state.n > 1 and len(top) > 1:
            if len(winners) < len(top):
                notes.append("Tie on points broken by constructed developments, then tokens in the pool (§12).")
            else:
                notes.append("Tie on points, constructed developments and tokens: the victory is shared.")
        if state.n == 1:
            raw = scores[0]
            adj = raw - 15 if state.face == "A" else raw
            if state.scenario:
                title, required, medals = SCENARIOS[state.scenario]
                built = {i.split("#")[0] for i in state.players[0].built}
                missing = [c for c in required if c not in built]
                if missing:
                    notes.append(f"Scenario {state.scenario} ({title}): lost - not constructed: "
                                 + ", ".join(CARD_OF[c + "#1"].name for c in missing) + ".")
                else:
                    medal = "completed, no medal"
                    for lim, name in zip(medals[::-1], ("gold", "silver", "bronze")):
                        if adj >= lim:
                            medal = f"{name} medal"
                            break
                    notes.append(f"Scenario {state.scenario} ({title}): {medal}"
                                 + (f" (score {raw} - 15 = {adj} with face A)." if state.face == "A" else "."))
            else:
                notes.append(f"Solo title: {_solo_title(adj)}"
                             + (f" (score {raw} - 15 = {adj} with face A)." if state.face == "A" else f" ({adj})."))
        breakdown = tuple({k: v for k, v in b.items()} | {"developments": len(p.built), "tokens": p.fin + p.gen}
                          for b, p in zip(parts, state.players))
        return Outcome(scores, winners, breakdown, ranking, tuple(notes))

    # ------------------------------------------------------------ views

    def view(self, state: State, seat: int | None) -> dict:
        out = self.outcome(state)
        to_move = sorted(self.to_move(state))
        seats = []
        for i in range(state.n):
            p = state.players[i] if i == seat else state.public[i]
            seats.append(self._public_player(state, i, p, own=(i == seat)))
            seats[-1]["done"] = i not in to_move  # the snapshot's flag is stale mid-step
        v = {
            "game": self.name, "seat": seat, "players": state.n, "to_move": to_move,
            "over": out is not None, "outcome": out.to_dict() if out else None,
            "status": self._status(state, to_move),
            "round": state.round, "phase": state.phase, "step": state.step,
            "step_name": self._step_name(state), "face": state.face, "scenario": state.scenario,
            "deck": state.pub[0] if seat is None or state.n > 1 else len(state.deck),
            "discard": state.pub[1] if seat is None or state.n > 1 else len(state.discard),
            "production": list(state.prod) if state.phase == PROD else None,
            "supremacy": state.winner if state.phase == PROD else -1,
            "supremacy_reward": SUPREMACY[state.step] if state.phase == PROD else None,
            "passing": self._passing(state, seat) if state.phase == DRAFT and state.n > 1 else None,
            "log": list(state.log),
            "seats": seats,
            "you": None,
        }
        if seat is not None and 0 <= seat < state.n:
            p = state.players[seat]
            # the hand as dealt for this pick, the pick on file marked: its numbers stay those of every
            # board of the step, so a changed pick (secret until the reveal) means the card it names
            dealt = sort_cards(p.hand + (p.pick,)) if p.pick else p.hand
            v["you"] = {
                "hand": [dict(self._card(i), picked=i == p.pick) for i in dealt] if state.phase == DRAFT else [],
                "pick": self._card(p.pick) if p.pick else None,
                "solo_hand": self._numbered(state, seat) if state.n == 1 else [],
                "to_plan": self._numbered(state, seat) if state.n > 1 and state.phase == PLAN else [],
                "revealed": [self._card(i) for i in p.shown],
                "cubes": list(p.cubes),
                "sci": p.sci,
                "todo": self._todo(state, seat),
                "notes": list(p.notes),
                "examples": list(self._examples(state, seat, 6)) if seat in to_move else [],
            }
        return v

    @staticmethod
    def _passing(state: State, seat: int | None) -> dict:
        """Where the hands go after each pick (§5 step 4): left (the next seat)
        in rounds 1 and 3, right in rounds 2 and 4."""
        step = 1 if state.round % 2 == 1 else -1
        out: dict = {"direction": "left" if step == 1 else "right"}
        if seat is not None and 0 <= seat < state.n:
            out["to"], out["from"] = (seat + step) % state.n, (seat - step) % state.n
        return out

    @classmethod
    def _numbered(cls, state: State, seat: int) -> list[dict]:
        """The cards still to decide, each with its number on the board (stable during a mail)."""
        live = state.players[seat].draft
        return [dict(cls._card(i), no=n) for n, i in enumerate(numbered_draft(state, seat), 1) if i in live]

    @staticmethod
    def _card(inst: str) -> dict:
        c = CARD_OF[inst]
        return {"id": c.id, "inst": inst, "name": c.name, "type": c.type, **card_fields(c)}

    def _public_player(self, state: State, i: int, p: Player, own: bool) -> dict:
        ef = EMPIRE_FACES[(p.empire, state.face)]
        sc = score(p, state.face)
        # your own construction area is numbered as on your last board (stable during a mail)
        no = {inst: n for n, inst in enumerate(numbered_sites(state, i), 1)} if own else {}
        d = {
            "seat": i, "empire": ef.name, "empire_id": p.empire,
            "empire_vp": empire_vp(ef),
            "produces": list(productions(p, state.face)),
            "built": [self._card(x) for x in p.built],
            "sites": [dict(self._site(s), ref=fmt_target(p, s.inst), no=no.get(s.inst, n))
                      for n, s in enumerate(p.sites, 1)],
            "empire_cubes": p.ecubes, "krystallium": p.kry, "financiers": p.fin, "generals": p.gen,
            "draft": [self._card(x) for x in p.draft] if state.n > 1 else [],
            "hand_size": len(p.hand) if state.phase == DRAFT else (len(p.draft) if state.n == 1 else 0),
            "done": p.done,
            "score": sc["total"], "score_parts": sc,
        }
        return d

    @staticmethod
    def _site(s: Site) -> dict:
        c = CARD_OF[s.inst]
        return {"id": c.id, "inst": s.inst, "name": c.name, "type": c.type, **card_fields(c),
                "filled": list(s.filled), "wild": s.wild}

    @staticmethod
    def _step_name(state: State) -> str:
        if state.phase == DRAFT:
            return f"draft, pick {state.step} of 7"
        if state.phase == PLAN:
            return f"planning, cycle {'AB'[state.step]}" if state.n == 1 else "planning"
        if state.phase == PROD:
            return f"production, {RESOURCES[state.step]} step"
        return "game over"

    def _status(self, state: State, to_move: list[int]) -> str:
        if state.phase == OVER:
            out = self.outcome(state)
            if state.n == 1:
                return (ngettext("Game over - %(num)d point.", "Game over - %(num)d points.", out.scores[0]) + " "
                        + " ".join(t_note(n) for n in out.notes))
            w = ", ".join(player(i) for i in sorted(out.winners))
            return ngettext("Game over - winner: %(names)s", "Game over - winners: %(names)s", len(out.winners),
                            names=w)
        waiting = ", ".join(player(i) for i in to_move)
        return _("Round %(round)d of 4, %(step)s - waiting for %(names)s", round=state.round,
                 step=step_name_t(state), names=waiting)

    def _todo(self, state: State, seat: int) -> str:
        p = state.players[seat]
        if state.phase == OVER:
            return ""
        if p.done:
            if state.n > 1 and not state.public[seat].done and state.phase != DRAFT:
                # finished this step by an order: it stays secret and may be replaced until the reveal
                return ("Your order for this step is in; you may replace it until the step is revealed: send"
                        " the whole new order (LIST shows the one on file). Waiting for the others.")
            return "Nothing to do now: waiting for the others."
        if state.phase == DRAFT:
            return f"Pick one card from your hand: pick <card> (hand of {len(p.hand)})."
        if p.shown:
            return "Keep one of the five revealed cards: keep <card>."
        bits = []
        if state.phase == PLAN and p.draft:
            bits.append(f"construct (C) or recycle (R) each of your {len(p.draft)} card(s)")
        if state.phase == PLAN and p.early:
            bits.append("still write C for " + ", ".join(i.split("#")[0] for i in p.early)
                        + " (used before its C)")
        cubes = [f"{k} {RESOURCES[r]}" for r, k in enumerate(p.cubes) if k]
        if cubes:
            bits.append("place " + ", ".join(cubes) + " cube(s) (card or E)")
        if p.sci:
            bits.append("choose your science supremacy token: sci financier or sci general")
        bits.append("then send done (or auto for the default)" if bits else "send done when you are finished")
        return "You: " + "; ".join(bits) + "."

    # ------------------------------------------------------------ text

    def notation_help(self, state: State, seat: int | None) -> str:
        """The "Your move." block: the seat's options in words (each with
        :meth:`explain_move`, or the shape of a kind of move when there are
        many) and what ends the step; the notation reference otherwise."""
        return words.help_text(state, seat)

    def describe_move(self, state: State, seat: int, move: Move) -> str:
        return words.describe(state, seat, move)

    def explain_move(self, state: State, seat: int, move: Move) -> str:
        return words.explain(state, seat, move)

    def cards(self) -> tuple:
        """The 78 development cards, then the five empire cards (both faces), in the current language."""
        return card_list()

    def seat_facts(self, view: Mapping[str, Any], seat: int) -> tuple[str, tuple[tuple[str, str], ...]]:
        return render.seat_facts(view, seat)

    def render_text(self, view: Mapping[str, Any]) -> str:
        return render.text(view)

    def render_html(self, view: Mapping[str, Any]) -> str:
        return render.html_(view)

    def draw_svg(self, view: Mapping[str, Any], moves=(), layout: str = "wide") -> str:
        return draw.draw_svg(view, moves, layout)

    # ------------------------------------------------------------ json

    def to_json(self, state: State) -> Any:
        return {
            "n": state.n, "seed": state.seed, "face": state.face, "scenario": state.scenario,
            "consult": list(state.consult), "round": state.round, "phase": state.phase, "step": state.step,
            "players": [_pj(p) for p in state.players],
            "public": [_pj(p) for p in state.public],
            "deck": list(state.deck), "discard": list(state.discard),
            "stacks": [list(s) for s in state.stacks], "prod": list(state.prod), "winner": state.winner,
            "log": list(state.log), "pub": list(state.pub),
        }

    def from_json(self, d: Any) -> State:
        return State(
            n=d["n"], seed=d["seed"], face=d["face"], scenario=d["scenario"], consult=tuple(d["consult"]),
            round=d["round"], phase=d["phase"], step=d["step"],
            players=tuple(_jp(x) for x in d["players"]), public=tuple(_jp(x) for x in d["public"]),
            deck=tuple(d["deck"]), discard=tuple(d["discard"]), stacks=tuple(tuple(s) for s in d["stacks"]),
            prod=tuple(d["prod"]), winner=d["winner"], log=tuple(d["log"]), pub=tuple(d["pub"]),
        )


_KINDS = {"pick", "c", "r", "place", "kry", "fin", "gen", "discard", "build", "sci", "swap", "keep", "done", "auto"}


def _malformed(m: Move) -> str | None:
    """Field checks for Move values built by hand (parse_move builds only good ones)."""
    if m.kind not in _KINDS or not isinstance(m.card, str) or not isinstance(m.target, str):
        return _("not a move of this game")
    if m.kind == "place" and not (isinstance(m.res, int) and 0 <= m.res <= 4):
        return _("a cube is one of the five resources")
    if m.kind == "kry" and not (isinstance(m.res, int) and 0 <= m.res <= 7):
        return _("name a slot kind for the Krystallium")
    if m.kind in ("pick", "c", "r", "swap", "keep") and m.card not in CARD_IDS:
        return _("there is no card %(card)s", card=repr(m.card))
    if m.kind == "swap" and m.target not in CARD_IDS:
        return _("there is no card %(card)s", card=repr(m.target))
    if m.kind == "sci" and m.card not in ("financier", "general"):
        return _("the science choice is financier or general")
    return None


def step_name_t(state: State) -> str:
    """The step's name as the status line shows it, in the current language."""
    if state.phase == DRAFT:
        return _("draft, pick %(step)d of 7", step=state.step)
    if state.phase == PLAN:
        if state.n == 1:
            return _("planning, cycle %(cycle)s", cycle="AB"[state.step])
        return _("planning")
    if state.phase == PROD:
        return _(_PROD_STEP[state.step])
    return _("game over")


_PROD_STEP = (N_("production, materials step"), N_("production, energy step"), N_("production, science step"),
              N_("production, gold step"), N_("production, exploration step"))



def _pj(p: Player) -> dict:
    return {
        "empire": p.empire, "hand": list(p.hand), "pick": p.pick, "draft": list(p.draft),
        "sites": [[s.inst, list(s.filled), s.wild] for s in p.sites], "built": list(p.built),
        "ecubes": p.ecubes, "kry": p.kry, "fin": p.fin, "gen": p.gen, "cubes": list(p.cubes),
        "done": p.done, "sci": p.sci, "shown": list(p.shown), "decided": p.decided, "early": list(p.early),
        "notes": list(p.notes), "forced": list(p.forced),
    }


def _jp(d: dict) -> Player:
    return Player(
        empire=d["empire"], hand=tuple(d["hand"]), pick=d["pick"], draft=tuple(d["draft"]),
        sites=tuple(Site(s[0], tuple(s[1]), s[2]) for s in d["sites"]), built=tuple(d["built"]),
        ecubes=d["ecubes"], kry=d["kry"], fin=d["fin"], gen=d["gen"], cubes=tuple(d["cubes"]),
        done=d["done"], sci=d["sci"], shown=tuple(d["shown"]), decided=d["decided"], early=tuple(d["early"]),
        notes=tuple(d["notes"]), forced=tuple(d.get("forced", ZERO5)),  # states stored before it existed
    )


GAME = IawwGame()


