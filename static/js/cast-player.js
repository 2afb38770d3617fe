// A run's terminal recording (asciicast), played by asciinema's own player (static/vendor/asciinema-player): the
// player reads the recording from the site (the evidence file's address), plays it with its controls, and seeks
// with its progress bar, its keys (← →, 0-9) or a moment's button. The run page's address #t=N (or #mark-N)
// stands it at that second. Without JavaScript the page links the recording to download.
document.querySelectorAll("[data-cast-src]").forEach((box) => {
  if (!window.AsciinemaPlayer) return;
  box.textContent = "";
  const player = window.AsciinemaPlayer.create(box.dataset.castSrc, box, {
    fit: "width",
    controls: true,
    terminalFontSize: "small",
    preload: true,
  });
  box.player = player;
  const found = /^#(?:mark-|t=)(\d+(?:\.\d+)?)$/.exec(window.location.hash);
  if (found) player.seek(Number(found[1]));
  window.addEventListener("hashchange", () => {
    const again = /^#(?:mark-|t=)(\d+(?:\.\d+)?)$/.exec(window.location.hash);
    if (again) player.seek(Number(again[1]));
  });
  document.querySelectorAll("button.mark-seek, a[data-seek]").forEach((control) => {
    control.addEventListener("click", (event) => {
      event.preventDefault();
      player.seek(Number(control.dataset.seek)).then(() => player.play());
    });
  });
});
