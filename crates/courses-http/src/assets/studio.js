// The studio's enhancements. Every page works without this file: the Up
// and Down buttons reorder screens, a block's form saves, the preview shows
// what is saved. With it: screens are dragged into order, and a block's
// preview (the learner player itself) shows the edit as it is typed.
(function () {
  "use strict";

  // The live preview: the form is checked by the server as it would be on
  // saving, nothing is saved, and the screen it gives is handed to the
  // player in the frame (same origin only).
  var form = document.querySelector("form[data-draft]");
  var frame = document.getElementById("live-preview");
  var status = document.getElementById("live-status");
  if (form && frame && window.fetch && window.URLSearchParams) {
    var timer = null;
    var sent = 0;
    var update = function () {
      var mine = ++sent;
      fetch(form.getAttribute("data-draft"), {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json" },
        body: new URLSearchParams(new FormData(form))
      })
        .then(function (r) { return r.json(); })
        .then(function (answer) {
          if (mine !== sent) return;
          if (!answer.screen) {
            status.textContent = "Not shown yet: " + (answer.message || "the block is not complete");
            return;
          }
          status.textContent = "";
          if (frame.contentWindow) {
            frame.contentWindow.postMessage({ kind: "svc-draft", screenIndex: answer.screenIndex, screen: answer.screen }, location.origin);
          }
        })
        .catch(function () { if (mine === sent) status.textContent = "The preview could not be updated."; });
    };
    form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 250); });
    form.addEventListener("change", function () { clearTimeout(timer); timer = setTimeout(update, 250); });
    frame.addEventListener("load", update);
  }

  // Dragging screens: the order is posted as the Up and Down buttons' twin.
  var list = document.querySelector("ul[data-reorder]");
  if (list) {
    var dragged = null;
    var items = function () { return Array.prototype.slice.call(list.querySelectorAll(":scope > li[data-screen]")); };
    items().forEach(function (item) {
      item.setAttribute("draggable", "true");
      item.addEventListener("dragstart", function (event) {
        dragged = item;
        item.style.opacity = "0.5";
        event.dataTransfer.effectAllowed = "move";
        event.dataTransfer.setData("text/plain", item.getAttribute("data-screen"));
      });
      item.addEventListener("dragend", function () { item.style.opacity = ""; dragged = null; });
      item.addEventListener("dragover", function (event) {
        if (!dragged || dragged === item) return;
        event.preventDefault();
        var box = item.getBoundingClientRect();
        var after = event.clientY > box.top + box.height / 2;
        list.insertBefore(dragged, after ? item.nextSibling : item);
      });
      item.addEventListener("drop", function (event) {
        event.preventDefault();
        var post = document.createElement("form");
        post.method = "post";
        post.action = list.getAttribute("data-reorder");
        [["csrf_token", list.getAttribute("data-csrf")], ["order", items().map(function (i) { return i.getAttribute("data-screen"); }).join(",")]]
          .forEach(function (pair) {
            var input = document.createElement("input");
            input.type = "hidden";
            input.name = pair[0];
            input.value = pair[1];
            post.appendChild(input);
          });
        document.body.appendChild(post);
        post.submit();
      });
    });
  }
})();
