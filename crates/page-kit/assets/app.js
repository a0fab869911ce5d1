// The dashboard's enhancements. Every page works without this file: forms
// post, links navigate. With it: copy buttons, typed confirmations, and
// spec uploads by drag and drop with a progress bar.
(function () {
  "use strict";
  var live = document.getElementById("live");
  function say(text) { if (live) { live.textContent = ""; setTimeout(function () { live.textContent = text; }, 30); } }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      var label = button.textContent;
      button.textContent = "Copied";
      say("Copied to the clipboard");
      setTimeout(function () { button.textContent = label; }, 1500);
    });
  });

  // A region with data-refresh="<seconds>" is fetched again on that period
  // and replaced in place (status pages), so the page stays current without
  // a full reload; the rest of the page, and the focus, stay as they are.
  document.querySelectorAll("[data-refresh][id]").forEach(function (region) {
    var seconds = parseInt(region.getAttribute("data-refresh"), 10);
    if (!(seconds > 0) || !window.fetch || !window.DOMParser) return;
    setInterval(function () {
      fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(region.id);
          var current = document.getElementById(region.id);
          if (fresh && current && !current.contains(document.activeElement)) current.replaceWith(fresh);
        })
        .catch(function () {});
    }, seconds * 1000);
  });

  // A region with data-live="<url>" listens there for server-sent events
  // and fetches the page again on each, replacing itself in place (an
  // inbox's captures as they arrive). Without EventSource the page still
  // shows what was there when it loaded.
  document.querySelectorAll("[data-live][id]").forEach(function (region) {
    if (!window.EventSource || !window.fetch || !window.DOMParser) return;
    var source = new EventSource(region.getAttribute("data-live"));
    source.addEventListener("capture", function () {
      fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(region.id);
          var current = document.getElementById(region.id);
          if (fresh && current && !current.contains(document.activeElement)) {
            current.replaceWith(fresh);
            say("A new capture arrived");
          }
        })
        .catch(function () {});
    });
  });

  // Ctrl or Cmd + Enter submits the page's form marked data-hotkey-run
  // (a saved request's Run) from anywhere on the page, fields included.
  var runForm = document.querySelector("form[data-hotkey-run]");
  if (runForm) {
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
      event.preventDefault();
      say("Running");
      if (runForm.requestSubmit) runForm.requestSubmit(); else runForm.submit();
    });
  }

  // A destructive button stays disabled until the expected text is typed.
  document.querySelectorAll("input[data-confirm]").forEach(function (input) {
    var button = document.getElementById(input.getAttribute("data-confirm"));
    if (!button) return;
    var check = function () { button.disabled = input.value.trim() !== input.getAttribute("data-expected"); };
    input.addEventListener("input", check);
    check();
  });

  // The docs builder's theme: unsaved tokens, checked and turned into the
  // docs' own stylesheet by the server, are put into the preview frame
  // (same origin) as they are typed. Saving publishes them.
  document.querySelectorAll("form[data-theme-preview]").forEach(function (form) {
    var frame = document.getElementById(form.getAttribute("data-frame"));
    var note = document.getElementById(form.getAttribute("data-note"));
    if (!frame || !window.fetch || !window.URLSearchParams) return;
    var timer, latest = null, sent = 0;
    function apply() {
      var doc = frame.contentDocument;
      if (!latest || !doc || !doc.head) return;
      var style = doc.getElementById("unsaved-theme");
      if (!style) {
        // The saved theme's block gives way to the unsaved one.
        doc.head.querySelectorAll("style").forEach(function (old) { old.remove(); });
        style = doc.createElement("style");
        style.id = "unsaved-theme";
        doc.head.appendChild(style);
      }
      style.textContent = latest.css;
      var root = doc.documentElement;
      if (latest.lock) { root.setAttribute("data-theme", latest.lock); root.setAttribute("data-theme-locked", "true"); }
      else if (root.getAttribute("data-theme-locked")) { root.removeAttribute("data-theme"); root.removeAttribute("data-theme-locked"); }
    }
    function update() {
      var mine = ++sent;
      fetch(form.getAttribute("data-theme-preview"), {
        method: "POST",
        credentials: "same-origin",
        headers: { "Accept": "application/json" },
        body: new URLSearchParams(new FormData(form))
      }).then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      }).then(function (result) {
        if (mine !== sent) return;
        if (!result.ok) { if (note) note.textContent = "Preview paused: " + result.body.message; return; }
        latest = result.body;
        apply();
        if (note) note.textContent = "Showing your unsaved theme. Save it to publish.";
      }).catch(function () { if (note) note.textContent = "Preview paused: the hub did not answer."; });
    }
    function later() { clearTimeout(timer); timer = setTimeout(update, 250); }
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    // Following a link inside the frame keeps the unsaved theme.
    frame.addEventListener("load", apply);
  });

  // A form with a preview frame (endpoint markdown) previews as you type:
  // its Preview button posts into the frame.
  document.querySelectorAll("form[data-live-preview]").forEach(function (form) {
    var button = document.getElementById(form.getAttribute("data-live-preview"));
    if (!button || !form.requestSubmit) return;
    var timer;
    form.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { form.requestSubmit(button); }, 400);
    });
    form.requestSubmit(button);
  });

  document.querySelectorAll("form.upload").forEach(function (form) {
    var zone = form.querySelector(".drop");
    var input = form.querySelector("input[type=file]");
    var bar = form.querySelector("progress");
    var status = form.querySelector(".upload-status");
    if (!zone || !input || !bar || !window.FormData || !window.XMLHttpRequest) return;
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) { event.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      input.files = event.dataTransfer.files;
      send();
    });
    input.addEventListener("change", function () { if (input.files.length) send(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); send(); });

    function send() {
      if (!input.files.length) { say("Choose a file first"); return; }
      var request = new XMLHttpRequest();
      request.open("POST", form.action);
      request.setRequestHeader("X-Requested-With", "XMLHttpRequest");
      bar.hidden = false;
      bar.value = 0;
      request.upload.addEventListener("progress", function (event) {
        if (event.lengthComputable) {
          bar.value = Math.round((event.loaded / event.total) * 100);
          status.textContent = "Uploading: " + bar.value + "%";
        }
      });
      request.upload.addEventListener("load", function () { status.textContent = "Reading the document…"; });
      request.addEventListener("load", function () {
        if (request.status < 400) { window.location.assign(request.getResponseHeader("X-Location") || request.responseURL); return; }
        // The server answered the form with its errors: show its page.
        var page = new DOMParser().parseFromString(request.responseText, "text/html");
        var main = page.querySelector("main");
        if (main) {
          document.querySelector("main").replaceWith(main);
          var summary = document.querySelector(".errors");
          if (summary) summary.focus();
        } else {
          status.textContent = "The upload failed (" + request.status + ")";
        }
      });
      request.addEventListener("error", function () { status.textContent = "The upload failed: the connection was lost"; });
      request.send(new FormData(form));
    }
  });
})();
