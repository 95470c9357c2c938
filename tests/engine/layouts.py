"""What every game's narrow (phone and mail) drawing must be, checked the same way for each game:
a portrait column drawing.NARROW_WIDTH units wide, no text under drawing.MIN_TEXT units, no scaling
that would shrink text behind the font size's back, and the same clickable parts as the wide drawing
(every move the wide board lets a player pick by a click, the narrow one does too)."""
from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET

from pbem.engine.drawing import MIN_TEXT, NARROW_WIDTH

NS = "{http://www.w3.org/2000/svg}"


def picks(svg: str) -> set[str]:
    """Every move a click on the drawing can fill in."""
    return {m for raw in re.findall(r'data-moves="([^"]*)"', svg) for m in json.loads(html.unescape(raw))}


def check_narrow(wide: str, narrow: str) -> None:
    """Fails with what is wrong in ``narrow``, the narrow drawing of the view ``wide`` draws."""
    root = ET.fromstring(narrow)  # well-formed
    box = [float(x) for x in root.get("viewBox").split()]
    assert box[0] == 0 and box[1] == 0 and box[2] == NARROW_WIDTH, root.get("viewBox")
    assert box[3] >= box[2], "a portrait column: at least as tall as it is wide"
    small = [(float(e.get("font-size")), (e.text or "").strip()[:30]) for e in root.iter()
             if e.get("font-size") is not None and float(e.get("font-size")) < MIN_TEXT]
    assert not small, f"text under {MIN_TEXT} units: {small[:8]}"
    scaled = [e.get("transform") for e in root.iter() if "scale" in (e.get("transform") or "")
              or "matrix" in (e.get("transform") or "")]
    assert not scaled, f"scaled groups shrink their text: {scaled[:4]}"
    parents = {child: parent for parent in root.iter() for child in parent}

    def size(e):  # a text's size is its own or the nearest enclosing group's
        while e is not None and e.get("font-size") is None:
            e = parents.get(e)
        return None if e is None else float(e.get("font-size"))
    unsized = [(e.text or "")[:30] for e in root.iter(NS + "text") if size(e) is None]
    assert not unsized, f"text of the renderer's default size: {unsized[:8]}"
    assert picks(narrow) == picks(wide), (sorted(picks(wide) - picks(narrow))[:8], sorted(picks(narrow) - picks(wide))[:8])
    for tag in ("title", "desc"):
        assert root.find(NS + tag) is not None and root.find(NS + tag).text, f"the drawing has its <{tag}>"


def offsets(root):
    """Each element with where its group puts it: (element, dx, dy), the translations of the groups
    around it added up (a part of a narrow drawing is drawn from its own top and moved down)."""
    def walk(e, dx, dy):
        m = re.match(r"translate\(([-\d.]+)[ ,]+([-\d.]+)\)", e.get("transform") or "")
        if m:
            dx, dy = dx + float(m.group(1)), dy + float(m.group(2))
        yield e, dx, dy
        for child in e:
            yield from walk(child, dx, dy)
    return walk(root, 0.0, 0.0)


def overlapping(boxes) -> list[tuple]:
    """The pairs of texts drawn on each other, from their boxes ``(left, right, top, foot, label)``:
    sorted by their tops, a text meets only those that start above its foot (half a unit's grace)."""
    boxes = sorted(boxes, key=lambda b: b[2])
    bad = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b[2] >= a[3] - 0.5:
                break
            if a[0] < b[1] - 0.5 and b[0] < a[1] - 0.5:
                bad.append((a[4], b[4]))
    return bad
