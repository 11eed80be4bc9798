// Reading views and decks on a phone: a table, formula, listing or figure
// wider than the screen scrolls inside itself. Each such region is marked
// (class "scrolls": a shadow at the edge that hides more, site.css), told
// apart by a hint above it, reachable from the keyboard (tabindex) and named.
(function () {
  const SELECTOR = "table, pre, .katex-display, .math.display, .matrix-fig, .widget, .diagram-figure, .chart-figure";
  function mark() {
    // a deck's slides scroll only on a phone (deck.js sets html.deck-phone)
    const active = !document.body.matches(".deck-page") || document.documentElement.classList.contains("deck-phone");
    if (!active) {
      document.querySelectorAll(".scroll-hint").forEach((h) => h.remove());
      document.querySelectorAll(".scrolls").forEach((el) => el.classList.remove("scrolls"));
      return;
    }
    document.querySelectorAll(SELECTOR).forEach((el) => {
      if (el.closest("aside.notes") || (el.parentElement && el.parentElement.closest(".scrolls"))) return;
      const scrolls = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
      el.classList.toggle("scrolls", scrolls);
      const hint = el.previousElementSibling && el.previousElementSibling.classList.contains("scroll-hint")
        ? el.previousElementSibling : null;
      if (scrolls && !hint) {
        const p = document.createElement("p");
        p.className = "scroll-hint";
        p.setAttribute("aria-hidden", "true");
        p.textContent = "⇆ wider than the screen: scroll it sideways";
        el.before(p);
      } else if (!scrolls && hint) {
        hint.remove();
      }
      if (scrolls && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        if (!el.getAttribute("aria-label") && !el.getAttribute("role")) {
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", "scrollable " + (el.tagName === "TABLE" ? "table" : "content"));
        }
      }
    });
  }
  // a reading view's figure on a phone keeps a readable scale (0.9 px per
  // unit: 18-unit labels stay 16 px) and scrolls inside its box; deck.js does
  // the same for a deck's slides
  function sizeFigures() {
    if (!document.body.matches(".read-page")) return;
    const narrow = window.matchMedia("(max-width: 600px)").matches;
    document.querySelectorAll(".diagram-figure svg, svg.chart").forEach((svg) => {
      const box = svg.viewBox && svg.viewBox.baseVal;
      svg.style.minWidth = narrow && box && box.width ? `${Math.round(box.width * 0.9)}px` : "";
    });
  }
  document.addEventListener("DOMContentLoaded", () => { sizeFigures(); mark(); });
  window.addEventListener("resize", sizeFigures);
  window.markScrollRegions = mark;
  window.addEventListener("resize", mark);
  new MutationObserver(mark).observe(document.documentElement,
    { attributes: true, attributeFilter: ["data-widgets-ready", "class"] });
})();
