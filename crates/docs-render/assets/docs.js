// Progressive enhancement of the docs pages: every page reads fine without
// this file. Adds the Try-It panel, sample tabs, copy buttons and the theme
// toggle. No dependencies; served by the hub itself.
(function () {
  "use strict";

  function text(el, value) { el.textContent = value; return el; }

  function tabs(container) {
    var sections = container.querySelectorAll("[data-tab]");
    if (sections.length < 2) return;
    var bar = document.createElement("div");
    bar.className = "tabs";
    bar.setAttribute("role", "tablist");
    sections.forEach(function (section, i) {
      var button = text(document.createElement("button"), section.getAttribute("data-tab"));
      button.type = "button";
      button.setAttribute("role", "tab");
      button.addEventListener("click", function () { select(i); });
      bar.appendChild(button);
    });
    function select(index) {
      sections.forEach(function (s, i) { s.hidden = i !== index; });
      bar.querySelectorAll("button").forEach(function (b, i) { b.setAttribute("aria-selected", String(i === index)); });
      try { localStorage.setItem("docs.sample", sections[index].getAttribute("data-tab")); } catch (e) { /* private mode */ }
    }
    container.insertBefore(bar, container.firstChild);
    container.classList.add("enhanced");
    var saved = null;
    try { saved = localStorage.getItem("docs.sample"); } catch (e) { /* private mode */ }
    var start = 0;
    sections.forEach(function (s, i) { if (s.getAttribute("data-tab") === saved) start = i; });
    select(start);
  }

  function copyButtons() {
    document.querySelectorAll("pre.code").forEach(function (pre) {
      if (!navigator.clipboard) return;
      var button = text(document.createElement("button"), "Copy");
      button.type = "button";
      button.className = "btn btn-ghost copy";
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(pre.innerText).then(function () { text(button, "Copied"); setTimeout(function () { text(button, "Copy"); }, 1200); });
      });
      pre.parentNode.insertBefore(button, pre);
    });
  }

  // Builds the request of a Try-It form: the target, path parameters filled
  // in, query parameters, headers and body.
  function buildRequest(form) {
    var target = form.querySelector("[name=target]").value.replace(/\/+$/, "");
    var path = form.getAttribute("data-path");
    var query = [];
    var headers = {};
    form.querySelectorAll("input[data-in]").forEach(function (input) {
      var name = input.getAttribute("data-name");
      var value = input.value;
      var where = input.getAttribute("data-in");
      if (where === "path") {
        path = path.split("{" + name + "}").join(encodeURIComponent(value));
      } else if (value !== "" && where === "query") {
        query.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
      } else if (value !== "" && where === "header") {
        headers[name] = value;
      }
    });
    var headerBox = form.querySelector("[name=headers]");
    if (headerBox) {
      headerBox.value.split("\n").forEach(function (line) {
        var at = line.indexOf(":");
        if (at > 0 && line.slice(at + 1).trim() !== "") headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      });
    }
    var init = { method: form.getAttribute("data-method"), headers: headers };
    var bodyBox = form.querySelector("[name=body]");
    if (bodyBox && init.method !== "GET" && init.method !== "HEAD") {
      var body = bodyBox.value;
      if (form.hasAttribute("data-graphql")) body = JSON.stringify({ query: body });
      init.body = body;
      if (!headers["Content-Type"] && !headers["content-type"]) headers["Content-Type"] = bodyBox.getAttribute("data-media") || "application/json";
    }
    if (form.hasAttribute("data-graphql")) path = target.indexOf("/mock/") >= 0 ? "/graphql" : "";
    return { url: target + path + (query.length ? "?" + query.join("&") : ""), init: init };
  }

  function show(output, status, headers, body) {
    output.textContent = "";
    var head = text(document.createElement("p"), status);
    head.className = "status";
    output.appendChild(head);
    if (headers) {
      var h = document.createElement("pre");
      h.className = "code";
      text(h, headers);
      output.appendChild(h);
    }
    var pre = document.createElement("pre");
    pre.className = "code";
    text(pre, body);
    output.appendChild(pre);
  }

  function pretty(body, type) {
    if (type && type.indexOf("json") >= 0) {
      try { return JSON.stringify(JSON.parse(body), null, 2); } catch (e) { return body; }
    }
    return body;
  }

  function showFailure(output, message, offerRelay) {
    show(output, "The request failed", null, message);
    if (!offerRelay) return;
    var retry = text(document.createElement("button"), "Send through the hub instead");
    retry.type = "button";
    retry.className = "btn btn-outline relay-retry";
    retry.addEventListener("click", function () {
      var box = offerRelay.querySelector("input[name=relay]");
      if (box) box.checked = true;
      send(offerRelay, output);
    });
    output.appendChild(retry);
  }

  // The hub's relay (POST <version>/_tryit) sends to the API's own base URL
  // for APIs that do not answer the browser's CORS preflight.
  function sendRelayed(form, output, request, started) {
    var headers = request.init.headers;
    var payload = { method: request.init.method, url: new URL(request.url, location.href).href, headers: headers };
    if (request.init.body !== undefined) payload.body = request.init.body;
    return fetch(form.getAttribute("data-relay"), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload)
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) {
          showFailure(output, (answer.error && answer.error.message) || ("The hub refused to relay (" + response.status + ")"), null);
        } else if (answer.status === null) {
          showFailure(output, "The API did not answer the hub: " + answer.error, null);
        } else {
          var lines = answer.headers.map(function (h) { return h[0] + ": " + h[1]; });
          var type = (answer.headers.filter(function (h) { return h[0] === "content-type"; })[0] || [])[1];
          var note = answer.truncated ? "\n\n(cut at 1 MiB)" : "";
          show(output, answer.status + " · " + (Date.now() - started) + " ms · through the hub", lines.join("\n"), pretty(answer.body, type) + note);
        }
      });
    }).catch(function (error) {
      showFailure(output, String(error), null);
    });
  }

  function send(form, output) {
    var request = buildRequest(form);
    var started = Date.now();
    var relay = form.querySelector("input[name=relay]");
    var isApi = request.url.indexOf("/mock/") < 0;
    text(output, "Sending " + request.init.method + " " + request.url + " …");
    if (relay && relay.checked && isApi) return sendRelayed(form, output, request, started);
    return fetch(request.url, request.init).then(function (response) {
      return response.text().then(function (body) {
        var lines = [];
        response.headers.forEach(function (value, name) { lines.push(name + ": " + value); });
        show(output, response.status + " " + response.statusText + " · " + (Date.now() - started) + " ms", lines.join("\n"), pretty(body, response.headers.get("content-type")));
      });
    }).catch(function (error) {
      var canRelay = relay && isApi;
      showFailure(output, String(error) + "\n\nThe API may not allow requests from this page (CORS). The mock server always does" +
        (canRelay ? "; the hub can send the request for you." : "."), canRelay ? form : null);
    });
  }

  // Adds the "through the hub" switch to forms that have a relay, shown
  // while an API target (not the mock) is selected.
  function relaySwitch(form) {
    if (!form.hasAttribute("data-relay")) return;
    var select = form.querySelector("[name=target]");
    var label = document.createElement("label");
    label.className = "relay";
    var box = document.createElement("input");
    box.type = "checkbox";
    box.name = "relay";
    label.appendChild(box);
    label.appendChild(document.createTextNode(" Send through the hub (for APIs without CORS)"));
    select.parentNode.parentNode.insertBefore(label, select.parentNode.nextSibling);
    function update() { label.hidden = select.value.indexOf("/mock/") >= 0; }
    select.addEventListener("change", update);
    update();
  }

  function tryIt(form) {
    form.hidden = false;
    relaySwitch(form);
    var output = form.querySelector("output");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      send(form, output);
    });
  }

  function themeToggle() {
    var button = document.querySelector(".theme-toggle");
    if (!button) return;
    var root = document.documentElement;
    var saved = null;
    try { saved = localStorage.getItem("docs.theme"); } catch (e) { /* private mode */ }
    if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
    button.hidden = false;
    button.addEventListener("click", function () {
      var dark = root.getAttribute("data-theme") === "dark" ||
        (!root.getAttribute("data-theme") && window.matchMedia("(prefers-color-scheme: dark)").matches);
      var next = dark ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem("docs.theme", next); } catch (e) { /* private mode */ }
    });
  }

  function init() {
    document.querySelectorAll("[data-tabs]").forEach(tabs);
    document.querySelectorAll("form[data-tryit]").forEach(tryIt);
    copyButtons();
    themeToggle();
  }

  window.ServiceDocs = { buildRequest: buildRequest };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
