/* papercat search worker: started by static/search.js, it loads lunr.js and the search engine
 * once and answers {id, query, venue, topic, limit} messages with {id, total, results}, or
 * {id, error}. Only the newest waiting message is answered; the page drops any older reply.
 * Paths are relative to this file: static/vendor/lunr/lunr.js, static/search/engine.js and the
 * index in search/ beside static/.
 */
"use strict";

importScripts("vendor/lunr/lunr.js", "search/engine.js");

var engine = self.PapercatSearch.createEngine({
  lunr: self.lunr,
  fetchJson: self.PapercatSearch.fetchFrom(new URL("../search/", self.location.href)),
});

var waiting = null; // the newest message not yet answered
var busy = false;

function next() {
  if (busy || !waiting) return;
  var message = waiting;
  waiting = null;
  busy = true;
  self.PapercatSearch.answer(engine, message).then(function (reply) {
    self.postMessage(reply);
    busy = false;
    next();
  });
}

self.onmessage = function (event) {
  waiting = event.data || {};
  next();
};
