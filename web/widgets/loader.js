// Mounts every <div class="widget" data-widget="NAME" data-table="TABLE"> on
// the page: imports widgets/NAME.js (an ES module exporting
// mount(element, tableData)) and passes it the parsed tables/TABLE.json.
// URLs are relative to this file, so the site works under any base path, and
// carry this file's build (core/version.js), so a page never mixes two builds.
//
// A deck mounts after its first paint (core/paint.js), the slide shown and its
// neighbours first, then the rest one at a time, letting the page draw and
// answer keys between them. A deck's later slides come as inert templates that
// static/deck.js puts in place when near or idle, firing "slide-body" on each
// (their widgets mount then) and "slides-placed" once all are; data-widgets-ready
// on <html> (the number of widgets) says when every slide is placed and every
// widget is up.
import { versioned } from "../core/version.js";
import { afterFirstPaint, yieldToPage } from "../core/paint.js";

const NAME = /^[a-z0-9-]+$/;
const TABLES = new URL("../tables/", import.meta.url);

function fail(element, message) {
  element.replaceChildren();
  const p = document.createElement("p");
  p.className = "widget-error";
  p.textContent = message;
  element.append(p);
  console.error(message);
}

async function loadTable(table) {
  const response = await fetch(versioned(`${table}.json`, TABLES));
  if (!response.ok) throw new Error(`table ${table}.json: HTTP ${response.status}`);
  return response.json();
}

export async function mountWidget(element) {
  const name = element.dataset.widget || "";
  const table = element.dataset.table || "";
  if (!NAME.test(name) || (table && !/^[A-Za-z0-9_]+$/.test(table))) {
    fail(element, `widget: bad name ${JSON.stringify(name)} or table ${JSON.stringify(table)}`);
    return;
  }
  try {
    const [module, data] = await Promise.all([
      import(versioned(`./${name}.js`, import.meta.url).href),
      table ? loadTable(table) : Promise.resolve(null),
    ]);
    if (typeof module.mount !== "function") throw new Error(`widgets/${name}.js exports no mount()`);
    element.replaceChildren();
    await module.mount(element, data);
    element.dataset.mounted = "true";
  } catch (err) {
    fail(element, `widget ${name} failed: ${err.message}`);
  }
}

// the widgets on the slide shown and its neighbours (a deck), before the rest
function nearFirst(elements) {
  const reveal = window.Reveal;
  if (!reveal || !reveal.isReady || !reveal.isReady()) return elements;
  const slides = reveal.getSlides(), shown = slides.indexOf(reveal.getCurrentSlide());
  const near = (e) => Math.abs(slides.indexOf(e.closest("section")) - shown) <= 1;
  return [...elements.filter(near), ...elements.filter((e) => !near(e))];
}

const started = new Set();
const pending = [];
let painted = false;
function start(element) {
  if (started.has(element)) return;
  started.add(element);
  pending.push(mountWidget(element));
}
// a slide body put in place (static/deck.js): its widgets, once the page has painted
const placedEarly = [];
document.addEventListener("slide-body", (event) => {
  const found = [...event.target.querySelectorAll(".widget[data-widget]")];
  if (painted) found.forEach(start);
  else placedEarly.push(...found);
});
const allPlaced = () => !document.querySelector("template.slide-later");

export async function mountAll(root = document) {
  await afterFirstPaint();
  painted = true;
  for (const element of nearFirst([...root.querySelectorAll(".widget[data-widget]"), ...placedEarly])) {
    start(element);
    await yieldToPage();
  }
  // (a deck whose reveal.js failed to load places nothing more: mount what is there)
  if (!allPlaced() && window.Reveal) {
    await new Promise((resolve) => document.addEventListener("slides-placed", resolve, { once: true }));
  }
  for (let settled = -1; settled !== pending.length;) {
    settled = pending.length;
    await Promise.all(pending);
  }
  document.documentElement.dataset.widgetsReady = String(started.size);
}

mountAll();
