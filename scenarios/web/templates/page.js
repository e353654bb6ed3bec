// The live page: swap in each fragment the server sends (server-sent events), say whether the
// link is alive, and offer "Run step" where a guided run waits, with the token the terminal
// printed in the address (#token=...: a fragment, so it never leaves this browser).
"use strict";
(function () {
  const live = document.getElementById("live");
  const link = document.getElementById("link");
  const token = new URLSearchParams(window.location.hash.slice(1)).get("token");

  function say(state, text) {
    link.dataset.state = state;
    link.textContent = text;
  }

  function wire() {
    const button = document.getElementById("run-step");
    if (!button) return;
    const help = button.parentElement.querySelector(".no-token");
    if (!token) {
      button.disabled = true;
      if (help) help.textContent = "stepping needs the address the terminal printed, with its token";
      return;
    }
    button.addEventListener("click", function () {
      button.disabled = true;
      fetch("/step", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Step-Token": token },
        body: JSON.stringify({ step: Number(button.dataset.step) }),
      }).then(function (reply) {
        if (!reply.ok) return reply.text().then(function (why) { if (help) help.textContent = why; });
      }).catch(function () { if (help) help.textContent = "the run does not answer"; });
    });
  }

  wire();
  const source = new EventSource("/events");
  source.addEventListener("open", function () { say("live", "live"); });
  source.addEventListener("message", function (event) {
    live.innerHTML = event.data;
    wire();
    say("live", "live");
  });
  source.addEventListener("error", function () {
    // The browser tries again by itself; until then, the page says it is not current.
    say("lost", "not live: the demo or the run has stopped (or is not reachable)");
  });
})();
