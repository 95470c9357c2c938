// The game page: the board drawn (its zoom, the picture/text toggle, a click
// on the drawing that picks a move), the history slider and replay, the
// legal-move filter, a move's preview before it is sent, and live news. The
// server tells an open page THAT its game changed, on an event stream
// (…/live, Server-Sent Events, which carries nothing else), and the page then
// asks thread.json what changed, as its reader may see it: the new posts, and
// the page's parts a new ply changes. Where the stream cannot be had (no
// EventSource, the server holds all the streams it may, a proxy that cuts it)
// the page long-polls (thread.json?wait=: the server answers as soon as a post
// or a move arrives, or empty after at most 25 s) and tries the stream again
// later; after repeated failures, or with ?live=poll, it falls back to plain
// polling with a growing interval. A hidden tab keeps its stream (a waiting
// thread on the server, no query), so its title and icon say at once when it
// is the reader's turn; without a stream it asks once a minute.
(function () {
  "use strict";
  var posts = document.getElementById("posts");
  if (!posts) return;
  var gameId = posts.dataset.game;
  // the page's words in its language: the server writes them into data-words
  var WORDS = {};
  try { WORDS = JSON.parse(posts.dataset.words || "{}"); } catch (e) { WORDS = {}; }
  function T(s) { return WORDS[s] || s; }
  var stamp = posts.dataset.stamp || "";
  var last = parseInt(posts.dataset.last, 10) || 0;
  var first = parseInt(posts.dataset.first, 10) || 0;
  var mode = /[?&]live=poll\b/.test(location.search) ? "poll" : "push";
  var WAIT = 25, HIDDEN_EVERY = 60000, failures = 0, pollEvery = 5000, inflight = false, timer = null;

  function $(id) { return document.getElementById(id); }
  function get(url) {
    return fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); });
  }

  // a board part that scrolls sideways on a narrow screen can be scrolled from the keyboard too
  function keyboardScroll() {
    var b = $("board");
    if (!b) return;
    b.querySelectorAll("div, table, pre").forEach(function (x) {
      var o = getComputedStyle(x).overflowX;
      if ((o === "auto" || o === "scroll") && x.scrollWidth > x.clientWidth + 1 && !x.hasAttribute("tabindex")) {
        x.tabIndex = 0;
      }
    });
  }

  // ------------------------------------------------------------ the board: picture or text, zoom
  // The drawing is the board; the text board (the complete account) is one click away. Without
  // this script both show, the picture first.
  var VIEW_KEY = "pbem.boardView", ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 2.5, 3, 4], zoom = 1;
  function stored() {
    try { return localStorage.getItem(VIEW_KEY) === "text" ? "text" : "picture"; } catch (e) { return "picture"; }
  }
  function hasPicture() { var d = $("drawing"); return !!(d && d.querySelector("svg")); }
  function showView(v, remember) {
    var d = $("drawing"), b = $("board"), tools = $("board-tools");
    if (!d || !b || !tools) return;
    if (remember) { try { localStorage.setItem(VIEW_KEY, v); } catch (e) { /* private mode: not kept */ } }
    if (!hasPicture()) v = "text";  // no picture of this board (a drawing failed): the text alone
    tools.hidden = false;
    d.hidden = v !== "picture";
    b.hidden = v === "picture";
    $("show-picture").setAttribute("aria-pressed", String(v === "picture"));
    $("show-text").setAttribute("aria-pressed", String(v === "text"));
    $("zoom").hidden = v !== "picture";
    if (v !== "picture") closeMenu();
    keyboardScroll();
  }
  function drawings() {  // the layouts of the board (wide, narrow): the CSS shows the one for the screen
    var box = $("drawing");
    return box ? box.querySelectorAll(":scope > .lay > svg, :scope > svg") : [];
  }
  // The page comes with both layouts; a board asked again (a new ply, the history) comes in the one this
  // screen shows, the narrow one up to 700 px (site.css, pbem/web/games.py NARROW_SCREEN say the same).
  var PHONE = window.matchMedia ? window.matchMedia("(max-width: 700px)") : null;
  function layoutArg() { return "&layout=" + (PHONE && PHONE.matches ? "narrow" : "wide"); }
  function applyZoom(from) {
    var box = $("drawing"), svgs = drawings();
    if (!svgs.length) return;
    // keep the middle of what is seen in the middle
    var cx = box.scrollWidth ? (box.scrollLeft + box.clientWidth / 2) / box.scrollWidth : 0.5;
    svgs.forEach(function (svg) { svg.style.width = zoom === 1 ? "" : (zoom * 100) + "%"; });
    if (from !== undefined) box.scrollLeft = Math.max(0, cx * box.scrollWidth - box.clientWidth / 2);
    var l = $("zoom-level"); if (l) l.textContent = Math.round(zoom * 100) + "%";
    scrollable();
  }
  function scrollable() {  // a zoomed drawing scrolls in its box: from the keyboard too
    var box = $("drawing");
    if (!box) return;
    if (box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
  function zoomBy(step) {
    var i = ZOOMS.indexOf(zoom);
    zoom = step === 0 ? 1 : ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, i + step))];
    applyZoom(true);
  }

  // ------------------------------------------------------------ a click on the drawing picks a move
  // An element of the drawing carrying data-moves (legal moves of the reader, as the list below has
  // them) fills the move box like a click in the list: one move at once, several through a small
  // menu. Nothing is sent: "Send move" stays the only way.
  var menu = null;
  function movesOf(g) {
    try {
      var m = JSON.parse(g.getAttribute("data-moves") || "[]");
      return Array.isArray(m) ? m.filter(function (x) { return typeof x === "string" && x; }) : [];
    } catch (e) { return []; }
  }
  function explanation(move) {
    var bs = document.querySelectorAll("#legal button.mv");
    for (var i = 0; i < bs.length; i++) if (bs[i].value === move) return bs[i].title || "";
    return "";
  }
  function labelOf(g) {
    var t = g.querySelector("title");
    return t ? t.textContent.trim() : "";
  }
  function closeMenu(back) {
    if (!menu) return;
    var opener = menu.opener;
    menu.remove(); menu = null;
    if (back && opener && document.contains(opener)) opener.focus();
  }
  function fillMove(move, g) {
    var box = $("move-text");
    if (!box) return;
    closeMenu();
    document.querySelectorAll("#drawing .pick.chosen").forEach(function (x) { x.classList.remove("chosen"); });
    if (g) g.classList.add("chosen");
    box.value = move;
    preview(true);
  }
  function openMenu(g, moves) {
    closeMenu();
    var host = $("boards") || $("drawing").parentNode;
    menu = el("div", "pick-menu");
    menu.opener = g;
    menu.setAttribute("role", "group");
    var label = labelOf(g);
    menu.setAttribute("aria-label", T("Moves") + (label ? ": " + label : ""));
    var head = el("div", "pick-head");
    head.appendChild(el("span", "small", (label ? label + " — " : "") + T("pick a move (it is not sent yet)")));
    var x = el("button", "ghost small pick-close", "×");
    x.type = "button"; x.setAttribute("aria-label", T("Close the menu"));
    head.appendChild(x);
    menu.appendChild(head);
    moves.forEach(function (m) {
      var b = el("button", "pick-mv");
      b.type = "button"; b.dataset.move = m;
      b.appendChild(el("code", "", m));
      var why = explanation(m);
      if (why) b.appendChild(el("span", "why", " " + why));
      menu.appendChild(b);
    });
    host.appendChild(menu);
    var r = g.getBoundingClientRect(), h = host.getBoundingClientRect();
    var left = Math.max(0, Math.min(r.left - h.left, h.width - menu.offsetWidth));
    menu.style.left = left + "px";
    menu.style.top = (r.bottom - h.top + 4) + "px";
    menu.querySelector("button.pick-mv").focus({preventScroll: true});
    menu.scrollIntoView({block: "nearest"});
  }
  function pickFrom(g) {
    var moves = movesOf(g);
    if (!moves.length || !$("move-text")) return;
    if (moves.length === 1) fillMove(moves[0], g);
    else openMenu(g, moves);
  }
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && menu) { e.preventDefault(); closeMenu(true); return; }
    var g = e.target.closest && e.target.closest("#drawing [data-moves]");
    if (g && (e.key === "Enter" || e.key === " " || e.key === "Spacebar")) { e.preventDefault(); pickFrom(g); }
  });

  // ------------------------------------------------------------ history slider and replay
  // The board at the newest ply is the live one (its drawing offers the moves); an older ply's
  // comes from the board route (drawing and text, nothing to pick), the newest answer only.
  var playing = null, asking = 0;
  var live = {drawing: $("drawing") ? $("drawing").innerHTML : null, board: $("board") ? $("board").innerHTML : null};
  function swapBoard(parts) {
    ["drawing", "board"].forEach(function (id) {
      var mine = $(id);
      if (mine && typeof parts[id] === "string") mine.innerHTML = parts[id];
    });
    closeMenu();
    applyZoom();
    showView(stored(), false);
  }
  function showPly(v) {
    var s = $("ply-slider");
    if (!s) return;
    s.value = v;
    $("ply-label").textContent = s.value;
    var n = ++asking;
    // another seat's view (a finished game's replay: the seat menu) always comes from the board route
    var v = $("view-seat"), other = v && v.value !== "" ? "&seat=" + encodeURIComponent(v.value) : "";
    if (s.value === s.max && live.board !== null && !other) { swapBoard(live); return; }
    fetch("/games/" + gameId + "/board?ply=" + s.value + other + layoutArg(), {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        if (n !== asking) return;  // the slider moved on meanwhile
        var t = document.createElement("template");
        t.innerHTML = html;
        var parts = {};
        t.content.querySelectorAll("[data-part]").forEach(function (p) { parts[p.dataset.part] = p.innerHTML; });
        swapBoard(parts);
      })
      .catch(function () {});
  }
  function stopReplay() {
    if (playing) { clearInterval(playing); playing = null; }
    var b = $("ply-play"); if (b) b.textContent = "▶ " + T("replay");
  }
  document.addEventListener("change", function (e) {
    if (e.target.id === "view-seat" && $("ply-slider")) showPly($("ply-slider").value);
    // a visitor's header names the view shown (the public one, or a seat's once the game is over)
    if (e.target.id === "view-seat" && $("viewing")) $("viewing").textContent = e.target.selectedOptions[0].text;
  });
  document.addEventListener("input", function (e) {
    if (e.target.id === "ply-slider") { stopReplay(); showPly(e.target.value); }
    else if (e.target.id === "move-filter") filter(e.target);
    else if (e.target.id === "move-text") schedulePreview();
  });
  document.addEventListener("click", function (e) {
    var g = e.target.closest ? e.target.closest("#drawing [data-moves]") : null;
    if (g) { e.preventDefault(); pickFrom(g); return; }
    if (menu && !menu.contains(e.target)) closeMenu();
    var t = e.target.closest ? e.target.closest("button, a") : null;
    if (!t) return;
    var s = $("ply-slider");
    if (t.id === "show-picture" || t.id === "show-text") showView(t.id === "show-text" ? "text" : "picture", true);
    else if (t.id === "zoom-in" || t.id === "zoom-out" || t.id === "zoom-fit") {
      zoomBy(t.id === "zoom-in" ? 1 : t.id === "zoom-out" ? -1 : 0);
    } else if (t.classList.contains("pick-mv")) fillMove(t.dataset.move, menu && menu.opener);
    else if (t.classList.contains("pick-close")) closeMenu(true);
    else if (t.id === "ply-back" && s) { stopReplay(); showPly(Math.max(0, +s.value - 1)); }
    else if (t.id === "ply-fwd" && s) { stopReplay(); showPly(Math.min(+s.max, +s.value + 1)); }
    else if (t.id === "ply-play" && s) {
      if (playing) { stopReplay(); return; }
      if (+s.value >= +s.max) showPly(0);
      t.textContent = "■ " + T("stop");
      playing = setInterval(function () {
        if (+s.value >= +s.max) { stopReplay(); return; }
        showPly(+s.value + 1);
      }, 900);
    } else if (t.classList.contains("mv") && t.form && t.form.id === "legal") {
      // a legal move is picked, not sent: it goes into the move box with what it does
      e.preventDefault();
      var box = $("move-text");
      if (!box) return;
      box.value = t.value;
      preview(true);
    } else if (t.id === "older") {
      e.preventDefault();
      older(t);
    } else if (t.form && t.form.id === "thread-show" && t.value) {
      e.preventDefault();
      chooseShow(t);
    }
  });

  // ------------------------------------------------------------ the legal-move filter
  function filter(f) {
    var q = f.value.trim().toLowerCase();
    document.querySelectorAll("#legal details.group").forEach(function (d) {
      var shown = 0;
      d.querySelectorAll("button.mv").forEach(function (b) {
        var ok = !q || b.value.toLowerCase().indexOf(q) >= 0;
        b.hidden = !ok;
        if (ok) shown++;
      });
      d.hidden = shown === 0;
      if (q) d.open = shown > 0;
    });
  }

  // ------------------------------------------------------------ preview of the typed move
  var previewTimer = null, asked = "";
  function schedulePreview() {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(function () { preview(false); }, 350);
  }
  function el(tag, cls, text) {
    var x = document.createElement(tag);
    if (cls) x.className = cls;
    if (text !== undefined) x.textContent = text;
    return x;
  }
  function preview(focusSend) {
    var form = $("move-form"), box = $("move-text"), out = $("preview");
    if (!form || !box || !out) return;
    var text = box.value;
    if (!text.trim()) { out.innerHTML = ""; asked = ""; return; }
    asked = text;
    get(form.dataset.preview + "?text=" + encodeURIComponent(text)).then(function (p) {
      if (box.value !== text) return;  // typed on meanwhile: a newer preview follows
      out.innerHTML = "";
      var div;
      if (p.ok) {
        div = el("div", "preview ok"); div.appendChild(el("b", "", T("Sending this will:")));
        var ul = el("ul");
        p.moves.forEach(function (m) {
          var li = el("li"); li.appendChild(el("code", "", m.notation));
          li.appendChild(document.createTextNode(" — " + m.words)); ul.appendChild(li);
        });
        div.appendChild(ul);
      } else {
        div = el("div", "preview error"); div.appendChild(el("b", "", T("Not accepted as it stands:") + " "));
        div.appendChild(document.createTextNode(p.error));
        if (p.examples && p.examples.length) {
          div.appendChild(el("br")); div.appendChild(document.createTextNode(T("For example:") + " "));
          p.examples.forEach(function (x, i) {
            if (i) div.appendChild(document.createTextNode(", "));
            div.appendChild(el("code", "", x));
          });
        }
      }
      out.appendChild(div);
      if (focusSend) {
        var send = $("send");
        form.scrollIntoView({block: "nearest"});
        if (send) send.focus({preventScroll: true});
      }
    }).catch(function () {});
  }

  // ------------------------------------------------------------ the thread
  // Newest first, as the server draws it (templates/web/thread.html): a post or a notice is a line; a run of
  // moves of one turn or round (p.turn) is one folded line, "Ann, Bob — 6 moves", that opens on its moves. A
  // new move joins the line on top when it is of the same turn; an older page of posts joins the bottom one.
  var threadBox = $("thread"), TW = {}, plural = null;
  try { TW = JSON.parse((threadBox && threadBox.dataset.threadWords) || "{}"); } catch (e) { TW = {}; }
  try { plural = new Intl.PluralRules(document.documentElement.lang || "en"); } catch (e) { plural = null; }
  function movesWord(n) {  // "6 moves" in the page's language: its forms by plural category (threadview.plural_forms)
    var forms = TW.moves || {}, cat = plural ? plural.select(n) : (n === 1 ? "one" : "other");
    return (forms[cat] || forms.other || forms.many || "%(num)d").replace("%(num)d", String(n));
  }
  function postDiv(p, fresh) {
    var div = el("div", "post " + p.kind + (p.kind === "post" ? " talk" : "") + (p.to_seat !== null ? " private" : "") +
                 (fresh ? " fresh" : ""));
    div.dataset.id = p.id;
    if (p.kind === "notice" || p.kind === "admin" || p.to_seat !== null) {  // what must not scroll by unseen: marked
      var notice = p.kind === "notice" || p.kind === "admin";
      div.appendChild(el("span", "mark " + (notice ? "mark-notice" : "mark-private"),
                         notice ? (TW.Notice || "Notice") : (TW.Private || "Private")));
      div.appendChild(document.createTextNode(" "));
    }
    div.appendChild(el("span", "who", p.author));
    if (p.to) div.appendChild(el("span", "to", " → " + p.to + " " + T("(private)")));
    div.appendChild(el("span", "when", " " + p.at + (p.kind === "move" ? " · " + T("ply") + " " + p.ply + " · " + p.source : "")));
    var body = el("div", "body");
    if (p.kind === "move" && !p.hidden) {
      body.appendChild(document.createTextNode(T("played") + " "));
      body.appendChild(el("code", "", p.body));
    } else {
      body.textContent = p.body;
    }
    div.appendChild(body);
    return div;
  }
  function newFold(turn) {
    var d = el("details", "fold"), s = el("summary");
    d.dataset.turn = turn || "";
    s.appendChild(el("span", "fold-who"));
    s.appendChild(document.createTextNode(" — "));
    s.appendChild(el("span", "fold-count"));
    s.appendChild(document.createTextNode(" "));
    s.appendChild(el("span", "fold-plies"));
    s.appendChild(document.createTextNode(" "));
    s.appendChild(el("span", "when"));
    d.appendChild(s);
    d.appendChild(el("div", "fold-moves"));
    return d;
  }
  function summarize(d, p, newest) {  // the line's movers (in the order they first moved), count and plies
    var ps = d.querySelectorAll(".fold-moves > .post"), names = [];
    for (var i = ps.length - 1; i >= 0; i--) {
      var w = ps[i].querySelector(".who"), n = w ? w.textContent : "";
      if (names.indexOf(n) < 0) names.push(n);
    }
    d.querySelector(".fold-who").textContent = names.join(", ");
    d.querySelector(".fold-count").textContent = movesWord(ps.length);
    if (typeof p.ply === "number") {
      var lo = d.dataset.first === "" || d.dataset.first === undefined ? p.ply : Math.min(+d.dataset.first, p.ply);
      var hi = d.dataset.last === "" || d.dataset.last === undefined ? p.ply : Math.max(+d.dataset.last, p.ply);
      d.dataset.first = lo; d.dataset.last = hi;
      d.querySelector(".fold-plies").textContent = "· " + (lo === hi ? (TW.ply || "ply %(ply)s").replace("%(ply)s", lo)
        : (TW.plies || "plies %(first)s–%(last)s").replace("%(first)s", lo).replace("%(last)s", hi));
    }
    if (newest) d.querySelector("summary .when").textContent = p.at;
  }
  function foldFor(p, line, place) {  // the folded line a move goes into: ``line`` if of its turn, else a new one
    if (line && line.classList.contains("fold") && line.dataset.turn === (p.turn || "")) return line;
    var d = newFold(p.turn);
    place(d);
    return d;
  }
  function addNew(list) {  // newest first: each new post goes on top
    var none = $("no-posts"); if (none && list.length) none.remove();
    list.forEach(function (p) {
      if (p.id <= last) return;
      last = p.id;
      if (p.kind !== "move") { posts.insertBefore(postDiv(p, true), posts.firstChild); return; }
      var d = foldFor(p, posts.firstElementChild, function (x) { posts.insertBefore(x, posts.firstChild); });
      var box = d.querySelector(".fold-moves");
      box.insertBefore(postDiv(p, true), box.firstChild);
      summarize(d, p, true);
      d.classList.remove("fresh"); void d.offsetWidth; d.classList.add("fresh");  // the line says it changed
    });
  }
  function older(button) {
    get("/games/" + gameId + "/thread.json?before=" + first).then(function (data) {
      data.posts.slice().reverse().forEach(function (p) {  // the newest of them first: each goes below the rest
        if (p.kind !== "move") { posts.appendChild(postDiv(p, false)); return; }
        var fresh = false;
        var d = foldFor(p, posts.lastElementChild, function (x) { posts.appendChild(x); fresh = true; });
        d.querySelector(".fold-moves").appendChild(postDiv(p, false));
        summarize(d, p, fresh);
      });
      if (data.posts.length) first = data.posts[0].id;
      if (!data.older) button.parentNode.remove();
    }).catch(function () {});
  }

  // Talk / Moves / All: shown at once (#thread's data-show: the stylesheet hides the rest), then kept: a
  // player's choice with the account (the form posts it, as it does without this script), a visitor's in
  // the address (?thread=), so a reload keeps it
  function chooseShow(b) {
    var form = b.form;
    if (threadBox) threadBox.dataset.show = b.value;
    form.querySelectorAll("button[value]").forEach(function (x) { x.setAttribute("aria-pressed", String(x === b)); });
    if ((form.getAttribute("method") || "get").toLowerCase() === "post") {
      var body = new FormData(form);
      body.set("show", b.value);
      fetch(form.action, {method: "POST", body: body, credentials: "same-origin", headers: {"Accept": "application/json"}})
        .catch(function () {});
    } else {
      var u = new URL(location.href);
      u.searchParams.set("thread", b.value);
      history.replaceState(null, "", u.pathname + u.search + u.hash);
    }
  }

  // ------------------------------------------------------------ the tab's title and icon
  // While it is the reader's turn the tab's title starts with "Your turn" (in the page's language) and its
  // icon has a dot: the server writes both versions on the script's element, a poll says which holds.
  var me = document.getElementById("game-js");
  function turnSignals(yours) {
    if (!me) return;
    document.title = yours ? me.dataset.titleTurn : me.dataset.title;
    var old = $("favicon"), href = yours ? me.dataset.iconTurn : me.dataset.icon;
    if (!old || old.getAttribute("href") === href) return;
    var icon = old.cloneNode(false);  // a new element: some browsers ignore a changed href
    icon.setAttribute("href", href);
    old.parentNode.replaceChild(icon, old);
  }

  // ------------------------------------------------------------ live news
  function typing() {
    var t = $("move-text");
    return t && (t.value.trim() !== "" || document.activeElement === t);
  }
  function applyParts(parts) {
    var s = $("ply-slider"), atEnd = !s || s.value === s.max;
    Object.keys(parts).forEach(function (id) {
      if (id === "board" || id === "drawing") {
        live[id] = parts[id];  // the newest board, for the slider's way back to it
        if (!atEnd) return;  // looking at history: leave it
      }
      if (id === "move" && typing()) return;  // never take away what is being typed
      var mine = $(id);
      if (mine) mine.innerHTML = parts[id];
    });
    if (atEnd && parts.drawing !== undefined) { closeMenu(); applyZoom(); showView(stored(), false); }
    keyboardScroll();
    var ply = stamp.split(":")[0];
    if (s) {
      s.max = ply;
      $("ply-max").textContent = ply;
      if (atEnd) { s.value = ply; $("ply-label").textContent = ply; }
    }
    var cur = $("cur-ply"); if (cur) cur.textContent = ply;
  }
  function news(data) {
    addNew(data.posts || []);
    var was = stamp;
    stamp = data.stamp;
    if (typeof data.your_turn === "boolean") turnSignals(data.your_turn);
    if (data.parts) {
      if ((was.split(":")[1] === "open") !== (data.status === "open") || !$("board")) { location.reload(); return; }
      applyParts(data.parts);
    }
  }
  function schedule(ms) { clearTimeout(timer); timer = setTimeout(ask, ms); }

  // the event stream: one open while the page may stream; each "news" makes the page fetch what changed
  var source = null, drops = 0, opened = 0, streamAgain = null, streams = 0, pending = false;
  function streaming() {
    return mode === "push" && typeof window.EventSource === "function" && streamAgain === null;
  }
  function closeStream() { if (source) { source.close(); source = null; } }
  function openStream() {
    var es = new EventSource("/games/" + gameId + "/live?after=" + last + "&stamp=" + encodeURIComponent(stamp));
    source = es;
    streams++;
    es.onopen = function () { opened = Date.now(); };
    es.addEventListener("news", function () {
      if (source !== es) return;
      drops = 0;
      if (inflight) { pending = true; return; }  // asked again when the fetch in flight is answered
      fetchNews();
    });
    es.onerror = function () {
      if (source !== es) return;
      // a stream that ended (the server's time for one is up, or the connection dropped) is opened again from
      // what the page now shows; a refusal (the server holds all the streams it may), or drops again and
      // again: the long poll meanwhile, the stream again later
      if (opened && Date.now() - opened > 30000) drops = 0;  // a long stream that ended: no failure
      drops++;
      var refused = es.readyState === EventSource.CLOSED && !opened;
      closeStream();
      opened = 0;
      if (refused || drops >= 3) {
        var again = Math.min(10000 * Math.pow(2, Math.min(drops, 5)), 300000);
        streamAgain = setTimeout(function () { streamAgain = null; schedule(0); }, again);
        schedule(0);
      } else {
        schedule(3000);
      }
    };
  }
  function fetchNews() {
    inflight = true;
    get("/games/" + gameId + "/thread.json?after=" + last + "&stamp=" + encodeURIComponent(stamp) + "&wait=0" +
        layoutArg())
      .then(function (data) {
        inflight = false; failures = 0; news(data);
        if (pending) { pending = false; fetchNews(); } else { schedule(0); }
      })
      .catch(function () {
        inflight = false; failures++;
        schedule(Math.min(2000 * Math.pow(2, failures), 60000));
      });
  }

  function ask() {
    if (inflight) return;
    if (streaming()) {
      if (!source) openStream();
      return;
    }
    inflight = true;
    // a hidden tab holds no worker: it asks once a minute (for its title and icon), and catches up when shown
    var wait = mode === "push" && !document.hidden ? WAIT : 0;
    var started = Date.now();
    get("/games/" + gameId + "/thread.json?after=" + last + "&stamp=" + encodeURIComponent(stamp) + "&wait=" + wait +
        layoutArg())
      .then(function (data) {
        inflight = false; failures = 0; news(data);
        var news_ = data.posts.length || data.parts;
        if (document.hidden) {
          schedule(HIDDEN_EVERY);
        } else if (mode === "push" && (news_ || (data.held && Date.now() - started > 1000))) {
          pollEvery = 5000;
          schedule(0);  // a long poll answered: ask again at once
        } else if (mode === "push") {
          // not held (a server that cannot hold requests, or enough of them held already), or cut short
          // by something between us: ask again later, less often while nothing happens
          pollEvery = Math.min(pollEvery * 1.5, 60000);
          schedule(pollEvery);
        } else {
          pollEvery = (data.posts.length || data.parts) ? 5000 : Math.min(pollEvery * 1.5, 60000);
          schedule(pollEvery);
        }
      })
      .catch(function () {
        inflight = false; failures++;
        if (failures >= 3) mode = "poll";
        schedule(document.hidden ? HIDDEN_EVERY : Math.min(2000 * Math.pow(2, failures), 60000));
      });
  }
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { pollEvery = 5000; schedule(0); }
  });
  showView(stored(), false);
  keyboardScroll();
  window.addEventListener("resize", keyboardScroll);
  window.addEventListener("resize", scrollable);
  scrollable();

  // a move's result (the server flashed it next to the move box): in view, and read out
  var result = $("result");
  if (result && result.children.length) {
    result.scrollIntoView({block: "start"});
    result.focus({preventScroll: true});
  }

  window.pbemLive = function () {  // for the tests
    return {mode: mode, stamp: stamp, last: last, streams: streams, streaming: source !== null};
  };
  schedule(mode === "push" ? 300 : pollEvery);
})();
