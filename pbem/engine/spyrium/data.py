"""Card data for Spyrium, loaded once at import from the package's own copy
of cards.csv (RULES.md §1.2), and the fixed tables of the market (§4)."""
from __future__ import annotations

import csv
from pathlib import Path

from .i18n import N_

_CSV = Path(__file__).resolve().parent / "data" / "cards.csv"

# ---------------------------------------------------------------- market geometry (§4)

# the 12 spaces, each as the pair of positions (1..9) it lies between
SPACES: tuple[tuple[int, int], ...] = (
    (1, 2), (2, 3), (4, 5), (5, 6), (7, 8), (8, 9),
    (1, 4), (2, 5), (3, 6), (4, 7), (5, 8), (6, 9),
)
SPACE_NAME = tuple(f"{a}-{b}" for a, b in SPACES)
SPACE_INDEX = {pair: i for i, pair in enumerate(SPACES)}
# spaces touching each position 1..9 (index 0 unused)
POS_SPACES: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, (a, b) in enumerate(SPACES) if q in (a, b)) if q else ()
    for q in range(10)
)

# ---------------------------------------------------------------- cards

SYM_MINE, SYM_FACTORY, SYM_RESEARCH = 1, 2, 4
_SYMBITS = {"mine": SYM_MINE, "factory": SYM_FACTORY, "research": SYM_RESEARCH}

CHARACTER, BUILDING, TECHNIQUE, EVENT, START = "character", "building", "technique", "event", "start"

# Phase II uses per effect key: options of (workers, spyrium paid, S gained, VP gained) (§1.4.2)
USES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "mine_w1_1spy": ((1, 0, 1, 0),),
    "mine_1spy_or_w1_2spy": ((0, 0, 1, 0), (1, 0, 2, 0)),
    "workshop_w1_1spy_3vp": ((1, 1, 0, 3),),
    "workshop_w1_2spy_5vp": ((1, 2, 0, 5),),
    "lab_w1_1spy_4vp": ((1, 1, 0, 4),),
    "university_token_vp_w1_2vp": ((1, 0, 0, 2),),
    "mine_token_1spy_or_w1_3spy": ((0, 0, 1, 0), (1, 0, 3, 0)),
    "factory_w1_2spy_6vp_or_w2_3spy_10vp": ((1, 2, 0, 6), (2, 3, 0, 10)),
    "factory_w2_3spy_10vp_or_w2_5spy_15vp": ((2, 3, 0, 10), (2, 5, 0, 15)),
    "lab_w1_1spy_5vp": ((1, 1, 0, 5),),
    "lab_w1_2spy_7vp": ((1, 2, 0, 7),),
    "university_token_vp_w1_3vp_or_w2_6vp": ((1, 0, 0, 3), (2, 0, 0, 6)),
}
# characters and buildings that take tokens when dealt; "p" means players - 1
TOKEN_RULE = {
    "bureaucrat_token_vp": "p", "miner_token_spyrium": "p", "architect_token_residence": "p",
    "banker_token_4vp": "p", "financier_token_5vp": "p",
    "university_token_vp_w1_2vp": 1, "university_token_vp_w1_3vp_or_w2_6vp": 1,
    "mine_token_1spy_or_w1_3spy": 1,
}
QUARTERS_GAIN = {"quarters_gain_1_worker": 1, "quarters_gain_2_workers": 2}


class Card:
    __slots__ = ("id", "period", "kind", "name", "copies", "price", "vp", "symbols", "sym",
                 "effect", "text", "uses", "label", "short")

    def __init__(self, cid: int, row: dict) -> None:
        self.id = cid
        self.period = row["period"]
        self.kind = row["kind"]
        self.name = row["name"]
        self.copies = int(row["copies"])
        self.price = int(row["cost"])
        self.vp = int(row["victory_points"])
        self.symbols = tuple(s for s in row["symbols"].split(";") if s)
        self.sym = sum(_SYMBITS[s] for s in self.symbols)
        self.effect = row["effect_key"]
        # the board shows the reminder; a note for the rule writers is not for players
        self.text = row["effect_text"].replace("(max 7; one translation says their number instead - see facts U6)",
                                               "(max 7)")
        self.uses = USES.get(self.effect, ())
        self.label = self.name


def _load() -> tuple[Card, ...]:
    with _CSV.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    cards = tuple(Card(i, r) for i, r in enumerate(rows))
    names: dict[str, int] = {}
    for c in cards:
        names[c.name] = names.get(c.name, 0) + 1
    for c in cards:
        # "Mine £5": the name alone is ambiguous for several buildings (§1.4.2)
        if c.kind == BUILDING and names[c.name] > 1 and len({d.price for d in cards if d.name == c.name}) > 1:
            c.label = f"{c.name} £{c.price}"
        short = {"Workers' Quarters": "Quarters", "Capitalization": "Capitaliz.",
                 "Luxury House": "Lux.House", "Laboratory": "Lab"}.get(c.name, c.name)
        c.short = f"{short} £{c.price}" if c.label != c.name else short
    return cards


CARDS = _load()
NCARDS = len(CARDS)
KIND = tuple(c.kind for c in CARDS)
PRICE = tuple(c.price for c in CARDS)
EFFECT = tuple(c.effect for c in CARDS)


def _deck(period: str) -> tuple[int, ...]:
    out: list[int] = []
    for c in CARDS:
        if c.period == period and c.kind in (CHARACTER, BUILDING, TECHNIQUE):
            out.extend([c.id] * c.copies)
    return tuple(out)


DECK = {p: _deck(p) for p in "ABC"}
EVENTS = tuple(c.id for c in CARDS if c.kind == EVENT)


def card_id(name: str, price: int | None = None, period: str | None = None) -> int:
    """The id of a card by name (and price / period when the name is ambiguous)."""
    found = [c.id for c in CARDS if c.name == name and (price is None or c.price == price)
             and (period is None or c.period == period)]
    if not found:
        raise KeyError(name)
    return found[0]


TECH = {c.effect: c.id for c in CARDS if c.kind == TECHNIQUE}
COMMERCE = TECH["commerce_keep_tokens"]
LOBBYING = TECH["lobbying_no_congestion"]
AUTOMATION = TECH["automation_mines_no_workers"]
CAPITALIZATION = TECH["capitalization_money_plus2"]
ENGINEERING = TECH["engineering_factory_bonus"]
CRANE = TECH["crane_lot_discount"]
TAYLORISM = TECH["taylorism_reuse_building"]
EV = {CARDS[e].effect: e for e in EVENTS}
EV_WINDFALL = EV["event_token_choice"]
EV_COUNTRY = EV["event_1spy_residence"]
EV_HONOURS = EV["event_buy_vp"]
EV_SALE = EV["event_sell_spyrium"]
EV_OVERTIME = EV["event_reuse_building"]
EV_RECRUIT = EV["event_buy_worker"]
EV_LATE = EV["event_place_worker_phase2"]

NTOKENS_PER_CARD = tuple(TOKEN_RULE.get(c.effect, 0) for c in CARDS)
IS_MINE = tuple(bool(c.sym & SYM_MINE) for c in CARDS)
IS_FACTORY = tuple(bool(c.sym & SYM_FACTORY) for c in CARDS)
SYM = tuple(c.sym for c in CARDS)
VP = tuple(c.vp for c in CARDS)
USE_OPTS = tuple(c.uses for c in CARDS)

COLOURS = (N_("Red"), N_("Blue"), N_("Green"), N_("Yellow"), N_("Black"))  # English in a view: _() where shown
RES_TOP = 7  # the top space of the residence track (§8 ruling)
RES_START = 2
TOKEN_COUNTS = {1: 8, 2: 8, 3: 8}  # the number tokens: how many of each value (§2)
BONUS_FIRST_AT, BONUS_SECOND_AT = 8, 20  # VP where a player chooses a bonus tile, and gets the other (§9)
BONUS_CASH = 5  # the £5 tile
SHARED_SYMBOL_OFF = 3  # £ off the price of a building replacing one that shares a symbol; Crane: off a new lot (§6)
MAX_WORKERS = 7
ROUNDS = 6
PERIOD_OF_ROUND = {1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "C"}
TECH_CAP = 7
KEPT_CAP = 7

# one-line reminders of the events for the boards (RULES.md §1.4.4 / §11.4)
EVENT_SUMMARY = {
    "event_token_choice": N_("gain £, S or VP equal to its token"),
    "event_1spy_residence": N_("pay 1 S: one residence action"),
    "event_buy_vp": N_("o1 pay £3: 3 VP; o2 pay £6: 5 VP"),
    "event_sell_spyrium": N_("o1 pay 1 S: £3; o2 pay 3 S: £6"),
    "event_reuse_building": N_("pay £1: use one of your turned buildings again"),
    "event_buy_worker": N_("pay £1 per worker you own: 1 new worker"),
    "event_place_worker_phase2": N_("Phase II: place 1 active worker on the market"),
}

# one-line reminders of the market cards for the boards (RULES.md §1.4, §11)
EFFECT_SUMMARY = {
    "bureaucrat_token_vp": N_("take a token: VP = its value"),
    "miner_token_spyrium": N_("take a token: S = its value"),
    "apprentice_1spy_3vp": N_("pay 1 S: 3 VP"),
    "architect_token_residence": N_("take a token, pay £ = its value: residence action"),
    "engineer_1spy_4vp": N_("pay 1 S: 4 VP"),
    "geologist_2spy": N_("gain 2 S"),
    "banker_token_4vp": N_("take a token, pay £ = its value: 4 VP"),
    "advisor_3vp": N_("gain 3 VP"),
    "financier_token_5vp": N_("take a token, pay £ = its value: 5 VP"),
    "mine_w1_1spy": N_("use: 1 worker -> 1 S"),
    "mine_1spy_or_w1_2spy": N_("use: o1 -> 1 S, or o2 1 worker -> 2 S"),
    "workshop_w1_1spy_3vp": N_("use: 1 worker + 1 S -> 3 VP"),
    "workshop_w1_2spy_5vp": N_("use: 1 worker + 2 S -> 5 VP"),
    "lab_w1_1spy_4vp": N_("use: 1 worker + 1 S -> 4 VP"),
    "quarters_gain_1_worker": N_("when built: +1 worker"),
    "residence_on_build": N_("when built: residence action"),
    "university_token_vp_w1_2vp": N_("built: VP = token; use: 1 worker -> 2 VP"),
    "mine_token_1spy_or_w1_3spy": N_("built: S = token; use: o1 -> 1 S, o2 1 worker -> 3 S"),
    "factory_w1_2spy_6vp_or_w2_3spy_10vp": N_("use: o1 1 worker + 2 S -> 6 VP, o2 2 w + 3 S -> 10 VP"),
    "factory_w2_3spy_10vp_or_w2_5spy_15vp": N_("use: o1 2 workers + 3 S -> 10 VP, o2 2 w + 5 S -> 15 VP"),
    "lab_w1_1spy_5vp": N_("use: 1 worker + 1 S -> 5 VP"),
    "lab_w1_2spy_7vp": N_("use: 1 worker + 2 S -> 7 VP"),
    "quarters_gain_2_workers": N_("when built: +2 workers"),
    "university_token_vp_w1_3vp_or_w2_6vp": N_("built: VP = token; use: o1 1 worker -> 3 VP, o2 2 w -> 6 VP"),
    "vp_only": N_("VP at the end only"),
    "commerce_keep_tokens": N_("keep tokens you take; once a round treat a token as 1-3"),
    "lobbying_no_congestion": N_("once a round no surcharge (write lob); end: residence"),
    "automation_mines_no_workers": N_("your Mines need no workers; end: 1 VP per S"),
    "capitalization_money_plus2": N_("Earn money +£2; end: 1 VP per £2"),
    "engineering_factory_bonus": N_("+1 VP per worker on factory buildings; end: their VP"),
    "crane_lot_discount": N_("new lots cost £3 less; end: 1 VP per building"),
    "taylorism_reuse_building": N_("once a round use a turned building again; end: workers"),
}
