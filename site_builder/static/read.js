// Reading view: a table, formula or listing wider than the screen scrolls inside
// itself; make each such region reachable from the keyboard (tabindex) and name it.
(function () {
  const SELECTOR = "table, pre, .katex-display, .matrix-fig, .widget";
  function mark() {
    document.querySelectorAll(SELECTOR).forEach((el) => {
      const scrolls = el.scrollWidth > el.clientWidth + 1;
      if (scrolls && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        if (!el.getAttribute("aria-label") && !el.getAttribute("role")) {
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", "scrollable " + (el.tagName === "TABLE" ? "table" : "content"));
        }
      }
    });
  }
  document.addEventListener("DOMContentLoaded", mark);
  window.addEventListener("resize", mark);
  new MutationObserver(mark).observe(document.documentElement,
    { attributes: true, attributeFilter: ["data-widgets-ready"] });
})();
