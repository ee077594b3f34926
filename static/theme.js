/* Theme: the one script without defer, in <head> before the stylesheet. Blocking on a tiny file
 * is the trade-off: our CSP forbids inline script, and the stored theme must be set before the
 * first paint (no flash). Keep it under 1 KB. Without JS, CSS follows the OS. */
(function (doc, KEY) {
  var root = doc.documentElement, os = matchMedia("(prefers-color-scheme: dark)");
  function apply(t) {
    if (t === "light" || t === "dark") root.dataset.theme = t; else delete root.dataset.theme;
  }
  try { apply(localStorage.getItem(KEY)); } catch (e) {}
  doc.addEventListener("DOMContentLoaded", function () {
    var b = doc.getElementById("theme-toggle");
    if (!b) return;
    function dark() { return (root.dataset.theme || (os.matches ? "dark" : "light")) === "dark"; }
    function show() { b.setAttribute("aria-pressed", dark()); }
    b.onclick = function () {
      var t = dark() ? "light" : "dark";
      apply(t);
      try { localStorage.setItem(KEY, t); } catch (e) {}
      show();
    };
    os.addEventListener("change", show);
    show();
    b.hidden = false;
  });
})(document, "papercat-theme");
