// The embeddable Try-It widget. Put on any page:
//
//   <script src="https://HUB/widget.js" defer></script>
//   <div data-service-embed data-project="petstore" data-operation="listPets"
//        data-version="1.0.0" data-target="mock"></div>
//
// data-project and data-operation are required; data-version defaults to the
// project's default version; data-target picks "mock" or "api" first.
// Each element gets a Shadow DOM root, so the host page's styles do not leak
// in and ours do not leak out. Elements added later are picked up when the
// page dispatches `service:rescan` on document (or window).
(function () {
  "use strict";
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src, location.href).origin : location.origin;
  var STYLE = [
    ":host{all:initial;display:block;font:14px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111827}",
    ".box{border:1px solid #e5e7eb;border-radius:8px;padding:14px;background:#f9fafb;display:grid;gap:8px}",
    ".head{display:flex;gap:8px;align-items:baseline}.m{font:700 12px ui-monospace,monospace;color:#1d4ed8}",
    "code,pre,input,textarea,select{font:13px ui-monospace,SFMono-Regular,Menlo,monospace}",
    "label{display:grid;gap:2px;font-weight:550}small{color:#6b7280;font-weight:400}",
    "input,textarea,select{padding:6px;border:1px solid #e5e7eb;border-radius:6px;background:#fff;color:#111827}",
    "button{justify-self:start;padding:6px 14px;border-radius:6px;border:0;background:#4f46e5;color:#fff;font-weight:600;cursor:pointer}",
    "pre{background:#fff;border:1px solid #e5e7eb;border-radius:6px;padding:8px;overflow:auto;max-height:320px;margin:0}",
    ".err{color:#b91c1c}.status{font-weight:700}"
  ].join("\n");

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function absolute(url) { return url.charAt(0) === "/" ? origin + url : url; }

  function render(root, data, preferred) {
    var op = data.operation;
    var form = el("form", { "class": "box" });
    form.appendChild(el("div", { "class": "head" }, [el("span", { "class": "m" }, [op.method]), el("code", {}, [op.path]), el("span", {}, [op.summary || ""])]));
    var select = el("select", { name: "target" });
    var targets = data.targets.slice();
    targets.sort(function (a, b) { return (b.kind === preferred) - (a.kind === preferred); });
    targets.forEach(function (t) { select.appendChild(el("option", { value: absolute(t.url) }, [t.label])); });
    form.appendChild(el("label", {}, ["Send to", select]));
    op.params.forEach(function (p) {
      if (p.in === "cookie") return;
      var input = el("input", { "data-in": p.in, "data-name": p.name });
      input.value = p.example || "";
      form.appendChild(el("label", {}, [p.name + " ", el("small", {}, [p.in + (p.required ? ", required" : "")]), input]));
    });
    var headers = el("textarea", { name: "headers", rows: "2", spellcheck: "false" });
    headers.value = op.auth_headers.map(function (h) { return h + ": "; }).join("\n");
    form.appendChild(el("label", {}, ["Headers ", el("small", {}, ["Name: value per line"]), headers]));
    var body = null;
    if (op.body_media) {
      body = el("textarea", { name: "body", rows: "6", spellcheck: "false" });
      body.value = op.body_example || "";
      form.appendChild(el("label", {}, ["Body ", el("small", {}, [op.body_media]), body]));
    }
    var button = el("button", { type: "submit" }, ["Send"]);
    var output = el("div", { "aria-live": "polite" });
    form.appendChild(button);
    form.appendChild(output);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var path = op.path;
      var query = [];
      var hdrs = {};
      form.querySelectorAll("input[data-in]").forEach(function (input) {
        var name = input.getAttribute("data-name"), where = input.getAttribute("data-in"), value = input.value;
        if (where === "path") path = path.split("{" + name + "}").join(encodeURIComponent(value));
        else if (value !== "" && where === "query") query.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
        else if (value !== "" && where === "header") hdrs[name] = value;
      });
      headers.value.split("\n").forEach(function (line) {
        var at = line.indexOf(":");
        if (at > 0 && line.slice(at + 1).trim() !== "") hdrs[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      });
      var init = { method: op.method, headers: hdrs };
      if (body && op.method !== "GET" && op.method !== "HEAD") { init.body = body.value; hdrs["Content-Type"] = hdrs["Content-Type"] || op.body_media; }
      var url = select.value.replace(/\/+$/, "") + path + (query.length ? "?" + query.join("&") : "");
      output.textContent = "Sending…";
      fetch(url, init).then(function (response) {
        return response.text().then(function (text) {
          var shown = text;
          try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
          output.textContent = "";
          output.appendChild(el("p", { "class": "status", "data-status": String(response.status) }, [response.status + " " + response.statusText]));
          output.appendChild(el("pre", {}, [shown]));
        });
      }).catch(function (error) {
        output.textContent = "";
        output.appendChild(el("p", { "class": "err" }, ["The request failed: " + error + " (the API may not allow requests from this page; the mock server does)"]));
      });
    });
    root.appendChild(form);
  }

  function mount(host) {
    if (host.__serviceEmbed) return;
    host.__serviceEmbed = true;
    var project = host.getAttribute("data-project");
    var operation = host.getAttribute("data-operation");
    var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
    root.appendChild(el("style", {}, [STYLE]));
    if (!project || !operation) {
      root.appendChild(el("p", { "class": "err" }, ["data-project and data-operation are required"]));
      return;
    }
    var url = origin + "/docs/" + encodeURIComponent(project) + "/embed.json?operation=" + encodeURIComponent(operation);
    var version = host.getAttribute("data-version");
    if (version) url += "&version=" + encodeURIComponent(version);
    fetch(url).then(function (response) {
      return response.json().then(function (data) {
        if (!response.ok) throw new Error((data.error && data.error.message) || response.statusText);
        render(root, data, host.getAttribute("data-target") || "mock");
        host.dispatchEvent(new CustomEvent("service:ready", { bubbles: true }));
      });
    }).catch(function (error) {
      root.appendChild(el("p", { "class": "err" }, ["Try-It could not load: " + error.message]));
    });
  }

  function scan() { document.querySelectorAll("[data-service-embed]").forEach(mount); }

  document.addEventListener("service:rescan", scan);
  window.addEventListener("service:rescan", scan);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scan); else scan();
})();
