// Keyboard shortcuts and the copy button. Everything else is plain HTML and htmx.
(function () {
  "use strict";
  var pendingGo = false;
  var typing = function (el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  };
  var toggleShortcuts = function () {
    var panel = document.getElementById("shortcuts");
    var button = document.querySelector("[data-toggle-shortcuts]");
    if (!panel) return;
    panel.hidden = !panel.hidden;
    if (button) button.setAttribute("aria-expanded", String(!panel.hidden));
  };
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var key = event.key;
    if (pendingGo) {
      pendingGo = false;
      var link = document.querySelector('nav [data-goto="' + key + '"]');
      if (link) { event.preventDefault(); link.click(); }
      return;
    }
    if (key === "g") { pendingGo = true; setTimeout(function () { pendingGo = false; }, 1500); return; }
    if (key === "?") { event.preventDefault(); toggleShortcuts(); return; }
    var field = document.querySelector('[data-shortcut-focus="' + key + '"]');
    if (field) { event.preventDefault(); field.focus(); return; }
    var button = document.querySelector('[data-shortcut="' + key + '"]');
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-toggle-shortcuts], [data-copy]");
    if (!target) return;
    if (target.hasAttribute("data-toggle-shortcuts")) { toggleShortcuts(); return; }
    var source = document.querySelector(target.getAttribute("data-copy"));
    var note = target.parentElement.querySelector(".copied");
    var done = function () { if (note) note.textContent = "Copied."; };
    if (!source) return;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.value || source.textContent).then(done, function () {
        source.select(); document.execCommand("copy"); done();
      });
    } else {
      source.select(); document.execCommand("copy"); done();
    }
  });
})();
