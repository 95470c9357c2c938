"""Text and HTML boards for Squire. They read only a view dict (never a state),
so nothing hidden can leak: a seat's hand is in the view only for that seat."""
from __future__ import annotations

import html
import re
from typing import Any, Mapping

from ..base import seat_label

COLOURS = {"red": "#c0392b", "blue": "#2e6db4", "green": "#2e8b57", "yellow": "#c9a400", "purple": "#7d3c98"}
LIGHT = {"#c9a400", "#2e8b57"}  # white text on these is under 4.5:1: dark text instead
TYPE_COLOUR = {"painting": "red", "ceramics": "blue", "sculpture": "green", "rare_book": "yellow",
               "jewellery": "purple"}


def _abbr(ex: Mapping | None) -> str:
    if not ex:
        return ""
    return f"{ex['type'][:4].capitalize()} {ex['value']}"


def _name(view: Mapping, s: int) -> str:
    return seat_label(view, s)


def _status(view: Mapping) -> str:
    """The engine's status line with the services' display names."""
    return re.sub(r"Player (\d+)", lambda m: _name(view, int(m.group(1)) - 1), view["status"])


def _pending_line(view: Mapping) -> str | None:
    pend = view.get("pending")
    if not pend:
        return None
    return f"Waiting for {_name(view, pend['seat'])} to {pend['decision']}."


# ---------------------------------------------------------------- text


def render_text(view: Mapping[str, Any]) -> str:
    L: list[str] = []
    L.append(f"SQUIRE - {view['side_name']}")
    L.append(_status(view))
    pl = _pending_line(view)
    if pl:
        L.append(pl)
    if view.get("bought"):
        L.append(f"Bought, waiting to be placed: {_token(view['bought'])}")
    L.append("")
    # market
    L.append("MARKET        types               regions")
    mt, mr = view["market"]["types"], view["market"]["regions"]
    for i in range(len(mt)):
        L.append(f"  pos {i + 1}     {mt[i][1]}  {mt[i][0]:<16}  {mr[i][1]}  {mr[i][0]}")
    L.append("")
    # cities
    L.append("CITIES           region  exhibit (value)   price  here")
    for c in view["cities"]:
        ex = c["exhibit"]
        exs = f"{ex['id']} ({ex['value']})" if ex else "-"
        pr = str(ex["price"]) if ex else "-"
        here = ", ".join(_name(view, s) for s in c["here"])
        L.extend(_wrap(f"  {c['name'][:15]:<15}{c['region']:<8}{exs:<18}{pr:>5}  {here}".rstrip(), " " * 50))
    L.append("")
    L.extend(_reach_lines(view))
    L.append("ROUTES  each step costs 1 ticket, by land or by sea (~ sea route)")
    adj: dict[str, list[str]] = {c["name"]: [] for c in view["cities"]}
    for a, b, kind in view["routes"]:
        mark = "~" if kind == "sea" else ""
        adj[a].append(mark + b)
        adj[b].append(mark + a)
    for name, nbs in adj.items():
        L.extend(_wrap(f"  {name}: " + ", ".join(nbs)))
    L.append("")
    L.extend(_exhibition_lines(view))
    token = view.get("exhibition_token")
    tok = f"held by {_name(view, token)}" if token is not None else "on the board"
    last = view.get("last_exhibition") or "none yet"
    L.append(f"Exhibition token: {tok}; last exhibition: {last}")
    L.append(f"Supply: {view['supply_count']} face down; message deck: {view['deck_count']} cards")
    L.extend(_discard_lines(view))
    L.extend(_wrap("Message discard: " + (", ".join(view["message_discard"]) or "empty")))
    L.append("")
    lay = view["gallery_layout"]
    L.append(f"GALLERIES  F1 bottom .. F{lay['floors']} top, C1 left .. C{lay['columns']} right; "
             "'.' empty cell,")
    L.append("  +3c / +2t: hall bonus (coins / tickets) when filled; col: column bonus")
    L.append("  (RT royal ticket, RC royal coin) when the column is full")
    L.append("")
    for s, p in enumerate(view["seats"]):
        you = " (you)" if view.get("seat") == s else ""
        char = f"{p['character']} [{p['board']}]" if p["board"] else "no board yet"
        where = f" in {p['city']}" if p["city"] else ""
        tokmark = "  * exhibition token" if p["exhibition_token"] else ""
        L.extend(_wrap(f"{_name(view, s)}{you}: {char}{where}{tokmark}", "  "))
        if p["ability"]:
            L.append(f"  {p['ability']}")
        L.append(f"  coins {p['coins']} + royal {p['royal_coins']}   tickets {p['tickets']} + royal "
                 f"{p['royal_tickets']}   cards {p['hand_count']}/{p['hand_limit']}   commissions "
                 f"{len(p['commissions'])}/{p['commission_limit']}")
        for c in p["commissions"]:
            L.extend(_wrap(f"  commission {c['id']}: {c['text']}", "      "))
        L.append("         " + "".join(f"C{j + 1:<10}" for j in range(lay["columns"])) + "floor bonus")
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
            L.append(f"  F{f + 1}     " + "".join(cells) + ("" if fb == "-" else fb))
        L.append("  col    " + "".join(f"{_short(b):<11}" for b in lay["column_bonus"]).rstrip())
        if "hand" in p:
            L.append("  Your hand:" if p["hand"] else "  Your hand: empty")
            for c in p["hand"]:
                L.extend(_wrap(f"    {c['id']} offer: {c['offer']}", "        "))
                L.extend(_wrap(f"        commission: {c['commission']}", "        "))
        L.append("")
    out = view.get("outcome")
    if out:
        L.append("FINAL SCORES   exhibits  commissions  leftovers  total")
        for s in out["ranking"]:
            b = out["breakdown"][s]
            win = "  winner" if s in out["winners"] else ""
            L.append(f"  {_name(view, s)[:12]:<12}{b['exhibits']:>9}{b['commissions']:>13}{b['leftovers']:>11}"
                     f"{out['scores'][s]:>7}{win}")
        for n in out["notes"]:
            L.append("  " + n)
        L.append("")
    # names and long city names may push a line past a mail client's 80 columns: wrap what is left
    out = []
    for line in L:
        line = line.rstrip()
        out.extend(_wrap(line, " " * (len(line) - len(line.lstrip()) + 2)) if len(line) > 78 else [line])
    return "\n".join(out)


def _token(ex: Mapping) -> str:
    """painting-05 (value 3): the id as the notation writes it, which names the type."""
    return f"{ex['id']} (value {ex['value']})"


def _cost(c: Mapping) -> str:
    """The cheapest payment, short: "free + royal + 2t" (the free step, a royal ticket, 2 tickets)."""
    parts = []
    if c["free"]:
        parts.append("free" if c["free"] == 1 else f"{c['free']} free")
    if c["royal"]:
        parts.append("royal" if c["royal"] == 1 else f"{c['royal']} royal")
    if c["tickets"]:
        parts.append(f"{c['tickets']}t")
    return " + ".join(parts) or "free"


def _holding(r: Mapping) -> str:
    def n(k: int, what: str) -> str:
        return f"{k} {what}{'s' if k != 1 else ''}"
    free = f"; {r['free']} of each move is free" if r.get("free") else ""
    return f"you hold {n(r['royal_tickets'], 'royal ticket')} and {n(r['tickets'], 'ticket')}{free}"


def _reach_lines(view: Mapping) -> list[str]:
    """Where the seat to move can go this turn, the cheapest payment, the exhibit and its price there."""
    r = view.get("reach")
    if not r:
        return []
    L = _wrap(f"YOUR MOVE from {r['from']}: {_holding(r)}", "  ")
    L.append("  (a step costs 1 ticket, t; a royal ticket pays 1 step a turn and is kept)")
    L.append("  to           exhibit there    price  cost               via")
    for c in r["cities"]:
        ex = c["exhibit"]
        exs = f"{ex['id']} ({ex['value']})" if ex else "-"
        pr = str(ex["price"]) if ex else "-"
        via = ", ".join(c["path"][1:-1])
        L.extend(_wrap(f"  {c['city'][:12]:<13}{exs:<17}{pr:>5}  {_cost(c) + ' ':<19}{via}".rstrip(), " " * 58))
    L.append("")
    return L


def _discard_lines(view: Mapping) -> list[str]:
    """The exhibit discard by type, each token with its value (the 3rd-floor bonus picks from it)."""
    discard = view["exhibit_discard"]
    if not discard:
        return ["Exhibit discard: empty"]
    L = ["Exhibit discard (value): the 3rd-floor bonus takes one of these"]
    names = view.get("type_names") or {}
    for t in dict.fromkeys(ex["type"] for ex in discard):
        label = names.get(t, t).lower()
        L.extend(_wrap(f"  {label[:11]:<11}" + ", ".join(f"{ex['id']} ({ex['value']})" for ex in discard
                                                          if ex["type"] == t), " " * 13))
    return L


def _exhibition_lines(view: Mapping) -> list[str]:
    """What `exhibit TYPE` pays (§9.3): the host, then each other player owning the type."""
    rows = view.get("exhibitions") or []
    if not rows:
        return []
    L = ["EXHIBITIONS   host                            others owning the type"]
    for r in rows:
        name = r["name"].lower()
        if r["host"] is None:
            L.append(f"  {name:<12}can never be exhibited")
        else:
            L.extend(_wrap(f"  {name:<12}{r['host']:<32}{r['others']}", " " * 46))
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
    H = [f'<p style="margin:6px 0 2px 0"><b>Your move from {_e(r["from"])}</b>: {_e(_holding(r))}</p>',
         f"<table {_T}><tr><th {_TH}>To</th><th {_TH}>Exhibit there</th><th {_TH}>Price</th>"
         f"<th {_TH}>Cost (cheapest)</th><th {_TH}>Path</th></tr>"]
    for c in r["cities"]:
        ex = c["exhibit"]
        exs = f"{_dot(TYPE_COLOUR.get(ex['type'], ''))} {_e(ex['id'])} ({ex['value']})" if ex else "-"
        H.append(f"<tr><td {_TD}>{_e(c['city'])}</td><td {_TD}>{exs}</td><td {_TD}>{ex['price'] if ex else '-'}"
                 f"</td><td {_TD}>{_e(_cost(c))}</td><td {_TD}>{_e('-'.join(c['path']))}</td></tr>")
    H.append("</table>")
    return H


_SCROLL = '<div style="overflow-x:auto;max-width:100%">'


def render_html(view: Mapping[str, Any]) -> str:
    # each table in a box of its own that scrolls sideways on a narrow phone, not the whole mail
    return "\n".join(_html_parts(view)).replace("<table", _SCROLL + "<table").replace("</table>", "</table></div>")


def _html_parts(view: Mapping[str, Any]) -> list[str]:
    H: list[str] = []
    H.append('<div style="font-family:sans-serif;font-size:13px;max-width:100%">')
    H.append(f"<h3 style=\"margin:4px 0\">Squire &mdash; {_e(view['side_name'])}</h3>")
    H.append(f"<p style=\"margin:4px 0\"><b>{_e(_status(view))}</b></p>")
    pl = _pending_line(view)
    if pl:
        H.append(f'<p style="margin:4px 0">{_e(pl)}</p>')
    if view.get("bought"):
        H.append(f'<p style="margin:4px 0">Bought, waiting to be placed: {_e(_token(view["bought"]))}</p>')
    # market
    H.append(f"<table {_T}><tr><th {_TH}>Price</th><th {_TH}>Types</th><th {_TH}>Price</th>"
             f"<th {_TH}>Regions</th></tr>")
    mt, mr = view["market"]["types"], view["market"]["regions"]
    for i in range(len(mt)):
        H.append(f"<tr><td {_TD}>{mt[i][1]}</td><td {_TD}>{_dot(TYPE_COLOUR.get(mt[i][0], ''))} {_e(mt[i][0])}</td>"
                 f"<td {_TD}>{mr[i][1]}</td><td {_TD}>{_dot(mr[i][0])} {_e(mr[i][0])}</td></tr>")
    H.append("</table>")
    # cities
    adj: dict[str, list[str]] = {c["name"]: [] for c in view["cities"]}
    for a, b, kind in view["routes"]:
        adj[a].append(b + (" (sea)" if kind == "sea" else ""))
        adj[b].append(a + (" (sea)" if kind == "sea" else ""))
    H.append(f"<table {_T}><tr><th {_TH}>City</th><th {_TH}>Region</th><th {_TH}>Exhibit</th>"
             f"<th {_TH}>Price</th><th {_TH}>Here</th><th {_TH}>Routes</th></tr>")
    for c in view["cities"]:
        ex = c["exhibit"]
        exs = f"{_dot(TYPE_COLOUR.get(ex['type'], ''))} {_e(ex['id'])} ({ex['value']})" if ex else "-"
        here = ", ".join(_e(_name(view, s)) for s in c["here"])
        H.append(f"<tr><td {_TD}>{_e(c['name'])}</td><td {_TD}>{_dot(c['region'])} {_e(c['region'])}</td>"
                 f"<td {_TD}>{exs}</td><td {_TD}>{ex['price'] if ex else '-'}</td><td {_TD}>{here}</td>"
                 f"<td {_TD}>{_e(', '.join(adj[c['name']]))}</td></tr>")
    H.append("</table>")
    H.extend(_reach_html(view))
    rows = view.get("exhibitions") or []
    if rows:
        H.append(f'<table style="border-collapse:collapse;margin:4px 0"><tr><th {_TD}>Exhibition</th>'
                 f'<th {_TD}>host</th><th {_TD}>others owning the type</th></tr>')
        for r in rows:
            if r["host"] is None:
                H.append(f'<tr><td {_TD}>{_e(r["name"])}</td><td {_TD} colspan="2">can never be exhibited'
                         f'</td></tr>')
            else:
                H.append(f'<tr><td {_TD}>{_e(r["name"])}</td><td {_TD}>{_e(r["host"])}</td>'
                         f'<td {_TD}>{_e(r["others"])}</td></tr>')
        H.append("</table>")
    token = view.get("exhibition_token")
    tok = f"held by {_name(view, token)}" if token is not None else "on the board"
    H.append(f'<p style="margin:4px 0">Exhibition token: {_e(tok)}; last exhibition: '
             f'{_e(view.get("last_exhibition") or "none yet")}<br>'
             f"Supply: {view['supply_count']} face down; message deck: {view['deck_count']} cards<br>"
             f"Exhibit discard: {_e(', '.join(_token(x) for x in view['exhibit_discard']) or 'empty')}<br>"
             f"Message discard: {_e(', '.join(view['message_discard']) or 'empty')}</p>")
    lay = view["gallery_layout"]
    for s, p in enumerate(view["seats"]):
        you = " (you)" if view.get("seat") == s else ""
        char = f"{p['character']} [{p['board']}]" if p["board"] else "no board yet"
        where = f" in {p['city']}" if p["city"] else ""
        tokmark = " &#9733; exhibition token" if p["exhibition_token"] else ""
        H.append(f'<h4 style="margin:8px 0 2px 0">{_e(_name(view, s))}{_e(you)}: {_e(char)}{_e(where)}{tokmark}</h4>')
        if p["ability"]:
            H.append(f'<div style="color:#555">{_e(p["ability"])}</div>')
        H.append(f"<div>Coins {p['coins']} + royal {p['royal_coins']}; tickets {p['tickets']} + royal "
                 f"{p['royal_tickets']}; cards {p['hand_count']}/{p['hand_limit']}; commissions "
                 f"{len(p['commissions'])}/{p['commission_limit']}</div>")
        for c in p["commissions"]:
            H.append(f"<div>Commission {_e(c['id'])}: {_e(c['text'])}</div>")
        H.append(f"<table {_T}><tr><th {_TH}></th>" + "".join(f"<th {_TH}>C{j + 1}</th>" for j in range(lay['columns']))
                 + f"<th {_TH}>Floor bonus</th></tr>")
        for f in range(lay["floors"] - 1, -1, -1):
            row = f"<tr><th {_TH}>F{f + 1}</th>"
            for j in range(lay["columns"]):
                i = f * lay["columns"] + j
                ex = p["gallery"][i]
                if ex:
                    col = COLOURS.get(TYPE_COLOUR.get(ex["type"], ""), "#595959")
                    ink = "#000" if col in LIGHT else "#fff"  # 4.5:1 at least, in a mail as on the page
                    row += (f'<td style="border:1px solid #bbb;padding:2px 6px;background:{col};color:{ink}">'
                            f"{_e(ex['id'])} ({ex['value']})</td>")
                else:
                    row += f'<td style="border:1px solid #bbb;padding:2px 6px;color:#595959">{_e(lay["halls"][i])}</td>'
            row += f"<td {_TD}>{_e(lay['floor_bonus'][f])}</td></tr>"
            H.append(row)
        H.append(f"<tr><th {_TH}>col</th>" + "".join(f"<td {_TD}>{_e(b)}</td>" for b in lay["column_bonus"])
                 + f"<td {_TD}></td></tr></table>")
        if "hand" in p:
            H.append(f"<table {_T}><tr><th {_TH}>Your card</th><th {_TH}>Offer</th><th {_TH}>Commission</th></tr>")
            for c in p["hand"]:
                H.append(f"<tr><td {_TD}>{_e(c['id'])}</td><td {_TD}>{_e(c['offer'])}</td>"
                         f"<td {_TD}>{_e(c['commission'])}</td></tr>")
            H.append("</table>")
    out = view.get("outcome")
    if out:
        H.append(f"<table {_T}><tr><th {_TH}>Player</th><th {_TH}>Exhibits</th><th {_TH}>Commissions</th>"
                 f"<th {_TH}>Leftovers</th><th {_TH}>Total</th></tr>")
        for s in out["ranking"]:
            b = out["breakdown"][s]
            win = " &#127942;" if s in out["winners"] else ""
            H.append(f"<tr><td {_TD}>{_e(_name(view, s))}{win}</td><td {_TD}>{b['exhibits']}</td>"
                     f"<td {_TD}>{b['commissions']}</td><td {_TD}>{b['leftovers']}</td>"
                     f"<td {_TD}><b>{out['scores'][s]}</b></td></tr>")
        H.append("</table>")
        for n in out["notes"]:
            H.append(f"<p>{_e(n)}</p>")
    H.append("</div>")
    return H
