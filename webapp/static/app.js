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
    if (key === "x") {
      if (box) { box.checked = !box.checked; select(box.value, box.checked); showSelection(); }
      return true;
    }
    if (!selected().length && box) { box.checked = true; select(box.value, true); showSelection(); }
    document.getElementById("bulk-decision").value = key === "a" ? "approve" : "deny";
    document.getElementById("bulk-reason").focus();
    return true;
  };
  // The queue's selection outlives a page: kept in sessionStorage, the ids selected on other
  // pages ride along in the bulk form as hidden inputs. Without script, a page selects alone.
  var SELECTION = "vault.review.selection";
  var selected = function () {
    try { return JSON.parse(sessionStorage.getItem(SELECTION) || "[]"); } catch (e) { return []; }
  };
  var keep = function (ids) {
    try { sessionStorage.setItem(SELECTION, JSON.stringify(ids)); } catch (e) { /* private mode */ }
  };
  var boxes = function () {
    return Array.prototype.slice.call(document.querySelectorAll('input[name="ids"][form="bulk-form"]'));
  };
  var showSelection = function () {
    var form = document.getElementById("bulk-form");
    if (!form) return;
    var ids = selected();
    var here = {};
    boxes().forEach(function (box) { here[box.value] = true; box.checked = ids.indexOf(box.value) >= 0; });
    var carried = document.getElementById("bulk-carried");
    carried.textContent = "";
    var elsewhere = ids.filter(function (id) { return !here[id]; });
    elsewhere.forEach(function (id) {
      var input = document.createElement("input");
      input.type = "hidden"; input.name = "ids"; input.value = id;
      carried.appendChild(input);
    });
    var note = document.getElementById("bulk-selected");
    note.hidden = ids.length === 0;
    note.textContent = ids.length + " selected" + (elsewhere.length ? " (" + elsewhere.length + " on other pages)" : "") + ". ";
    if (ids.length) {
      var clear = document.createElement("button");
      clear.type = "button"; clear.id = "bulk-clear"; clear.textContent = "Clear the selection";
      note.appendChild(clear);
    }
    var all = document.getElementById("select-page");
    if (all) all.checked = boxes().length > 0 && boxes().every(function (b) { return b.checked; });
  };
  var select = function (id, on) {
    var ids = selected().filter(function (x) { return x !== id; });
    if (on) ids.push(id);
    keep(ids);
  };
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (box.id === "select-page") {
      boxes().forEach(function (b) { select(b.value, box.checked); });
    } else if (box.name === "ids" && box.getAttribute("form") === "bulk-form") {
      select(box.value, box.checked);
    } else {
      return;
    }
    showSelection();
  });
  document.addEventListener("click", function (event) {
    if (event.target.id === "bulk-clear") { keep([]); showSelection(); }
  });
  document.addEventListener("DOMContentLoaded", function () {
    // A finished bulk decision ends the selection it was made from.
    if (document.querySelector("[data-selection-done]")) keep([]);
    showSelection();
  });
  document.addEventListener("htmx:afterSwap", function () { markCurrent(queueRows()); showSelection(); });
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
