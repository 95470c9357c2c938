// The game page: history slider, legal-move filter, and polling the thread
// (new posts and moves appear without a reload; a new ply refreshes the board).
(function () {
  "use strict";
  var posts = document.getElementById("posts");
  if (!posts) return;
  var gameId = posts.dataset.game;
  var ply = parseInt(posts.dataset.ply, 10);
  var last = parseInt(posts.dataset.last, 10) || 0;

  function slider() { return document.getElementById("ply-slider"); }

  function bindSlider() {
    var s = slider();
    if (!s) return;
    s.addEventListener("input", function () {
      document.getElementById("ply-label").textContent = s.value;
      fetch("/games/" + gameId + "/board?ply=" + s.value, {credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) { document.getElementById("board").innerHTML = html; })
        .catch(function () {});
    });
  }

  function bindFilter() {
    var f = document.getElementById("move-filter");
    if (!f) return;
    f.addEventListener("input", function () {
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
    });
  }

  function addPost(p) {
    var div = document.createElement("div");
    div.className = "post " + p.kind + (p.to_seat !== null ? " private" : "") + " fresh";
    div.dataset.id = p.id;
    var who = document.createElement("span"); who.className = "who"; who.textContent = p.author;
    div.appendChild(who);
    if (p.to) {
      var to = document.createElement("span"); to.className = "muted"; to.textContent = " → " + p.to + " (private)";
      div.appendChild(to);
    }
    var when = document.createElement("span"); when.className = "when";
    when.textContent = " " + p.at + (p.kind === "move" ? " · ply " + p.ply + " · " + p.source : "");
    div.appendChild(when);
    var body = document.createElement("div"); body.className = "body";
    if (p.kind === "move" && p.hidden) {
      body.textContent = p.body;
    } else if (p.kind === "move") {
      body.appendChild(document.createTextNode("played "));
      var c = document.createElement("code"); c.textContent = p.body; body.appendChild(c);
    } else {
      body.textContent = p.body;
    }
    div.appendChild(body);
    posts.appendChild(div);
  }

  function typing() {
    var t = document.getElementById("move-text");
    return t && t.value.trim() !== "";
  }

  function refreshLive() {
    // swap the parts that depend on the ply, leaving what the user is typing
    fetch(location.pathname, {credentials: "same-origin"}).then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var ids = ["status", "log", "scores", "players"];
        var s = slider();
        if (!s || s.value === s.max) ids.push("board");
        if (!typing()) ids.push("move");
        ids.forEach(function (id) {
          var mine = document.getElementById(id), theirs = doc.getElementById(id);
          if (mine && theirs) mine.innerHTML = theirs.innerHTML;
        });
        var ns = doc.getElementById("ply-slider");
        if (s && ns) {
          var atEnd = s.value === s.max;
          s.max = ns.max;
          if (atEnd) { s.value = ns.max; document.getElementById("ply-label").textContent = ns.max; }
          var lab = s.parentNode.querySelector("label");
          if (lab) lab.lastChild.textContent = " of " + ns.max;
        }
        bindFilter();
      });
  }

  function poll() {
    fetch("/games/" + gameId + "/thread.json?after=" + last, {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) {
        var notice = false;  // a take-back or an undo changes the board without a new ply (issue 20)
        data.posts.forEach(function (p) { if (p.id > last) { addPost(p); last = p.id; notice = notice || p.kind === "notice"; } });
        if (data.status !== posts.dataset.status && posts.dataset.status === "open") { location.reload(); return; }
        if (data.ply !== ply || notice) {
          ply = data.ply;
          if (document.getElementById("board")) refreshLive(); else location.reload();
        }
      })
      .catch(function () {})
      .then(function () { setTimeout(poll, 2500); });
  }

  bindSlider();
  bindFilter();
  setTimeout(poll, 2500);
})();
