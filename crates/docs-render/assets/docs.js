// Progressive enhancement of the docs pages: every page reads fine without
// this file. Adds tabs (samples, response examples), copy buttons, the quick
// search overlay (/ and Ctrl/Cmd-K), the Try-It panel (credentials,
// parameter checks, JSON body check, response viewer, copy as curl, OAuth 2),
// the docs assistant (AI answers in the search, the chat drawer) and the
// theme toggle. No dependencies; served by the hub itself.
(function () {
  "use strict";

  function text(el, value) { el.textContent = value; return el; }
  function el(tag, cls, value) { var e = document.createElement(tag); if (cls) e.className = cls; if (value !== undefined) e.textContent = value; return e; }
  function store(kind) { try { return window[kind]; } catch (e) { return null; } }
  function get(kind, key) { var s = store(kind); try { return s ? s.getItem(key) : null; } catch (e) { return null; } }
  function put(kind, key, value) { var s = store(kind); try { if (s) s.setItem(key, value); } catch (e) { /* private mode */ } }

  // ---- Copy buttons with feedback. ----
  function copyText(value, button, label) {
    var settled = false;
    function done(ok) {
      if (settled) return;
      settled = true;
      text(button, ok ? "Copied" : "Copy failed");
      button.classList.toggle("done", ok);
      setTimeout(function () { text(button, label); button.classList.remove("done"); }, 1500);
    }
    function legacy() {
      var area = el("textarea");
      area.value = value;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      button.focus();
      done(ok);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      // Some browsers never settle the promise without focus: fall back.
      setTimeout(function () { if (!settled) legacy(); }, 800);
      navigator.clipboard.writeText(value).then(function () { done(true); }, legacy);
    } else {
      legacy();
    }
  }
  function copyButton(pre) {
    if (!pre.hasAttribute("tabindex")) pre.tabIndex = 0;
    if (pre.parentNode.classList.contains("code-wrap")) return;
    var wrap = el("div", "code-wrap");
    pre.parentNode.insertBefore(wrap, pre);
    wrap.appendChild(pre);
    var button = el("button", "copy", "Copy");
    button.type = "button";
    button.setAttribute("aria-label", "Copy code");
    button.addEventListener("click", function () { copyText(pre.innerText, button, "Copy"); });
    wrap.insertBefore(button, pre);
  }

  // ---- Client-side JSON highlighting of Try-It responses (the server
  //      highlights everything else), with the same classes. ----
  function highlightJson(code, source) {
    var re = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)/g;
    var last = 0, m;
    code.textContent = "";
    while ((m = re.exec(source))) {
      if (m.index > last) code.appendChild(document.createTextNode(source.slice(last, m.index)));
      var cls = m[1] ? (m[2] ? "p" : "s") : m[3] ? "n" : "b";
      code.appendChild(el("span", cls, m[1] || m[3] || m[4]));
      if (m[2]) code.appendChild(document.createTextNode(m[2]));
      last = re.lastIndex;
    }
    code.appendChild(document.createTextNode(source.slice(last)));
  }

  // ---- Assistant answers: text, ``` code blocks, `code` and [n] links to
  //      the cited pages, built as DOM nodes (never HTML from the server). ----
  function answerInto(node, answer, citations) {
    node.textContent = "";
    var byN = {};
    (citations || []).forEach(function (c) { byN[c.n] = c; });
    var parts = String(answer || "").split("```");
    parts.forEach(function (part, i) {
      if (i % 2 === 1) {
        var pre = el("pre", "code"), code = el("code", "", part.replace(/^[a-z]*\n/, "").replace(/\n$/, ""));
        pre.appendChild(code);
        node.appendChild(pre);
        copyButton(pre);
        return;
      }
      var ul = null;
      part.split(/\n{1,}/).forEach(function (line) {
        if (!line.trim()) return;
        var item = /^- /.test(line), p = el(item ? "li" : "p");
        line.replace(/^- /, "").split(/(`[^`]+`|\[\d+\])/).forEach(function (bit) {
          if (!bit) return;
          var cite = /^\[(\d+)\]$/.exec(bit), c = cite && byN[cite[1]];
          if (/^`[^`]+`$/.test(bit)) p.appendChild(el("code", "", bit.slice(1, -1)));
          else if (c) { var a = el("a", "cite", "[" + c.n + "]"); a.href = c.url; a.title = c.title; p.appendChild(a); }
          else p.appendChild(document.createTextNode(bit));
        });
        if (item) {
          if (!ul) { ul = el("ul"); node.appendChild(ul); }
          ul.appendChild(p);
        } else {
          ul = null;
          node.appendChild(p);
        }
      });
    });
    if (citations && citations.length) {
      var list = el("ol", "sources");
      list.setAttribute("aria-label", "Sources");
      citations.forEach(function (c) { var li = el("li"), a = el("a", "", c.title); a.href = c.url; li.value = c.n; li.appendChild(a); list.appendChild(li); });
      node.appendChild(list);
    }
  }
  function postJson(url, body) {
    return fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
  }
  function refusal(response) {
    return response.json().then(function (d) { return (d.error && d.error.message) || "The assistant is unavailable."; }, function () { return "The assistant is unavailable (" + response.status + ")."; });
  }

  // ---- The chat drawer: a conversation with the docs assistant, answers
  //      streamed as server-sent events, kept for this tab's session. ----
  function chat(opener) {
    var url = opener.getAttribute("data-chat"), key = "docs.chat." + opener.getAttribute("data-vbase");
    var drawer, log, form, area, send, busy = false, saved = [];
    try { saved = JSON.parse(get("sessionStorage", key) || "{}").messages || []; } catch (e) { saved = []; }
    function conversation() { try { return JSON.parse(get("sessionStorage", key) || "{}").conversation || null; } catch (e) { return null; } }
    function remember(id) { put("sessionStorage", key, JSON.stringify({ conversation: id, messages: saved.slice(-8) })); }
    function bubble(role, textValue, citations) {
      var item = el("div", "chat-msg chat-" + role);
      item.appendChild(el("span", "visually-hidden", role === "user" ? "You said:" : "Assistant:"));
      var body = el("div", "chat-body");
      if (role === "user") body.appendChild(el("p", "", textValue)); else answerInto(body, textValue, citations);
      item.appendChild(body);
      log.appendChild(item);
      log.scrollTop = log.scrollHeight;
      return body;
    }
    function build() {
      drawer = el("aside", "chat");
      drawer.id = "chat";
      drawer.hidden = true;
      drawer.setAttribute("aria-label", "Ask AI about this API");
      var head = el("div", "chat-head");
      head.appendChild(el("h2", "", "Ask AI"));
      var closer = el("button", "btn btn-ghost", "Close");
      closer.type = "button";
      closer.addEventListener("click", close);
      head.appendChild(closer);
      log = el("div", "chat-log");
      log.setAttribute("role", "log");
      log.setAttribute("aria-live", "polite");
      form = el("form", "chat-form");
      area = el("textarea");
      area.name = "message";
      area.rows = 2;
      area.maxLength = 1000;
      area.required = true;
      area.placeholder = "How do I…?";
      area.setAttribute("aria-label", "Your question");
      send = el("button", "btn btn-solid", "Send");
      send.type = "submit";
      form.appendChild(area);
      form.appendChild(send);
      var note = el("p", "chat-note", "Answers come from this API's reference and cite it. Check the cited pages.");
      drawer.appendChild(head); drawer.appendChild(log); drawer.appendChild(form); drawer.appendChild(note);
      document.body.appendChild(drawer);
      saved.forEach(function (m) { bubble(m.role, m.text, m.citations); });
      form.addEventListener("submit", function (event) { event.preventDefault(); ask(); });
      area.addEventListener("keydown", function (event) { if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); ask(); } });
      drawer.addEventListener("keydown", function (event) { if (event.key === "Escape") close(); });
    }
    function open() {
      if (!drawer) build();
      drawer.hidden = false;
      opener.setAttribute("aria-expanded", "true");
      area.focus();
    }
    function close() {
      drawer.hidden = true;
      opener.setAttribute("aria-expanded", "false");
      opener.focus();
    }
    function ask() {
      var question = area.value.trim();
      if (!question || busy) return;
      busy = true;
      send.disabled = true;
      area.value = "";
      bubble("user", question);
      saved.push({ role: "user", text: question });
      var body = bubble("assistant", "…"), answer = "", citations = [];
      body.parentNode.setAttribute("aria-busy", "true");
      function finish(message) {
        if (message) body.appendChild(el("p", "chat-error", message));
        body.parentNode.removeAttribute("aria-busy");
        busy = false;
        send.disabled = false;
        area.focus();
      }
      postJson(url, { message: question, conversation: conversation() }).then(function (response) {
        if (!response.ok) return refusal(response).then(function (message) { body.textContent = ""; saved.pop(); finish(message); });
        var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = "";
        function handle(block) {
          var name = "message", data = "";
          block.split("\n").forEach(function (line) {
            if (line.indexOf("event:") === 0) name = line.slice(6).trim();
            else if (line.indexOf("data:") === 0) data += line.slice(5).replace(/^ /, "");
          });
          if (!data) return;
          var d;
          try { d = JSON.parse(data); } catch (e) { return; }
          if (name === "meta") { citations = d.citations || []; remember(d.conversation); }
          else if (name === "delta") { answer += d.text; answerInto(body, answer, citations); log.scrollTop = log.scrollHeight; }
          else if (name === "error") body.appendChild(el("p", "chat-error", d.message));
        }
        function pump() {
          return reader.read().then(function (step) {
            if (step.done) {
              saved.push({ role: "assistant", text: answer, citations: citations });
              remember(conversation());
              return finish();
            }
            buffer += decoder.decode(step.value, { stream: true });
            var blocks = buffer.split("\n\n");
            buffer = blocks.pop();
            blocks.forEach(handle);
            return pump();
          });
        }
        return pump();
      }).catch(function () { finish("The connection was lost; ask again."); });
    }
    opener.hidden = false;
    opener.addEventListener("click", function () { if (drawer && !drawer.hidden) close(); else open(); });
  }

  // ---- Quick search: / and Ctrl/Cmd-K. ----
  function quickSearch(opener) {
    var indexUrl = opener.getAttribute("data-index");
    var searchUrl = opener.getAttribute("data-search");
    var vbase = opener.getAttribute("data-vbase"), askUrl = opener.getAttribute("data-ask"), answerBox;
    var index = null, loading = null, overlay, input, list, results = [], active = 0, timer = null, serial = 0, last = null;
    function load() {
      if (!loading) loading = fetch(indexUrl).then(function (r) { return r.json(); }).then(function (d) { index = d; return d; }, function () { index = []; return index; });
      return loading;
    }
    function build() {
      overlay = el("div", "qs");
      overlay.hidden = true;
      overlay.setAttribute("role", "dialog");
      overlay.setAttribute("aria-modal", "true");
      overlay.setAttribute("aria-label", "Search the docs");
      var box = el("div", "qs-box");
      input = el("input");
      input.type = "search";
      input.placeholder = "Search operations, schemas and text";
      input.setAttribute("aria-label", "Search the docs");
      input.setAttribute("role", "combobox");
      input.setAttribute("aria-expanded", "true");
      input.setAttribute("aria-controls", "qs-list");
      input.setAttribute("aria-autocomplete", "list");
      list = el("ul", "qs-list");
      list.id = "qs-list";
      list.setAttribute("role", "listbox");
      list.setAttribute("aria-label", "Results");
      var foot = el("div", "qs-foot");
      foot.innerHTML = "<span><kbd>↑</kbd> <kbd>↓</kbd> to move</span><span><kbd>Enter</kbd> to open</span><span><kbd>Esc</kbd> to close</span>";
      answerBox = el("div", "qs-answer");
      answerBox.hidden = true;
      answerBox.setAttribute("aria-live", "polite");
      box.appendChild(input); box.appendChild(answerBox); box.appendChild(list); box.appendChild(foot);
      overlay.appendChild(box);
      document.body.appendChild(overlay);
      overlay.addEventListener("mousedown", function (event) { if (event.target === overlay) close(); });
      input.addEventListener("input", function () { answerBox.hidden = true; render(); remote(); });
      input.addEventListener("keydown", function (event) {
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          if (!results.length) return;
          active = (active + (event.key === "ArrowDown" ? 1 : -1) + results.length) % results.length;
          mark();
        } else if (event.key === "Enter") {
          event.preventDefault();
          if (results[active] && results[active].ask) askAi();
          else if (results[active]) location.href = results[active].href;
          else if (input.value.trim()) location.href = searchUrl + "?q=" + encodeURIComponent(input.value.trim());
        } else if (event.key === "Escape") {
          event.preventDefault();
          close();
        } else if (event.key === "Tab") {
          event.preventDefault();
        }
      });
    }
    function open() {
      if (!overlay) build();
      last = document.activeElement;
      overlay.hidden = false;
      input.focus();
      input.select();
      load().then(render);
    }
    function close() {
      overlay.hidden = true;
      if (last && last.focus) last.focus();
    }
    // Words that say nothing about which section is meant: never required,
    // never highlighted.
    var STOP = ["a", "an", "the", "i", "me", "my", "to", "of", "in", "on", "for", "and", "or", "is", "are", "do",
      "does", "how", "what", "which", "can", "with", "by", "it", "this", "that", "be", "we", "you", "your", "please"];
    function words(q) {
      var all = q.toLowerCase().split(/\s+/).filter(Boolean);
      var kept = all.filter(function (w) { return STOP.indexOf(w) < 0; });
      return kept.length ? kept : all;
    }
    // The methods a question's verb asks for, to say when no operation here
    // does it ("delete a loan" on an API without one).
    var INTENTS = [
      [["delete", "remove", "erase", "drop", "destroy", "revoke", "wipe"], ["DELETE"], "deletes"],
      [["create", "add", "make", "new", "submit", "register"], ["POST", "PUT"], "creates"],
      [["update", "edit", "change", "modify", "rename"], ["PUT", "PATCH", "POST"], "changes"]
    ];
    function intentOf(ws) {
      for (var i = 0; i < INTENTS.length; i++) {
        if (ws.some(function (w) { return INTENTS[i][0].indexOf(w) >= 0; })) return INTENTS[i];
      }
      return null;
    }
    // A remote hit's kind from its target: the method for an operation,
    // else what the section is.
    function kindOf(hit) {
      var t = hit.target || "", method = (hit.title || "").split(" ")[0];
      if (t.indexOf("op/") === 0 && /^[A-Z]+$/.test(method)) return method;
      if (t.indexOf("schemas/") === 0) return "schema";
      if (t.indexOf("types/") === 0) return "type";
      if (t.indexOf("graphql/query/") === 0) return "query";
      if (t.indexOf("graphql/mutation/") === 0) return "mutation";
      return "page";
    }
    function score(entry, ws) {
      var title = entry[1].toLowerCase(), sub = (entry[2] || "").toLowerCase(), kind = entry[0].toLowerCase(), total = 0;
      for (var i = 0; i < ws.length; i++) {
        var w = ws[i], at = title.indexOf(w);
        if (at === 0) total += 6; else if (at > 0) total += (/\W/.test(title.charAt(at - 1)) ? 4 : 2);
        else if (sub.indexOf(w) >= 0) total += 1.5;
        else if (kind === w) total += 1;
        else return 0;
      }
      return total - title.length / 400;
    }
    // Marks whole words that start with a word of the question (two
    // letters at least): "repo" marks "repository", never the "a" in "pet".
    function highlight(node, value, ws) {
      var lower = value.toLowerCase(), pos = 0, alnum = /[a-z0-9]/i;
      var wanted = ws.filter(function (w) { return w.length >= 2 && STOP.indexOf(w) < 0; });
      while (pos < value.length) {
        var best = -1, len = 0;
        wanted.forEach(function (w) {
          var at = lower.indexOf(w, pos);
          while (at > 0 && alnum.test(lower.charAt(at - 1))) at = lower.indexOf(w, at + 1);
          if (at >= 0 && (best < 0 || at < best)) {
            var end = at + w.length;
            while (end < value.length && alnum.test(value.charAt(end))) end++;
            best = at; len = end - at;
          }
        });
        if (best < 0) break;
        if (best > pos) node.appendChild(document.createTextNode(value.slice(pos, best)));
        node.appendChild(el("mark", "", value.slice(best, best + len)));
        pos = best + len;
      }
      node.appendChild(document.createTextNode(value.slice(pos)));
      return node;
    }
    var prose = [];
    function render() {
      var ws = words(input.value), instant = [];
      if (ws.length && index) {
        var scored = [];
        for (var i = 0; i < index.length; i++) { var s = score(index[i], ws); if (s > 0) scored.push([s, index[i]]); }
        scored.sort(function (a, b) { return b[0] - a[0]; });
        instant = scored.slice(0, 40).map(function (p) { return { kind: p[1][0], title: p[1][1], sub: p[1][2], href: vbase + "/" + p[1][3] }; });
      }
      // The server's ranking (the engine of AI search, the chat and MCP)
      // leads once it answers; the instant matches fill in after it.
      results = prose.length ? prose.slice() : instant;
      (prose.length ? instant : []).forEach(function (hit) { if (!results.some(function (r) { return r.href === hit.href; })) results.push(hit); });
      if (askUrl && ws.length) results.push({ kind: "AI", title: "Ask AI: " + input.value.trim(), href: "#", ask: true });
      active = 0;
      list.textContent = "";
      if (!ws.length) { list.appendChild(el("li", "qs-empty", "Type to search operations, schemas and descriptions.")); return; }
      var intent = intentOf(ws);
      var objects = intent ? ws.filter(function (w) { return intent[0].indexOf(w) < 0; }) : [];
      var does = function (r) {
        var text = (r.title + " " + (r.sub || "")).toLowerCase();
        return intent[1].indexOf(r.kind) >= 0 && (!objects.length || objects.some(function (w) { return text.indexOf(w) >= 0; }));
      };
      if (intent && results.length && !results.some(does)) {
        list.appendChild(el("li", "qs-empty qs-note", "No operation here " + intent[2] + " that; the closest matches follow."));
      }
      if (!results.length) { list.appendChild(el("li", "qs-empty", index ? "No results yet." : "Loading…")); return; }
      results.forEach(function (r, i) {
        var li = el("li");
        li.setAttribute("role", "none");
        var a = el("a");
        a.id = "qs-" + i;
        a.setAttribute("role", "option");
        a.href = r.href;
        a.tabIndex = -1;
        a.appendChild(el("span", "qs-kind", r.kind));
        a.appendChild(highlight(el("span", "qs-title"), r.title, ws));
        if (r.sub) a.appendChild(highlight(el("span", "qs-sub"), r.sub, ws));
        li.appendChild(a);
        li.addEventListener("mousemove", function () { if (active !== i) { active = i; mark(); } });
        if (r.ask) a.addEventListener("click", function (event) { event.preventDefault(); askAi(); });
        list.appendChild(li);
      });
      mark();
    }
    function mark() {
      list.querySelectorAll("[role=option]").forEach(function (a, i) { a.setAttribute("aria-selected", String(i === active)); });
      var current = document.getElementById("qs-" + active);
      if (current) { input.setAttribute("aria-activedescendant", current.id); current.scrollIntoView({ block: "nearest" }); }
    }
    // An answer from the docs assistant, above the results.
    function askAi() {
      var q = input.value.trim();
      if (!q) return;
      answerBox.hidden = false;
      answerBox.setAttribute("aria-busy", "true");
      answerBox.textContent = "Thinking…";
      postJson(askUrl, { q: q }).then(function (response) {
        if (!response.ok) return refusal(response).then(function (message) { answerBox.textContent = ""; answerBox.appendChild(el("p", "chat-error", message)); });
        return response.json().then(function (d) { answerInto(answerBox, d.answer, d.citations); });
      }).catch(function () { answerBox.textContent = "The connection was lost; ask again."; }).then(function () { answerBox.removeAttribute("aria-busy"); });
    }
    // The server's search (the hub's one engine: words, their meaning, and
    // the operator's embeddings model when one is configured) ranks the
    // question once typing pauses.
    function remote() {
      clearTimeout(timer);
      var q = input.value.trim();
      prose = [];
      if (q.length < 2) return;
      var mine = ++serial;
      timer = setTimeout(function () {
        fetch(searchUrl + "?format=json&q=" + encodeURIComponent(q)).then(function (r) { return r.ok ? r.json() : { hits: [] }; }).then(function (d) {
          if (mine !== serial) return;
          prose = (d.hits || []).map(function (h) { return { kind: kindOf(h), title: h.title, sub: (h.snippet || "").replace(/\s+/g, " ").slice(0, 120), href: vbase + "/" + h.target }; });
          render();
        }, function () { /* offline: the instant results stay */ });
      }, 120);
    }
    opener.addEventListener("click", function (event) { event.preventDefault(); open(); });
    document.addEventListener("keydown", function (event) {
      var t = event.target, typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
      if ((event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey)) { event.preventDefault(); open(); }
      else if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) { event.preventDefault(); open(); }
    });
  }

  // ---- Try-It. ----
  function saved(form, key) { return get("sessionStorage", "docs.tryit." + key); }
  function keep(key, value) { put("sessionStorage", "docs.tryit." + key, value); }

  // Checks one parameter field against its schema; returns the message.
  function checkField(input) {
    var value = input.value, message = "";
    if (input.required && value === "") message = "Required.";
    else if (value !== "" && input.type === "number") {
      var n = Number(value);
      if (!isFinite(n)) message = "Not a number.";
      else if (input.step === "1" && Math.floor(n) !== n) message = "Must be a whole number.";
      else if (input.min !== "" && n < Number(input.min)) message = "At least " + input.min + ".";
      else if (input.max !== "" && n > Number(input.max)) message = "At most " + input.max + ".";
    } else if (value !== "") {
      var pattern = input.getAttribute("data-pattern");
      if (input.minLength > 0 && value.length < input.minLength) message = "At least " + input.minLength + " characters.";
      else if (pattern) {
        try { if (!new RegExp(pattern, "u").test(value)) message = "Does not match " + pattern + "."; } catch (e) { /* a pattern the browser cannot read */ }
      }
    }
    input.setAttribute("aria-invalid", String(!!message));
    var out = input.getAttribute("aria-describedby") && document.getElementById(input.getAttribute("aria-describedby"));
    if (out) text(out, message);
    return message;
  }
  function checkBody(form) {
    var box = form.querySelector("[name=body]");
    if (!box || form.hasAttribute("data-graphql")) return "";
    var media = box.getAttribute("data-media") || "";
    var message = "";
    if (/json/i.test(media) && box.value.trim() !== "") {
      try { JSON.parse(box.value); } catch (e) { message = "Not valid JSON: " + e.message; }
    }
    box.setAttribute("aria-invalid", String(!!message));
    var out = document.getElementById("t-body-e");
    if (out && form.contains(out)) text(out, message);
    return message;
  }

  function b64(value) { try { return btoa(unescape(encodeURIComponent(value))); } catch (e) { return ""; } }

  // The credentials typed in the panel, as headers, query and cookies.
  function credentials(form, headers, query) {
    form.querySelectorAll(".cred").forEach(function (cred) {
      var kind = cred.getAttribute("data-auth"), where = cred.getAttribute("data-in"), param = cred.getAttribute("data-param");
      if (kind === "basic") {
        var user = cred.querySelector("[name=user]").value, pass = cred.querySelector("[name=password]").value;
        if (user || pass) headers.Authorization = "Basic " + b64(user + ":" + pass);
        return;
      }
      var secret = cred.querySelector("[name=secret]").value.trim();
      if (!secret) return;
      if (kind === "apikey") {
        if (where === "query") query.push(encodeURIComponent(param) + "=" + encodeURIComponent(secret));
        else if (where === "cookie") headers.Cookie = (headers.Cookie ? headers.Cookie + "; " : "") + param + "=" + secret;
        else headers[param] = secret;
      } else {
        headers.Authorization = "Bearer " + secret.replace(/^Bearer\s+/i, "");
      }
    });
  }

  // Builds the request of a Try-It form: the target, path parameters filled
  // in, query parameters, credentials, headers and body.
  function buildRequest(form) {
    var target = form.querySelector("[name=target]").value.replace(/\/+$/, "");
    var path = form.getAttribute("data-path");
    var query = [];
    var headers = {};
    form.querySelectorAll("[data-in][data-name]").forEach(function (input) {
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
    credentials(form, headers, query);
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

  function shellQuote(value) { return "'" + String(value).replace(/'/g, "'\\''") + "'"; }
  function curl(form) {
    var request = buildRequest(form);
    var out = "curl -X " + request.init.method + " " + shellQuote(new URL(request.url, location.href).href);
    Object.keys(request.init.headers).forEach(function (name) { out += " \\\n  -H " + shellQuote(name + ": " + request.init.headers[name]); });
    if (request.init.body !== undefined) out += " \\\n  --data " + shellQuote(request.init.body);
    return out;
  }

  // "Save as a request": the dashboard's new-request form of the project,
  // opened with this request. Credentials typed here never travel: each
  // becomes a {{placeholder}} that an environment fills in.
  function saveRequest(form, button) {
    var request = buildRequest(form);
    var url = new URL(request.url, location.href);
    var headers = [];
    var dropped = { authorization: true };
    form.querySelectorAll(".cred").forEach(function (cred) {
      var kind = cred.getAttribute("data-auth"), where = cred.getAttribute("data-in"), param = cred.getAttribute("data-param") || "api_key";
      if (kind === "apikey" && where === "header") { dropped[param.toLowerCase()] = true; headers.push(param + ": {{" + param + "}}"); }
      else if (kind === "apikey" && where === "query") { url.searchParams.delete(param); url.searchParams.append(param, "{{" + param + "}}"); }
      else if (kind === "apikey") { dropped.cookie = true; }
      else if (kind === "basic") headers.push("Authorization: Basic {{basic_credentials}}");
      else headers.push("Authorization: Bearer {{token}}");
    });
    Object.keys(request.init.headers).forEach(function (name) {
      if (!dropped[name.toLowerCase()]) headers.push(name + ": " + request.init.headers[name]);
    });
    var text = url.href.replace(/%7B%7B/gi, "{{").replace(/%7D%7D/gi, "}}");
    var api = button.getAttribute("data-api-base");
    if (api && text.indexOf(api.replace(/\/$/, "")) === 0) text = text.slice(api.replace(/\/$/, "").length) || "/";
    var params = new URLSearchParams({ method: request.init.method, url: text, name: button.getAttribute("data-name") || "", headers: headers.join("\n") });
    if (request.init.body !== undefined) params.set("body", request.init.body);
    window.open(button.getAttribute("data-save-request") + "?" + params.toString(), "_blank", "noopener");
  }

  function size(bytes) { return bytes < 1024 ? bytes + " B" : (bytes / 1024).toFixed(1) + " KB"; }

  // The response viewer: status, time, size, headers, a pretty and
  // highlighted body.
  function show(output, status, headers, body, meta) {
    output.textContent = "";
    var head = el("div", "resp-meta");
    var badge = el("span", "status", status);
    var code = parseInt(status, 10);
    badge.className = "status " + (code >= 200 && code < 300 ? "s-ok" : code >= 400 && code < 500 ? "s-client" : code >= 500 ? "s-server" : "");
    head.appendChild(badge);
    (meta || []).forEach(function (m) { head.appendChild(el("span", "", m)); });
    output.appendChild(head);
    if (headers) {
      var details = el("details");
      details.appendChild(el("summary", "", "Headers (" + headers.split("\n").filter(Boolean).length + ")"));
      details.appendChild(el("pre", "code", headers));
      output.appendChild(details);
    }
    var pre = el("pre", "code");
    var codeEl = el("code", "hl");
    var pretty = body.text;
    if (body.json) highlightJson(codeEl, pretty); else text(codeEl, pretty);
    pre.appendChild(codeEl);
    output.appendChild(pre);
    copyButton(pre);
  }

  function pretty(body, type) {
    if (type && type.indexOf("json") >= 0) {
      try { return { text: JSON.stringify(JSON.parse(body), null, 2), json: true }; } catch (e) { return { text: body, json: false }; }
    }
    return { text: body, json: false };
  }

  function showFailure(output, message, offerRelay) {
    output.textContent = "";
    output.appendChild(el("p", "status s-server", "The request failed"));
    output.appendChild(el("pre", "code", message));
    if (!offerRelay) return;
    var retry = el("button", "btn btn-outline relay-retry", "Send through the hub instead");
    retry.type = "button";
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
    var payload = { method: request.init.method, url: new URL(request.url, location.href).href, headers: request.init.headers };
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
          var body = pretty(answer.body, type);
          body.text += note;
          show(output, answer.status + " · " + (Date.now() - started) + " ms · through the hub", lines.join("\n"), body,
            [size(new Blob([answer.body]).size)]);
        }
      });
    }).catch(function (error) {
      showFailure(output, String(error), null);
    });
  }

  function send(form, output) {
    var problems = [];
    form.querySelectorAll("[data-in][data-name]").forEach(function (input) { var m = checkField(input); if (m) problems.push(input); });
    if (checkBody(form)) problems.push(form.querySelector("[name=body]"));
    if (problems.length) { problems[0].focus(); return null; }
    var request = buildRequest(form);
    var started = Date.now();
    var relay = form.querySelector("input[name=relay]");
    var isApi = request.url.indexOf("/mock/") < 0;
    output.textContent = "";
    output.appendChild(el("p", "hint", "Sending " + request.init.method + " " + request.url + " …"));
    if (relay && relay.checked && isApi) return sendRelayed(form, output, request, started);
    return fetch(request.url, request.init).then(function (response) {
      return response.text().then(function (body) {
        var lines = [];
        response.headers.forEach(function (value, name) { lines.push(name + ": " + value); });
        show(output, response.status + " " + response.statusText, lines.join("\n"), pretty(body, response.headers.get("content-type")),
          [(Date.now() - started) + " ms", size(new Blob([body]).size)]);
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
    var label = el("label", "relay");
    var box = el("input");
    box.type = "checkbox";
    box.name = "relay";
    label.appendChild(box);
    label.appendChild(document.createTextNode(" Send through the hub (for APIs without CORS)"));
    var field = select.closest(".field") || select.parentNode;
    field.parentNode.insertBefore(label, field.nextSibling);
    function update() { label.hidden = select.value.indexOf("/mock/") >= 0; }
    select.addEventListener("change", update);
    update();
  }

  // ---- OAuth 2: client credentials, and authorization code with PKCE in
  //      a pop-up whose redirect comes back to this very page. ----
  function randomString() {
    var bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    return base64url(bytes);
  }
  function base64url(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function challenge(verifier) {
    if (!window.crypto || !crypto.subtle) return Promise.resolve({ challenge: verifier, method: "plain" });
    return crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)).then(function (digest) {
      return { challenge: base64url(new Uint8Array(digest)), method: "S256" };
    });
  }
  function tokenRequest(url, fields) {
    var body = Object.keys(fields).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(fields[k]); }).join("&");
    return fetch(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" }, body: body })
      .then(function (r) { return r.json().then(function (d) { if (!r.ok || !d.access_token) throw new Error(d.error_description || d.error || ("token endpoint answered " + r.status)); return d; }); });
  }
  function redirectUri() { return location.origin + location.pathname; }
  function oauth(form, flow) {
    var cred = flow.closest(".cred");
    var status = flow.querySelector(".oauth-status");
    var secretBox = cred.querySelector("[name=secret]");
    var kind = flow.getAttribute("data-flow");
    var tokenUrl = new URL(flow.getAttribute("data-token") || "", location.href).href;
    var scopes = flow.getAttribute("data-scopes") || "";
    function got(d) {
      secretBox.value = d.access_token;
      secretBox.dispatchEvent(new Event("input"));
      text(status, "Token received" + (d.expires_in ? " (expires in " + d.expires_in + " s)" : "") + ".");
    }
    function failed(e) { text(status, "Failed: " + e.message); }
    flow.querySelector("[data-oauth]").addEventListener("click", function () {
      var clientId = flow.querySelector("[name=client_id]").value.trim();
      keep("client." + cred.getAttribute("data-scheme"), clientId);
      if (kind === "client_credentials") {
        var fields = { grant_type: "client_credentials", client_id: clientId, client_secret: flow.querySelector("[name=client_secret]").value };
        if (scopes) fields.scope = scopes;
        text(status, "Asking for a token…");
        tokenRequest(tokenUrl, fields).then(got, failed);
        return;
      }
      var verifier = randomString(), state = randomString();
      var popup = window.open("about:blank", "docs-oauth", "width=520,height=680");
      challenge(verifier).then(function (c) {
        var url = new URL(flow.getAttribute("data-authorize"), location.href);
        url.searchParams.set("response_type", "code");
        url.searchParams.set("client_id", clientId);
        url.searchParams.set("redirect_uri", redirectUri());
        url.searchParams.set("state", state);
        url.searchParams.set("code_challenge", c.challenge);
        url.searchParams.set("code_challenge_method", c.method);
        if (scopes) url.searchParams.set("scope", scopes);
        text(status, "Waiting for the sign-in in the pop-up…");
        function onMessage(event) {
          if (event.origin !== location.origin || !event.data || event.data.type !== "docs-oauth" || event.data.state !== state) return;
          window.removeEventListener("message", onMessage);
          if (event.data.error) { failed(new Error(event.data.error)); return; }
          text(status, "Exchanging the code…");
          tokenRequest(tokenUrl, { grant_type: "authorization_code", code: event.data.code, redirect_uri: redirectUri(), client_id: clientId, code_verifier: verifier }).then(got, failed);
        }
        window.addEventListener("message", onMessage);
        if (popup) popup.location.href = url.href; else location.href = url.href;
      });
    });
    var id = saved(form, "client." + cred.getAttribute("data-scheme"));
    if (id) flow.querySelector("[name=client_id]").value = id;
  }
  // In the pop-up, back from the authorization server: hand the code to the
  // page that opened it, then close.
  function oauthReturn() {
    var params = new URLSearchParams(location.search);
    if (!window.opener || !params.get("state") || !(params.get("code") || params.get("error"))) return false;
    try {
      window.opener.postMessage({ type: "docs-oauth", code: params.get("code"), state: params.get("state"), error: params.get("error") }, location.origin);
    } catch (e) { return false; }
    window.close();
    return true;
  }

  function tryIt(form) {
    form.hidden = false;
    relaySwitch(form);
    var output = form.querySelector("output");
    var key = form.getAttribute("data-key") || "";
    // Credentials are kept for the tab's session, per scheme.
    form.querySelectorAll(".cred input").forEach(function (input) {
      var id = "cred." + input.closest(".cred").getAttribute("data-scheme") + "." + input.name;
      if (input.name === "client_id" || input.name === "client_secret") return;
      var value = saved(form, id);
      if (value !== null) input.value = value;
      input.addEventListener("input", function () { keep(id, input.value); });
    });
    form.querySelectorAll(".flow").forEach(function (flow) { oauth(form, flow); });
    var target = form.querySelector("[name=target]");
    var savedTarget = saved(form, "target");
    if (savedTarget && Array.prototype.some.call(target.options, function (o) { return o.value === savedTarget; })) target.value = savedTarget;
    target.addEventListener("change", function () { keep("target", target.value); });
    form.querySelectorAll("[data-in][data-name]").forEach(function (input) {
      // Checked while typing (not on blur: a message appearing or going
      // away then would move the button being clicked).
      input.addEventListener("input", function () { if (input.hasAttribute("aria-invalid")) checkField(input); });
      input.addEventListener("change", function () { checkField(input); });
      if (key) {
        var id = "param." + key + "." + input.name;
        var value = saved(form, id);
        if (value !== null) input.value = value;
        input.addEventListener("change", function () { keep(id, input.value); });
      }
    });
    var body = form.querySelector("[name=body]");
    var pending = null;
    if (body) body.addEventListener("input", function () { clearTimeout(pending); pending = setTimeout(function () { checkBody(form); }, 400); });
    var copy = form.querySelector("[data-copy-curl]");
    if (copy) copy.addEventListener("click", function () { copyText(curl(form), copy, "Copy as curl"); });
    var save = form.querySelector("[data-save-request]");
    if (save) save.addEventListener("click", function () { saveRequest(form, save); });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      send(form, output);
    });
  }

  function themeToggle() {
    var button = document.querySelector(".theme-toggle");
    if (!button) return;
    var root = document.documentElement;
    var choice = get("localStorage", "docs.theme");
    if (!root.hasAttribute("data-theme-locked") && (choice === "light" || choice === "dark")) root.setAttribute("data-theme", choice);
    button.hidden = false;
    button.addEventListener("click", function () {
      var dark = root.getAttribute("data-theme") === "dark" ||
        (!root.getAttribute("data-theme") && window.matchMedia("(prefers-color-scheme: dark)").matches);
      var next = dark ? "light" : "dark";
      root.setAttribute("data-theme", next);
      put("localStorage", "docs.theme", next);
    });
  }

  // Radio tabs work without the script; it remembers the choice across
  // pages (the sample language).
  function rememberTabs(set) {
    var key = set.getAttribute("data-remember");
    var saved = get("localStorage", key);
    set.querySelectorAll(".tabbar input").forEach(function (input) {
      if (saved !== null && input.value === saved) input.checked = true;
      input.addEventListener("change", function () { if (input.checked) put("localStorage", key, input.value); });
    });
  }

  function init() {
    if (oauthReturn()) return;
    document.querySelectorAll(".tabset[data-remember]").forEach(rememberTabs);
    document.querySelectorAll("pre.code").forEach(copyButton);
    document.querySelectorAll("form[data-tryit]").forEach(tryIt);
    var opener = document.querySelector("[data-qs]");
    if (opener) quickSearch(opener);
    var chatOpener = document.querySelector("[data-chat]");
    if (chatOpener && window.fetch && window.TextDecoder) chat(chatOpener);
    themeToggle();
  }

  window.ServiceDocs = { buildRequest: buildRequest, curl: curl };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
