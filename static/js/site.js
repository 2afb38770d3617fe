// Small progressive enhancements; every page works without JavaScript.
document.addEventListener("htmx:responseError", (event) => {
  const target = event.detail.target;
  if (target && event.detail.xhr && event.detail.xhr.status >= 400) {
    target.setAttribute("aria-busy", "false");
  }
});

// A link that swaps the region it stands in (a board's sort headers and tabs: `data-keep-focus`) keeps the focus:
// after the swap it goes to the same link in the new region, so a keyboard user who sorted by a column with Enter
// is still on that column's header (Enter again sorts the other way), not sent back to the page's start.
let keepFocus = null;
document.addEventListener("htmx:beforeRequest", (event) => {
  keepFocus = event.detail.elt?.dataset?.keepFocus || null;
});
document.addEventListener("htmx:afterSettle", () => {
  if (!keepFocus) return;
  const again = document.querySelector(`[data-keep-focus="${CSS.escape(keepFocus)}"]`);
  keepFocus = null;
  if (again && (document.activeElement === document.body || !document.activeElement)) {
    again.focus({ preventScroll: true });
  }
});

// The run page's moments in the recording (pages/run/_evidence.html): each link that opens the recording at its
// second becomes a button that plays the page's player from that second, with a mouse or a keyboard.
document.querySelectorAll("a[data-seek]").forEach((link) => {
  const player = document.getElementById("run-player");
  if (!player) return;
  const seconds = Number(link.dataset.seek);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "mark-seek";
  button.textContent = link.textContent;
  button.dataset.seek = link.dataset.seek;
  button.setAttribute("aria-controls", player.id);
  button.setAttribute("aria-label", `Play the recording from ${link.textContent}`);
  button.addEventListener("click", () => {
    player.currentTime = seconds;
    const playing = player.play();
    if (playing) playing.catch(() => {});
    player.scrollIntoView({ block: "nearest" });
  });
  link.replaceWith(button);
});

// A run page opened at a moment of its recording (#mark-657, as the search and the marks link it, or #t=657, the
// media fragment a mark's own link carries): the player is sought to that second (not started: the reader
// presses play), and the page shows the mark; so too when the address's fragment changes on the page.
const seekToAddress = () => {
  const player = document.getElementById("run-player");
  const found = /^#(?:mark-|t=)(\d+(?:\.\d+)?)$/.exec(window.location.hash);
  if (!player || !found) return;
  const seconds = Number(found[1]);
  const seek = () => { player.currentTime = seconds; };
  if (player.readyState >= 1) seek();
  else player.addEventListener("loadedmetadata", seek, { once: true });
  const mark = document.getElementById(`mark-${Math.floor(seconds)}`);
  if (mark) mark.scrollIntoView({ block: "center" });
  else player.scrollIntoView({ block: "nearest" });
};
seekToAddress();
window.addEventListener("hashchange", seekToAddress);
