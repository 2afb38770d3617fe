// Small progressive enhancements; every page works without JavaScript.
document.addEventListener("htmx:responseError", (event) => {
  const target = event.detail.target;
  if (target && event.detail.xhr && event.detail.xhr.status >= 400) {
    target.setAttribute("aria-busy", "false");
  }
});
