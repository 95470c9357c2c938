// The game page: the history slider and replay, the legal-move filter, a
// move's preview before it is sent, and live news. News comes by long poll
// (thread.json?wait=: the server answers as soon as a post or a move arrives,
// or empty after at most 25 s) and carries only what changed: the new posts,
// and the page's parts a new ply changes. While the tab is hidden nothing is
// asked; after repeated failures, or with ?live=poll, the page falls back to
// plain polling with a growing interval.
(function () {
  "use strict";
  var posts = document.getElementById("posts");
  if (!posts) return;
  var gameId = posts.dataset.game;
  var stamp = posts.dataset.stamp || "";
  var last = parseInt(posts.dataset.last, 10) || 0;
  var first = parseInt(posts.dataset.first, 10) || 0;
  var mode = /[?&]live=poll\b/.test(location.search) ? "poll" : "push";
  var WAIT = 25, failures = 0, pollEvery = 5000, inflight = false, timer = null;

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

  // ------------------------------------------------------------ history slider and replay
  var playing = null;
  function showPly(v) {
    var s = $("ply-slider");
    if (!s) return;
    s.value = v;
    $("ply-label").textContent = s.value;
    fetch("/games/" + gameId + "/board?ply=" + s.value, {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) { $("board").innerHTML = html; keyboardScroll(); })
      .catch(function () {});
  }
  function stopReplay() {
    if (playing) { clearInterval(playing); playing = null; }
    var b = $("ply-play"); if (b) b.textContent = "▶ replay";
  }
  document.addEventListener("input", function (e) {
    if (e.target.id === "ply-slider") { stopReplay(); showPly(e.target.value); }
    else if (e.target.id === "move-filter") filter(e.target);
    else if (e.target.id === "move-text") schedulePreview();
  });
  document.addEventListener("click", function (e) {
    var t = e.target.closest ? e.target.closest("button, a") : null;
    if (!t) return;
    var s = $("ply-slider");
    if (t.id === "ply-back" && s) { stopReplay(); showPly(Math.max(0, +s.value - 1)); }
    else if (t.id === "ply-fwd" && s) { stopReplay(); showPly(Math.min(+s.max, +s.value + 1)); }
    else if (t.id === "ply-play" && s) {
      if (playing) { stopReplay(); return; }
      if (+s.value >= +s.max) showPly(0);
      t.textContent = "■ stop";
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
        div = el("div", "preview ok"); div.appendChild(el("b", "", "Sending this will:"));
        var ul = el("ul");
        p.moves.forEach(function (m) {
          var li = el("li"); li.appendChild(el("code", "", m.notation));
          li.appendChild(document.createTextNode(" — " + m.words)); ul.appendChild(li);
        });
        div.appendChild(ul);
      } else {
        div = el("div", "preview error"); div.appendChild(el("b", "", "Not accepted as it stands: "));
        div.appendChild(document.createTextNode(p.error));
        if (p.examples && p.examples.length) {
          div.appendChild(el("br")); div.appendChild(document.createTextNode("For example: "));
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
  function postDiv(p, fresh) {
    var div = el("div", "post " + p.kind + (p.to_seat !== null ? " private" : "") + (fresh ? " fresh" : ""));
    div.dataset.id = p.id;
    div.appendChild(el("span", "who", p.author));
    if (p.to) div.appendChild(el("span", "to", " → " + p.to + " (private)"));
    div.appendChild(el("span", "when", " " + p.at + (p.kind === "move" ? " · ply " + p.ply + " · " + p.source : "")));
    var body = el("div", "body");
    if (p.kind === "move" && !p.hidden) {
      body.appendChild(document.createTextNode("played "));
      body.appendChild(el("code", "", p.body));
    } else {
      body.textContent = p.body;
    }
    div.appendChild(body);
    return div;
  }
  function addNew(list) {  // newest first: each new post goes on top
    var none = $("no-posts"); if (none && list.length) none.remove();
    list.forEach(function (p) {
      if (p.id > last) { posts.insertBefore(postDiv(p, true), posts.firstChild); last = p.id; }
    });
  }
  function older(button) {
    get("/games/" + gameId + "/thread.json?before=" + first).then(function (data) {
      data.posts.slice().reverse().forEach(function (p) { posts.appendChild(postDiv(p, false)); });
      if (data.posts.length) first = data.posts[0].id;
      if (!data.older) button.parentNode.remove();
    }).catch(function () {});
  }

  // ------------------------------------------------------------ live news
  function typing() {
    var t = $("move-text");
    return t && (t.value.trim() !== "" || document.activeElement === t);
  }
  function applyParts(parts) {
    var s = $("ply-slider"), atEnd = !s || s.value === s.max;
    Object.keys(parts).forEach(function (id) {
      if (id === "board" && !atEnd) return;  // looking at history: leave it
      if (id === "move" && typing()) return;  // never take away what is being typed
      var mine = $(id);
      if (mine) mine.innerHTML = parts[id];
    });
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
    if (data.parts) {
      if ((was.split(":")[1] === "open") !== (data.status === "open") || !$("board")) { location.reload(); return; }
      applyParts(data.parts);
    }
  }
  function schedule(ms) { clearTimeout(timer); timer = setTimeout(ask, ms); }
  function ask() {
    if (inflight || document.hidden) return;  // a hidden tab asks nothing; it catches up when shown
    inflight = true;
    var wait = mode === "push" ? WAIT : 0;
    var started = Date.now();
    get("/games/" + gameId + "/thread.json?after=" + last + "&stamp=" + encodeURIComponent(stamp) + "&wait=" + wait)
      .then(function (data) {
        inflight = false; failures = 0; news(data);
        var news_ = data.posts.length || data.parts;
        if (mode === "push" && (news_ || (data.held && Date.now() - started > 1000))) {
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
        schedule(Math.min(2000 * Math.pow(2, failures), 60000));
      });
  }
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { pollEvery = 5000; schedule(0); }
  });
  keyboardScroll();
  window.addEventListener("resize", keyboardScroll);

  // a move's result (the server flashed it next to the move box): in view, and read out
  var result = $("result");
  if (result && result.children.length) {
    result.scrollIntoView({block: "start"});
    result.focus({preventScroll: true});
  }

  window.pbemLive = function () { return {mode: mode, stamp: stamp, last: last}; };  // for the tests
  schedule(mode === "push" ? 300 : pollEvery);
})();
