/* papercat search worker: started by static/search.js, it loads lunr.js and the search engine
 * once and answers {id, query, venue, topic, limit} messages with {id, total, results}, or
 * {id, error}. Only the newest waiting message is answered; the page drops any older reply.
 * Paths are relative to this file: static/vendor/lunr/lunr.js, static/search/engine.js and the
 * index in search/ beside static/.
 */
"use strict";

importScripts("vendor/lunr/lunr.js", "search/engine.js");

var DATA = new URL("../search/", self.location.href);
var PAGE_SIZE = 20;

var engine = self.PapercatSearch.createEngine({
  lunr: self.lunr,
  fetchJson: function (relPath) {
    return fetch(new URL(relPath, DATA).href).then(function (response) {
      if (!response.ok) throw new Error("search/" + relPath + ": HTTP " + response.status);
      return response.json();
    });
  },
});

var waiting = null; // the newest message not yet answered
var busy = false;

function answer(message) {
  if (message.warm) {
    return engine.facets().then(function () { return { id: message.id, warm: true }; });
  }
  return engine.search(String(message.query || ""), {
    venue: message.venue || null, topic: message.topic || null, limit: message.limit || PAGE_SIZE,
  }).then(function (found) {
    return { id: message.id, total: found.total, results: found.results };
  });
}

function next() {
  if (busy || !waiting) return;
  var message = waiting;
  waiting = null;
  busy = true;
  Promise.resolve()
    .then(function () { return answer(message); })
    .catch(function (error) {
      return { id: message.id, error: error && error.message ? String(error.message) : String(error) };
    })
    .then(function (reply) {
      self.postMessage(reply);
      busy = false;
      next();
    });
}

self.onmessage = function (event) {
  waiting = event.data || {};
  next();
};
