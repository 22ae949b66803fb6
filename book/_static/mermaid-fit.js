// A Mermaid diagram shrinks to the page's width, but never below MIN_SCALE of its drawn size, so
// its labels stay at least 12 px (Mermaid draws them at 16 px), and never grows past its drawn
// size; a wider diagram scrolls sideways (book.css). The plugin's style sets max-width: 100%
// !important, which only an !important inline style overrides.
(() => {
  const MIN_SCALE = 0.8;
  const fit = (svg) => {
    const drawn = parseFloat(svg.style.maxWidth);
    if (!(drawn > 0)) return;
    svg.style.setProperty("max-width", `${drawn}px`, "important");
    svg.style.minWidth = `${Math.ceil(drawn * MIN_SCALE)}px`;
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeName.toLowerCase() === "svg" && node.closest(".mermaid")) fit(node);
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
