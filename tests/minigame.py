"""A minimal game for the pipeline's tests. Never registered in GAMES, never
offered to users: tests call pbem.engine.register_game(MINI) themselves.

Each seat is dealt three secret cards (1-9) from the seed. Seats take turns
clockwise: ``play N`` plays a card from the hand (adds N to the seat's score,
revealing it); ``wait`` passes without revealing anything. The game ends
when every hand is empty; highest score wins, ties share.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace

from pbem.engine.base import (
    GameOverError, IllegalMoveError, MoveSyntaxError, NotYourTurnError, Option, Outcome,
    check_turn, default_decision_view, legal_examples, rng_for, seat_label,
)


@dataclass(frozen=True, order=True)
class MiniMove:
    kind: str  # "play" or "wait"
    card: int = 0


@dataclass(frozen=True)
class MiniState:
    players: int
    hands: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    turn: int
    waits: int = 0


class MiniGame:
    name = "mini"
    title = "Mini (test game)"
    aliases = ("minigame",)
    min_players = 1
    max_players = 4
    options = (Option("hand", 3, "cards per hand"),)
    batch = "prefix"
    notation_words = frozenset({"play", "wait"})

    def initial_state(self, players, seed, options):
        rng = rng_for(seed, "deal")
        n = int(options.get("hand", 3))
        hands = tuple(tuple(sorted(rng.randint(1, 9) for _ in range(n))) for _ in range(players))
        return MiniState(players, hands, (0,) * players, 0)

    def is_over(self, state):
        return all(not h for h in state.hands)

    def to_move(self, state):
        return frozenset() if self.is_over(state) else frozenset({state.turn})

    def legal_moves(self, state, seat):
        if seat not in self.to_move(state):
            return []
        moves = {MiniMove("play", c) for c in state.hands[seat]}
        moves.add(MiniMove("wait"))
        return sorted(moves)

    def parse_move(self, state, seat, text):
        t = " ".join(text.lower().split())
        if t == "wait":
            return MiniMove("wait")
        m = re.fullmatch(r"play (\d)", t)
        if not m:
            raise MoveSyntaxError("write 'play N' with N a card in your hand, or 'wait'",
                                  text=text, seat=seat, examples=("play 5", "wait"))
        return MiniMove("play", int(m.group(1)))

    def format_move(self, state, seat, move):
        return "wait" if move.kind == "wait" else f"play {move.card}"

    def apply(self, state, seat, move):
        check_turn(self, state, seat)
        if move not in self.legal_moves(state, seat):
            raise IllegalMoveError(f"you hold no {move.card}", seat=seat,
                                   examples=legal_examples(self, state, seat))
        nxt = (state.turn + 1) % state.players
        if move.kind == "wait":
            return replace(state, turn=nxt, waits=state.waits + 1)
        hand = list(state.hands[seat])
        hand.remove(move.card)
        hands = state.hands[:seat] + (tuple(hand),) + state.hands[seat + 1:]
        scores = state.scores[:seat] + (state.scores[seat] + move.card,) + state.scores[seat + 1:]
        while hands[nxt] == () and any(hands):
            nxt = (nxt + 1) % state.players
        return replace(state, hands=hands, scores=scores, turn=nxt)

    def outcome(self, state):
        if not self.is_over(state):
            return None
        best = max(state.scores)
        ranking = tuple(sorted(range(state.players), key=lambda s: -state.scores[s]))
        return Outcome(state.scores, frozenset(s for s in range(state.players) if state.scores[s] == best),
                       tuple({"cards": v} for v in state.scores), ranking)

    def view(self, state, seat):
        out = self.outcome(state)
        to_move = sorted(self.to_move(state))
        return {
            "game": self.name, "seat": seat, "players": state.players, "to_move": to_move,
            "over": out is not None, "outcome": out.to_dict() if out else None,
            "status": "Game over" if out else f"Player {state.turn + 1} to move",
            "scores": list(state.scores),
            "hand_sizes": [len(h) for h in state.hands],
            "hand": list(state.hands[seat]) if seat is not None else None,
        }

    def to_json(self, state):
        return {"players": state.players, "hands": [list(h) for h in state.hands],
                "scores": list(state.scores), "turn": state.turn, "waits": state.waits}

    def from_json(self, d):
        return MiniState(d["players"], tuple(tuple(h) for h in d["hands"]), tuple(d["scores"]),
                         d["turn"], d["waits"])

    def notation_help(self, state, seat):
        ex = legal_examples(self, state, seat) if seat is not None else ()
        return "play N | wait" + ("\nNow legal: " + ", ".join(ex) if ex else "")

    def render_text(self, view):
        lines = [view["status"]]
        for s in range(view["players"]):
            lines.append(f"{seat_label(view, s)}: {view['scores'][s]} points, {view['hand_sizes'][s]} cards")
        if view.get("hand") is not None:
            lines.append("Your hand: " + " ".join(map(str, view["hand"])))
        return "\n".join(lines) + "\n"

    def render_html(self, view):
        rows = "".join(f"<tr><td>{html.escape(seat_label(view, s))}</td><td>{view['scores'][s]}</td></tr>"
                       for s in range(view["players"]))
        hand = ""
        if view.get("hand") is not None:
            hand = "<p>Your hand: " + " ".join(map(str, view["hand"])) + "</p>"
        return f'<p>{html.escape(view["status"])}</p><table style="border-collapse:collapse">{rows}</table>{hand}'

    def draw_svg(self, view, moves=()):
        from pbem.engine.drawing import text_board

        return text_board(self.title, self.render_text(view))

    def reveals(self, before, after):
        return before.hands != after.hands

    def decision_view(self, state, seat):
        return default_decision_view(self.view(state, seat))


MINI = MiniGame()
