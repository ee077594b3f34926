/* papercat search, loaded with <script defer> on every page.
 *
 * Every page: "/" focuses the search box. The search page (search/index.html): results as you
 * type, computed by a Web Worker (static/search-worker.js) so typing never waits for lunr; the
 * query and the filters live in the URL. Where no Worker can start (some browsers on file://),
 * the same engine runs on the main thread.
 *
 * Text from the index (titles, snippets) only ever reaches the page through textContent.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || !script.src || typeof URL !== "function") return;

  // Everything is found relative to this file, so the site works under any sub-path.
  var STATIC = new URL("./", script.src);
  var ROOT = new URL("../", STATIC);
  var DATA = new URL("search/", ROOT);
  var WORKER_URL = new URL("search-worker.js", STATIC).href;
  var LUNR_URL = new URL("vendor/lunr/lunr.js", STATIC).href;
  var ENGINE_URL = new URL("search/engine.js", STATIC).href;
  var DEBOUNCE_MS = 150;
  var PAGE_SIZE = 10;  // the first page of results is what the 1 MB first-result budget is measured on
  var SLOW_MS = 400;

  // --- the engine: in a Worker, else on the main thread ------------------------------------------

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = src;
      tag.async = false;
      tag.onload = function () { resolve(); };
      tag.onerror = function () { reject(new Error(src + " could not be loaded")); };
      document.head.appendChild(tag);
    });
  }

  /* Returns {post(message)}; each reply, {id, total, results} or {id, error}, goes to onReply.
   * With mainThread false (a warm-up from another page) a failed Worker is simply given up. */
  function makeSearcher(onReply, mainThread) {
    var worker = null;
    var engine = null; // a promise of the main-thread engine, once the Worker is given up
    var last = null;

    function runOnMainThread(message) {
      engine.then(function () { return window.PapercatSearch.answer(engine, message); },
                  function (error) { return { id: message.id, error: String((error && error.message) || error) }; })
        .then(onReply);
    }

    function giveUpWorker() {
      if (engine) return;
      if (worker) worker.terminate();
      worker = null;
      if (!mainThread) { // a warm-up only: nothing to fall back to
        engine = Promise.resolve(null);
        return;
      }
      engine = loadScript(LUNR_URL)
        .then(function () { return loadScript(ENGINE_URL); })
        .then(function () {
          return window.PapercatSearch.createEngine({
            lunr: window.lunr, fetchJson: window.PapercatSearch.fetchFrom(DATA),
          });
        });
      if (last) runOnMainThread(last);
    }

    function startWorker() {
      if (typeof Worker !== "function") {
        giveUpWorker();
        return;
      }
      try {
        worker = new Worker(WORKER_URL);
      } catch (error) { // e.g. a SecurityError for a page opened from file://
        giveUpWorker();
        return;
      }
      worker.onmessage = function (event) { onReply(event.data); };
      worker.onerror = function (event) { // the worker or its scripts failed to load
        event.preventDefault();
        giveUpWorker();
      };
    }

    function post(message) {
      last = message;
      if (!worker && !engine) {
        startWorker(); // if it fails, the main thread takes over and answers `last`
        if (!worker) return;
      }
      if (worker) worker.postMessage(message);
      else if (mainThread) runOnMainThread(message);
    }

    return { post: post };
  }

  // --- small DOM helpers -------------------------------------------------------------------------

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function isTyping(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable;
  }

  function optionLabels(select) {
    var labels = {};
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value) labels[select.options[i].value] = select.options[i].textContent;
    }
    return labels;
  }

  function selectValue(select, value) {
    select.value = Object.prototype.hasOwnProperty.call(optionLabels(select), value) ? value : "";
  }

  /* A paper's link: the index gives site-relative URLs; anything leaving the site is not linked. */
  function paperHref(url) {
    try {
      var target = new URL(String(url), ROOT);
      return target.href.indexOf(ROOT.href) === 0 ? target.href : null;
    } catch (error) {
      return null;
    }
  }

  // --- the search page ---------------------------------------------------------------------------

  function searchPage(form) {
    var input = document.getElementById("search-q");
    var venue = document.getElementById("search-venue");
    var topic = document.getElementById("search-topic");
    var status = document.getElementById("search-status");
    var list = document.getElementById("search-results");
    var more = document.getElementById("search-more");
    var message = document.getElementById("search-message");
    if (!input || !venue || !topic || !status || !list || !more || !message) return null;

    var venueLabels = optionLabels(venue);
    var topicNames = optionLabels(topic);
    var searcher = makeSearcher(show, true);
    var counter = 0; // every request gets the next number; only the latest one's reply is shown
    var latest = 0;
    var asked = ""; // the request last sent, to skip sending the same one twice
    var askedState = null; // what the latest request searched for, for the status line
    var limit = PAGE_SIZE;
    var typingTimer = 0;
    var slowTimer = 0;
    var focusAfter = -1; // after "Show more", focus the first new result

    function state() {
      return { q: input.value.trim(), venue: venue.value, topic: topic.value };
    }

    function fromUrl() {
      var params = new URLSearchParams(location.search);
      input.value = params.get("q") || "";
      selectValue(venue, params.get("venue") || "");
      selectValue(topic, params.get("topic") || "");
    }

    function toUrl(push) {
      var now = state();
      var params = new URLSearchParams();
      if (now.q) params.set("q", now.q);
      if (now.venue) params.set("venue", now.venue);
      if (now.topic) params.set("topic", now.topic);
      var query = params.toString();
      var url = location.href.split("#")[0].split("?")[0] + (query ? "?" + query : "");
      if (url === location.href) return;
      try {
        history[push ? "pushState" : "replaceState"](null, "", url);
      } catch (error) { /* some browsers refuse history changes on file:// pages */ }
    }

    function filtersText(now) {
      var parts = [];
      if (now.venue) parts.push(venueLabels[now.venue]);
      if (now.topic) parts.push(topicNames[now.topic]);
      return parts.length ? " (" + parts.join(", ") + ")" : "";
    }

    function clear() {
      list.replaceChildren();
      more.hidden = true;
      status.textContent = "";
    }

    function search(fromStart) {
      clearTimeout(typingTimer);
      if (fromStart) limit = PAGE_SIZE;
      var now = state();
      var key = JSON.stringify([now.q, now.venue, now.topic, limit]);
      if (key === asked) return;
      asked = key;
      askedState = now;
      latest = ++counter;
      clearTimeout(slowTimer);
      if (!now.q) {
        clear();
        return;
      }
      slowTimer = setTimeout(function () { status.textContent = "Searching…"; }, SLOW_MS);
      searcher.post({ id: latest, query: now.q, venue: now.venue || null, topic: now.topic || null,
        limit: limit });
    }

    function showProblem(error) {
      status.textContent = "Search is not available.";
      list.replaceChildren();
      more.hidden = true;
      var box = message;
      box.replaceChildren();
      var venues = make("a", null, "venue");
      venues.href = new URL("venues/index.html", ROOT).href;
      var topics = make("a", null, "topic");
      topics.href = new URL("topics/index.html", ROOT).href;
      if (location.protocol === "file:") {
        box.appendChild(make("p", null, "Search cannot run on a page opened from a file: the browser " +
          "does not let it read the search index (search/*.json) from disk."));
        var how = make("p", null, "Serve the site folder over HTTP instead, for example with ");
        how.appendChild(make("code", null, "python3 -m http.server"));
        how.appendChild(document.createTextNode(" in that folder, then open http://localhost:8000/."));
        box.appendChild(how);
      } else {
        box.appendChild(make("p", null, "Search could not load its index: " + error + "."));
      }
      var browse = make("p", null, "Every paper is also listed by ");
      browse.appendChild(venues);
      browse.appendChild(document.createTextNode(" and by "));
      browse.appendChild(topics);
      browse.appendChild(document.createTextNode("."));
      box.appendChild(browse);
      box.hidden = false;
    }

    function resultItem(result, index) {
      var item = make("li", "result");
      var heading = make("h2", "result-title");
      var href = paperHref(result.url);
      var title = make(href ? "a" : "span", null, result.title);
      if (href) {
        title.href = href;
        title.tabIndex = index === 0 ? 0 : -1; // roving focus: the list is one Tab stop
      }
      heading.appendChild(title);
      item.appendChild(heading);

      var meta = make("p", "result-meta");
      (result.venues || []).forEach(function (slug) {
        meta.appendChild(make("span", "badge", venueLabels[slug] || slug));
        meta.appendChild(document.createTextNode(" "));
      });
      (result.topics || []).forEach(function (slug) {
        meta.appendChild(make("span", "chip", topicNames[slug] || slug));
        meta.appendChild(document.createTextNode(" "));
      });
      item.appendChild(meta);

      var snippet = make("p", "result-snippet");
      (result.snippet || []).forEach(function (part) {
        snippet.appendChild(part.hit ? make("mark", null, part.text) : document.createTextNode(part.text));
      });
      item.appendChild(snippet);
      return item;
    }

    function show(reply) {
      if (!reply || reply.id !== latest) return; // a stale answer: the query has moved on
      if (reply.warm) return; // the index is loaded; a failure to load it is shown below
      clearTimeout(slowTimer);
      if (reply.error) {
        asked = ""; // let the same search be tried again
        showProblem(reply.error);
        return;
      }
      message.hidden = true;
      var now = askedState;
      var results = reply.results || [];
      var total = reply.total || 0;
      var quoted = "“" + now.q + "”" + filtersText(now);
      status.textContent = total === 0 ? "No results for " + quoted + ". Try other words or fewer filters."
        : total + (total === 1 ? " result" : " results") + " for " + quoted;
      var items = document.createDocumentFragment();
      results.forEach(function (result, index) { items.appendChild(resultItem(result, index)); });
      list.replaceChildren(items);
      more.hidden = results.length >= total;
      more.textContent = "Show more results (" + results.length + " of " + total + " shown)";
      if (focusAfter >= 0) {
        var target = focusAfter;
        focusAfter = -1;
        if (links()[target]) focusResult(target);
      }
    }

    function links() {
      return Array.prototype.slice.call(list.querySelectorAll(".result-title a"));
    }

    function focusResult(index) {
      var all = links();
      all.forEach(function (link, i) { link.tabIndex = i === index ? 0 : -1; });
      all[index].focus();
    }

    input.addEventListener("input", function () {
      clearTimeout(typingTimer);
      typingTimer = setTimeout(function () {
        toUrl(false);
        search(true);
      }, DEBOUNCE_MS);
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" && links().length) {
        event.preventDefault();
        focusResult(0);
      }
    });
    [venue, topic].forEach(function (select) {
      select.addEventListener("change", function () {
        toUrl(true);
        search(true);
      });
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      toUrl(true);
      search(true);
    });
    list.addEventListener("keydown", function (event) {
      var all = links();
      var at = all.indexOf(document.activeElement);
      if (at < 0) return;
      var to = null;
      if (event.key === "ArrowDown") to = Math.min(at + 1, all.length - 1);
      else if (event.key === "ArrowUp") to = at - 1;
      else if (event.key === "Home") to = 0;
      else if (event.key === "End") to = all.length - 1;
      else if (event.key === "Escape") to = -1;
      else return;
      event.preventDefault();
      if (to < 0) input.focus();
      else focusResult(to);
    });
    more.addEventListener("click", function () {
      focusAfter = links().length;
      limit += PAGE_SIZE;
      search(false);
    });
    window.addEventListener("popstate", function () {
      fromUrl();
      search(true);
    });
    fromUrl();
    if (state().q) search(true);
    else searcher.post({ id: (latest = ++counter), warm: true }); // load the index while the reader types
    return input;
  }

  // --- every page --------------------------------------------------------------------------------

  function start() {
    var header = document.getElementById("site-search-q");
    var form = document.getElementById("search-form");
    var pageInput = form ? searchPage(form) : null;

    if (header && !pageInput) {
      // From another page, Enter submits the header form to the search page (no script needed);
      // typing only warms the browser's cache with the index, in a Worker, so that page opens fast.
      header.addEventListener("input", function warm() {
        header.removeEventListener("input", warm);
        makeSearcher(function () {}, false).post({ id: 0, warm: true });
      });
    }

    document.addEventListener("keydown", function (event) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.defaultPrevented || isTyping(event.target)) return;
      var target = pageInput || header;
      if (!target) return;
      event.preventDefault();
      target.focus();
      target.select();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
