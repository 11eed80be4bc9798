// Starts reveal.js on a deck page: keyboard navigation, a hash URL per slide,
// progress bar, slide numbers, speaker notes (key S) and ?print-pdf.
//
// On a projector or a laptop the slide is a 1280x720 canvas, scaled to the
// window. On a phone (narrower than 600 px, or a phone on its side) the slide
// is the screen itself, at scale 1: the text keeps its CSS size (site.css,
// html.deck-phone), a slide scrolls up and down, wide tables and figures
// scroll sideways inside their own box, and a swipe left or right (or the
// arrow buttons) changes the slide. The "Reading view" link follows the slide
// shown, so the reading view opens at the same place.
/* global Reveal, RevealNotes */
(function () {
  const PHONE = window.matchMedia(window.DECK_PHONE);   // a phone's query: templates/deck.html's head script
  const FIGURE_MIN_SCALE = 0.9; // px per figure unit on a phone: 18-unit labels stay 16 px
  const SWIPE = 50;
  const printing = /print-pdf/i.test(window.location.search);
  const phone = () => PHONE.matches && !printing;

  function canvas() {
    return phone()
      ? { width: "100%", height: "100%", margin: 0, minScale: 1, maxScale: 1 }
      : { width: 1280, height: 720, margin: 0, minScale: 0.2, maxScale: 2.0 };
  }

  // A figure is drawn one unit to one px of the slide (export/tables/kit/draw.py):
  // --figure-w is its natural width, which a tight slide shrinks it to, never below.
  // On a phone it keeps a readable scale and scrolls inside its box.
  function sizeFigures(root = document) {
    root.querySelectorAll(".diagram-figure svg, svg.chart").forEach((svg) => {
      const box = svg.viewBox && svg.viewBox.baseVal;
      if (!box || !box.width) return;
      svg.style.setProperty("--figure-w", `${box.width}px`);
      svg.style.minWidth = phone() ? `${Math.round(box.width * FIGURE_MIN_SCALE)}px` : "";
    });
  }

  function setMode() {
    document.documentElement.classList.toggle("deck-phone", phone());
    sizeFigures();
  }

  // The bodies of the slides after the first three arrive as inert <template>s
  // (templates/deck.html), so opening a deck parses its figures but neither
  // styles nor lays them out (Part II: 12,000 elements otherwise). A body is put
  // in place when its slide comes within two of the one shown: before reveal.js
  // starts, around the slide the address asks for; then on every slide change;
  // and the rest one slide per idle moment once the deck is up, after which
  // <html data-slides-placed> is set and "slides-placed" fired. Printing places
  // every body first. Each placed body fires "slide-body" on its section
  // (widgets/loader.js mounts the widgets in it).
  const SLIDES = () => [...document.querySelectorAll(".reveal .slides > section")];
  const waiting = (section) => section.querySelector(":scope > .slide-body > template.slide-later");
  function place(section) {
    const later = section && waiting(section);
    if (!later) return false;
    later.replaceWith(later.content);
    sizeFigures(section);
    section.dispatchEvent(new CustomEvent("slide-body", { bubbles: true }));
    return true;
  }
  function placeAround(index) {
    const slides = SLIDES();
    for (let i = Math.max(0, index - 2); i <= Math.min(slides.length - 1, index + 2); i++) {
      // reveal.js reads a slide's fragments when it shows it; one placed while shown is read again
      if (place(slides[i]) && window.Reveal && Reveal.isReady() && slides[i] === Reveal.getCurrentSlide()) {
        Reveal.syncFragments();
      }
    }
  }
  const idle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 300 }) : setTimeout(fn, 20));
  function placeRest() {
    const next = SLIDES().find(waiting);
    if (!next) {
      document.documentElement.dataset.slidesPlaced = "true";
      document.dispatchEvent(new Event("slides-placed"));
      return;
    }
    place(next);
    idle(placeRest);
  }

  setMode();   // the figures in place so far; place() sizes each later body's
  if (printing) SLIDES().forEach(place);
  else placeAround(Number((/^#\/(\d+)/.exec(window.location.hash) || [0, 0])[1]));

  // reveal.js starts after the page's first paint (printing: at once), so the
  // browser shows the slide before it lays out the deck; a tab in the
  // background, which draws no frames, starts it within 100 ms
  let started = false;
  function startOnce() {
    if (started) return;
    started = true;
    start();
  }
  if (printing) startOnce();
  else {
    requestAnimationFrame(() => setTimeout(startOnce, 0));
    setTimeout(startOnce, 100);
  }

  function start() {
    Reveal.initialize({
      hash: true,
      history: false,
      progress: true,
      slideNumber: "c/t",
      controls: true,
      center: false,
      display: "flex",
      ...canvas(),
      scrollActivationWidth: null,   // never reveal's scroll view: a phone gets the layout above
      touch: !phone(),
      transition: "none",
      viewDistance: 1,               // only the slide shown and its neighbours are displayed (laid out)
      mobileViewDistance: 1,
      pdfMaxPagesPerSlide: 1,
      pdfSeparateFragments: false,   // print one page per slide, with every step shown
      plugins: [RevealNotes],
      // Space or Enter on a focused control (a self-check <summary>, a widget
      // button, a link) acts on that control and does not also change the slide.
      keyboardCondition: (event) => {
        const target = event.target;
        const onControl = target && target.closest && target.closest("summary, button, a, select");
        return !(onControl && (event.key === " " || event.key === "Enter"));
      },
    });

    // A slide whose content does not fit the canvas is set one or two steps
    // tighter (site.css .dense, .denser): smaller body text and figures, never
    // under the 18 px floor. Measuring forces a layout of the slide, so only the
    // slide shown and its two neighbours are measured, when shown (not every
    // slide of a deck at once: on a slow phone that froze the page for seconds);
    // a slide is measured again when a widget on it has drawn itself, or when
    // the page turns from phone to wide. Printing measures every slide.
    // A measured slide carries data-fitted (tests/test_deck_fit.py counts them).
    // Only height tightens a slide (issue 35: an overfull slide is split, not
    // shrunk): a code line wider than the canvas scrolls sideways in its own
    // listing, reachable from the keyboard (below), and the text keeps its size.
    function overflows(section) {
      return section.scrollHeight > section.clientHeight + 1;
    }
    // Whatever scrolls can be reached from the keyboard: a listing wider than its
    // box, and on a phone the slide itself.
    function reachable(el, name) {
      if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
      if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", name);
    }
    function fitSlide(section) {
      section.classList.remove("dense", "denser");
      const shown = section.style.display;
      section.style.display = "flex";
      if (!phone()) {
        if (overflows(section)) section.classList.add("dense");
        if (overflows(section)) section.classList.replace("dense", "denser");
      }
      section.querySelectorAll(".listing pre").forEach((pre) => {
        const scrolls = pre.scrollWidth > pre.clientWidth + 1 || pre.scrollHeight > pre.clientHeight + 1;
        if (scrolls) reachable(pre, "code listing");
      });
      if (phone()) reachable(section, `slide ${Number(section.dataset.slide) + 1}`);
      else if (section.getAttribute("tabindex") === "0") section.removeAttribute("tabindex");
      section.style.display = shown;
      section.dataset.fitted = "true";
    }
    function nearSlides() {
      const slides = Reveal.getSlides();
      if (printing) return slides;
      const i = slides.indexOf(Reveal.getCurrentSlide());
      return [slides[i], slides[i - 1], slides[i + 1]].filter(Boolean);
    }
    function fitNear() {
      for (const section of nearSlides()) if (section.dataset.fitted !== "true") fitSlide(section);
    }
    function refitAll() {   // the canvas changed: every measure is stale
      document.querySelectorAll(".reveal .slides section[data-fitted]").forEach((s) => delete s.dataset.fitted);
      fitNear();
    }
    // the slide shown and two either side are in place before they are measured
    const placeNear = () => placeAround(Reveal.getIndices().h);
    Reveal.on("ready", placeNear);
    Reveal.on("slidechanged", placeNear);
    Reveal.on("ready", () => idle(placeRest));
    Reveal.on("ready", fitNear);
    Reveal.on("slidechanged", fitNear);

    // ?print-pdf: an exercise's printed copy (question and worked solution,
    // site_builder/exercises.py) stands on its slide's page; where it would push
    // the slide off its page, it gets a page of its own right after, headed by
    // the exercise's title.
    function pageExercises() {
      for (const page of document.querySelectorAll(".reveal .slides .pdf-page")) {
        const section = page.querySelector(":scope > section");
        const copies = section ? [...section.querySelectorAll(".exercise-static")] : [];
        if (!copies.length) continue;
        fitSlide(section);
        if (!overflows(section)) continue;
        const own = document.createElement("section");
        own.className = "exercise-page present";
        own.style.cssText = `left: ${section.style.left}; top: ${section.style.top}; width: ${section.style.width}`;
        for (const copy of copies) {
          const title = document.createElement("h2");
          const summary = copy.previousElementSibling && copy.previousElementSibling.querySelector("summary");
          title.textContent = summary ? summary.textContent : "Exercise";
          if (summary) summary.parentElement.classList.add("exercise-moved");   // exercise.css: "on the next page"
          own.append(title, copy);
        }
        const next = document.createElement("div");
        next.className = "pdf-page";
        next.style.height = page.style.height;
        next.append(own);
        page.after(next);
        fitSlide(section);
      }
    }
    if (printing) Reveal.on("pdf-ready", pageExercises);
    // a widget that mounted (widgets/loader.js sets data-mounted) changed its slide's height
    new MutationObserver((records) => {
      let stale = false;
      for (const r of records) {
        const section = r.target.closest && r.target.closest("section[data-fitted]");
        if (section) { delete section.dataset.fitted; stale = true; }
      }
      if (stale && Reveal.isReady()) fitNear();
    }).observe(document.querySelector(".reveal .slides"),
      { subtree: true, attributes: true, attributeFilter: ["data-mounted"] });

    PHONE.addEventListener("change", () => {
      setMode();
      Reveal.configure({ ...canvas(), touch: !phone() });
      refitAll();
    });

    // swipe on a phone: the page scrolls up and down natively (touch-action:
    // pan-y), a mostly sideways stroke changes the slide
    // (not on a table or figure that scrolls sideways itself, nor on a slider)
    function scrollsSideways(el) {
      for (let e = el; e && !e.matches("section"); e = e.parentElement) {
        if (e.matches("[data-prevent-swipe], input, select") || e.scrollWidth > e.clientWidth + 1) return true;
      }
      return false;
    }
    let swipeFrom = null;
    const reveal = document.querySelector(".reveal");
    reveal.addEventListener("pointerdown", (e) => {
      const touch = e.pointerType === "touch" && phone() && !scrollsSideways(e.target);
      swipeFrom = touch ? { x: e.clientX, y: e.clientY } : null;
    });
    reveal.addEventListener("pointercancel", () => { swipeFrom = null; });
    reveal.addEventListener("pointerup", (e) => {
      if (!swipeFrom) return;
      const dx = e.clientX - swipeFrom.x, dy = e.clientY - swipeFrom.y;
      swipeFrom = null;
      if (Math.abs(dx) > SWIPE && Math.abs(dx) > 1.5 * Math.abs(dy)) {
        if (dx < 0) Reveal.next(); else Reveal.prev();
      }
    });

    // the reading view link opens the reading view at the slide shown
    const reading = document.querySelector(".home-link .reading-link");
    function followSlide() {
      if (!reading) return;
      const h = Reveal.getIndices().h;
      const last = Reveal.getTotalSlides() - 1;   // the closing "Where next" slide has no reading-view twin
      reading.setAttribute("href", reading.getAttribute("href").split("#")[0] + (h < last ? `#slide-${h}` : ""));
      // a new slide starts at its top
      const slide = Reveal.getCurrentSlide();
      if (slide) slide.scrollTop = 0;
      if (window.markScrollRegions) window.markScrollRegions();   // scrolls.js: wide things on a phone
    }
    Reveal.on("ready", followSlide);
    Reveal.on("slidechanged", followSlide);
  }
})();
