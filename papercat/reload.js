// papercat serve: reload the page when the site has been rebuilt.
// Only the preview server (`python build.py serve`) adds this file to pages; built sites never load it.
// The server tells which build the page came from (data-build); the events stream sends "reload" as
// soon as the served build differs, so a page that connects late, or reconnects after the server was
// restarted, still reloads.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || typeof EventSource === "undefined") {
    return;
  }
  var build = script.getAttribute("data-build") || "";
  var events = new EventSource(script.src.replace(/reload\.js(?:\?.*)?$/, "events") +
    "?build=" + encodeURIComponent(build));
  events.addEventListener("reload", function () {
    events.close();
    location.reload();
  });
})();
