/* papercat: filter a venue's papers by topic and sort them by title (venues/*.html).
 *
 * Progressive enhancement: the page lists every paper grouped by main topic without JavaScript;
 * this script reveals the controls (hidden in the HTML) and then only moves and hides the cards
 * the page already has. The state lives in the URL (?topic=SLUG&sort=title), so a filtered view
 * can be shared, reloaded, and left with the Back button.
 */
(function () {
  "use strict";

  function start() {
    var form = document.getElementById("venue-controls");
    var topic = document.getElementById("venue-topic");
    var sort = document.getElementById("venue-sort");
    var count = document.getElementById("venue-count");
    var flat = document.getElementById("venue-flat");
    if (!form || !topic || !sort || !count || !flat) return;

    var flatList = flat.querySelector("ol");
    var flatCount = flat.querySelector(".count");
    var toc = document.querySelector("main .toc");
    var groups = Array.prototype.map.call(document.querySelectorAll(".venue-group"), function (section) {
      var heading = section.querySelector("h2");
      var chip = toc && heading ? toc.querySelector('a[href="#' + heading.id + '"]') : null;
      return {
        section: section,
        list: section.querySelector("ol"),
        count: heading ? heading.querySelector(".count") : null,
        chip: chip,
        chipCount: chip ? chip.querySelector(".count") : null,
        cards: Array.prototype.slice.call(section.querySelectorAll("li.card[data-position]"))
      };
    });
    var cards = [];
    groups.forEach(function (group) { cards = cards.concat(group.cards); });
    var total = cards.length;
    var lang = document.documentElement.lang || undefined;
    var collator = new Intl.Collator(lang, { numeric: true });
    var byTitle = cards.slice().sort(function (a, b) {
      return collator.compare(a.dataset.title, b.dataset.title) || a.dataset.position - b.dataset.position;
    });

    function topicsOf(card) {
      return (card.dataset.topics || "").split(/\s+/).filter(Boolean);
    }

    function known(select, value) {
      return Array.prototype.some.call(select.options, function (option) { return option.value === value; });
    }

    function state() {
      return { topic: topic.value, sort: sort.value };
    }

    function fromUrl() {
      var params = new URLSearchParams(location.search);
      var wanted = { topic: params.get("topic") || "", sort: params.get("sort") || "" };
      topic.value = known(topic, wanted.topic) ? wanted.topic : "";
      sort.value = known(sort, wanted.sort) ? wanted.sort : "";
    }

    function toUrl(push) {
      var now = state();
      var params = new URLSearchParams(location.search);
      params.delete("topic");
      params.delete("sort");
      if (now.topic) params.set("topic", now.topic);
      if (now.sort) params.set("sort", now.sort);
      var query = params.toString();
      // a filter change drops the #fragment: the section it pointed at may be hidden now
      var hash = push ? "" : location.hash;
      var url = location.href.split("#")[0].split("?")[0] + (query ? "?" + query : "") + hash;
      if (url === location.href) return;
      try {
        history[push ? "pushState" : "replaceState"](null, "", url);
      } catch (error) { /* some browsers refuse history changes on file:// pages */ }
    }

    function render() {
      var now = state();
      var shown = 0;
      cards.forEach(function (card) {
        var match = !now.topic || topicsOf(card).indexOf(now.topic) >= 0;
        card.hidden = !match;
        if (match) shown += 1;
      });

      if (now.sort === "title") {
        byTitle.forEach(function (card) { flatList.appendChild(card); });
        groups.forEach(function (group) { group.section.hidden = true; });
        if (toc) toc.hidden = true;
        flat.hidden = false;
        if (flatCount) flatCount.textContent = String(shown);
      } else {
        flat.hidden = true;
        if (toc) toc.hidden = false;
        groups.forEach(function (group) {
          var visible = 0;
          group.cards.forEach(function (card) {
            group.list.appendChild(card); // back in listing order: the group's cards are kept in it
            if (!card.hidden) visible += 1;
          });
          group.section.hidden = visible === 0;
          if (group.count) group.count.textContent = String(visible);
          if (group.chip) {
            group.chip.parentNode.hidden = visible === 0;
            if (group.chipCount) group.chipCount.textContent = String(visible);
          }
        });
      }

      var text = shown + " of " + total + " paper" + (total === 1 ? "" : "s");
      if (count.textContent !== text) count.textContent = text;
    }

    function changed() {
      render();
      toUrl(true);
    }

    topic.addEventListener("change", changed);
    sort.addEventListener("change", changed);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    window.addEventListener("popstate", function () {
      fromUrl();
      render();
    });

    fromUrl();
    render();
    toUrl(false); // an unknown topic or order in the URL is dropped from it
    form.hidden = false;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
