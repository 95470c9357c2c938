"""Text and HTML boards for Spyrium. Both read ONLY a view dict."""
from __future__ import annotations

import html
import textwrap
from typing import Any, Mapping

from ..base import seat_label

INITIAL = {"Red": "R", "Blue": "B", "Green": "G", "Yellow": "Y", "Black": "K"}
HEX = {"Red": "#c0392b", "Blue": "#2463b0", "Green": "#2e8b3e", "Yellow": "#b8930a", "Black": "#222"}
SYM = {"mine": "mine", "factory": "fact", "research": "res"}
CELL = 20   # width of a card column in the text board
GAP = 8     # width of a horizontal space between two cards


def _who(view: Mapping[str, Any], s: int) -> str:
    colour = view["colours"][s]
    label = seat_label(view, s)
    return colour if label == f"Player {s + 1}" else f"{colour} ({label})"


def _workers(view, seats: list) -> str:
    return "".join(INITIAL[view["colours"][s]] for s in seats)


def _card_lines(card) -> list[str]:
    if card is None:
        return ["(empty)", "", ""]
    head = card["short"]
    if card["kind"] == "technique":
        line2 = f"£{card['price']} technique"
    elif card["kind"] == "character":
        line2 = f"£{card['price']} character"
    else:
        sym = "+".join(SYM[s] for s in card["symbols"])
        line2 = f"£{card['price']} {card['vp']}VP {sym}".rstrip()
    line3 = ("tokens " + " ".join(map(str, card["tokens"]))) if card["tokens"] else ""
    return [head, line2, line3]


def _space_map(view) -> dict:
    return {sp["space"]: sp["workers"] for sp in view["spaces"]}


def _fit(view, name: str, seats: list, width: int, notes: list) -> str:
    """The workers of one space in at most ``width`` columns: one initial per worker,
    else counts per colour (R3B2), else the total with a note under the market."""
    full = _workers(view, seats)
    if len(full) <= width:
        return full
    counts = [f"{INITIAL[view['colours'][s]]}{seats.count(s)}" for s in sorted(set(seats))]
    if len("".join(counts)) <= width:
        return "".join(counts)
    notes.append(f"  *{name} holds {len(seats)} workers: " + " ".join(counts))
    return f"*{len(seats)}"


def _market_text(view) -> list[str]:
    sp = _space_map(view)
    out = []
    notes: list[str] = []
    market = view["market"]
    for r in range(3):
        cells = [_card_lines(market[3 * r + c]) for c in range(3)]
        for line in range(3):
            row = ""
            for c in range(3):
                q = 3 * r + c + 1
                prefix = f"[{q}] " if line == 0 else "    "
                row += (prefix + cells[c][line]).ljust(CELL)[:CELL]
                if c < 2:
                    name = f"{q}-{q + 1}"
                    if line == 0:
                        row += f"<{name}>".center(GAP)
                    elif line == 1:
                        row += _fit(view, name, sp[name], GAP, notes).center(GAP)
                    else:
                        row += " " * GAP
            out.append(row.rstrip())
        if r < 2:
            row = ""
            for c in range(3):
                q = 3 * r + c + 1
                name = f"{q}-{q + 3}"
                w = _fit(view, name, sp[name], CELL + GAP - 8 if c < 2 else 78 - 2 * (CELL + GAP) - 7, notes)
                row += (" " + "^" + name + "v" + (" " + w if w else "")).ljust(CELL + (GAP if c < 2 else 0))
            out.append(row.rstrip())
    return out + notes


def _event_line(ev, label) -> str:
    if ev is None:
        return f"{label}: none"
    tok = f" [token {ev['token']}]" if ev.get("token") else ""
    return f"{label}: {ev['name']}{tok}"


def _event_summary(ev) -> str:
    return f"  ({ev['summary']})" if ev and ev.get("summary") else ""


def _wrap(prefix: str, items: list[str], width: int = 78) -> list[str]:
    lines, cur = [], prefix
    indent = " " * min(len(prefix), 24)
    for it in items:
        if len(cur) + len(it) + 1 > width and cur.strip() and cur != prefix:
            lines.append(cur.rstrip())
            cur = indent
        cur += it + (" " if it.endswith(",") or it.endswith(";") else "  ")
    lines.append(cur.rstrip())
    return lines


def _fill(text: str, indent: str = "  ") -> list[str]:
    """One long line (a pending question, the discard pile) wrapped to 78 columns;
    spaces such as 4-5 are never split."""
    return textwrap.wrap(text, 78, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)


def _seat_lines(view, s: int) -> list[str]:
    p = view["seats"][s]
    w = p["workers"]
    flags = [f"Phase {'I' if p['phase'] == 1 else 'II'}"]
    if p["passed"]:
        flags.append("passed")
    if view["first"] == s:
        flags.append("first player")
    if p["event_used"]:
        flags.append("event used")
    if view.get("turn") == s:
        flags.append("TO MOVE")
    if view.get("seat") == s:
        flags.append("(you)")
    lines = _fill(f"{_who(view, s)} [{INITIAL[p['colour']]}] - " + ", ".join(flags))
    lines.append(f"  £{p['money']}  S {p['spyrium']}  VP {p['vp']}  residence {p['residence']}"
                 f"  bonus: {p['bonus']}")
    lines.append(f"  workers: {w['active']} active, {w['market']} on market, {w['used']} used,"
                 f" {w['building']} on buildings ({w['owned']} owned)")
    if view.get("seat") == s:
        return lines + _own_lines(p)
    lots = [f"{lot['lot']}.{lot['short']} {lot['vp']}VP" + (" turned" if lot["turned"] else "")
            for lot in p["lots"]]
    lines += _wrap("  district: ", lots or ["-"])
    techs = []
    for t in p["techniques"]:
        if t == "Commerce":
            t += " (kept: " + (" ".join(map(str, p["kept_tokens"])) or "none") + ")"
        used = {"Lobbying": "lobbying_used", "Commerce": "commerce_used", "Taylorism": "taylorism_used"}
        if t.split(" ")[0] in used and p[used[t.split(" ")[0]]]:
            t += " turned"
        techs.append(t)
    lines += _wrap("  techniques: ", techs or ["-"])
    return lines


_TURNED = {"Lobbying": "lobbying_used", "Commerce": "commerce_used", "Taylorism": "taylorism_used"}


def _own_lines(p) -> list[str]:
    """The viewer's own district and techniques, each with what it does (issue 19)."""
    lines = []
    new = f"a new lot costs £{p.get('new_lot_cost', 0)}" if p["lots"] else "your first lot is free"
    lines.append(f"  district ({new}):" if p["lots"] else f"  district: none yet ({new})")
    for lot in p["lots"]:
        sym = "+".join(SYM[x] for x in lot["symbols"])
        head = f"    {lot['lot']}. {lot['short']} ({lot['vp']} VP{', ' + sym if sym else ''})"
        if lot["turned"]:
            head += " turned"
        lines += _fill(f"{head}: {lot.get('summary', '')}", indent="       ")
    info = p.get("technique_info") or [{"name": t, "summary": ""} for t in p["techniques"]]
    lines.append("  techniques:" + ("" if info else " none"))
    for t in info:
        head = t["name"]
        if head == "Commerce":
            head += " (kept: " + (" ".join(map(str, p["kept_tokens"])) or "none") + ")"
        if head.split(" ")[0] in _TURNED and p[_TURNED[head.split(" ")[0]]]:
            head += " turned"
        lines += _fill(f"    {head}: {t['summary']}", indent="       ")
    return lines


def render_text(view: Mapping[str, Any]) -> str:
    out = [f"SPYRIUM - {view['status']}"]
    if not view["over"]:
        out.append(_event_line(view["event"], "Event") + " | " + _event_line(view["future_event"], "next event"))
        out += _wrap("", [_event_summary(view["event"]).strip()]) if view["event"] else []
    out.append("")
    if not view["over"]:
        out.append("Market (position, card, price, VP, symbols, tokens; workers on spaces)")
        out += _market_text(view)
        out += _fill("Cards: (n beside) counts the workers next to a card. A worker you place "
                     "next to it now pays £n surcharge to activate it, or earns £n by Earn "
                     "money; a worker already beside it pays or earns £1 less.", indent="")
        for card in view["market"]:
            if card is not None:
                out += _fill(f"  {card['pos']} {card['short']} ({card.get('beside', 0)} beside): "
                             f"{card['summary']}", indent="      ")
        legend = "  ".join(f"{INITIAL[c]}={_who(view, s)}" for s, c in enumerate(view["colours"]))
        out += _fill(f"Workers: {legend}")
        out.append("Spaces: <1-2> lies between cards 1 and 2, ^1-4v between cards 1 and 4")
        decks = view["deck_counts"]
        out.append(f"Tokens: {view['supply_count']} face down | decks A {decks['A']} B {decks['B']}"
                   f" C {decks['C']}")
        out += _fill("Token discard pile: " + (" ".join(map(str, view["discard"])) or "none"))
        out.append("")
    for s in range(view["players"]):
        out += _seat_lines(view, s)
    if view.get("pending"):
        pend = view["pending"]
        out.append("")
        if pend.get("choices"):
            out += _fill(f"Pending: {_who(view, pend['seat'])} must {pend['ask']}:")
            width = max(len(c["answer"]) for c in pend["choices"])
            for c in pend["choices"]:
                text = c["text"].removeprefix("(").removesuffix(")")
                mark = "" if c["possible"] else "NOT POSSIBLE: "
                out += _fill(f"  {c['answer'].ljust(width)}  {mark}{text}", indent=" " * (width + 4))
        else:
            out += _fill(f"Pending: {_who(view, pend['seat'])} must {pend['question']}")
    if view.get("outcome"):
        o = view["outcome"]
        out.append("")
        out.append("Final scores")
        for s in o["ranking"]:
            b = o["breakdown"][s]
            parts = [f"{k} {v}" for k, v in b.items() if k != "total"]
            parts = [x + "," for x in parts[:-1]] + parts[-1:]
            mark = " (wins)" if s in o["winners"] else ""
            out += _wrap(f"  {_who(view, s)}: {o['scores'][s]}{mark} = ", parts)
        for note in o["notes"]:
            out.append("  " + note)
    if view.get("examples"):
        out.append("")
        ex = list(view["examples"])
        out += _wrap("Your move, e.g.: ", [e + ";" for e in ex[:-1]] + ex[-1:])
    return "\n".join(line.rstrip() for line in out) + "\n"


# ---------------------------------------------------------------- HTML

_TD = "border:1px solid #999;padding:4px 6px;vertical-align:top;font-size:13px"
_SP = "padding:2px 4px;text-align:center;font-size:12px;color:#555"


def _e(x: Any) -> str:
    return html.escape(str(x))


def _chips(view, seats: list) -> str:
    return "".join(
        f'<b style="color:{HEX[view["colours"][s]]}" title="{_e(view["colours"][s])}">'
        f'{INITIAL[view["colours"][s]]}</b>' for s in seats)


def _card_html(card) -> str:
    if card is None:
        return f'<td style="{_TD};color:#595959;background:#f4f4f4">empty</td>'
    lines = _card_lines(card)
    bg = {"character": "#fdf6e3", "building": "#eef5ee", "technique": "#eef0fb"}.get(card["kind"], "#fff")
    body = f"<b>{card['pos']}. {_e(card['label'])}</b><br>{_e(lines[1])}"
    if lines[2]:
        body += f"<br>{_e(lines[2])}"
    body += f'<br><span style="font-size:11px;color:#555">{_e(card["summary"])}</span>'
    n = card.get("beside", 0)
    body += (f'<br><span style="font-size:11px">{n} beside: a new worker pays/earns &pound;{n}</span>')
    return f'<td style="{_TD};background:{bg};min-width:90px" title="{_e(card["text"])}">{body}</td>'


_BOX = "overflow-x:auto;max-width:100%"
_SMALL = "font-size:12px;color:#555"


def _p(html_text: str, style: str = "") -> str:
    return f'<p style="margin:4px 0{";" + style if style else ""}">{html_text}</p>'


def _seat_html(view, s: int) -> str:
    """One player as a small block of lines (a phone is 390 px wide: no wide table)."""
    p = view["seats"][s]
    w = p["workers"]
    flags = [f"Phase {'I' if p['phase'] == 1 else 'II'}"]
    if p["passed"]:
        flags.append("passed")
    if p["event_used"]:
        flags.append("event used")
    if view["first"] == s:
        flags.append("first player")
    who = f'<span style="color:{HEX[p["colour"]]}">&#9632;</span> <b>{_e(_who(view, s))}</b>'
    if view.get("turn") == s:
        who += " &larr; to move"
    if view.get("seat") == s:
        who += " (you)"
    lines = [who + f' <span style="{_SMALL}">{_e(", ".join(flags))}</span>',
             _e(f"£{p['money']} · S {p['spyrium']} · VP {p['vp']} · residence {p['residence']}"),
             _e(f"workers: {w['active']} active, {w['market']} on market, {w['used']} used, "
                f"{w['building']} on buildings ({w['owned']} owned)"),
             _e(f"bonus: {p['bonus']}")]
    own = view.get("seat") == s
    if p["lots"]:
        head = "district" + (f" (a new lot costs £{p.get('new_lot_cost', 0)})" if own else "") + ":"
        items = []
        for lot in p["lots"]:
            item = f"{lot['lot']}. {_e(lot['label'])} ({lot['vp']} VP)" + (" <i>turned</i>" if lot["turned"] else "")
            if lot.get("summary"):
                item += f' <span style="{_SMALL}">{_e(lot["summary"])}</span>'
            items.append(item)
        lines.append(_e(head) + "<br>" + "<br>".join(items))
    else:
        lines.append("district: none" + (" (your first lot is free)" if own else ""))
    info = p.get("technique_info") or [{"name": t, "summary": ""} for t in p["techniques"]]
    if info:
        items = []
        for t in info:
            name = t["name"]
            if name == "Commerce":
                name += " (kept: " + (" ".join(map(str, p["kept_tokens"])) or "none") + ")"
            if t["name"] in _TURNED and p[_TURNED[t["name"]]]:
                name += " turned"
            items.append(_e(name) + (f' <span style="{_SMALL}">{_e(t["summary"])}</span>' if t["summary"] else ""))
        lines.append("techniques:<br>" + "<br>".join(items))
    else:
        lines.append("techniques: none")
    return ('<div style="border:1px solid #bbb;padding:4px 6px;margin:4px 0;font-size:13px">'
            + "<br>".join(lines) + "</div>")


def render_html(view: Mapping[str, Any]) -> str:
    parts = ['<div style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222;max-width:100%">',
             _p(f"<b>Spyrium</b> &middot; {_e(view['status'])}")]
    if not view["over"]:
        parts.append(_p(f'<b>{_e(_event_line(view["event"], "Event"))}</b>{_e(_event_summary(view["event"]))}'
                        f' &middot; {_e(_event_line(view["future_event"], "next event"))}'))
        sp = _space_map(view)
        market = view["market"]
        rows = []
        for r in range(3):
            cells = []
            for c in range(3):
                q = 3 * r + c + 1
                cells.append(_card_html(market[q - 1]))
                if c < 2:
                    name = f"{q}-{q + 1}"
                    cells.append(f'<td style="{_SP}">{_e(name)}<br>{_chips(view, sp[name])}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
            if r < 2:
                cells = []
                for c in range(3):
                    q = 3 * r + c + 1
                    name = f"{q}-{q + 3}"
                    cells.append(f'<td style="{_SP}">{_e(name)} {_chips(view, sp[name])}</td>')
                    if c < 2:
                        cells.append("<td></td>")
                rows.append("<tr>" + "".join(cells) + "</tr>")
        parts.append(f'<div style="{_BOX}"><table style="border-collapse:collapse;margin:6px 0">'
                     + "".join(rows) + "</table></div>")
        parts.append(_p("n beside: the workers next to a card. A worker placed next to it now pays "
                        "&pound;n surcharge to activate it, or earns &pound;n by Earn money; a worker "
                        "already beside it &pound;1 less.", _SMALL))
        legend = ", ".join(f'<b style="color:{HEX[c]}">{INITIAL[c]}</b> {_e(_who(view, s))}'
                           for s, c in enumerate(view["colours"]))
        parts.append(_p("Workers: " + legend, "font-size:12px"))
        decks = view["deck_counts"]
        parts.append(_p(f'Tokens: {view["supply_count"]} face down; '
                        f'discard: {_e(" ".join(map(str, view["discard"])) or "none")} &middot; decks A {decks["A"]}, '
                        f'B {decks["B"]}, C {decks["C"]}', _SMALL))
    for s in range(view["players"]):
        parts.append(_seat_html(view, s))
    if view.get("pending"):
        pend = view["pending"]
        if pend.get("choices"):
            items = []
            for c in pend["choices"]:
                text = c["text"].removeprefix("(").removesuffix(")")
                mark = "" if c["possible"] else "<i>not possible:</i> "
                items.append(f"<code>{_e(c['answer'])}</code> {mark}{_e(text)}")
            parts.append(_p(f"<b>Pending:</b> {_e(_who(view, pend['seat']))} must {_e(pend['ask'])}:<br>"
                            + "<br>".join(items)))
        else:
            parts.append(_p(f"<b>Pending:</b> {_e(_who(view, pend['seat']))} must {_e(pend['question'])}"))
    if view.get("outcome"):
        o = view["outcome"]
        rows = []
        for s in o["ranking"]:
            b = o["breakdown"][s]
            detail = ", ".join(f"{k} {v}" for k, v in b.items() if k != "total")
            win = " &#127942;" if s in o["winners"] else ""
            rows.append(f'<tr><td style="{_TD}">{_e(_who(view, s))}{win}</td><td style="{_TD}"><b>{o["scores"][s]}</b></td>'
                        f'<td style="{_TD}">{_e(detail)}</td></tr>')
        parts.append(f'<div style="{_BOX}"><table style="border-collapse:collapse;margin:6px 0">'
                     f'<tr><th style="{_TD};background:#eee" colspan="3">Final scores</th></tr>' + "".join(rows)
                     + "</table></div>")
        for note in o["notes"]:
            parts.append(_p(_e(note)))
    if view.get("examples"):
        parts.append(_p("Your move, e.g.: " + "; ".join(f"<code>{_e(x)}</code>" for x in view["examples"])))
    parts.append("</div>")
    return "\n".join(parts) + "\n"
