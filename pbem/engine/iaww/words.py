"""Moves in words (issue 19): what a move did (``describe``, past tense,
without its subject), the same move as an option (``explain``, imperative),
and the "Your move." block that lists a seat's options with what ends the
step (``help_text``). Card names, costs and bonuses come from the data."""
from __future__ import annotations

import textwrap

from .cardtext import short_cost
from .data import CARD_OF, CARDS, FIN, GEN, KRY, RESOURCES, SLOT_KINDS
from .notation import format_move
from .rules import (
    DRAFT, OVER, PLAN, PROD, Move, State, build_need, legal, numbered_draft, play, site_index, target_site,
)

WIDTH = 78
_TOKEN = {"fin": "financier", "gen": "general"}


def _name(cid: str) -> str:
    return CARDS[cid].name


def _inst_name(inst: str) -> str:
    return "your empire card" if inst == "E" else CARD_OF[inst].name


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiouAEIOU" else "a ") + word


def _count(k: int, word: str) -> str:
    return f"{k} {word}" + ("s" if k != 1 and word in ("financier", "general", "cube") else "")


def _cubes(counts) -> str:
    return ", ".join(f"{_count(k, RESOURCES[r])} cube{'s' * (k > 1)}" for r, k in enumerate(counts) if k)


def _cost(cost) -> str:
    """``2 materials and 1 Krystallium slot``: what a card still needs."""
    parts = []
    for k, n in enumerate(cost):
        if n <= 0:
            continue
        if k == KRY:
            parts.append(f"{n} Krystallium")
        elif k in (FIN, GEN):
            parts.append(_count(n, SLOT_KINDS[k]))
        else:
            parts.append(f"{n} {SLOT_KINDS[k]}")
    if not parts:
        return "nothing"
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _bonus(inst: str) -> str:
    b = CARD_OF[inst].bonus
    got = [_count(k, w) for k, w in zip(b, ("Krystallium", "financier", "general")) if k]
    return f" (+{', +'.join(got)})" if got else ""


def _completed(st: State, seat: int, m: Move) -> str:
    """", completing it (+1 financier)" when the move completes the card it names."""
    if m.kind in ("pick", "keep", "swap", "done", "auto", "sci", "c", "discard") or m.target in ("", "E"):
        return ""
    after = play(st, seat, m).players[seat]
    new = [i for i in after.built if i not in st.players[seat].built]
    return f", completing it{_bonus(new[0])}" if new else ""


def _left_on(st: State, seat: int, inst: str) -> str:
    """What a card under construction still needs, e.g. "2 energy"."""
    s = target_site(st.players[seat], inst, st.phase)
    cost = CARD_OF[inst].cost
    return _cost(tuple(cost[k] - s.filled[k] for k in range(8)) if s else cost)


def _step_word(st: State) -> str:
    if st.phase == PROD:
        return f"the {RESOURCES[st.step]} step"
    return "planning" if st.n > 1 else f"planning cycle {'AB'[st.step]}"


# ---------------------------------------------------------------- describe


def describe(st: State, seat: int, m: Move) -> str:
    """What ``m`` did, read from the state before it."""
    p = st.players[seat]
    k = m.kind
    if k == "pick":
        return f"picked {_name(m.card)}"
    if k == "keep":
        return f"kept {_name(m.card)} of the five revealed cards (the other four are discarded)"
    if k == "swap":
        return f"discarded {_name(m.card)} and {_name(m.target)} from the hand and revealed five cards"
    if k == "c":
        if any(i.split("#")[0] == m.card for i in p.early):
            return f"confirmed the construction of {_name(m.card)}, already used by an earlier move"
        return f"started constructing {_name(m.card)} (it needs {_cost(CARDS[m.card].cost)})"
    if k == "r":
        res = RESOURCES[CARDS[m.card].recycle]
        out = f"recycled {_name(m.card)} for 1 {res} cube"
        if m.target == "E":
            return out + ", put on the empire card"
        if m.target:
            return out + f", put on {_inst_name(m.target)}" + _completed(st, seat, m)
        return out
    if k == "place":
        res = RESOURCES[m.res]
        if not p.cubes[m.res]:
            return f"agreed to the {res} cube that went onto the empire card by itself"
        if m.target == "E":
            extra = " (5 cubes there: +1 Krystallium)" if p.ecubes == 4 else ""
            return f"put 1 {res} cube on the empire card{extra}"
        return f"put 1 {res} cube on {_inst_name(m.target)}" + _completed(st, seat, m)
    if k == "kry":
        return (f"put 1 Krystallium on {_inst_name(m.target)} in {_a(SLOT_KINDS[m.res])} slot"
                + _completed(st, seat, m))
    if k in ("fin", "gen"):
        return f"put {_a(_TOKEN[k])} on {_inst_name(m.target)}" + _completed(st, seat, m)
    if k == "discard":
        s = target_site(p, m.target, st.phase)
        lost = _cost(s.filled) if s and site_index(p, m.target) >= 0 else "nothing"
        res = RESOURCES[CARD_OF[m.target].recycle]
        return (f"discarded {_inst_name(m.target)} from construction, losing {lost}, and put 1 {res}"
                " cube on the empire card")
    if k == "build":
        return f"completed {_inst_name(m.target)} at once for {_paid(st, seat, m.target)}{_bonus(m.target)}"
    if k == "sci":
        return f"took {_a(m.card)} as science supremacy reward"
    rest = _defaults(st, seat) if k == "auto" or any(p.cubes) or p.sci else ""
    return f"ended {_step_word(st)}" + (f" ({rest})" if rest else "")


def _paid(st: State, seat: int, target: str) -> str:
    p = st.players[seat]
    s = target_site(p, target, st.phase)
    kn, fn, gn, use = build_need(p, s)
    parts = [x for x in (_cubes(use), _count(kn, "Krystallium") if kn else "",
                         _count(fn, "financier") if fn else "", _count(gn, "general") if gn else "") if x]
    if not parts:
        return "nothing more"
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _defaults(st: State, seat: int) -> str:
    """What ``auto`` (or ``done`` with cubes waiting) decided by default."""
    p = st.players[seat]
    bits = []
    if st.phase == PLAN and p.draft:
        bits.append("constructed " + ", ".join(CARD_OF[i].name for i in p.draft))
    if any(p.cubes):
        bits.append("placed " + _cubes(p.cubes) + " by default")
    if p.sci:
        bits.append("took the default science reward")
    return "; ".join(bits)


# ---------------------------------------------------------------- explain


def explain(st: State, seat: int, m: Move) -> str:
    """``m`` as an option, in the imperative."""
    p = st.players[seat]
    k = m.kind
    if k == "pick":
        c = CARDS[m.card]
        return f"take {c.name} ({c.type}; costs {_cost(c.cost)}) into your draft area"
    if k == "keep":
        return f"keep {_name(m.card)} of the five revealed cards; the other four are discarded"
    if k == "swap":
        return (f"discard {_name(m.card)} and {_name(m.target)} from your hand, reveal the top five cards"
                " of the deck and keep one of them")
    if k == "c":
        if any(i.split("#")[0] == m.card for i in p.early):
            return f"write the C still owed for {_name(m.card)}, which an earlier move already used"
        return (f"construct {_name(m.card)}: it goes to your construction area, needing"
                f" {_cost(CARDS[m.card].cost)}")
    if k == "r":
        res = RESOURCES[CARDS[m.card].recycle]
        out = f"recycle {_name(m.card)}: discard it for 1 {res} cube"
        if m.target == "E":
            return out + ", put on your empire card (>E)"
        if m.target:
            return out + f", put on {_inst_name(m.target)} (>{m.target.split('#')[0]})" + _completed(st, seat, m)
        return out + ", to place with a later move (or by default)"
    if k == "place":
        res = RESOURCES[m.res]
        if not p.cubes[m.res]:
            return f"name the {res} cube already put on your empire card by itself (changes nothing)"
        if m.target == "E":
            return f"put 1 {res} cube on your empire card (E); 5 cubes there make 1 Krystallium"
        return (f"put 1 {res} cube on {_inst_name(m.target)}, which still needs {_left_on(st, seat, m.target)}"
                + _completed(st, seat, m))
    if k == "kry":
        letter = "mesgxk"[m.res]
        yours = "your Krystallium" if p.kry == 1 else f"1 of your {p.kry} Krystallium"
        return (f"put {yours} on {_inst_name(m.target)} in {_a(SLOT_KINDS[m.res])} slot"
                f" (:{letter})" + _completed(st, seat, m))
    if k in ("fin", "gen"):
        return f"put {_a(_TOKEN[k])} from your pool on {_inst_name(m.target)}" + _completed(st, seat, m)
    if k == "discard":
        s = target_site(p, m.target, st.phase)
        on = _cost(s.filled) if s and site_index(p, m.target) >= 0 else "nothing"
        res = RESOURCES[CARD_OF[m.target].recycle]
        lose = "nothing is on it" if on == "nothing" else f"lose what is on it ({on})"
        return (f"discard {_inst_name(m.target)} from construction: {lose}; put 1 {res} cube on"
                " your empire card")
    if k == "build":
        return f"complete {_inst_name(m.target)} at once: pay {_paid(st, seat, m.target)}{_bonus(m.target)}"
    if k == "sci":
        return f"take {_a(m.card)} as your science supremacy reward"
    if k == "auto":
        bits = []
        if st.phase == PLAN and p.draft:
            bits.append("construct every card not decided")
        if any(p.cubes):
            bits.append("put each cube on the card it completes soonest (else on E)")
        if p.sci:
            bits.append("take the science reward of more empty slots")
        return "let the defaults finish: " + ", ".join(bits + [f"then end {_step_word(st)}"])
    if any(p.cubes):
        return f"end {_step_word(st)}; cubes not placed go where auto puts them"
    return f"end {_step_word(st)}"


# ---------------------------------------------------------------- the "Your move." block

# how a kind of move is written, and what it does, when there are too many to list
_SHAPES = (
    ("pick", "pick <card>", "take a card of your hand (its number or name) into your draft area"),
    ("keep", "keep <card>", "keep one of the five revealed cards"),
    ("c", "C <card>", "construct a card: into your construction area, slots empty"),
    ("r", "R <card>>T", "recycle a card for its cube, put on card T or on E (your empire)"),
    ("place", "m>T e>T s>T g>T x>T", "put a cube of that resource on card T or on E"),
    ("kry", "K>T:m (or :e :s :g :x :k)", "put a Krystallium in that kind of slot of T"),
    ("fin", "F>T", "put a financier from your pool on T"),
    ("gen", "gen>T", "put a general from your pool on T"),
    ("build", "build T", "complete T at once with your cubes, the rest in Krystallium"),
    ("sci", "sci F / sci gen", "take a financier or a general (science supremacy)"),
    ("swap", "swap <a>,<b>", "discard two cards of your hand, reveal five, keep one"),
    ("discard", "discard T", "discard T from construction (its cube goes on E)"),
    ("done", "done", "end this step"),
    ("auto", "auto", "defaults for everything left, then done"),
)
LIMIT = 25  # lines of the "Your move." block

REFERENCE = (
    "Notation (one move a line, or several separated by ';'):",
    "  pick <card>        draft pick (card id, name prefix or hand position)",
    "  C <card>           construct a drafted card",
    "  R <card>>T         recycle a drafted card, its cube onto T",
    "  m>T e>T s>T g>T x>T  place a cube of materials, energy, science, gold",
    "                     or exploration; T = card under construction, E = empire",
    "  K>T:s              place Krystallium on T in a slot kind: m e s g x,",
    "                     or k for a Krystallium slot",
    "  F>T / gen>T        place a financier / a general",
    "  discard T          discard a card under construction (all on it is lost)",
    "  build T            pay all the rest of T at once",
    "  sci F / sci gen    science supremacy: financier or general",
    "  swap <a>,<b>       solo: discard two cards, reveal five...",
    "  keep <c>           ...and keep one of the five",
    "  done               end your step (unplaced cubes are placed by auto)",
    "  auto               defaults for everything left, then done",
)


def _wrap(text: str, indent: str = "", sub: str = "    ") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=sub, break_on_hyphens=False)


def step_end(st: State, seat: int | None) -> str:
    """What ends the current decision point, and what comes next."""
    if st.phase == OVER:
        return "The game is over."
    nxt_round = "the game ends and is scored" if st.round == 4 else f"round {st.round + 1} begins"
    if st.phase == DRAFT:
        way = "left (to the next player)" if st.round % 2 == 1 else "right (to the previous player)"
        last = 7 if st.n == 2 else 6
        after = ("then the hands pass " + way) if st.step < last else "then planning begins" + (
            " (the 3 cards left in each hand are discarded)" if st.n == 2 else "")
        return (f"This pick ends when every player has picked; the picks are revealed together, {after}."
                + (" After 7 picks comes planning." if st.step < last else ""))
    if st.phase == PLAN:
        ends = ("once every card is C or R and no cube waits: no done is needed then, unless you hold"
                " Krystallium or a token you could still place (send done when you are through)")
        if st.n == 1:
            nxt = "planning cycle B" if st.step == 0 else "the five production steps"
            return f"Cycle {'AB'[st.step]} ends {ends}; then {nxt}."
        return (f"You are finished {ends}. Planning ends when every player is finished; then the five"
                " production steps (materials, energy, science, gold, exploration).")
    nxt = f"the {RESOURCES[st.step + 1]} step" if st.step < 4 else f"round {st.round} ends and {nxt_round}"
    return (f"The {RESOURCES[st.step]} step ends when every player is through: done or auto, or nothing"
            f" left to place (no done needed then); then {nxt}.")


def _item(notation: str, text: str) -> list[str]:
    """``  notation - text``, wrapped, a move never split over two lines."""
    return [x.replace("\0", " ") for x in _wrap(notation.replace(" ", "\0") + " - " + text, "  ")]


def _plan_lines(st: State, seat: int) -> list[str]:
    """One line per card still to decide: its C and R, what each gives."""
    p = st.players[seat]
    out = []
    for n, inst in enumerate(numbered_draft(st, seat), 1):
        if inst not in p.draft:
            continue
        c = CARD_OF[inst]
        out += _item(f"C {n} / R {n}>T", f"{c.name}: C needs {short_cost(c.cost)}, R gives 1"
                     f" {RESOURCES[c.recycle]} cube")
    if out:
        out += _wrap("C constructs (into your construction area), R recycles; T: a card under construction"
                     " (its name or number) or E, your empire card; R alone leaves the cube to place later.",
                     "  ")
    return out


def _place_lines(st: State, seat: int, group: list[Move]) -> list[str]:
    p = st.players[seat]
    out = []
    for r in range(5):
        on = [m for m in group if m.res == r]
        if not on:
            continue
        cards = [format_move(st, seat, m).split(">", 1)[1] for m in on if m.target != "E"]
        if not p.cubes[r]:
            out += _item(f"{'mesgx'[r]}>E", explain(st, seat, on[0]))
            continue
        where = (("a card: " + ", ".join(cards) + "; or ") if cards else "") + "E (your empire card)"
        k = p.cubes[r]
        out += _item(f"{'mesgx'[r]}>T", f"put {f'1 of your {k}' if k > 1 else 'your'} {RESOURCES[r]}"
                     f" cube{'s' * (k > 1)} on {where}")
    return out


def help_text(st: State, seat: int | None) -> str:
    """The seat's options in words, at most ``LIMIT`` lines; the notation
    reference for a seat with nothing to decide (and for HELP)."""
    end = _wrap(step_end(st, seat), "", "")
    if seat is None or not 0 <= seat < st.n or not legal(st, seat):
        return "\n".join(REFERENCE + tuple(end))
    p = st.players[seat]
    by_kind: dict[str, list[Move]] = {}
    for m in legal(st, seat):
        by_kind.setdefault(m.kind, []).append(m)
    blocks: list[tuple[list[str], list[str]]] = []  # (every move in words, the short form)
    shapes = {k: (shape, what) for k, shape, what in _SHAPES}
    if st.phase == PLAN and ("c" in by_kind or "r" in by_kind) and p.draft:
        full = _plan_lines(st, seat)
        short = _item("C <card> / R <card>>T", "construct a card (slots empty), or recycle it for its"
                      " cube, put on card T or E (your empire card)")
        blocks.append((full, short))
        early = [m for m in by_kind.get("c", []) if any(i.split("#")[0] == m.card for i in p.early)]
        for m in early:
            blocks.append((_item(format_move(st, seat, m), explain(st, seat, m)),) * 2)
        done_kinds = {"c", "r"}
    else:
        done_kinds = set()
    for kind, shape, what in _SHAPES:
        group = by_kind.get(kind)
        if not group or kind in done_kinds:
            continue
        if kind == "discard" and st.phase == PLAN:  # a drafted card's discard is legal (§6) but no option
            group = [m for m in group if site_index(p, m.target) >= 0] or group
        firsts = sorted(group, key=lambda m: (m.target in ("", "E"), m))
        many = f"{len(group)} choices, e.g." if len(group) > 1 else "1 choice:"
        short = _item(shape, f"{what}; {many} {format_move(st, seat, firsts[0])}")
        if kind == "place":
            full = _place_lines(st, seat, group)
        elif kind == "discard" or (kind == "swap" and len(group) > 3):
            full = short
        else:
            full = [x for m in firsts for x in _item(format_move(st, seat, m), explain(st, seat, m))]
        blocks.append((full, short if len(short) <= len(full) else full))
    head = ["Write one move a line, or several separated by ';'. Your options:"]
    chosen = [b[0] for b in blocks]
    # shorten the longest blocks until the whole fits
    while len(head) + sum(map(len, chosen)) + len(end) > LIMIT:
        gains = [(len(c) - len(b[1]), i) for i, (c, b) in enumerate(zip(chosen, blocks))]
        gain, i = max(gains)
        if gain <= 0:
            break
        chosen[i] = blocks[i][1]
    return "\n".join(head + [x for c in chosen for x in c] + end)
