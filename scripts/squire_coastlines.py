#!/usr/bin/env python3
"""One-off generator of pbem/engine/squire/data/coast.json: the coastlines the
Squire drawing (pbem/engine/squire/draw.py) puts under its two maps.

Source: Natural Earth land polygons (public domain, naturalearthdata.com), as
TopoJSON in the npm package world-atlas 2.0.2 (land-50m.json for the British
Isles, land-110m.json for the world). Fetch it offline-friendly with

    cd /tmp && npm pack world-atlas && mkdir -p wa && tar xzf world-atlas-*.tgz -C wa
    python3 scripts/squire_coastlines.py /tmp/wa/package > pbem/engine/squire/data/coast.json

The script decodes the TopoJSON arcs itself, clips each ring to the map's box
(Sutherland-Hodgman), simplifies it (Douglas-Peucker) and drops slivers, so
that the committed file stays a few KB a side. Standard library only.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

# side: (source file, box (lon0, lat0, lon1, lat1), simplification tolerance in degrees,
#        smallest ring kept (bounding-box area, square degrees), decimals kept)
SIDES = {
    "british": ("land-50m.json", (-10.8, 49.8, 2.2, 58.8), 0.045, 0.02, 2),
    "world": ("land-110m.json", (-136.0, -46.0, 160.0, 66.0), 0.7, 4.0, 1),
}


def decode_arcs(topo: dict) -> list[list[tuple[float, float]]]:
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    out = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x += dx
            y += dy
            pts.append((x * sx + tx, y * sy + ty))
        out.append(pts)
    return out


def ring(arcs: list, idx: list[int]) -> list[tuple[float, float]]:
    pts: list[tuple[float, float]] = []
    for i in idx:
        a = arcs[i] if i >= 0 else arcs[~i][::-1]
        pts.extend(a if not pts else a[1:])
    return pts


def clip(pts: list, box: tuple) -> list:
    x0, y0, x1, y1 = box
    edges = [(lambda p: p[0] >= x0, lambda p, q: _ix(p, q, x=x0)),
             (lambda p: p[0] <= x1, lambda p, q: _ix(p, q, x=x1)),
             (lambda p: p[1] >= y0, lambda p, q: _ix(p, q, y=y0)),
             (lambda p: p[1] <= y1, lambda p, q: _ix(p, q, y=y1))]
    for inside, cut in edges:
        if not pts:
            break
        src, pts = pts, []
        prev = src[-1]
        for cur in src:
            if inside(cur):
                if not inside(prev):
                    pts.append(cut(prev, cur))
                pts.append(cur)
            elif inside(prev):
                pts.append(cut(prev, cur))
            prev = cur
    return pts


def _ix(p, q, x=None, y=None):
    (px, py), (qx, qy) = p, q
    if x is not None:
        t = (x - px) / (qx - px)
        return (x, py + t * (qy - py))
    t = (y - py) / (qy - py)
    return (px + t * (qx - px), y)


def simplify(pts: list, tol: float) -> list:
    if len(pts) < 3:
        return pts
    keep = [False] * len(pts)
    keep[0] = keep[-1] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        a, b = stack.pop()
        (ax, ay), (bx, by) = pts[a], pts[b]
        dx, dy = bx - ax, by - ay
        n = (dx * dx + dy * dy) ** 0.5
        best, at = 0.0, -1
        for i in range(a + 1, b):
            px, py = pts[i]
            d = abs(dy * (px - ax) - dx * (py - ay)) / n if n else ((px - ax) ** 2 + (py - ay) ** 2) ** 0.5
            if d > best:
                best, at = d, i
        if best > tol and at > 0:
            keep[at] = True
            stack += [(a, at), (at, b)]
    return [p for p, k in zip(pts, keep) if k]


def side(folder: Path, name: str) -> dict:
    fname, box, tol, smallest, dec = SIDES[name]
    topo = json.loads((folder / fname).read_text())
    arcs = decode_arcs(topo)
    rings = []
    for geom in topo["objects"]["land"]["geometries"]:
        polys = geom["arcs"] if geom["type"] == "MultiPolygon" else [geom["arcs"]]
        for poly in polys:
            for idx in poly:
                pts = clip(ring(arcs, idx), box)
                if len(pts) < 3:
                    continue
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                if (max(xs) - min(xs)) * (max(ys) - min(ys)) < smallest:
                    continue
                pts = simplify(pts + [pts[0]], tol)[:-1]
                pts = [(round(x, dec), round(y, dec)) for x, y in pts]
                pts = [p for i, p in enumerate(pts) if p != pts[i - 1]]
                if len(pts) >= 4:
                    rings.append([c for p in pts for c in p])
    rings.sort(key=lambda r: (-len(r), r))
    return {"box": list(box), "rings": rings}


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/wa/package")
    out = {
        "source": "Natural Earth land polygons (public domain), 1:50m (british) and 1:110m (world), "
                  "via the npm package world-atlas 2.0.2; clipped, simplified and rounded by "
                  "scripts/squire_coastlines.py. Rings are flat lists lon, lat, lon, lat, ...",
        "british": side(folder, "british"),
        "world": side(folder, "world"),
    }
    text = json.dumps(out, separators=(",", ":"))
    # one ring a line keeps the diff of a regeneration readable
    text = text.replace("],[", "],\n[")
    sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()
