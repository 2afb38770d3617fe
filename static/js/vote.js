// The vote screen: show the server's own message when a vote is refused (used or expired pair, rate limit)
// instead of dropping the answer, and leave the page when the session has ended.
document.addEventListener("htmx:beforeSwap", (event) => {
  const xhr = event.detail.xhr;
  const target = event.detail.target;
  if (!xhr || !target || target.id !== "vote-stage") return;
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
