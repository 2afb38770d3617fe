// The vote screen: show the server's own message when a vote is refused (used or expired pair, rate limit)
// instead of dropping the answer, and leave the page when the session has ended.
document.addEventListener("htmx:beforeSwap", (event) => {
  const xhr = event.detail.xhr;
  const target = event.detail.target;
  // The target is the stage, or the vote bar inside it (a vote swaps only the bar, so the apps keep their state).
  if (!xhr || !target || !target.closest("#vote-stage")) return;
  if (xhr.responseURL && new URL(xhr.responseURL).pathname.startsWith("/signin/")) {
    event.detail.shouldSwap = false;
    window.location.assign(xhr.responseURL);
    return;
  }
  if ([400, 403, 410, 429].includes(xhr.status)) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});

// "Open full screen": one app fills the window (a CSS overlay, so the frame keeps its state); the button, or
// Escape outside the app, closes it again. While it is open the rest of the page is inert, so Tab and a screen
// reader stay with that app and its two buttons.
const inertByFullscreen = [];

function inertAround(keep) {
  const path = new Set();
  keep.forEach((el) => {
    for (let node = el; node && node !== document.body; node = node.parentElement) path.add(node);
  });
  path.forEach((node) => {
    for (const sibling of node.parentElement.children) {
      if (!path.has(sibling) && !sibling.inert && sibling.tagName !== "SCRIPT") {
        sibling.inert = true;
        inertByFullscreen.push(sibling);
      }
    }
  });
}

function setFullscreen(button, on) {
  const wrap = document.getElementById(button.getAttribute("aria-controls"));
  if (!wrap) return;
  const tools = button.closest(".side-tools");
  inertByFullscreen.splice(0).forEach((el) => { el.inert = false; });
  wrap.classList.toggle("fullscreen", on);
  if (tools) tools.classList.toggle("fixed", on);
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.textContent = on ? "Close full screen" : "Open full screen";
  document.body.classList.toggle("app-fullscreen", on);
  if (on) inertAround([wrap, tools || button]);
  button.focus(); // keys typed inside the app stay in the app; from the button, Tab enters it and Escape closes
}

document.addEventListener("click", (event) => {
  const button = event.target.closest(".fullscreen-toggle");
  if (button) setFullscreen(button, button.getAttribute("aria-pressed") !== "true");
});

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  document.querySelectorAll('.fullscreen-toggle[aria-pressed="true"]').forEach((b) => setFullscreen(b, false));
});

// "Reload app": the frame loads the app again, as a reload of its own page would. The same frame navigates
// (its src set again), so what the app saved (its storage, kept with the frame) is still there: a voter can
// check that a message survives a reload. The focus guard below treats the frame as loading again.
document.addEventListener("click", (event) => {
  const button = event.target.closest(".reload-app");
  if (!button) return;
  const frame = document.querySelector(`#${button.getAttribute("aria-controls")} iframe.live`);
  if (!frame) return;
  frame.dispatchEvent(new CustomEvent("vote:reload"));
  frame.src = frame.getAttribute("src");
});

// "Next pair" after a vote: the vote's answer already holds the next pair (drawn with the vote) in a
// <template>; it replaces the stage without another request. Without JavaScript the link loads /vote/, which
// shows that same pair.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-next-stage]");
  if (!link) return;
  const template = document.getElementById(link.dataset.nextStage);
  const stage = document.getElementById("vote-stage");
  if (!template || !stage) return;
  event.preventDefault();
  const next = template.content.firstElementChild.cloneNode(true);
  stage.replaceWith(next);
  if (window.htmx) window.htmx.process(next);
  next.scrollIntoView({ block: "start" });
  // The focus moves to the new pair, so Tab goes on into app A as the keyboard help says.
  next.setAttribute("tabindex", "-1");
  next.focus({ preventScroll: true });
  next.dispatchEvent(new CustomEvent("vote:stage", { bubbles: true }));
});

// A framed app may focus one of its own fields as it loads (on the first pair, after a vote, after "Next
// pair"), which would send the voter's next key press (Enter on "Next pair", say) into the app. A focus that
// moves into a frame still loading, or loaded a moment ago, goes back to where it was on the page. Once an app
// has loaded, any way in is the voter's (Tab, a click, a screen reader, a script driving the page); so is any
// way in once a frame has been on screen for LOADING_MS, loaded or not (an app whose pictures never arrive
// must not keep the voter out). A frame that has settled carries `data-settled`. This script is loaded in the
// head without "defer", so it sees every frame's load event.
(() => {
  const SETTLE_MS = 100; // after a frame's load event, which can arrive just after the app's own focus()
  const LOADING_MS = 2000; // on screen this long without a load event: the app is the voter's all the same
  const loadedAt = new WeakMap(); // app frame -> the time of its last load event
  const shownAt = new WeakMap(); // frame -> when this script first saw it on the page
  let last = null;
  const now = () => performance.now();
  const settle = (frame, ms) => setTimeout(() => {
    if (frame.isConnected) frame.dataset.settled = "";
  }, ms);
  const notice = () => document.querySelectorAll("iframe.live").forEach((frame) => {
    if (shownAt.has(frame)) return;
    shownAt.set(frame, now());
    settle(frame, LOADING_MS);
  });
  document.addEventListener("DOMContentLoaded", notice);
  document.addEventListener("htmx:load", notice); // a stage swapped in by htmx
  document.addEventListener("vote:stage", notice); // the next pair, put on screen from its template
  document.addEventListener("vote:reload", (event) => { // "Reload app": loading again, as when first shown
    const frame = event.target;
    loadedAt.delete(frame);
    delete frame.dataset.settled;
    shownAt.set(frame, now());
    settle(frame, LOADING_MS);
  }, true);
  document.addEventListener("load", (event) => {
    const frame = event.target;
    if (!(frame instanceof HTMLIFrameElement) || !frame.matches("iframe.live")) return;
    loadedAt.set(frame, now());
    settle(frame, SETTLE_MS);
  }, true);
  document.addEventListener("focusin", (event) => {
    if (event.target.tagName !== "IFRAME") last = event.target;
  });
  window.addEventListener("blur", () => setTimeout(() => {
    const frame = document.activeElement;
    if (!frame || !frame.matches("iframe.live")) return;
    const loaded = loadedAt.get(frame);
    if (loaded !== undefined && now() - loaded > SETTLE_MS) return;
    const shown = shownAt.get(frame);
    if (shown !== undefined && now() - shown > LOADING_MS) return;
    if (last && last.isConnected) last.focus({ preventScroll: true });
    else frame.blur();
  }));
})();

// The vote buttons sleep until the voter has used both apps (seed 003: people rank the apps "trying the same
// scenarios in both"): a live app counts as used once the voter has gone into it, the focus in its frame (a click,
// a tap or Tab into the app; not the app focusing itself while it loads) or its "Open full screen" pressed, or
// its screenshots opened. An app on screen is not an app used: on a desktop both stand in the first screen from
// the start. A side with screenshots only (no live app) counts once at least half of its pictures (or half the
// window) has been on screen for SEEN_MS, or a tap on them. Until then the bar says so and the buttons are
// aria-disabled, so a tap on a phone's sticky bar cannot vote for apps never tried; the server checks each vote
// as before, whatever the page did.
(() => {
  const SEEN_MS = 1000;
  const timers = new WeakMap(); // side -> the pending "seen" timeout while its screenshots are on screen
  const observed = new WeakSet();

  const barOf = (side) => side.closest("#vote-stage")?.querySelector("form.vote-bar");
  const isLive = (side) => !!side?.querySelector("iframe.live");

  const tell = (bar) => {
    const sides = [...bar.closest("#vote-stage").querySelectorAll(".side[data-side]")];
    const unused = sides.filter((side) => !("used" in side.dataset)).map((side) => side.dataset.side);
    const wait = bar.querySelector("[data-vote-wait]");
    if (unused.length) {
      if (wait) {
        wait.textContent = unused.length === sides.length
          ? "The vote buttons wake once you have used both apps: click, tap or Tab into each of A and B."
          : `The vote buttons wake once you have used app ${unused.join(" and ")} too: click, tap or Tab into it.`;
      }
      return;
    }
    delete bar.dataset.asleep;
    bar.querySelectorAll("button[aria-disabled]").forEach((button) => button.removeAttribute("aria-disabled"));
    if (wait) wait.textContent = "You have used both apps: vote when you are ready.";
  };

  const use = (side) => {
    if (!side || "used" in side.dataset) return;
    side.dataset.used = "";
    const bar = barOf(side);
    if (bar && "asleep" in bar.dataset) tell(bar);
  };

  const onScreen = new IntersectionObserver((entries) => {
    entries.forEach((entry) => {
      const side = entry.target.closest(".side[data-side]");
      const needed = Math.min(entry.boundingClientRect.height, window.innerHeight) / 2;
      const shown = entry.isIntersecting && entry.intersectionRect.height >= needed - 1;
      clearTimeout(timers.get(side));
      if (shown) timers.set(side, setTimeout(() => { if (side.isConnected) use(side); }, SEEN_MS));
    });
  }, { threshold: [0, 0.1, 0.25, 0.5, 0.75, 1] });

  const watch = () => document.querySelectorAll("#vote-stage .side[data-side]").forEach((side) => {
    if (observed.has(side)) return;
    observed.add(side);
    if (!isLive(side) && side.querySelector(".shots")) onScreen.observe(side.querySelector(".shots"));
    const bar = barOf(side);
    if (bar && "asleep" in bar.dataset) tell(bar);
  });
  document.addEventListener("DOMContentLoaded", watch);
  document.addEventListener("htmx:load", watch);
  document.addEventListener("vote:stage", watch);

  // Going into an app. Its frame, once settled (vote.js's focus guard above), taking the focus: the page's
  // focusin at the frame, or the page losing the focus to it (a click from outside every frame).
  const frameFocused = (frame) => {
    if (frame?.matches?.("iframe.live") && "settled" in frame.dataset) use(frame.closest(".side[data-side]"));
  };
  document.addEventListener("focusin", (event) => frameFocused(event.target));
  window.addEventListener("blur", () => setTimeout(() => frameFocused(document.activeElement)));
  // From one frame straight into the other the page hears nothing: look at which frame holds the focus.
  setInterval(() => { if (document.activeElement?.tagName === "IFRAME") frameFocused(document.activeElement); }, 250);
  document.addEventListener("click", (event) => {
    if (event.target.closest?.(".fullscreen-toggle")) use(event.target.closest(".side[data-side]"));
  });
  document.addEventListener("pointerdown", (event) => {
    if (event.target.closest?.(".live-wrap, .shots")) use(event.target.closest(".side[data-side]"));
  });
  // Screenshots opened by the voter (a live app's, closed at first; a side of screenshots only counts as above).
  document.addEventListener("toggle", (event) => {
    const side = event.target.closest?.(".side[data-side]");
    if (event.target.matches?.("details.shots") && event.target.open && isLive(side)) use(side);
  }, true);

  // While asleep, a press on a vote button (click, Enter, Space) does nothing; this runs before htmx's own
  // listeners (capture on the document), so no vote is sent.
  const asleep = (el) => el.closest?.("form.vote-bar[data-asleep]");
  document.addEventListener("click", (event) => {
    if (event.target.closest?.("button") && asleep(event.target)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
  document.addEventListener("submit", (event) => {
    if (asleep(event.target)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
})();
