"""Card and empire data (RULES.md §1.4, §1.5), loaded once at import from the
CSV files copied into ``data/``. Everything here is immutable and indexed for
the hot paths of the rules: costs and productions are tuples over the eight
slot kinds / five resources.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from importlib import resources

RESOURCES = ("materials", "energy", "science", "gold", "exploration")
# slot kinds of a cost, in the CSV order: five resources, then these three
KRY, FIN, GEN = 5, 6, 7
SLOT_KINDS = RESOURCES + ("krystallium", "financier", "general")
RES_LETTER = ("m", "e", "s", "g", "x")
SLOT_LETTER = RES_LETTER + ("k", "f", "gen")
TYPES = ("structure", "vehicle", "research", "project", "discovery")
# supremacy reward per production step (RULES.md §7.2 [ruling]); None = winner's choice
SUPREMACY = ("financier", "general", None, "financier", "general")


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    type: str
    copies: int
    cost: tuple[int, ...]          # 8 slot kinds
    bonus: tuple[int, int, int]    # krystallium, financier, general
    prod: tuple[int, ...]          # fixed production per resource
    prod_per: tuple[int, str] | None  # (resource index, card type) for "res:1 per T"
    vp: int                        # fixed VP
    vp_per: tuple[int, str] | None  # (Q, type | "financier" | "general")
    recycle: int                   # resource index
    slots: int                     # total number of slots


def _kinds(text: str, names: tuple[str, ...]) -> dict[int, int]:
    out: dict[int, int] = {}
    for item in filter(None, (t.strip() for t in text.split(";"))):
        kind, count = item.split(":")
        out[names.index(kind.strip())] = int(count)
    return out


def _vp(text: str) -> tuple[int, tuple[int, str] | None]:
    text = text.strip()
    if not text:
        return 0, None
    if " per " in text:
        q, what = text.split(" per ")
        return 0, (int(q), what.strip())
    return int(text), None


def _read(name: str) -> list[dict]:
    raw = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(raw)))


def _load_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for row in _read("developments.csv"):
        cost_map = _kinds(row["cost"], SLOT_KINDS)
        cost = tuple(cost_map.get(i, 0) for i in range(8))
        b = _kinds(row["construction_bonus"], SLOT_KINDS)
        bonus = (b.get(KRY, 0), b.get(FIN, 0), b.get(GEN, 0))
        prod_text = row["production"].strip()
        prod_per = None
        prod = (0,) * 5
        if " per " in prod_text:
            left, typ = prod_text.split(" per ")
            res = RESOURCES.index(left.split(":")[0])
            prod_per = (res, typ.strip())
        elif prod_text:
            pm = _kinds(prod_text, RESOURCES)
            prod = tuple(pm.get(i, 0) for i in range(5))
        vp, vp_per = _vp(row["victory_points"])
        cards[row["id"]] = Card(
            id=row["id"], name=row["name"], type=row["type"], copies=int(row["copies"]), cost=cost,
            bonus=bonus, prod=prod, prod_per=prod_per, vp=vp, vp_per=vp_per,
            recycle=RESOURCES.index(row["recycling_bonus"].strip()), slots=sum(cost),
        )
    return cards


@dataclass(frozen=True, slots=True)
class EmpireFace:
    id: str
    face: str
    name: str
    prod: tuple[int, ...]
    vp_per: tuple[int, str] | None


def _load_empires() -> dict[tuple[str, str], EmpireFace]:
    out = {}
    for row in _read("empires.csv"):
        pm = _kinds(row["production"], RESOURCES)
        _, vp_per = _vp(row["victory_points"])
        name = row["krystallium_start_or_other_notes"].split(";")[0].strip()
        out[(row["empire"], row["face"])] = EmpireFace(
            row["empire"], row["face"], name, tuple(pm.get(i, 0) for i in range(5)), vp_per)
    return out


CARDS: dict[str, Card] = _load_cards()
CARD_IDS: tuple[str, ...] = tuple(CARDS)
EMPIRE_FACES = _load_empires()
EMPIRES: tuple[str, ...] = tuple(sorted({k[0] for k in EMPIRE_FACES}))
# the 150 instances, created in CSV row order (RULES.md §2)
INSTANCES: tuple[str, ...] = tuple(f"{c.id}#{k}" for c in CARDS.values() for k in range(1, c.copies + 1))
CARD_OF: dict[str, Card] = {inst: CARDS[inst.split("#")[0]] for inst in INSTANCES}

# solo scenarios (RULES.md §15): required cards and medal thresholds
SCENARIOS: dict[str, tuple[str, tuple[str, ...], tuple[int, int, int]]] = {
    "S1": ("To the Core of the Earth", ("polar_base", "mega_drill", "super_sonar", "center_of_the_earth"),
           (70, 95, 115)),
    "S2": ("A Better World", ("recycling_plant", "wind_turbines", "universal_vaccine", "aquaculture"),
           (70, 95, 115)),
    "S3": ("They Are Among Us", ("unknown_technology", "lunar_base", "saucer_squadron", "secret_laboratory"),
           (70, 90, 105)),
    "S4": ("Back to the Future", ("research_center", "time_travel", "neuroscience"), (65, 85, 105)),
    "S5": ("The End of Days", ("industrial_complex", "underground_city", "underwater_city", "secret_society"),
           (75, 95, 120)),
    "S6": ("Money Doesn't Smell", ("financial_center", "propaganda_center", "national_monument"),
           (60, 85, 105)),
}
SOLO_TITLES = ((100, "Living Legend"), (80, "Emperor"), (60, "Dictator"), (-10**9, "Recruit"))


def card_key(text: str) -> str:
    """Lower-case letters and digits only: the key names and ids are matched on."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


CARD_KEYS: dict[str, tuple[str, str]] = {cid: (card_key(cid), card_key(c.name)) for cid, c in CARDS.items()}
