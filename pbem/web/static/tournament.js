// A tournament's page kept up to date: its stream (…/live, Server-Sent Events, which carries nothing
// but "news") says that what the page shows has changed; the page then fetches itself again and puts
// in the new standings and tables (#tournament-live), as its viewer may see them. Without
// EventSource, or when the stream keeps failing, it polls the page every POLL_MS and swaps the part
// when its stamp changed. Without script, the page reloads itself every minute (a <noscript> refresh).
(function () {
  "use strict";
  var POLL_MS = 30000;
  var box = document.getElementById("tournament-live");
  if (!box || !box.getAttribute("data-live")) { return; }
  var stream = box.getAttribute("data-live");
  var failures = 0;

  function stamp() { return box.getAttribute("data-stamp") || ""; }

  function refresh() {
    return fetch(location.pathname, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (!html) { return; }
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("tournament-live");
      if (fresh && fresh.getAttribute("data-stamp") !== stamp()) {
        box.innerHTML = fresh.innerHTML;
        box.setAttribute("data-stamp", fresh.getAttribute("data-stamp"));
        var state = new DOMParser().parseFromString(html, "text/html").getElementById("tournament-state");
        var here = document.getElementById("tournament-state");
        if (state && here) { here.textContent = state.textContent; }
      }
    }).catch(function () {});
  }

  function poll() {
    refresh().then(function () { setTimeout(poll, POLL_MS); });
  }

  function listen() {
    var es = new EventSource(stream + "?stamp=" + encodeURIComponent(stamp()));
    es.addEventListener("news", function () { failures = 0; refresh(); });
    es.onerror = function () {
      failures += 1;
      if (failures >= 3 || es.readyState === EventSource.CLOSED) {
        es.close();
        // the stream failed again and again (a proxy cutting it, the server full): poll instead
        if (failures >= 3) { poll(); } else { setTimeout(listen, 3000); }
      }
    };
  }

  if (typeof window.EventSource === "function" && !/[?&]live=poll\b/.test(location.search)) { listen(); } else { poll(); }
})();
