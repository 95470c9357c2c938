"""Text and HTML boards. They read only a view dict (never a state), so
nothing hidden can leak through them."""
from __future__ import annotations

import html
import re
import textwrap
from typing import Any, Mapping

from ..i18n import PLAYER_WORDS, player
from . import texts
from .cardtext import key_lines
from .i18n import _, card_name, empire_name, english, game_title, ngettext, pgettext, res_of, word


def seat_label(view: Mapping[str, Any], seat: int) -> str:
    """Display name for a seat: the services' name, else "Player N" in the current language."""
    names = view.get("names") or ()
    if 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return player(seat)


def _cname(c: Mapping[str, Any]) -> str:
    return c["name"] if english() else card_name(c["id"])


def _site(c: Mapping[str, Any]) -> str:
    """A card under construction where the list is not the seat's own (no notation is typed from it): in
    English its notation ("zeppelin#2", the English name as the notation writes it), in another
    language its name, which the notation is not."""
    return c["ref"] if english() else _cname(c)


def _ctype(c: Mapping[str, Any]) -> str:
    return word(c["type"])

RES = ("materials", "energy", "science", "gold", "exploration")
SLOT = ("m", "e", "s", "g", "x", "K", "F", "gen")
SLOT_LONG = ("materials", "energy", "science", "gold", "exploration", "Krystallium", "financier", "general")
COLOURS = ("#9e9e9e", "#111111", "#2e7d32", "#c9a000", "#1565c0", "#c2185b", "#6d4c41", "#b71c1c")
WIDTH = 78


def _wrap(prefix: str, items: list[str]) -> list[str]:
    body = ", ".join(items) if items else "-"
    return textwrap.wrap(prefix + body, WIDTH, subsequent_indent=" " * min(len(prefix), 4),
                         break_on_hyphens=False) or [prefix]


def _slots(site: Mapping[str, Any]) -> str:
    out = []
    for k in range(8):
        if site["cost"][k]:
            out.append(f"{SLOT[k]} {site['filled'][k]}/{site['cost'][k]}")
    s = " ".join(out)
    if site.get("wild"):
        s += _(" (%(num)d K as wildcard)", num=site["wild"])
    return s


def _built(c: Mapping[str, Any]) -> str:
    """A constructed card with what it produces and scores: "University (s1 per project, 2 VP)"."""
    what = "; ".join(texts.short(x) for x in (c.get("makes"), c.get("vp")) if x)
    return f"{_cname(c)} ({what})" if what else _cname(c)


def card_fields(c: Mapping[str, Any]) -> list[str]:
    """Cost (or slots filled/needed under construction), production, VP,
    construction bonus and recycling cube of a card."""
    cost = _slots(c) if "filled" in c else " ".join(f"{SLOT[k]}{n}" for k, n in enumerate(c["cost"]) if n)
    parts = [_("cost %(cost)s", cost=cost)]
    if c["makes"]:
        parts.append(_("makes %(makes)s", makes=texts.short(c["makes"])))
    if c["vp"]:
        parts.append(texts.short(c["vp"]))
    if c["bonus"]:
        parts.append(_("bonus %(bonus)s", bonus=c["bonus"]))
    parts.append(_("recycle %(res)s", res=c["recycle"]))
    return parts


def _join(parts: list[str], indent: int) -> list[str]:
    """Fields joined by " | ", a line broken only between two fields."""
    lines = [" " * indent + parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 3 + len(part) <= WIDTH:
            lines[-1] += " | " + part
        else:
            lines.append(" " * (indent + 2) + part)
    return lines


def _card_lines(n: int, c: Mapping[str, Any], ref: str | None = None, mark: str = "") -> list[str]:
    """Two lines: number, notation, name and type; then the card's fields."""
    head = f"{n:>3}. {ref or c['id']:<26} {_cname(c)} ({_ctype(c)}){mark}"
    return (textwrap.wrap(head, WIDTH, subsequent_indent=" " * 5)
            + _join(card_fields(c), 5))


def _names(view: Mapping[str, Any], line: str) -> str:
    """Status and log lines say "Player N"; show the services' names instead."""
    if not view.get("names"):
        return line
    return re.sub(rf"(?:{PLAYER_WORDS}) (\d)", lambda m: seat_label(view, int(m.group(1)) - 1), line)


def _wrap_named(view: Mapping[str, Any], line: str, indent: str = "") -> list[str]:
    """A status or log line with names, wrapped without splitting a name."""
    labels = {seat_label(view, i) for i in range(view["players"])}
    text = _names(view, line)
    for label in sorted(labels, key=len, reverse=True):
        if " " in label and len(label) < 30:
            text = text.replace(label, label.replace(" ", "\0"))
    return [x.replace("\0", " ") for x in textwrap.wrap(text, WIDTH, subsequent_indent=indent,
                                                          break_on_hyphens=False)]


def _title(view: Mapping[str, Any], seat: int) -> str:
    if view.get("seat") == seat:
        return _("%(name)s (you)", name=seat_label(view, seat))
    return seat_label(view, seat)


def _passing(view: Mapping[str, Any]) -> str:
    """The draft's pass direction (§5 step 4), and for a seat whom it passes to."""
    p = view["passing"]
    if p["direction"] == "left":
        line = _("Round %(round)d draft: after each pick the hands pass to the left (to the next player)",
                 round=view["round"])
    else:
        line = _("Round %(round)d draft: after each pick the hands pass to the right (to the previous player)",
                 round=view["round"])
    if "to" in p:
        line += _("; you pass to %(to)s and get %(from)s's hand", to=seat_label(view, p["to"]),
                  **{"from": seat_label(view, p["from"])})
    return line + "."


def _step_name(view: Mapping[str, Any]) -> str:
    """The view's step name (English) in the current language, capitalised."""
    if english():
        return view["step_name"].capitalize()
    m = re.fullmatch(r"production, (\w+) step", view["step_name"])
    if m:
        return _("Production, %(res)s step", res=res_of(m.group(1)))
    return view["step_name"].capitalize()


def _cubes(counts) -> list[str]:
    """"2 energy" (English, as ever), "2 куба энергии" in the other languages."""
    if english():
        return [f"{k} {RES[r]}" for r, k in enumerate(counts) if k]
    return [ngettext("%(num)d %(res)s cube", "%(num)d %(res)s cubes", k, res=res_of(RES[r]))
            for r, k in enumerate(counts) if k]


def _reward(r: str | None, choice: str) -> str:
    return word(r) if r else choice


def text(view: Mapping[str, Any]) -> str:
    lines: list[str] = []
    lines += _wrap_named(view, _("%(title)s - %(status)s", title=game_title(), status=view["status"]))
    if view.get("scenario"):
        lines.append(_("Solo scenario %(scenario)s, face %(face)s", scenario=view["scenario"], face=view["face"]))
    else:
        lines.append(ngettext("Empire face %(face)s; deck %(num)d card, discard pile %(discard)s",
                              "Empire face %(face)s; deck %(num)d cards, discard pile %(discard)s", view["deck"],
                              face=view["face"], discard=view["discard"]))
    if view.get("passing"):
        lines += textwrap.wrap(_passing(view), WIDTH)
    if view.get("production") is not None:
        prods = ", ".join(f"{seat_label(view, i)} {v}" for i, v in enumerate(view["production"]))
        lines += _wrap(_("%(step)s: produced ", step=_step_name(view)), [prods])
        if view["supremacy"] >= 0:
            reward = _reward(view["supremacy_reward"], _("financier or general (choice)"))
            lines.append(_("Supremacy: %(name)s gains %(reward)s", name=seat_label(view, view["supremacy"]),
                           reward=reward))
        else:
            lines.append(_("Supremacy: nobody"))
    for line in view.get("log") or ():
        lines += _wrap_named(view, "* " + texts.line(line), "  ")
    lines += key_lines()
    for p in view["seats"]:
        i = p["seat"]
        mine = view.get("seat") == i and not view["over"]  # the cards this seat decides about
        lines.append("")
        head = f"== {_title(view, i)}: {empire_name(p['empire'])}"
        if p["empire_vp"]:
            head += f" ({texts.short(p['empire_vp'])})"
        lines += textwrap.wrap(head + " ==", WIDTH)
        prod = " ".join(f"{SLOT[r]}{p['produces'][r]}" for r in range(5))
        lines.append(_("Produces %(prod)s | empire cubes %(cubes)s/5 | K %(k)s | F %(f)s | gen %(gen)s", prod=prod,
                       cubes=p["empire_cubes"], k=p["krystallium"], f=p["financiers"], gen=p["generals"]))
        sp = p["score_parts"]
        lines.append(_("Score so far %(total)s (fixed %(fixed)s, types %(type)s, generals %(generals)s,"
                       " financiers %(financiers)s)", total=sp["total"], fixed=sp["fixed"], type=sp["type"],
                       generals=sp["generals"], financiers=sp["financiers"]))
        lines += _wrap(_("Empire (%(num)d): ", num=len(p["built"])), [_built(c) for c in p["built"]])
        if p["sites"]:
            lines.append(_("Under construction: (slots filled/needed)") if mine else _("Under construction:"))
            for n, s in enumerate(p["sites"], 1):
                n = s.get("no", n)
                if mine:
                    lines += _card_lines(n, s, s["ref"])
                else:
                    lines += textwrap.wrap(f"{n:>3}. {_site(s):<26} {_slots(s)}", WIDTH, subsequent_indent=" " * 32)
        else:
            lines.append(_("Under construction: -"))
        if p["draft"]:
            if mine and view["phase"] == "draft":
                lines.append(_("Draft area:"))
                for n, c in enumerate(p["draft"], 1):
                    lines += _card_lines(n, c)
            else:
                lines += _wrap(_("Draft area: "), [_cname(c) for c in p["draft"]])
        if view["phase"] == "draft" and view.get("seat") != i:
            if i not in view["to_move"]:
                lines.append(ngettext("Hand: %(num)d card (picked)", "Hand: %(num)d cards (picked)", p["hand_size"]))
            else:
                lines.append(ngettext("Hand: %(num)d card", "Hand: %(num)d cards", p["hand_size"]))
    you = view.get("you")
    if you:
        lines.append("")
        lines.append(_("== Your private information =="))
        if you["hand"]:
            lines.append(_("Your hand:"))
            for n, c in enumerate(you["hand"], 1):
                lines += _card_lines(n, c, mark=" *" if c.get("picked") else "")
        if you["pick"]:
            lines += textwrap.wrap(_("* Your pick (hidden until all have picked): %(card)s. You may change it until"
                                     " then: reply with another pick.", card=_cname(you["pick"])), WIDTH,
                                   subsequent_indent="  ")
        if you["solo_hand"]:
            lines.append(_("Your hand (C or R each):"))
            for n, c in enumerate(you["solo_hand"], 1):
                lines += _card_lines(c.get("no", n), c)
        if you.get("to_plan"):
            lines.append(_("Your draft area (C or R each):"))
            for n, c in enumerate(you["to_plan"], 1):
                lines += _card_lines(c.get("no", n), c)
        if you["revealed"]:
            lines.append(_("Revealed (keep one):"))
            for n, c in enumerate(you["revealed"], 1):
                lines += _card_lines(n, c)
        for n in you.get("notes") or ():
            lines += textwrap.wrap("> " + texts.line(n), WIDTH, subsequent_indent="  ")
        cubes = _cubes(you["cubes"])
        if cubes:
            lines += _wrap(_("Cubes to place: "), cubes)
        if you["todo"]:
            lines += textwrap.wrap(texts.todo(you["todo"]), WIDTH)
        if you["examples"]:
            lines.append(_("For example:"))
            lines += [f"  {e}" for e in you["examples"]]
    out = view.get("outcome")
    if out:
        lines.append("")
        lines.append(_("== Final score =="))
        h = (_("fixed"), _("types"), _("gen"), _("fin"), _("total"), _("cards"), _("tok"))
        lines.append(f"{'':<18}{h[0]:>6}{h[1]:>6}{h[2]:>6}{h[3]:>6}{h[4]:>7}{h[5]:>6}{h[6]:>5}")
        for rank, i in enumerate(out["ranking"], 1):
            b = out["breakdown"][i]
            mark = " *" if i in out["winners"] else ""
            lines.append(f"{rank}. {seat_label(view, i)[:15]:<15}{b['fixed']:>6}{b['type']:>6}{b['generals']:>6}"
                         f"{b['financiers']:>6}{b['total']:>7}{b['developments']:>6}{b['tokens']:>5}{mark}")
        for note in out["notes"]:
            lines += textwrap.wrap(texts.note(note), WIDTH)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- HTML

_TD = 'style="border:1px solid #ccc;padding:2px 6px;vertical-align:top"'
_TH = 'style="border:1px solid #ccc;padding:2px 6px;background:#f0f0f0;text-align:left"'


def _e(x: Any) -> str:
    return html.escape(str(x))


def _chip(kind: int, filled: int, cost: int) -> str:
    return (f'<span style="display:inline-block;margin-right:4px;padding:0 4px;border-radius:3px;'
            f'border:1px solid {COLOURS[kind]};color:{COLOURS[kind]}">{_e(word(SLOT_LONG[kind]))} {filled}/{cost}</span>')


_SCROLL = '<div style="overflow-x:auto;max-width:100%">'


def _card_table(head: str, cards: list) -> str:
    """Cards a player decides about, one row each: number, notation, name and
    type, then cost (slots filled/needed under construction), production, VP,
    construction bonus and recycling cube."""
    heads = (_("no"), _("card"), _("cost"), _("makes"), _("VP"), _("bonus"), _("recycle"))
    rows = ["<tr>" + "".join(f"<th {_TH}>{_e(h)}</th>" for h in heads) + "</tr>"]
    for n, c in enumerate(cards, 1):
        cost = _slots(c) if "filled" in c else " ".join(f"{SLOT[k]}{x}" for k, x in enumerate(c["cost"]) if x)
        name = (f"<b>{_e(c.get('ref') or c['id'])}</b><br>{_e(_cname(c))} ({_e(_ctype(c))})"
                + (_e(_(" - your pick")) if c.get("picked") else ""))
        rows.append(f"<tr><td {_TD}>{c.get('no', n)}</td><td {_TD}>{name}</td><td {_TD}>{_e(cost)}</td>"
                    f"<td {_TD}>{_e(texts.short(c['makes']) or '-')}</td><td {_TD}>{_e(texts.short(c['vp']) or '-')}</td>"
                    f"<td {_TD}>{_e(c['bonus'] or '-')}</td><td {_TD}>{_e(c['recycle'])}</td></tr>")
    return (f'<p style="margin:4px 0;font-weight:bold">{_e(head)}</p>{_SCROLL}'
            f'<table style="border-collapse:collapse">{"".join(rows)}</table></div>')


def html_(view: Mapping[str, Any]) -> str:
    out = ['<div style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">']
    before, _x, after = _("%(title)s - %(status)s", title=game_title(), status="\0").partition("\0")
    out.append(f'<p style="font-weight:bold;margin:4px 0">{html.escape(before, quote=False)}'
               f'{_e(_names(view, view["status"]))}{html.escape(after, quote=False)}</p>')
    sub = (_("Solo scenario %(scenario)s, face %(face)s", scenario=view["scenario"], face=view["face"])
           if view.get("scenario")
           else ngettext("Empire face %(face)s; deck %(num)d card, discard pile %(discard)s",
                         "Empire face %(face)s; deck %(num)d cards, discard pile %(discard)s", view["deck"],
                         face=view["face"], discard=view["discard"]))
    out.append(f'<p style="margin:4px 0;color:#555">{_e(sub)}</p>')
    if view.get("passing"):
        out.append(f'<p style="margin:4px 0">{_e(_passing(view))}</p>')
    if view.get("production") is not None:
        prods = ", ".join(f"{seat_label(view, i)} {v}" for i, v in enumerate(view["production"]))
        sup = _("nobody")
        if view["supremacy"] >= 0:
            sup = f"{seat_label(view, view['supremacy'])} ({_reward(view['supremacy_reward'], _('financier or general'))})"
        sup_word = _("supremacy:")
        out.append(f'<p style="margin:4px 0">{_e(_step_name(view))}: {_e(prods)}; '
                   f'{_e(sup_word)} {_e(sup)}</p>')
    if view.get("log"):
        out.append('<ul style="margin:4px 0;padding-left:18px;color:#555">'
                   + "".join(f"<li>{_e(_names(view, texts.line(line)))}</li>" for line in view["log"]) + "</ul>")
    # one block per player, lines that wrap: readable on a phone without scrolling
    for p in view["seats"]:
        i = p["seat"]
        prod = " ".join(f"{SLOT[r]}{p['produces'][r]}" for r in range(5))
        sp = p["score_parts"]
        built = ", ".join(_e(_built(c)) for c in p["built"]) or "-"
        emp = _e(empire_name(p["empire"])) + (f" ({_e(texts.short(p['empire_vp']))})" if p["empire_vp"] else "")
        mine = view.get("seat") == i
        border = "2px solid #888" if mine else "1px solid #ccc"
        w_score, w_built = _("score so far"), _("constructed (%(num)d):", num=len(p["built"]))
        w_sites, w_draft = _("under construction:"), _("draft area:")
        rows = [
            f'<b>{_e(_title(view, i))}</b>: {emp}',
            _e(_("produces %(prod)s; empire cubes %(cubes)s/5, Krystallium %(k)s, financiers %(f)s, generals %(gen)s",
                 prod=prod, cubes=p["empire_cubes"], k=p["krystallium"], f=p["financiers"], gen=p["generals"])),
            f"{_e(w_score)} <b>{sp['total']}</b> <small>"
            + _e(_("(fixed %(fixed)s, types %(type)s, generals %(generals)s, financiers %(financiers)s)",
                   fixed=sp["fixed"], type=sp["type"], generals=sp["generals"], financiers=sp["financiers"]))
            + "</small>",

            f"<i>{_e(w_built)}</i> {built}",
        ]
        if not (mine and not view["over"] and p["sites"] and view.get("you")):  # else the table below shows them
            sites = "; ".join(
                f"{_e(_site(s))} " + "".join(_chip(k, s["filled"][k], s["cost"][k]) for k in range(8) if s["cost"][k])
                for s in p["sites"]) or "-"
            rows.append(f"<i>{_e(w_sites)}</i> {sites}")
        if p["draft"]:
            rows.append(f"<i>{_e(w_draft)}</i> " + _e(", ".join(_cname(c) for c in p["draft"])))
        if view["phase"] == "draft" and not mine:
            if i not in view["to_move"]:
                rows.append(_e(ngettext("hand: %(num)d card (picked)", "hand: %(num)d cards (picked)",
                                        p["hand_size"])))
            else:
                rows.append(_e(ngettext("hand: %(num)d card", "hand: %(num)d cards", p["hand_size"])))
        out.append(f'<div style="border:{border};border-radius:4px;margin:6px 0;padding:4px 6px">'
                   + "<br>".join(rows) + "</div>")
    out.append(f'<p style="margin:4px 0;color:#555;font-size:12px">{_e(" ".join(x.strip() for x in key_lines()))}</p>')
    you = view.get("you")
    if you:
        cards = you["hand"] or you["solo_hand"] or you.get("to_plan")
        if cards:
            head = (_("Your hand") if you["hand"] else _("Your hand (C or R each)") if you["solo_hand"]
                    else _("Your draft area (C or R each)"))
            out.append(_card_table(head, cards))
        mine = next((p for p in view["seats"] if p["seat"] == view.get("seat")), None)
        if mine and mine["draft"] and view["phase"] == "draft":
            out.append(_card_table(_("Your draft area"), mine["draft"]))
        if mine and mine["sites"]:
            out.append(_card_table(_("Your construction area (slots filled/needed)"), mine["sites"]))
        if you["revealed"]:
            out.append(_card_table(_("Revealed (keep one)"), you["revealed"]))
        if you["pick"]:
            out.append('<p style="margin:4px 0">' + _e(_("Your pick (hidden until all have picked): %(card)s. You may"
                       " change it until then: reply with another pick.", card=_cname(you["pick"]))) + '</p>')
        if you.get("notes"):
            out.append('<ul style="margin:4px 0;padding-left:18px">'
                       + "".join(f"<li>{_e(texts.line(n))}</li>" for n in you["notes"]) + "</ul>")
        cubes = _cubes(you["cubes"])
        if cubes:
            out.append(f'<p style="margin:4px 0">{_e(_("Cubes to place: "))}{_e(", ".join(cubes))}</p>')
        if you["todo"]:
            out.append(f'<p style="margin:4px 0;font-weight:bold">{_e(texts.todo(you["todo"]))}</p>')
        if you["examples"]:
            out.append(f'<p style="margin:4px 0">{_e(_("For example:"))} <code>{_e("; ".join(you["examples"]))}</code></p>')
    res = view.get("outcome")
    if res:
        out.append(_SCROLL + '<table style="border-collapse:collapse;margin:6px 0">')
        out.append("<tr>" + "".join(f"<th {_TH}>{_e(h)}</th>" for h in
                   (_("rank"), _("player"), _("fixed"), _("types"), _("generals"), _("financiers"), _("total"),
                    _("cards"), _("tokens"))) + "</tr>")
        for rank, i in enumerate(res["ranking"], 1):
            b = res["breakdown"][i]
            name = _e(seat_label(view, i)) + (" &#9733;" if i in res["winners"] else "")
            out.append(f"<tr><td {_TD}>{rank}</td><td {_TD}>{name}</td>" + "".join(
                f"<td {_TD}>{b[k]}</td>" for k in ("fixed", "type", "generals", "financiers", "total",
                                                    "developments", "tokens")) + "</tr>")
        out.append("</table></div>")
        for note in res["notes"]:
            out.append(f'<p style="margin:4px 0">{_e(texts.note(note))}</p>')

    out.append("</div>")
    return "\n".join(out)


# ---------------------------------------------------------------- the players strip


def seat_facts(view: Mapping[str, Any], s: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Seat ``s`` at a glance, from the public view, in the reader's words: its empire, and
    (label, value) pairs for the game page's players strip."""
    p = view["seats"][s]
    facts = [(pgettext("panel", "empire cubes"), f"{p['empire_cubes']}/5"),
             (pgettext("panel", "Krystallium"), str(p["krystallium"])),
             (pgettext("panel", "financiers"), str(p["financiers"])),
             (pgettext("panel", "generals"), str(p["generals"]))]
    sp = p.get("score_parts")
    if isinstance(sp, dict) and "total" in sp:
        facts.append((pgettext("panel", "score so far"), str(sp["total"])))
    return (empire_name(p["empire"]) if p.get("empire") else ""), tuple(facts)
