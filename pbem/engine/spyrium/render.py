"""Text and HTML boards for Spyrium. Both read ONLY a view dict."""
from __future__ import annotations

import html
import marshal
import textwrap
from functools import lru_cache
from typing import Any, Mapping

from ..base import seat_label
from ..i18n import current, derived
from .i18n import (N_, _, game_title, pgettext, tr, card_label, card_name, card_short, choice_said, ngettext,
                   pending_said, shown, tr_bonus, tr_breakdown, tr_card_text, tr_summary)

INITIAL = {"Red": "R", "Blue": "B", "Green": "G", "Yellow": "Y", "Black": "K"}
HEX = {"Red": "#c0392b", "Blue": "#2463b0", "Green": "#2e8b3e", "Yellow": "#b8930a", "Black": "#222"}
SYM = {"mine": N_("mine"), "factory": N_("fact"), "research": N_("res")}  # abbreviations on a card
# the short names of the text board (data.py), written out again in a language that has names
SHORT = {"Quarters": "Workers' Quarters", "Capitaliz.": "Capitalization", "Lux.House": "Luxury House",
         "Lab": "Laboratory"}


def short_label(short: str) -> str:
    """A card's short name on the text board ("Lab £7"), in the current language."""
    name, sep, price = short.partition(" £")
    if name in SHORT and card_name(SHORT[name]) != SHORT[name]:
        return card_short(SHORT[name]) + sep + price
    return card_label(short)


def worker_counts(w: Mapping[str, Any]) -> dict[str, str]:
    """A seat's workers counted by what they do, each count with its word agreeing with it ("3 active"):
    the pieces of the boards' worker lines."""
    return {"active": ngettext("%(num)d active", "%(num)d active", w["active"]),
            "used": ngettext("%(num)d used", "%(num)d used", w["used"]),
            "owned": ngettext("%(num)d owned", "%(num)d owned", w["owned"])}
CELL = 20   # width of a card column in the text board
GAP = 8     # width of a horizontal space between two cards


def _who(view: Mapping[str, Any], s: int) -> str:
    colour = tr(view["colours"][s])
    label = seat_label(view, s)
    return colour if label == f"Player {s + 1}" else _("%(colour)s (%(player)s)", colour=colour, player=label)


def _workers(view, seats: list) -> str:
    return "".join(INITIAL[view["colours"][s]] for s in seats)


def _card_lines(card) -> list[str]:
    if card is None:
        return [_("(empty)"), "", ""]
    head = short_label(card["short"])
    if card["kind"] == "technique":
        line2 = _("£%(price)d technique", price=card['price'])
    elif card["kind"] == "character":
        line2 = _("£%(price)d character", price=card['price'])
    else:
        sym = "+".join(_(SYM[s]) for s in card["symbols"])
        line2 = _("£%(price)d %(vp)dVP %(symbols)s", price=card['price'], vp=card['vp'], symbols=sym).rstrip()
    line3 = _("tokens %(tokens)s", tokens=" ".join(map(str, card["tokens"]))) if card["tokens"] else ""
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
    notes.append("  *" + ngettext("%(space)s holds %(num)d worker: %(counts)s", "%(space)s holds %(num)d workers: %(counts)s",
                                  len(seats), space=name, counts=" ".join(counts)))
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
        return _("%(label)s: none", label=label)
    if ev.get("token"):
        return _("%(label)s: %(event)s [token %(token)s]", label=label, event=card_name(ev['name']), token=ev['token'])
    return _("%(label)s: %(event)s", label=label, event=card_name(ev['name']))


def _event_summary(ev) -> str:
    return f"  ({tr_summary(ev['summary'])})" if ev and ev.get("summary") else ""


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
    return list(_wrapped(text, indent))  # a list of its own: callers add lines to it


@lru_cache(maxsize=4096)
def _wrapped(text: str, indent: str) -> tuple[str, ...]:
    # the same lines come back for every seat's board of a move, and for the next moves: wrapped once
    return tuple(textwrap.wrap(text, 78, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False))


def _seat_lines(view, s: int) -> list[str]:
    p = view["seats"][s]
    w = p["workers"]
    flags = [_("Phase I") if p['phase'] == 1 else _("Phase II")]
    if p["passed"]:
        flags.append(_("passed"))
    if view["first"] == s:
        flags.append(_("first player"))
    if p["event_used"]:
        flags.append(_("event used"))
    if view.get("turn") == s:
        flags.append(_("TO MOVE"))
    if view.get("seat") == s:
        flags.append(_("(you)"))
    lines = _fill(f"{_who(view, s)} [{INITIAL[p['colour']]}] - " + ", ".join(flags))
    lines.append(_("  £%(money)d  S %(spy)d  VP %(vp)d  residence %(res)d  bonus: %(bonus)s",
                   money=p['money'], spy=p['spyrium'], vp=p['vp'], res=p['residence'], bonus=tr_bonus(p['bonus'])))
    lines.append(_("  workers: %(active)s, %(market)d on market, %(used)s, %(building)d on buildings (%(owned)s)",
                   market=w['market'], building=w['building'], **worker_counts(w)))
    if view.get("seat") == s:
        return lines + _own_lines(p)
    lots = [f"{lot['lot']}.{short_label(lot['short'])} {lot['vp']}" + _("VP") + (" " + _("turned") if lot["turned"] else "")
            for lot in p["lots"]]
    lines += _wrap(_("  district: "), lots or ["-"])
    techs = []
    for name in p["techniques"]:
        t = card_name(name)
        if name == "Commerce":
            t += " " + _("(kept: %(tokens)s)", tokens=" ".join(map(str, p["kept_tokens"])) or _("none"))
        used = {"Lobbying": "lobbying_used", "Commerce": "commerce_used", "Taylorism": "taylorism_used"}
        if name in used and p[used[name]]:
            t += " " + _("turned")
        techs.append(t)
    lines += _wrap(_("  techniques: "), techs or ["-"])
    return lines


_TURNED = {"Lobbying": "lobbying_used", "Commerce": "commerce_used", "Taylorism": "taylorism_used"}


def _own_lines(p) -> list[str]:
    """The viewer's own district and techniques, each with what it does, so no card needs looking up."""
    lines = []
    if p["lots"]:
        lines.append(_("  district (a new lot costs £%(cost)d):", cost=p.get('new_lot_cost', 0)))
    else:
        lines.append(_("  district: none yet (your first lot is free)"))
    for lot in p["lots"]:
        sym = "+".join(_(SYM[x]) for x in lot["symbols"])
        head = f"    {lot['lot']}. {short_label(lot['short'])} ({lot['vp']} " + _("VP") + f"{', ' + sym if sym else ''})"
        if lot["turned"]:
            head += " " + _("turned")
        lines += _fill(f"{head}: {tr_summary(lot.get('summary', ''))}", indent="       ")
    info = p.get("technique_info") or [{"name": t, "summary": ""} for t in p["techniques"]]
    lines.append(_("  techniques:") if info else _("  techniques: none"))
    for t in info:
        head = card_name(t["name"])
        if t["name"] == "Commerce":
            head += " " + _("(kept: %(tokens)s)", tokens=" ".join(map(str, p["kept_tokens"])) or _("none"))
        if t["name"] in _TURNED and p[_TURNED[t["name"]]]:
            head += " " + _("turned")
        lines += _fill(f"    {head}: {tr_summary(t['summary'])}", indent="       ")
    return lines


@derived
@lru_cache(maxsize=512)
def _public_text(key: bytes, lang: str) -> tuple[str, ...]:
    """The text board's events and market, made from ``key`` alone (the view's PUBLIC parts,
    _public_key) in ``lang``, the current language: every seat's board of a move has the same,
    written once."""
    return _public_text_of(dict(marshal.loads(key)))


def _public_text_of(view: Mapping[str, Any]) -> tuple[str, ...]:
    out = [_event_line(view["event"], _("Event")) + " | " + _event_line(view["future_event"], _("next event"))]
    out += _wrap("", [_event_summary(view["event"]).strip()]) if view["event"] else []
    out.append("")
    out.append(_("Market (position, card, price, VP, symbols, tokens; workers on spaces)"))
    out += _market_text(view)
    out += _fill(_("Cards: (n beside) counts the workers next to a card. A worker you place "
                   "next to it now pays £n surcharge to activate it, or earns £n by Earn "
                   "money; a worker already beside it pays or earns £1 less."), indent="")
    for card in view["market"]:
        if card is not None:
            out += _fill("  " + _("%(pos)d %(card)s (%(beside)d beside): %(summary)s", pos=card['pos'],
                                  card=short_label(card['short']), beside=card.get('beside', 0),
                                  summary=tr_summary(card['summary'])), indent="      ")
    legend = "  ".join(f"{INITIAL[c]}={_who(view, s)}" for s, c in enumerate(view["colours"]))
    out += _fill(_("Workers: %(legend)s", legend=legend))
    out.append(_("Spaces: <1-2> lies between cards 1 and 2, ^1-4v between cards 1 and 4"))
    decks = view["deck_counts"]
    out.append(_("Tokens: %(supply)d face down | decks A %(a)d B %(b)d C %(c)d", supply=view['supply_count'],
                 a=decks['A'], b=decks['B'], c=decks['C']))
    out += _fill(_("Token discard pile: %(tokens)s", tokens=" ".join(map(str, view["discard"])) or _("none")))
    out.append("")
    return tuple(out)


# what the boards' market part reads of a view: the same for every seat (nothing in it is hidden)
PUBLIC = ("event", "future_event", "market", "spaces", "colours", "names", "deck_counts", "supply_count", "discard")


def _public_key(view: Mapping[str, Any]) -> bytes:
    """The view's PUBLIC parts, serialized (marshal: a few times quicker than JSON, and it keeps
    every type as it is); ValueError for a view holding anything else than plain data."""
    return marshal.dumps(tuple((k, view[k]) for k in PUBLIC if k in view))


def render_text(view: Mapping[str, Any]) -> str:
    out = [f"{game_title().upper()} - {view['status']}"]  # the title as the reader's edition prints it
    if view["over"]:
        out.append("")
    else:
        try:
            out += _public_text(_public_key(view), current())
        except ValueError:  # not plain data (a caller's own string type): written as it is
            out += _public_text_of(view)
    for s in range(view["players"]):
        out += _seat_lines(view, s)
    if view.get("pending"):
        pend = view["pending"]
        out.append("")
        if pend.get("choices"):
            out += _fill(_("Pending: %(player)s must %(what)s:", player=_who(view, pend['seat']),
                           what=pending_said(pend, 'ask')))
            width = max(len(shown(c["answer"])) for c in pend["choices"])
            for c in pend["choices"]:
                text = choice_said(c)
                mark = "" if c["possible"] else _("NOT POSSIBLE: ")
                out += _fill(f"  {shown(c['answer']).ljust(width)}  {mark}{text}", indent=" " * (width + 4))
        else:
            out += _fill(_("Pending: %(player)s must %(what)s", player=_who(view, pend['seat']),
                           what=pending_said(pend, 'question')))
    if view.get("outcome"):
        o = view["outcome"]
        out.append("")
        out.append(_("Final scores"))
        for s in o["ranking"]:
            b = o["breakdown"][s]
            parts = [f"{tr_breakdown(k)} {v}" for k, v in b.items() if k != "total"]
            parts = [x + "," for x in parts[:-1]] + parts[-1:]
            mark = " " + _("(wins)") if s in o["winners"] else ""
            out += _wrap(f"  {_who(view, s)}: {o['scores'][s]}{mark} = ", parts)
        for note in o["notes"]:
            out.append("  " + _(note))
    if view.get("examples"):
        out.append("")
        ex = list(view["examples"])
        out += _wrap(_("Your move, e.g.: "), [e + ";" for e in ex[:-1]] + ex[-1:])
    return "\n".join(line.rstrip() for line in out) + "\n"


# ---------------------------------------------------------------- HTML

_TD = "border:1px solid #999;padding:4px 6px;vertical-align:top;font-size:13px"
_SP = "padding:2px 4px;text-align:center;font-size:12px;color:#555"


def _e(x: Any) -> str:
    return _escaped(x) if type(x) is str else html.escape(str(x))


@lru_cache(maxsize=4096)
def _escaped(text: str) -> str:
    # a hundred strings a board, mostly the same ones for every seat and every move: escaped once
    return html.escape(text)


def _chips(view, seats: list) -> str:
    return "".join(
        f'<b style="color:{HEX[view["colours"][s]]}" title="{_e(view["colours"][s])}">'
        f'{INITIAL[view["colours"][s]]}</b>' for s in seats)


def _card_html(card) -> str:
    if card is None:
        empty = _e(_("empty"))
        return f'<td style="{_TD};color:#595959;background:#f4f4f4">{empty}</td>'
    lines = _card_lines(card)
    bg = {"character": "#fdf6e3", "building": "#eef5ee", "technique": "#eef0fb"}.get(card["kind"], "#fff")
    body = f"<b>{card['pos']}. {_e(card_label(card['label']))}</b><br>{_e(lines[1])}"
    if lines[2]:
        body += f"<br>{_e(lines[2])}"
    body += f'<br><span style="font-size:11px;color:#555">{_e(tr_summary(card["summary"]))}</span>'
    n = card.get("beside", 0)
    body += ('<br><span style="font-size:11px">'
             + _e(_("%(n)d beside: a new worker pays/earns £%(n)d", n=n)).replace("£", "&pound;") + '</span>')
    return f'<td style="{_TD};background:{bg};min-width:90px" title="{_e(tr_card_text(card["text"]))}">{body}</td>'


_BOX = "overflow-x:auto;max-width:100%"
_SMALL = "font-size:12px;color:#555"


def _p(html_text: str, style: str = "") -> str:
    return f'<p style="margin:4px 0{";" + style if style else ""}">{html_text}</p>'


def _seat_html(view, s: int) -> str:
    """One player as a small block of lines (a phone is 390 px wide: no wide table)."""
    p = view["seats"][s]
    w = p["workers"]
    flags = [_("Phase I") if p['phase'] == 1 else _("Phase II")]
    if p["passed"]:
        flags.append(_("passed"))
    if p["event_used"]:
        flags.append(_("event used"))
    if view["first"] == s:
        flags.append(_("first player"))
    who = f'<span style="color:{HEX[p["colour"]]}">&#9632;</span> <b>{_e(_who(view, s))}</b>'
    if view.get("turn") == s:
        who += " &larr; " + _e(_("to move"))
    if view.get("seat") == s:
        who += " " + _e(_("(you)"))
    lines = [who + f' <span style="{_SMALL}">{_e(", ".join(flags))}</span>',
             _e(_("£%(money)d · S %(spy)d · VP %(vp)d · residence %(res)d", money=p['money'], spy=p['spyrium'],
                  vp=p['vp'], res=p['residence'])),
             _e(_("workers: %(active)s, %(market)d on market, %(used)s, %(building)d on buildings (%(owned)s)",
                  market=w['market'], building=w['building'], **worker_counts(w))),
             _e(_("bonus: %(bonus)s", bonus=tr_bonus(p['bonus'])))]
    own = view.get("seat") == s
    if p["lots"]:
        head = (_("district (a new lot costs £%(cost)d):", cost=p.get('new_lot_cost', 0)) if own
                else _("district:"))
        items = []
        for lot in p["lots"]:
            item = (f"{lot['lot']}. {_e(card_label(lot['label']))} ({lot['vp']} " + _e(_("VP")) + ")"
                    + (" <i>" + _e(_("turned")) + "</i>" if lot["turned"] else ""))
            if lot.get("summary"):
                item += f' <span style="{_SMALL}">{_e(tr_summary(lot["summary"]))}</span>'
            items.append(item)
        lines.append(_e(head) + "<br>" + "<br>".join(items))
    else:
        lines.append(_e(_("district: none (your first lot is free)") if own else _("district: none")))
    info = p.get("technique_info") or [{"name": t, "summary": ""} for t in p["techniques"]]
    if info:
        items = []
        for t in info:
            name = card_name(t["name"])
            if t["name"] == "Commerce":
                name += " " + _("(kept: %(tokens)s)", tokens=" ".join(map(str, p["kept_tokens"])) or _("none"))
            if t["name"] in _TURNED and p[_TURNED[t["name"]]]:
                name += " " + _("turned")
            items.append(_e(name) + (f' <span style="{_SMALL}">{_e(tr_summary(t["summary"]))}</span>'
                                     if t["summary"] else ""))
        lines.append(_e(_("techniques:")) + "<br>" + "<br>".join(items))
    else:
        lines.append(_e(_("techniques: none")))
    return ('<div style="border:1px solid #bbb;padding:4px 6px;margin:4px 0;font-size:13px">'
            + "<br>".join(lines) + "</div>")


@derived
@lru_cache(maxsize=512)
def _public_html(key: bytes, lang: str) -> tuple[str, ...]:
    """The HTML board's events and market, made from ``key`` alone, as _public_text."""
    return _public_html_of(dict(marshal.loads(key)))


def _public_html_of(view: Mapping[str, Any]) -> tuple[str, ...]:
    parts: list[str] = []
    parts.append(_p(f'<b>{_e(_event_line(view["event"], _("Event")))}</b>{_e(_event_summary(view["event"]))}'
                    f' &middot; {_e(_event_line(view["future_event"], _("next event")))}'))
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
    parts.append(_p(_e(_("n beside: the workers next to a card. A worker placed next to it now pays "
                           "£n surcharge to activate it, or earns £n by Earn money; a worker "
                           "already beside it £1 less.")).replace("£", "&pound;"), _SMALL))
    legend = ", ".join(f'<b style="color:{HEX[c]}">{INITIAL[c]}</b> {_e(_who(view, s))}'
                       for s, c in enumerate(view["colours"]))
    parts.append(_p(_e(_("Workers: ")) + legend, "font-size:12px"))
    decks = view["deck_counts"]
    parts.append(_p(_e(_("Tokens: %(supply)d face down; discard: %(tokens)s", supply=view["supply_count"],
                         tokens=" ".join(map(str, view["discard"])) or _("none")))
                    + " &middot; " + _e(_("decks A %(a)d, B %(b)d, C %(c)d", a=decks["A"], b=decks["B"],
                                           c=decks["C"])), _SMALL))
    return tuple(parts)


def render_html(view: Mapping[str, Any]) -> str:
    parts = ['<div style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222;max-width:100%">',
             _p(f"<b>{_e(game_title())}</b> &middot; {_e(view['status'])}")]
    if not view["over"]:
        try:
            parts += _public_html(_public_key(view), current())
        except ValueError:
            parts += _public_html_of(view)
    for s in range(view["players"]):
        parts.append(_seat_html(view, s))
    if view.get("pending"):
        pend = view["pending"]
        if pend.get("choices"):
            items = []
            for c in pend["choices"]:
                text = choice_said(c)
                mark = "" if c["possible"] else "<i>" + _e(_("not possible:")) + "</i> "
                items.append(f"<code>{_e(shown(c['answer']))}</code> {mark}{_e(text)}")
            parts.append(_p("<b>" + _e(_("Pending:")) + "</b> "
                            + _e(_("%(player)s must %(what)s:", player=_who(view, pend['seat']),
                                   what=pending_said(pend, 'ask'))) + "<br>" + "<br>".join(items)))
        else:
            parts.append(_p("<b>" + _e(_("Pending:")) + "</b> "
                            + _e(_("%(player)s must %(what)s", player=_who(view, pend['seat']),
                                   what=pending_said(pend, 'question')))))
    if view.get("outcome"):
        o = view["outcome"]
        rows = []
        for s in o["ranking"]:
            b = o["breakdown"][s]
            detail = ", ".join(f"{tr_breakdown(k)} {v}" for k, v in b.items() if k != "total")
            win = " &#127942;" if s in o["winners"] else ""
            rows.append(f'<tr><td style="{_TD}">{_e(_who(view, s))}{win}</td><td style="{_TD}"><b>{o["scores"][s]}</b></td>'
                        f'<td style="{_TD}">{_e(detail)}</td></tr>')
        parts.append(f'<div style="{_BOX}"><table style="border-collapse:collapse;margin:6px 0">'
                     f'<tr><th style="{_TD};background:#eee" colspan="3">{_e(_("Final scores"))}</th></tr>' + "".join(rows)
                     + "</table></div>")
        for note in o["notes"]:
            parts.append(_p(_e(_(note))))
    if view.get("examples"):
        parts.append(_p(_e(_("Your move, e.g.: ")) + "; ".join(f"<code>{_e(x)}</code>" for x in view["examples"])))
    parts.append("</div>")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------- the players strip


def seat_facts(view: Mapping[str, Any], s: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Seat ``s`` at a glance, from the public view, in the reader's words: its colour, and
    (label, value) pairs for the game page's players strip."""
    p = view["seats"][s]
    w = p.get("workers") or {}
    facts = [(pgettext("panel", "money"), f"£{p['money']}"), (pgettext("panel", "spyrium"), str(p["spyrium"])),
             (pgettext("panel", "VP"), str(p["vp"])), (pgettext("panel", "residence"), str(p["residence"]))]
    if w:
        facts.append((pgettext("panel", "workers"),
                      ngettext("%(num)d active of %(owned)d", "%(num)d active of %(owned)d", w.get("active", 0),
                               owned=w.get("owned", 0))))
    return tr(p["colour"]), tuple(facts)
