// The webhook signature verifier: everything happens in this page with the
// browser's Web Crypto; the secret, headers and body are never sent
// anywhere (the form's fields have no names, and nothing here fetches).
// The schemes mirror crates/webhook-signatures, which the inboxes use.
(function () {
  "use strict";
  var form = document.getElementById("verifier");
  if (!form || !window.crypto || !crypto.subtle || !window.TextEncoder) return;
  var $ = function (id) { return document.getElementById(id); };
  var result = $("verify-result");
  var enc = new TextEncoder();

  function bytes(text) { return enc.encode(text); }
  function concat(parts) {
    var size = parts.reduce(function (n, p) { return n + p.length; }, 0), out = new Uint8Array(size), at = 0;
    parts.forEach(function (p) { out.set(p, at); at += p.length; });
    return out;
  }
  function hex(buf) { return Array.from(new Uint8Array(buf)).map(function (b) { return b.toString(16).padStart(2, "0"); }).join(""); }
  function b64(buf) { var s = ""; new Uint8Array(buf).forEach(function (b) { s += String.fromCharCode(b); }); return btoa(s); }
  function unb64(text) { var s = atob(text); var out = new Uint8Array(s.length); for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i); return out; }
  function mac(hash, key, data) {
    return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: hash }, false, ["sign"])
      .then(function (k) { return crypto.subtle.sign("HMAC", k, data); });
  }
  // Equal lengths compared without an early exit.
  function same(a, b) {
    if (a.length !== b.length || a.length === 0) return false;
    var diff = 0;
    for (var i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
    return diff === 0;
  }
  function headers(text) {
    var map = {};
    text.split(/\r?\n/).forEach(function (line) {
      var at = line.indexOf(":");
      if (at > 0) map[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
    });
    return map;
  }
  function need(h, name) {
    var v = h[name.toLowerCase()];
    if (v === undefined) throw new Error("The " + name + " header is missing.");
    return v;
  }
  function fresh(ts, tolerance) {
    var age = Math.abs(Math.floor(Date.now() / 1000) - ts);
    if (!(age <= tolerance)) throw new Error("The timestamp is " + age + " s from now, beyond the tolerance of " + tolerance + " s.");
  }
  function strip(value, prefix, name) {
    if (value.indexOf(prefix) !== 0) throw new Error("The " + name + " header does not start with " + prefix);
    return value.slice(prefix.length);
  }

  // Each scheme: a promise of true (verified) or an Error saying why not.
  var schemes = {
    "svc": function (s, h, body) { return mac("SHA-256", bytes(s), body).then(function (m) { return same("sha256=" + hex(m), need(h, "X-Service-Signature")); }); },
    "github": function (s, h, body) { return mac("SHA-256", bytes(s), body).then(function (m) { return same("sha256=" + hex(m), need(h, "X-Hub-Signature-256")); }); },
    "github-sha1": function (s, h, body) { return mac("SHA-1", bytes(s), body).then(function (m) { return same("sha1=" + hex(m), need(h, "X-Hub-Signature")); }); },
    "shopify": function (s, h, body) { return mac("SHA-256", bytes(s), body).then(function (m) { return same(b64(m), need(h, "X-Shopify-Hmac-Sha256")); }); },
    "linear": function (s, h, body, tol) {
      return mac("SHA-256", bytes(s), body).then(function (m) {
        var ok = same(hex(m), need(h, "Linear-Signature"));
        try { var ts = JSON.parse(new TextDecoder().decode(body)).webhookTimestamp; if (ok && typeof ts === "number") fresh(Math.floor(ts / 1000), tol); } catch (e) { if (e instanceof Error && /timestamp/.test(e.message)) throw e; }
        return ok;
      });
    },
    "stripe": function (s, h, body, tol) {
      var parts = need(h, "Stripe-Signature").split(","), t = null, v1 = [];
      parts.forEach(function (p) { var kv = p.trim().split("="); if (kv[0] === "t") t = kv[1]; if (kv[0] === "v1") v1.push(kv[1]); });
      if (!t || !v1.length) throw new Error("The Stripe-Signature header needs t= and v1=.");
      return mac("SHA-256", bytes(s), concat([bytes(t + "."), body])).then(function (m) {
        var ok = v1.some(function (v) { return same(hex(m), v); });
        if (ok) fresh(parseInt(t, 10), tol);
        return ok;
      });
    },
    "slack": function (s, h, body, tol) {
      var ts = need(h, "X-Slack-Request-Timestamp");
      return mac("SHA-256", bytes(s), concat([bytes("v0:" + ts + ":"), body])).then(function (m) {
        var ok = same("v0=" + hex(m), need(h, "X-Slack-Signature"));
        if (ok) fresh(parseInt(ts, 10), tol);
        return ok;
      });
    },
    "zendesk": function (s, h, body, tol) {
      var ts = need(h, "X-Zendesk-Webhook-Signature-Timestamp");
      return mac("SHA-256", bytes(s), concat([bytes(ts), body])).then(function (m) {
        var ok = same(b64(m), need(h, "X-Zendesk-Webhook-Signature"));
        if (ok) fresh(Math.floor(Date.parse(ts) / 1000), tol);
        return ok;
      });
    },
    "standard-webhooks": function (s, h, body, tol) {
      var id = need(h, "webhook-id"), ts = need(h, "webhook-timestamp");
      var key = unb64(s.indexOf("whsec_") === 0 ? s.slice(6) : s);
      return mac("SHA-256", key, concat([bytes(id + "." + ts + "."), body])).then(function (m) {
        var want = b64(m);
        var ok = need(h, "webhook-signature").split(" ").some(function (v) { return v.indexOf("v1,") === 0 && same(v.slice(3), want); });
        if (ok) fresh(parseInt(ts, 10), tol);
        return ok;
      });
    },
    "custom": function (s, h, body, tol) {
      var name = $("v-header").value.trim(), algo = $("v-algorithm").value, encoding = $("v-encoding").value;
      var prefix = $("v-prefix").value, tsName = $("v-timestamp").value.trim();
      if (!name) throw new Error("Name the signature header.");
      var given = strip(need(h, name), prefix, name);
      var hash = { sha1: "SHA-1", sha256: "SHA-256", sha512: "SHA-512" }[algo];
      var ts = tsName ? need(h, tsName) : null;
      var data = ts === null ? body : concat([bytes(ts + "."), body]);
      return mac(hash, bytes(s), data).then(function (m) {
        var ok = same(encoding === "hex" ? hex(m) : b64(m), given);
        if (ok && ts !== null) fresh(parseInt(ts, 10), tol);
        return ok;
      });
    }
  };

  function show(ok, text) {
    result.className = "result " + (ok ? "ok" : "bad");
    result.textContent = text;
  }

  $("v-scheme").addEventListener("change", function () { $("v-custom").hidden = this.value !== "custom"; });
  $("v-custom").hidden = $("v-scheme").value !== "custom";
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var scheme = schemes[$("v-scheme").value];
    var tolerance = parseInt($("v-tolerance").value, 10) || 300;
    var secret = $("v-secret").value;
    if (!secret) { show(false, "Enter the signing secret."); return; }
    Promise.resolve()
      .then(function () { return scheme(secret, headers($("v-headers").value), bytes($("v-body").value), tolerance); })
      .then(function (ok) { show(ok, ok ? "Verified: the signature matches this body and secret." : "Not verified: the signature does not match this body and secret."); })
      .catch(function (error) { show(false, "Not verified: " + error.message); });
  });
})();
