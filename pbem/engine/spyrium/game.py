"""The Spyrium Game object: the protocol of pbem.engine.base over rules.py."""
from __future__ import annotations

import re
from typing import Any, Mapping

from . import draw, notation, render, rules, words, writing
from .i18n import CATALOG, ALIASES, NAMES, N_, _, say
from .data import (
    CARDS, COLOURS, EFFECT_SUMMARY, EV_WINDFALL, EVENT_SUMMARY, PERIOD_OF_ROUND, ROUNDS, SPACE_NAME, USE_OPTS, VP,
)
from .state import (
    ANSWER, BONUS_BOTH, BONUS_CASH_AT_20, BONUS_WORKER_AT_20, State, new_state, state_from_json,
    state_to_json,
)
from ..i18n import SOURCE, language, player
from ..base import (
    GameOverError, IllegalMoveError, MoveError, NotYourTurnError, Outcome, check_turn, default_decision_view,
)


# the outcome's note is stored in English and translated where it is shown (render.py)
TIE_NOTE = N_("Tie: the victory is shared; Spyrium has no tie-breaker.")

# the words that begin a line meant as a move (base.looks_like_move: the talk around moves is not refused)
_ENGLISH_WORDS = frozenset({"place", "pl", "put", "event", "ev", "earn", "act", "activate", "use", "pass", "done",
                            "phase2", "p2", "ph2", "ii", "phaseii", "buy", "a", "u",
                            "adv", "advance", "score", "lob", "lobby", "lobbying", "newlot", "new-lot",
                            "+worker", "+w", "+wk", "+5", "+£5", "bonusworker", "bonus5", "+cash"})
# and a player's own words for them, in their language: "пас", "piazza 4-5", "фаза 2 пас"; not the words
# that only follow a verb ("место", "деньги"), which begin many a sentence of talk
_ALIAS_WORDS = frozenset(
    form for table in ALIASES.table.values() for alias, canonical in table.items()
    if canonical in _ENGLISH_WORDS or canonical == "phase"
    for form in (alias.split()[0].lower(), alias.split()[0].lower().replace("ё", "е")))

# a move a refusal quotes: "write 'phase2 pass' to ..."
_QUOTED_MOVE = re.compile(r"'((?:phase2 )?(?:place|event|earn|act|use|pass)\b[^'\n]{0,40})'")

# to_move's answers, made once (frozensets cannot change, so sharing them is safe)
_NOBODY: frozenset[int] = frozenset()
_ALONE = {s: frozenset((s,)) for s in range(5)}


class SpyriumGame:
    name = "spyrium"
    catalog = CATALOG  # its words in each language: base.option_text
    english_title = "Spyrium"

    @property
    def title(self) -> str:
        """The game's title as its edition in the reader's language prints it (data/names.csv, row ``title``)."""
        return NAMES.name("title", self.english_title)
    aliases = ("spy",)
    min_players = 2
    max_players = 5
    options = ()
    batch = "prefix"
    # the words that begin a line meant as a move (base.looks_like_move): the verbs, and the
    # answers to a question a move opens ("event", then "adv" on the next line of the mail: the mail
    # reader must take the answer for a move although it means nothing on the board the mail answers),
    # in English and in the players' own words
    notation_words = _ENGLISH_WORDS | _ALIAS_WORDS

    # ---------------------------------------------------------------- core

    def initial_state(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        return rules.initial_state(players, seed)

    def to_move(self, state: State) -> frozenset[int]:
        if state.over:
            return _NOBODY
        return _ALONE.get(state.turn) or frozenset((state.turn,))

    legal_moves = staticmethod(rules.legal_moves)  # the rules' function itself: the caller asks it every move

    def _examples(self, state: State, seat: int):
        def ex(kind):
            try:
                return notation.examples_for(state, seat, kind)
            except Exception:  # examples must never hide the real error
                return ()
        return ex

    def parse_move(self, state: State, seat: int, text: str) -> tuple:
        if not isinstance(text, str):
            raise IllegalMoveError(_("a move is a line of text"), text=str(text), seat=seat)
        check_turn(self, state, seat, text)
        # a player's own words first ("пас", "piazza 4-5"): the notation reads the English
        canonical, used = ALIASES.to_canonical(text)  # a word two languages share: the reader's
        try:
            move = notation.parse_move(state, seat, canonical, self._examples(state, seat))
            if move not in rules.legal_set(state, seat):  # safety net: never return an illegal move
                raise IllegalMoveError(_("that move is not legal now"), text=canonical, seat=seat,
                                       examples=notation.examples_for(state, seat, move[0]))
        except MoveError as e:
            if used is not None or canonical != text:
                e.text = text  # the refusal quotes what the player wrote
                if used is not None:  # the moves it shows, in the words the player used
                    e.examples = ALIASES.localize_all(e.examples, used)
                    e.reason = _QUOTED_MOVE.sub(lambda m: "'" + ALIASES.localize(m.group(1), used) + "'", e.reason)
            raise
        return move

    def format_move(self, state: State, seat: int, move: tuple) -> str:
        return writing.format_move(state, seat, move)

    def apply(self, state: State, seat: int, move: tuple) -> State:
        if state.over or seat != state.turn:  # check_turn passes otherwise: skip its calls
            check_turn(self, state, seat)
        try:
            known = rules.is_legal(state, seat, move)
        except TypeError:  # not even a hashable value
            known = False
        if not known:
            reason = "that move is not legal now"
            try:
                rules.execute(state, seat, move, False)
            except rules.Illegal as e:
                reason = str(e)
            except Exception:
                pass
            raise IllegalMoveError(reason, seat=seat, examples=notation.examples_for(state, seat, None))
        full = move
        if move[0] == ANSWER:
            pm = state.pending
            full = pm[:6] + (pm[6] + move[6],)
        try:
            return rules.execute(state, seat, move, True)
        except rules.NeedDecision:
            waiting = new_state(state.n, state.seed, state.round, state.first, state.turn, state.decks,
                                state.events, state.cur_event, state.cur_token, state.fut_token,
                                state.supply, state.discard, state.reshuffles, state.market,
                                state.mtok, state.spaces, state.ps, full, False)
            rules.pass_on_answers(state, seat, move, waiting)
            return waiting

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        br = tuple(rules.score_breakdown(p) for p in state.ps)
        scores = tuple(b["total"] for b in br)
        best = max(scores)
        winners = frozenset(s for s, v in enumerate(scores) if v == best)
        ranking = tuple(sorted(range(state.n), key=lambda s: (-scores[s], s)))
        notes = ()
        if len(winners) > 1:
            notes = (TIE_NOTE,)
        return Outcome(scores, winners, br, ranking, notes)

    def to_json(self, state: State) -> Any:
        return state_to_json(state)

    def from_json(self, data: Any) -> State:
        return state_from_json(data)

    def notation_help(self, state: State, seat: int | None) -> str:
        return notation.notation_help(state, seat)

    def reveals(self, before: State, after: State) -> bool:
        return (before.round != after.round or before.supply != after.supply
                or before.decks != after.decks or before.events != after.events
                or before.reshuffles != after.reshuffles)

    def thread_round(self, state: State) -> int:
        """The round: every seat's turns of it make one line of the game thread (a turn is mostly one
        action, so a line per turn would be a line per move)."""
        return state.round

    def decision_view(self, state: State, seat: int) -> dict:
        return default_decision_view(self.view(state, seat))  # one seat to move: anything seen may matter

    # ---------------------------------------------------------------- view

    def view(self, state: State, seat: int | None) -> dict:
        out = self.outcome(state)
        n = state.n
        to_move = sorted(self.to_move(state))
        colours = list(COLOURS[:n])
        # "Red (Player 1)": the services put the player's name in (base.name_seats)
        named = [_("%(colour)s (%(player)s)", colour=_(c), player=player(s)) for s, c in enumerate(colours)]
        if state.over:
            status = _("Game over")
            if out:
                w = sorted(out.winners)
                if len(w) > 1:
                    status = _("Game over - %(winners)s win with %(vp)d VP",
                               winners=_(" and ").join(named[s] for s in w), vp=out.scores[w[0]])
                else:
                    status = _("Game over - %(winner)s wins with %(vp)d VP", winner=named[w[0]], vp=out.scores[w[0]])
        else:
            p = state.ps[state.turn]
            values = dict(round=state.round, rounds=ROUNDS, period=PERIOD_OF_ROUND[state.round],
                          player=named[state.turn], phase="I" if p.phase == 1 else "II")
            if state.pending:
                status = _("Round %(round)d of %(rounds)d (period %(period)s) - %(player)s to choose (Phase %(phase)s)",
                           **values)
            else:
                status = _("Round %(round)d of %(rounds)d (period %(period)s) - %(player)s to move (Phase %(phase)s)",
                           **values)
        market = []
        for q in range(9):
            c = state.market[q]
            if c < 0:
                market.append(None)
                continue
            card = CARDS[c]
            market.append({
                "pos": q + 1, "name": card.name, "label": card.label, "short": card.short,
                "kind": card.kind, "period": card.period, "price": card.price, "vp": card.vp,
                "symbols": list(card.symbols), "tokens": list(state.mtok[q]), "text": card.text,
                "summary": EFFECT_SUMMARY[card.effect],
                # §4.3, §5.4, §5.5: £1 per other worker beside the card, paid to activate it
                # and earned by Earn money
                "beside": rules.workers_next_to(state.spaces, q + 1),
            })
        seats = []
        for s, p in enumerate(state.ps):
            on_market = sum(sp.count(s) for sp in state.spaces)
            bonus = {BONUS_BOTH: N_("worker and £5 tiles at 8"), BONUS_WORKER_AT_20: N_("worker tile at 20"),
                     BONUS_CASH_AT_20: N_("£5 tile at 20")}.get(p.bonus, N_("none"))  # English: render translates
            seats.append({
                "seat": s, "colour": colours[s], "money": p.money, "spyrium": p.spy, "vp": p.vp,
                "residence": p.res, "phase": p.phase, "passed": p.passed, "event_used": p.evused,
                "workers": {"active": p.active, "market": on_market, "used": p.used, "building": p.onbld,
                            "owned": p.owned, "reserve": 7 - p.owned},
                "bonus": bonus,
                "lots": [{"lot": i + 1, "name": CARDS[c].name, "label": CARDS[c].label,
                          "short": CARDS[c].short, "price": CARDS[c].price, "vp": VP[c],
                          "symbols": list(CARDS[c].symbols), "turned": p.turned[i],
                          "usable": bool(USE_OPTS[c]), "summary": EFFECT_SUMMARY[CARDS[c].effect],
                          "text": CARDS[c].text}
                         for i, c in enumerate(p.lots)],
                "new_lot_cost": rules.lot_price(p.lots, p.techs, p.lots[0], 0)[1] if p.lots else 0,
                "techniques": [CARDS[t].name for t in p.techs],
                "technique_info": [{"name": CARDS[t].name, "summary": EFFECT_SUMMARY[CARDS[t].effect],
                                    "text": CARDS[t].text} for t in p.techs],
                "lobbying_used": p.lobused, "commerce_used": p.comused, "taylorism_used": p.tayused,
                "kept_tokens": list(p.kept),
            })
        ev = state.cur_event
        fut = state.events[0] if state.events else None
        view = {
            "game": self.name, "seat": seat, "players": n, "to_move": to_move, "over": state.over,
            "status": status, "outcome": out.to_dict() if out else None,
            "round": state.round, "rounds": ROUNDS, "period": PERIOD_OF_ROUND[state.round],
            "first": state.first, "turn": state.turn if not state.over else None,
            "colours": colours,
            "event": None if ev < 0 else {"name": CARDS[ev].name, "text": CARDS[ev].text,
                                          "summary": EVENT_SUMMARY[CARDS[ev].effect],
                                          "token": state.cur_token or None},
            "future_event": None if fut is None else {
                "name": CARDS[fut].name, "text": CARDS[fut].text,
                "token": (state.fut_token or None) if fut == EV_WINDFALL else None},
            "market": market,
            "spaces": [{"space": SPACE_NAME[i], "workers": list(sp)} for i, sp in enumerate(state.spaces)],
            "seats": seats,
            "supply_count": len(state.supply), "discard": list(state.discard),
            "deck_counts": {"A": len(state.decks[0]), "B": len(state.decks[1]), "C": len(state.decks[2])},
            "events_left": len(state.events),
            "pending": None,
            "examples": [],
        }
        if state.pending:
            # a view is the same in every language: it keeps the decision's words as data ("words": a
            # message and its values, i18n.say), which each board words in its reader's language, and
            # says them in English too
            prices = words.choice_prices(state, state.turn, words.ANSWER_MOVE)
            ask, question = words.pending_kept(state, prices)
            with language(SOURCE):
                view["pending"] = {"seat": state.turn,
                                   "move": writing.format_move(state, state.turn, state.pending),
                                   "question": say(question), "ask": say(ask),
                                   "choices": [{"answer": w, "text": say(t), "possible": ok, "words": t}
                                               for w, t, ok in prices],
                                   "words": {"question": question, "ask": ask}}
        if seat is not None and seat in to_move:
            view["examples"] = list(notation.examples_for(state, seat, None, limit=6))
        return view

    def describe_move(self, state: State, seat: int, move: tuple) -> str:
        return words.describe_move(state, seat, move)

    def explain_move(self, state: State, seat: int, move: tuple) -> str:
        return words.explain_move(state, seat, move)

    def cards(self) -> tuple:
        return words.card_list()

    def seat_facts(self, view: Mapping[str, Any], seat: int) -> tuple[str, tuple[tuple[str, str], ...]]:
        return render.seat_facts(view, seat)

    def render_text(self, view: Mapping[str, Any]) -> str:
        return render.render_text(view)

    def render_html(self, view: Mapping[str, Any]) -> str:
        return render.render_html(view)

    def draw_svg(self, view: Mapping[str, Any], moves=(), layout: str = "wide") -> str:
        return draw.draw_svg(view, moves, layout)


GAME = SpyriumGame()

__all__ = ["GAME", "SpyriumGame", "MoveError", "GameOverError", "NotYourTurnError"]
