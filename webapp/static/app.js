// Keyboard shortcuts and the copy button. Everything else is plain HTML and htmx.
(function () {
  "use strict";
  var pendingGo = false;
  var typing = function (el) {
    if (el && el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return false;
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  };
  // The review queue: j/k move, x selects, a/d choose approve/deny for the selection (or the
  // current row) and put the cursor in the reason; the confirmation page does the deciding.
  var currentId = null;
  var queueRows = function () {
    var queue = document.getElementById("queue");
    return queue ? Array.prototype.slice.call(queue.querySelectorAll("tr[data-request]")) : [];
  };
  var markCurrent = function (rows) {
    rows.forEach(function (row) {
      row.classList.toggle("current", row.getAttribute("data-request") === currentId);
    });
  };
  var queueKeys = function (key) {
    if ("jkxad".indexOf(key) < 0 || key.length !== 1) return false;
    var rows = queueRows();
    if (!rows.length) return false;
    var index = rows.map(function (r) { return r.getAttribute("data-request"); }).indexOf(currentId);
    if (key === "j" || key === "k") {
      index = index < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, index + (key === "j" ? 1 : -1)));
      currentId = rows[index].getAttribute("data-request");
      markCurrent(rows);
      var link = rows[index].querySelector("a");
      if (link) link.focus();
      return true;
    }
    var form = document.getElementById("bulk-form");
    if (!form) return false;
    if (index < 0) { index = 0; currentId = rows[0].getAttribute("data-request"); markCurrent(rows); }
    var box = rows[index].querySelector('input[type="checkbox"]');
    if (key === "x") { if (box) box.checked = !box.checked; return true; }
    if (!document.querySelector('input[name="ids"][form="bulk-form"]:checked') && box) box.checked = true;
    document.getElementById("bulk-decision").value = key === "a" ? "approve" : "deny";
    document.getElementById("bulk-reason").focus();
    return true;
  };
  document.addEventListener("htmx:afterSwap", function () { markCurrent(queueRows()); });
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
    if (queueKeys(key)) { event.preventDefault(); return; }
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
