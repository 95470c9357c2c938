"""Text and HTML boards for Squire. They read only a view dict (never a state),
so nothing hidden can leak: a seat's hand is in the view only for that seat."""
from __future__ import annotations

import html
import re
from typing import Any, Mapping

from ..base import seat_label
from ..i18n import PLAYER_WORDS
from . import texts
from .i18n import N_, _, board as board_name, ngettext, pgettext

# the HTML board's words, translated inside its f-strings (marked here: the extractor does not read f-strings)
_HTML_WORDS = (N_("Your move from %(city)s"), N_("To"), N_("Exhibit there"), N_("Price"), N_("Cost (cheapest)"),
               N_("Path"), N_("Squire"), N_("Bought, waiting to be placed: %(token)s"), N_("Types"), N_("Regions"),
               N_("City"), N_("Region"), N_("Exhibit"), N_("Here"), N_("Routes"), N_("Exhibition"), N_("host"),
               N_("others owning the type"), N_("can never be exhibited"),
               N_("Exhibition token: %(token)s; last exhibition: %(last)s"), N_("Floor bonus"), N_("col"),
               N_("Your card"), N_("Offer"), N_("Commission"), N_("Player"), N_("Exhibits"), N_("Commissions"),
               N_("Leftovers"), N_("Total"))
# the outcome's notes are stored in English (game.outcome); translated where shown
_NOTES = (N_("Tied on score, leftovers and exhibits: the victory is shared (§12.3)."),
          N_("Tie on score broken by leftovers (§12.3)."),
          N_("Tie on score and leftovers broken by the number of exhibits (§12.3)."))

COLOURS = {"red": "#c0392b", "blue": "#2e6db4", "green": "#2e8b57", "yellow": "#c9a400", "purple": "#7d3c98"}
LIGHT = {"#c9a400", "#2e8b57"}  # white text on these is under 4.5:1: dark text instead
TYPE_COLOUR = {"painting": "red", "ceramics": "blue", "sculpture": "green", "rare_book": "yellow",
               "jewellery": "purple"}


def _abbr(ex: Mapping | None) -> str:
    if not ex:
        return ""
    return f"{texts.abbr(ex['type'])} {ex['value']}"


def _name(view: Mapping, s: int) -> str:
    return seat_label(view, s)


def _status(view: Mapping) -> str:
    """The engine's status line with the services' display names."""
    return re.sub(rf"(?:{PLAYER_WORDS}) (\d+)", lambda m: _name(view, int(m.group(1)) - 1), view["status"])


def _pending_line(view: Mapping) -> str | None:
    pend = view.get("pending")
    if not pend:
        return None
    return _("Waiting for %(player)s to %(decision)s.", player=_name(view, pend["seat"]),
             decision=texts.decision(pend["decision"]))


def _cities(view: Mapping) -> dict[str, str]:
    """Each city's English name (as the view writes it) -> the name the player reads."""
    return {c["name"]: texts.city(c["id"], c["name"]) for c in view["cities"]}


def _type(t: str) -> str:
    return texts.type_word(t)


# ---------------------------------------------------------------- text


def render_text(view: Mapping[str, Any]) -> str:
    L: list[str] = []
    cn = _cities(view)
    L.append(_("SQUIRE - %(side)s", side=texts.side(str(view.get("side")), view["side_name"])))
    L.append(_status(view))
    pl = _pending_line(view)
    if pl:
        L.append(pl)
    if view.get("bought"):
        L.append(_("Bought, waiting to be placed: %(token)s", token=_token(view["bought"])))
    L.append("")
    # market
    L.append(_("MARKET        types               regions"))
    mt, mr = view["market"]["types"], view["market"]["regions"]
    for i in range(len(mt)):
        L.append(_("  pos %(pos)d     %(tprice)s  %(type)-16s  %(rprice)s  %(region)s", pos=i + 1, tprice=mt[i][1],
                   type=_type(mt[i][0]), rprice=mr[i][1], region=texts.region(mr[i][0])))
    L.append("")
    # cities
    L.append(_("CITIES           region  exhibit (value)   price  here"))
    # a translated region may be longer than the English column (English keeps its 8 columns)
    rw = 8 if texts.english() else max([8] + [len(texts.region(c["region"])) + 1 for c in view["cities"]])
    for c in view["cities"]:
        ex = c["exhibit"]
        exs = f"{texts.exhibit_word(ex['type'])} ({ex['value']})" if ex else "-"  # by type and value: no id in prose
        pr = str(ex["price"]) if ex else "-"
        here = ", ".join(_name(view, s) for s in c["here"])
        L.extend(_wrap(f"  {cn[c['name']][:15]:<15}{texts.region(c['region']):<{rw}}{exs:<18}{pr:>5}  {here}".rstrip(),
                       " " * 50))
    L.append("")
    L.extend(_reach_lines(view))
    L.append(_("ROUTES  each step costs 1 ticket, by land or by sea (~ sea route)"))
    adj: dict[str, list[str]] = {c["name"]: [] for c in view["cities"]}
    for a, b, kind in view["routes"]:
        mark = "~" if kind == "sea" else ""
        adj[a].append(mark + cn.get(b, b))
        adj[b].append(mark + cn.get(a, a))
    for name, nbs in adj.items():
        L.extend(_wrap(f"  {cn.get(name, name)}: " + ", ".join(nbs)))
    L.append("")
    L.extend(_exhibition_lines(view))
    token = view.get("exhibition_token")
    tok = _("held by %(player)s", player=_name(view, token)) if token is not None else _("on the board")
    last = _type(view["last_exhibition"]) if view.get("last_exhibition") else _("none yet")
    L.append(_("Exhibition token: %(token)s; last exhibition: %(last)s", token=tok, last=last))
    L.append(ngettext("Supply: %(supply)d face down; message deck: %(num)d cards",
                      "Supply: %(supply)d face down; message deck: %(num)d cards", view["deck_count"],
                      supply=view["supply_count"]))
    L.extend(_discard_lines(view))
    L.extend(_wrap(_("Message discard: %(cards)s", cards=", ".join(view["message_discard"]) or _("empty"))))
    L.append("")
    lay = view["gallery_layout"]
    L.append(_("GALLERIES  F1 bottom .. F%(floors)d top, C1 left .. C%(columns)d right; '.' empty cell,",
               floors=lay["floors"], columns=lay["columns"]))
    L.append(_("  +3c / +2t: hall bonus (coins / tickets) when filled; col: column bonus"))
    L.append(_("  (RT royal ticket, RC royal coin) when the column is full"))
    L.append("")
    for s, p in enumerate(view["seats"]):
        you = _(" (you)") if view.get("seat") == s else ""
        char = f"{texts.character(p['character'])} [{board_name(p['board'])}]" if p["board"] else _("no board yet")
        where = _(" in %(city)s", city=cn.get(p["city"], p["city"])) if p["city"] else ""
        tokmark = _("  * exhibition token") if p["exhibition_token"] else ""
        L.extend(_wrap(f"{_name(view, s)}{you}: {char}{where}{tokmark}", "  "))
        if p["ability"]:
            L.append(f"  {texts.ability(p['ability'])}")
        L.append(_("  coins %(coins)d + royal %(rcoins)d   tickets %(tickets)d + royal %(rtickets)d   cards "
                   "%(cards)d/%(hand_limit)d   commissions %(comms)d/%(comm_limit)d", coins=p["coins"],
                   rcoins=p["royal_coins"], tickets=p["tickets"], rtickets=p["royal_tickets"], cards=p["hand_count"],
                   hand_limit=p["hand_limit"], comms=len(p["commissions"]), comm_limit=p["commission_limit"]))
        for c in p["commissions"]:
            L.extend(_wrap(_("  commission %(card)s: %(text)s", card=c["id"], text=texts.commission(c["text"])),
                           "      "))
        L.append("         " + "".join(f"C{j + 1:<10}" for j in range(lay["columns"])) + _("floor bonus"))
        for f in range(lay["floors"] - 1, -1, -1):
            cells = []
            for j in range(lay["columns"]):
                i = f * lay["columns"] + j
                ex = p["gallery"][i]
                if ex:
                    cells.append(f"{_abbr(ex):<11}")
                else:
                    hall = lay["halls"][i]
                    cells.append(f"{('.' + (' ' + _short(hall) if hall else '')):<11}")
            # the floor bonus is the last column, so it has room to be spelled out
            fb = lay["floor_bonus"][f]
            L.append(f"  F{f + 1}     " + "".join(cells) + ("" if fb == "-" else texts.bonus(fb)))
        L.append(_("  col    ") + "".join(f"{_short(b):<11}" for b in lay["column_bonus"]).rstrip())
        if "hand" in p:
            L.append(_("  Your hand:") if p["hand"] else _("  Your hand: empty"))
            for c in p["hand"]:
                L.extend(_wrap(_("    %(card)s offer: %(offer)s", card=c["id"], offer=texts.offer(c["offer"])),
                               "        "))
                L.extend(_wrap(_("        commission: %(text)s", text=texts.commission(c["commission"])),
                               "        "))
        L.append("")
    out = view.get("outcome")
    if out:
        L.append(_("FINAL SCORES   exhibits  commissions  leftovers  total"))
        for s in out["ranking"]:
            b = out["breakdown"][s]
            win = _("  winner") if s in out["winners"] else ""
            L.append(f"  {_name(view, s)[:12]:<12}{b['exhibits']:>9}{b['commissions']:>13}{b['leftovers']:>11}"
                     f"{out['scores'][s]:>7}{win}")
        for n in out["notes"]:
            L.append("  " + _(n))
        L.append("")
    # names and long city names may push a line past a mail client's 80 columns: wrap what is left
    out = []
    for line in L:
        line = line.rstrip()
        out.extend(_wrap(line, " " * (len(line) - len(line.lstrip()) + 2)) if len(line) > 78 else [line])
    return "\n".join(out)


def _token(ex: Mapping) -> str:
    """painting (value 3): an exhibit by its type and value (the id is notation: the discard lists it)."""
    return _("%(token)s (value %(value)d)", token=texts.exhibit_word(ex["type"]), value=ex["value"])


def _cost(c: Mapping) -> str:
    """The cheapest payment, short: "free + royal + 2t" (the free step, a royal ticket, 2 tickets)."""
    parts = []
    if c["free"]:
        parts.append(_("free") if c["free"] == 1 else ngettext("%(num)d free", "%(num)d free", c["free"]))
    if c["royal"]:
        parts.append(_("royal") if c["royal"] == 1 else ngettext("%(num)d royal", "%(num)d royal", c["royal"]))
    if c["tickets"]:
        parts.append(_("%(num)dt", num=c["tickets"]))
    return " + ".join(parts) or _("free")


_FREE = {"1 sea step": N_("1 sea step"), "1 land step": N_("1 land step"), "1 step": N_("1 step")}


def _holding(r: Mapping) -> str:
    free = _("; %(free)s of each move is free", free=_(_FREE.get(r["free"], r["free"]))) if r.get("free") else ""
    return _("you hold %(royal)s and %(tickets)s%(free)s",
             royal=ngettext("%(num)d royal ticket", "%(num)d royal tickets", r["royal_tickets"]),
             tickets=ngettext("%(num)d ticket", "%(num)d tickets", r["tickets"]), free=free)


def _reach_lines(view: Mapping) -> list[str]:
    """Where the seat to move can go this turn, the cheapest payment, the exhibit and its price there."""
    r = view.get("reach")
    if not r:
        return []
    cn = _cities(view)
    L = _wrap(_("YOUR MOVE from %(city)s: %(holding)s", city=cn.get(r["from"], r["from"]), holding=_holding(r)), "  ")
    L.append(_("  (a step costs 1 ticket, t; a royal ticket pays 1 step a turn and is kept)"))
    L.append(_("  to           exhibit there    price  cost               via"))
    for c in r["cities"]:
        ex = c["exhibit"]
        exs = f"{texts.exhibit_word(ex['type'])} ({ex['value']})" if ex else "-"
        pr = str(ex["price"]) if ex else "-"
        via = ", ".join(cn.get(x, x) for x in c["path"][1:-1])
        L.extend(_wrap(f"  {cn.get(c['city'], c['city'])[:12]:<13}{exs:<17}{pr:>5}  {_cost(c) + ' ':<19}{via}".rstrip(),
                       " " * 58))
    L.append("")
    return L


def _discard_lines(view: Mapping) -> list[str]:
    """The exhibit discard by type, each token with its value (the 3rd-floor bonus picks from it)."""
    discard = view["exhibit_discard"]
    if not discard:
        return [_("Exhibit discard: empty")]
    L = [_("Exhibit discard (value): the 3rd-floor bonus takes one of these")]
    names = view.get("type_names") or {}
    for t in dict.fromkeys(ex["type"] for ex in discard):
        label = _type(names.get(t, t).lower())
        lw = 11 if texts.english() else max(11, len(label) + 1)
        L.extend(_wrap(f"  {label[:lw]:<{lw}}" + ", ".join(f"{ex['id']} ({ex['value']})" for ex in discard
                                                          if ex["type"] == t), " " * 13))
    return L


def _exhibition_lines(view: Mapping) -> list[str]:
    """What `exhibit TYPE` pays (§9.3): the host, then each other player owning the type."""
    rows = view.get("exhibitions") or []
    if not rows:
        return []
    L = [_("EXHIBITIONS   host                            others owning the type")]
    nw = 12 if texts.english() else max([12] + [len(_type(r["name"].lower())) + 1 for r in rows])
    for r in rows:
        name = _type(r["name"].lower())
        if r["host"] is None:
            L.append(f"  {name:<{nw}}" + _("can never be exhibited"))
        else:
            host = texts.bonus(r["host"])
            hw = 32 if texts.english() else max(32, len(host) + 1)
            L.extend(_wrap(f"  {name:<{nw}}{host:<{hw}}{texts.bonus(r['others'])}", " " * 46))
    L.append("")
    return L


def _wrap(line: str, indent: str = "    ") -> list[str]:
    out = []
    while len(line) > 78:
        cut = line.rfind(" ", 0, 78)
        if cut <= len(indent):
            break
        out.append(line[:cut].rstrip())
        line = indent + line[cut + 1:]
    out.append(line)
    return out


def _short(b: str) -> str:
    if not b or b == "-":
        return ""
    if not texts.english():
        return texts.short(b).replace(" ", "")
    return (b.replace("royal ticket", "RT").replace("royal coin", "RC").replace("tickets", "t")
            .replace("ticket", "t").replace("coins", "c").replace("coin", "c")
            .replace("hand limit", "hand").replace("take 1 from discard", "take 1").replace(" ", ""))


# ---------------------------------------------------------------- HTML

_T = 'style="border-collapse:collapse;margin:4px 0;font-family:sans-serif;font-size:13px"'
_TD = 'style="border:1px solid #bbb;padding:2px 6px"'
_TH = 'style="border:1px solid #bbb;padding:2px 6px;background:#eee;text-align:left"'


def _e(x: Any) -> str:
    return html.escape(str(x))


def _dot(colour: str) -> str:
    c = COLOURS.get(colour, "#888")
    return f'<span style="display:inline-block;width:10px;height:10px;border-radius:5px;background:{c}"></span>'


def _reach_html(view: Mapping) -> list[str]:
    r = view.get("reach")
    if not r:
        return []
    cn = _cities(view)
    H = [f'<p style="margin:6px 0 2px 0"><b>{_e(_("Your move from %(city)s", city=cn.get(r["from"], r["from"])))}'
         f'</b>: {_e(_holding(r))}</p>',
         f"<table {_T}><tr><th {_TH}>{_e(_('To'))}</th><th {_TH}>{_e(_('Exhibit there'))}</th>"
         f"<th {_TH}>{_e(_('Price'))}</th><th {_TH}>{_e(_('Cost (cheapest)'))}</th><th {_TH}>{_e(_('Path'))}</th></tr>"]
    for c in r["cities"]:
        ex = c["exhibit"]
        exs = f"{_dot(TYPE_COLOUR.get(ex['type'], ''))} {_e(texts.exhibit_word(ex['type']))} ({ex['value']})" if ex else "-"
        H.append(f"<tr><td {_TD}>{_e(cn.get(c['city'], c['city']))}</td><td {_TD}>{exs}</td>"
                 f"<td {_TD}>{ex['price'] if ex else '-'}</td><td {_TD}>{_e(_cost(c))}</td>"
                 f"<td {_TD}>{_e('-'.join(cn.get(x, x) for x in c['path']))}</td></tr>")
    H.append("</table>")
    return H


_SCROLL = '<div style="overflow-x:auto;max-width:100%">'


def render_html(view: Mapping[str, Any]) -> str:
    # each table in a box of its own that scrolls sideways on a narrow phone, not the whole mail
    return "\n".join(_html_parts(view)).replace("<table", _SCROLL + "<table").replace("</table>", "</table></div>")


def _html_parts(view: Mapping[str, Any]) -> list[str]:
    H: list[str] = []
    H.append('<div style="font-family:sans-serif;font-size:13px;max-width:100%">')
    cn = _cities(view)
    side = texts.side(str(view.get("side")), view["side_name"])
    H.append(f"<h3 style=\"margin:4px 0\">{_e(_('Squire'))} &mdash; {_e(side)}</h3>")
    H.append(f"<p style=\"margin:4px 0\"><b>{_e(_status(view))}</b></p>")
    pl = _pending_line(view)
    if pl:
        H.append(f'<p style="margin:4px 0">{_e(pl)}</p>')
    if view.get("bought"):
        H.append(f'<p style="margin:4px 0">'
                 f'{_e(_("Bought, waiting to be placed: %(token)s", token=_token(view["bought"])))}</p>')
    # market
    H.append(f"<table {_T}><tr><th {_TH}>{_e(_('Price'))}</th><th {_TH}>{_e(_('Types'))}</th>"
             f"<th {_TH}>{_e(_('Price'))}</th><th {_TH}>{_e(_('Regions'))}</th></tr>")
    mt, mr = view["market"]["types"], view["market"]["regions"]
    for i in range(len(mt)):
        H.append(f"<tr><td {_TD}>{mt[i][1]}</td><td {_TD}>{_dot(TYPE_COLOUR.get(mt[i][0], ''))} "
                 f"{_e(_type(mt[i][0]))}</td>"
                 f"<td {_TD}>{mr[i][1]}</td><td {_TD}>{_dot(mr[i][0])} {_e(texts.region(mr[i][0]))}</td></tr>")
    H.append("</table>")
    # cities
    adj: dict[str, list[str]] = {c["name"]: [] for c in view["cities"]}
    sea = _(" (sea)")
    for a, b, kind in view["routes"]:
        adj[a].append(cn.get(b, b) + (sea if kind == "sea" else ""))
        adj[b].append(cn.get(a, a) + (sea if kind == "sea" else ""))
    H.append(f"<table {_T}><tr><th {_TH}>{_e(_('City'))}</th><th {_TH}>{_e(_('Region'))}</th>"
             f"<th {_TH}>{_e(_('Exhibit'))}</th><th {_TH}>{_e(_('Price'))}</th><th {_TH}>{_e(_('Here'))}</th>"
             f"<th {_TH}>{_e(_('Routes'))}</th></tr>")
    for c in view["cities"]:
        ex = c["exhibit"]
        exs = f"{_dot(TYPE_COLOUR.get(ex['type'], ''))} {_e(texts.exhibit_word(ex['type']))} ({ex['value']})" if ex else "-"
        here = ", ".join(_e(_name(view, s)) for s in c["here"])
        H.append(f"<tr><td {_TD}>{_e(cn[c['name']])}</td><td {_TD}>{_dot(c['region'])} "
                 f"{_e(texts.region(c['region']))}</td>"
                 f"<td {_TD}>{exs}</td><td {_TD}>{ex['price'] if ex else '-'}</td><td {_TD}>{here}</td>"
                 f"<td {_TD}>{_e(', '.join(adj[c['name']]))}</td></tr>")
    H.append("</table>")
    H.extend(_reach_html(view))
    rows = view.get("exhibitions") or []
    if rows:
        H.append(f'<table style="border-collapse:collapse;margin:4px 0"><tr><th {_TD}>{_e(_("Exhibition"))}</th>'
                 f'<th {_TD}>{_e(_("host"))}</th><th {_TD}>{_e(_("others owning the type"))}</th></tr>')
        for r in rows:
            title = texts.type_title(next((t for t, n in (view.get("type_names") or {}).items() if n == r["name"]),
                                          r["name"]), r["name"])
            if r["host"] is None:
                H.append(f'<tr><td {_TD}>{_e(title)}</td><td {_TD} colspan="2">{_e(_("can never be exhibited"))}'
                         f'</td></tr>')
            else:
                H.append(f'<tr><td {_TD}>{_e(title)}</td><td {_TD}>{_e(texts.bonus(r["host"]))}</td>'
                         f'<td {_TD}>{_e(texts.bonus(r["others"]))}</td></tr>')
        H.append("</table>")
    token = view.get("exhibition_token")
    tok = _("held by %(player)s", player=_name(view, token)) if token is not None else _("on the board")
    last = _type(view["last_exhibition"]) if view.get("last_exhibition") else _("none yet")
    H.append(f'<p style="margin:4px 0">{_e(_("Exhibition token: %(token)s; last exhibition: %(last)s", token=tok, last=last))}<br>'
             + _e(ngettext("Supply: %(supply)d face down; message deck: %(num)d cards",
                           "Supply: %(supply)d face down; message deck: %(num)d cards", view["deck_count"],
                           supply=view["supply_count"])) + "<br>"
             + _e(_("Exhibit discard: %(tokens)s",
                    tokens=", ".join(_token(x) for x in view["exhibit_discard"]) or _("empty"))) + "<br>"
             + _e(_("Message discard: %(cards)s", cards=", ".join(view["message_discard"]) or _("empty"))) + "</p>")
    lay = view["gallery_layout"]
    for s, p in enumerate(view["seats"]):
        you = _(" (you)") if view.get("seat") == s else ""
        char = f"{texts.character(p['character'])} [{board_name(p['board'])}]" if p["board"] else _("no board yet")
        where = _(" in %(city)s", city=cn.get(p["city"], p["city"])) if p["city"] else ""
        tokmark = " &#9733; " + _e(_("exhibition token")) if p["exhibition_token"] else ""
        H.append(f'<h4 style="margin:8px 0 2px 0">{_e(_name(view, s))}{_e(you)}: {_e(char)}{_e(where)}{tokmark}</h4>')
        if p["ability"]:
            H.append(f'<div style="color:#555">{_e(texts.ability(p["ability"]))}</div>')
        H.append("<div>" + _e(_("Coins %(coins)d + royal %(rcoins)d; tickets %(tickets)d + royal %(rtickets)d; cards "
                                "%(cards)d/%(hand_limit)d; commissions %(comms)d/%(comm_limit)d", coins=p["coins"],
                                rcoins=p["royal_coins"], tickets=p["tickets"], rtickets=p["royal_tickets"],
                                cards=p["hand_count"], hand_limit=p["hand_limit"], comms=len(p["commissions"]),
                                comm_limit=p["commission_limit"])) + "</div>")
        for c in p["commissions"]:
            H.append("<div>" + _e(_("Commission %(card)s: %(text)s", card=c["id"], text=texts.commission(c["text"])))
                     + "</div>")
        H.append(f"<table {_T}><tr><th {_TH}></th>" + "".join(f"<th {_TH}>C{j + 1}</th>" for j in range(lay['columns']))
                 + f"<th {_TH}>{_e(_('Floor bonus'))}</th></tr>")
        for f in range(lay["floors"] - 1, -1, -1):
            row = f"<tr><th {_TH}>F{f + 1}</th>"
            for j in range(lay["columns"]):
                i = f * lay["columns"] + j
                ex = p["gallery"][i]
                if ex:
                    col = COLOURS.get(TYPE_COLOUR.get(ex["type"], ""), "#595959")
                    ink = "#000" if col in LIGHT else "#fff"  # 4.5:1 at least, in a mail as on the page
                    row += (f'<td style="border:1px solid #bbb;padding:2px 6px;background:{col};color:{ink}">'
                            f"{_e(texts.exhibit_word(ex['type']))} ({ex['value']})</td>")
                else:
                    row += (f'<td style="border:1px solid #bbb;padding:2px 6px;color:#595959">'
                            f'{_e(texts.bonus(lay["halls"][i]))}</td>')
            row += f"<td {_TD}>{_e(texts.bonus(lay['floor_bonus'][f]))}</td></tr>"
            H.append(row)
        H.append(f"<tr><th {_TH}>{_e(_('col'))}</th>" + "".join(f"<td {_TD}>{_e(texts.bonus(b))}</td>"
                                                              for b in lay["column_bonus"])
                 + f"<td {_TD}></td></tr></table>")
        if "hand" in p:
            H.append(f"<table {_T}><tr><th {_TH}>{_e(_('Your card'))}</th><th {_TH}>{_e(_('Offer'))}</th>"
                     f"<th {_TH}>{_e(_('Commission'))}</th></tr>")
            for c in p["hand"]:
                H.append(f"<tr><td {_TD}>{_e(c['id'])}</td><td {_TD}>{_e(texts.offer(c['offer']))}</td>"
                         f"<td {_TD}>{_e(texts.commission(c['commission']))}</td></tr>")
            H.append("</table>")
    out = view.get("outcome")
    if out:
        H.append(f"<table {_T}><tr><th {_TH}>{_e(_('Player'))}</th><th {_TH}>{_e(_('Exhibits'))}</th>"
                 f"<th {_TH}>{_e(_('Commissions'))}</th><th {_TH}>{_e(_('Leftovers'))}</th>"
                 f"<th {_TH}>{_e(_('Total'))}</th></tr>")
        for s in out["ranking"]:
            b = out["breakdown"][s]
            win = " &#127942;" if s in out["winners"] else ""
            H.append(f"<tr><td {_TD}>{_e(_name(view, s))}{win}</td><td {_TD}>{b['exhibits']}</td>"
                     f"<td {_TD}>{b['commissions']}</td><td {_TD}>{b['leftovers']}</td>"
                     f"<td {_TD}><b>{out['scores'][s]}</b></td></tr>")
        H.append("</table>")
        for n in out["notes"]:
            H.append(f"<p>{_e(_(n))}</p>")
    H.append("</div>")
    return H


# ---------------------------------------------------------------- the players strip


def seat_facts(view: Mapping[str, Any], s: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Seat ``s`` at a glance, from the public view, in the reader's words: its character
    (and city), and (label, value) pairs for the game page's players strip."""
    p = view["seats"][s]
    cn = _cities(view)
    title = texts.character(p["character"]) if p.get("character") else ""
    if p.get("city"):
        title = _("%(who)s in %(city)s", who=title, city=cn.get(p["city"], p["city"])) if title else \
            cn.get(p["city"], p["city"])
    # the royal ones agree with their number (a coin and a ticket may differ in gender: two messages, which the
    # drawing says after "5 coins")
    facts = ((pgettext("panel", "coins"), ngettext("%(coins)s + %(num)d royal", "%(coins)s + %(num)d royal",
                                                   p["royal_coins"], coins=str(p["coins"]))),
             (pgettext("panel", "tickets"), ngettext("%(tickets)s + %(num)d royal", "%(tickets)s + %(num)d royal",
                                                     p["royal_tickets"], tickets=str(p["tickets"]))),
             (pgettext("panel", "cards"), f"{p['hand_count']}/{p['hand_limit']}"),
             (pgettext("panel", "commissions"), f"{len(p.get('commissions') or ())}/{p['commission_limit']}"))
    return title, facts
