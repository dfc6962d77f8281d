// The auditor page's verification: everything is recomputed here, in the browser, from the
// downloaded artifacts, the proof bundle on the page and the published key set (CONTRACT §11):
//   artifact bytes -> SHA-256 == the hash in the report's ledger event
//   event fields   -> deterministic CBOR -> event_hash -> leaf_hash
//   leaf + path    -> RFC 9162 root == the checkpoint's root_hash
//   checkpoint     -> its payload re-encoded from its fields; Ed25519 signature with the JWKS key
// Ed25519 comes from WebCrypto; where a browser lacks it, a small vendored library is loaded.
(function () {
  "use strict";

  var EVENT_KEYS = ["accepted_at", "action_category", "action_metadata", "agent_id", "approved",
    "canonical_version", "citations", "confidence", "event_uuid", "evidence_chunks", "intent_hash",
    "policy_id", "policy_version_id", "policy_content_hash", "reason", "request_id", "tool_args",
    "tool_name"];
  var FLOAT_SUBTREES = { tool_args: 1, action_metadata: 1, citations: 1, evidence_chunks: 1 };
  var INTEGERS = { canonical_version: 1 };
  var encoder = new TextEncoder();

  // --- deterministic CBOR (the subset the ledger writes) -------------------------------------

  function Floats(value) { this.value = value; }  // a subtree whose numbers are all float64
  function Int(value) { this.value = value; }

  function head(out, major, n) {
    if (n < 24) { out.push((major << 5) | n); return; }
    var bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x100000000 ? 4 : 8;
    out.push((major << 5) | { 1: 24, 2: 25, 4: 26, 8: 27 }[bytes]);
    for (var i = bytes - 1; i >= 0; i--) { out.push(Math.floor(n / Math.pow(2, 8 * i)) & 0xff); }
  }

  function codePoints(text) { return Array.from(text).map(function (c) { return c.codePointAt(0); }); }

  function keyOrder(a, b) {
    var pa = codePoints(a), pb = codePoints(b);
    if (pa.length !== pb.length) return pa.length - pb.length;
    for (var i = 0; i < pa.length; i++) { if (pa[i] !== pb[i]) return pa[i] - pb[i]; }
    return 0;
  }

  function encodeInto(out, value, floats) {
    if (value instanceof Floats) { encodeInto(out, value.value, true); return; }
    if (value instanceof Int) { encodeInt(out, value.value); return; }
    if (value === null) { out.push(0xf6); return; }
    if (value === true) { out.push(0xf5); return; }
    if (value === false) { out.push(0xf4); return; }
    if (typeof value === "number") {
      if (!floats && Number.isInteger(value)) { encodeInt(out, value); return; }
      var view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, value);
      out.push(0xfb);
      for (var i = 0; i < 8; i++) out.push(view.getUint8(i));
      return;
    }
    if (typeof value === "string") {
      var raw = encoder.encode(value);
      head(out, 3, raw.length);
      for (var j = 0; j < raw.length; j++) out.push(raw[j]);
      return;
    }
    if (Array.isArray(value)) {
      head(out, 4, value.length);
      value.forEach(function (item) { encodeInto(out, item, floats); });
      return;
    }
    if (typeof value === "object") {
      var keys = Object.keys(value).sort(keyOrder);
      head(out, 5, keys.length);
      keys.forEach(function (key) { encodeInto(out, key, false); encodeInto(out, value[key], floats); });
      return;
    }
    throw new Error("cannot encode " + typeof value);
  }

  function encodeInt(out, n) {
    if (n >= 0) head(out, 0, n); else head(out, 1, -1 - n);
  }

  function cbor(value) { var out = []; encodeInto(out, value, false); return new Uint8Array(out); }

  // --- bytes and hashes ----------------------------------------------------------------------

  function hex(bytes) {
    return Array.from(new Uint8Array(bytes)).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  function fromHex(text) {
    if (typeof text !== "string" || !/^([0-9a-f]{2})*$/.test(text)) throw new Error("not lowercase hex: " + text);
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
    return out;
  }
  function fromB64url(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    return Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
  }
  function concat() {
    var parts = Array.from(arguments), size = 0, at = 0;
    parts.forEach(function (p) { size += p.length; });
    var out = new Uint8Array(size);
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }
  function sha256(bytes) { return crypto.subtle.digest("SHA-256", bytes).then(function (d) { return new Uint8Array(d); }); }
  function equal(a, b) {
    if (a.length !== b.length) return false;
    var diff = 0;
    for (var i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0;
  }

  // --- Merkle (RFC 9162 §2.1.3.2) ------------------------------------------------------------

  function rootFromInclusion(leaf, index, size, path) {
    if (!(index >= 0 && index < size)) return Promise.reject(new Error("leaf index outside the tree"));
    var fn = index, sn = size - 1, result = leaf, i = 0;
    function step() {
      if (i === path.length) {
        if (sn !== 0) throw new Error("inclusion proof has too few hashes");
        return result;
      }
      if (sn === 0) throw new Error("inclusion proof has too many hashes");
      var sibling = fromHex(path[i++]);
      var pair = (fn & 1 || fn === sn) ? concat(sibling, result) : concat(result, sibling);
      var climb = (fn & 1 || fn === sn);
      return sha256(concat(new Uint8Array([1]), pair)).then(function (node) {
        result = node;
        if (climb) { while (!(fn & 1) && fn) { fn >>= 1; sn >>= 1; } }
        fn >>= 1; sn >>= 1;
        return step();
      });
    }
    return Promise.resolve().then(step);
  }

  // --- Ed25519 ---------------------------------------------------------------------------------

  function verifyEd25519(jwk, signature, payload) {
    return crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: jwk.x }, { name: "Ed25519" }, false, ["verify"])
      .then(function (key) { return crypto.subtle.verify({ name: "Ed25519" }, key, signature, payload); })
      .catch(function (error) {
        if (error && error.name === "NotSupportedError") return fallbackVerify(jwk, signature, payload);
        throw error;
      });
  }

  function fallbackVerify(jwk, signature, payload) {
    var script = document.querySelector("script[data-ed25519-fallback]");
    var url = script ? script.getAttribute("data-ed25519-fallback") : null;
    if (!url) throw new Error("this browser has no Ed25519");
    return import(url).then(function (ed) { return ed.verifyAsync(signature, payload, fromB64url(jwk.x)); });
  }

  // --- the checks --------------------------------------------------------------------------------

  function eventForHashing(entry) {
    var event = {};
    EVENT_KEYS.forEach(function (key) {
      if (!(key in entry)) throw new Error("the event lacks " + key);
      var value = entry[key];
      if (FLOAT_SUBTREES[key]) value = new Floats(value);
      else if (INTEGERS[key]) value = new Int(value);
      else if (key === "confidence") value = new Floats(value);
      event[key] = value;
    });
    return event;
  }

  function checkpointPayload(record) {
    return cbor({
      export_targets: record.export_target ? [record.export_target] : [],
      key_id: record.signer_key_id,
      mmd_seconds: new Int(record.mmd_seconds),
      prev_checkpoint_hash: record.prev_checkpoint_hash,
      root_hash: record.root_hash,
      signed_at: record.signed_at,
      tree_size: new Int(record.tree_size),
      type: "checkpoint",
      version: new Int(1)
    });
  }

  function run() {
    var status = document.getElementById("verify-status");
    var list = document.getElementById("verify-steps");
    var data;
    try { data = JSON.parse(document.getElementById("proof-data").textContent); } catch (e) { data = null; }
    if (!data || !data.sealed || !data.bundle) return;  // the page already says why
    var bundle = data.bundle, event = bundle.event, inclusion = bundle.inclusion;
    var checkpoint = inclusion.checkpoint;
    var failures = 0;

    function record(name, ok, detail) {
      var item = document.createElement("li");
      item.className = ok ? "check-ok" : "check-failed";
      item.setAttribute("data-check", name);
      item.textContent = (ok ? "✓ " : "✗ ") + name + " — " + detail;
      list.appendChild(item);
      if (!ok) failures++;
    }
    function attempt(name, work) {
      return Promise.resolve().then(work).then(
        function (detail) { record(name, true, detail); },
        function (error) { record(name, false, error && error.message ? error.message : String(error)); }
      );
    }

    var recorded = {};
    ((event.action_metadata || {}).artifacts || []).forEach(function (a) { recorded[a.format] = a.sha256; });
    var links = Array.from(document.querySelectorAll("a[data-artifact]"));
    var checks = links.map(function (link) {
      var format = link.getAttribute("data-artifact");
      return attempt("artifact " + format, function () {
        if (!recorded[format]) throw new Error("the ledger event records no " + format + " artifact");
        return fetch(link.href, { cache: "no-store" }).then(function (response) {
          if (!response.ok) throw new Error("download answered HTTP " + response.status);
          return response.arrayBuffer();
        }).then(sha256).then(function (digest) {
          if (hex(digest) !== recorded[format]) throw new Error("SHA-256 is " + hex(digest) + ", the ledger records " + recorded[format]);
          return "SHA-256 " + hex(digest) + " is the one in the ledger event";
        });
      });
    });

    var leaf;
    checks.push(attempt("event hash", function () {
      if (event.action_category !== "report_generated") throw new Error("not a report_generated event");
      var domain = encoder.encode("ledgix.audit.event.v1");
      return sha256(concat(domain, new Uint8Array([0]), cbor(eventForHashing(event)))).then(function (digest) {
        if (hex(digest) !== event.event_hash) throw new Error("recomputed " + hex(digest) + ", the event says " + event.event_hash);
        return sha256(concat(new Uint8Array([0]), digest));
      }).then(function (leafHash) {
        if (hex(leafHash) !== event.leaf_hash || hex(leafHash) !== inclusion.leaf_hash) throw new Error("leaf hash does not match");
        leaf = leafHash;
        return "the event's fields hash to " + event.event_hash;
      });
    }).then(function () {
      return attempt("inclusion proof", function () {
        if (!leaf) throw new Error("no verified leaf to start from");
        if (inclusion.tree_size !== checkpoint.tree_size) throw new Error("proof and checkpoint disagree on the tree size");
        return rootFromInclusion(leaf, inclusion.leaf_index, inclusion.tree_size, inclusion.path).then(function (root) {
          if (hex(root) !== checkpoint.root_hash) throw new Error("the path leads to " + hex(root) + ", not the checkpoint's root");
          return "leaf " + inclusion.leaf_index + " of " + inclusion.tree_size + " leads to root " + checkpoint.root_hash;
        });
      });
    }));

    checks.push(attempt("checkpoint signature", function () {
      var payload = fromB64url(checkpoint.checkpoint_payload);
      if (!equal(payload, checkpointPayload(checkpoint))) throw new Error("the signed payload does not carry this checkpoint's fields");
      return fetch("/.well-known/jwks.json", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (jwks) {
        var jwk = (jwks.keys || []).filter(function (k) { return k.kid === checkpoint.signer_key_id; })[0];
        if (!jwk) throw new Error("no published key " + checkpoint.signer_key_id);
        return verifyEd25519(jwk, fromB64url(checkpoint.checkpoint_signature), payload).then(function (ok) {
          if (!ok) throw new Error("the Ed25519 signature does not verify with " + jwk.kid);
          return "checkpoint " + checkpoint.checkpoint_id + " is signed by published key " + jwk.kid;
        });
      });
    }));

    Promise.all(checks).then(function () {
      var ok = failures === 0;
      status.setAttribute("data-state", ok ? "verified" : "failed");
      status.textContent = ok
        ? "Verified: the artifacts are the ones recorded in the ledger, under a checkpoint signed with the published key."
        : "Verification FAILED: " + failures + " check(s) did not pass. Do not rely on these files.";
      if (ok) drawCharts();
    });
  }

  // --- charts, drawn from the JSON artifact once it is verified ----------------------------------

  function drawCharts() {
    var link = document.querySelector('a[data-artifact="json"]');
    if (!link) return;
    fetch(link.href, { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (doc) {
      bars(document.getElementById("chart-decisions"), doc.population.per_day.map(function (d) {
        return { label: d.day.slice(5), parts: [["approved", d.approved], ["denied", d.denied]] };
      }));
      bars(document.getElementById("chart-reviews"), doc.manual_reviews.duration_histogram.map(function (b) {
        return { label: b.bucket, parts: [["reviews", b.count]] };
      }));
    });
  }

  function bars(container, columns) {
    if (!container) return;
    var max = 1;
    columns.forEach(function (c) { var t = 0; c.parts.forEach(function (p) { t += p[1]; }); max = Math.max(max, t); });
    var step = Math.max(28, Math.min(90, Math.floor(640 / Math.max(1, columns.length))));
    var ns = "http://www.w3.org/2000/svg", width = Math.max(300, columns.length * step), height = 160;
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + width + " " + (height + 30));
    svg.setAttribute("role", "img");
    columns.forEach(function (column, i) {
      var y = height;
      column.parts.forEach(function (part) {
        var h = (part[1] / max) * (height - 10);
        var rect = document.createElementNS(ns, "rect");
        rect.setAttribute("x", String(i * step + 4));
        rect.setAttribute("y", String(y - h));
        rect.setAttribute("width", String(step - 8));
        rect.setAttribute("height", String(h));
        rect.setAttribute("class", "bar-" + part[0]);
        var title = document.createElementNS(ns, "title");
        title.textContent = column.label + ": " + part[1] + " " + part[0];
        rect.appendChild(title);
        svg.appendChild(rect);
        y -= h;
      });
      var text = document.createElementNS(ns, "text");
      text.setAttribute("x", String(i * step + step / 2));
      text.setAttribute("y", String(height + 14));
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("font-size", "8");
      text.textContent = column.label;
      svg.appendChild(text);
    });
    if (!columns.length || max === 1 && columns.every(function (c) { return c.parts.every(function (p) { return p[1] === 0; }); })) {
      var empty = document.createElement("p");
      empty.textContent = "Nothing in the period.";
      container.replaceChildren(empty);
      return;
    }
    container.replaceChildren(svg);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
