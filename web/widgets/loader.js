// Mounts every <div class="widget" data-widget="NAME" data-table="TABLE"> on
// the page: imports widgets/NAME.js (an ES module exporting
// mount(element, tableData)) and passes it the parsed tables/TABLE.json.
// URLs are relative to this file, so the site works under any base path, and
// carry this file's build (core/version.js), so a page never mixes two builds.
import { versioned } from "../core/version.js";

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

export async function mountAll(root = document) {
  const elements = [...root.querySelectorAll(".widget[data-widget]")];
  await Promise.all(elements.map(mountWidget));
  document.documentElement.dataset.widgetsReady = String(elements.length);
}

mountAll();
