// Part II: add bank's update gradually, e + t·Δe for t from 0 to 1, in both
// sentences at once, as table rows and as points on the water/finance plane.
// Table: part2_bank (its precomputed steps).
import { el, fmt, prepare, slider, sub, table, uid } from "./part2-kit.js";

const SVG = "http://www.w3.org/2000/svg";
// each sentence's colour: --river and --cheque of assets/palette.css (common/palette.py)
const colour = (name) => `var(--${name})`;

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

export function mount(element, data) {
  prepare(element);
  const names = ["river", "cheque"];
  const i = sub(data.position);
  const steps = data.river.steps;
  const [wx, fy] = [data.coords.indexOf("water"), data.coords.indexOf("finance")];

  const { table: grid, tbody } = table(["sentence", "t", ...data.coords]);
  const cells = {};
  for (const name of names) {
    const tCell = el("td", { dataset: { key: `t-${name}` } });
    cells[name] = { t: tCell, coords: data.coords.map((_, c) => el("td", { dataset: { key: `row-${name}-${c}` } })) };
    tbody.append(el("tr", {}, [el("td", {}, `${name}: e${i} + t·Δe${i}`), tCell, ...cells[name].coords]));
  }

  // the water/finance plane: origin bottom-left, 1.0 = 200 px
  const width = 330, height = 260, pad = 36, unit = 200;
  const x = (v) => pad + unit * v;
  const y = (v) => height - pad - unit * v;
  const plane = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "bank's row on the water and finance axes" });
  plane.append(
    svg("line", { x1: x(0), y1: y(0), x2: x(1.05), y2: y(0), style: "stroke: var(--ink-soft)" }),
    svg("line", { x1: x(0), y1: y(0), x2: x(0), y2: y(1.05), style: "stroke: var(--ink-soft)" }),
    svg("text", { x: x(1.05), y: y(0) + 18, "text-anchor": "end", "font-size": 13 }, "water →"),
    svg("text", { x: x(0) - 12, y: y(0.5), "text-anchor": "middle", "font-size": 13,
      transform: `rotate(-90 ${x(0) - 12} ${y(0.5)})` }, "finance →"),
  );
  const dots = {};
  for (const name of names) {
    const end = data[name].steps[steps.length - 1].row;
    plane.append(svg("circle", { cx: x(end[wx]), cy: y(end[fy]), r: 9, fill: "none", style: `stroke: ${colour(name)}`,
      "stroke-width": 2, "stroke-dasharray": "3 3" }));
    const dot = svg("circle", { r: 7, style: `fill: ${colour(name)}` });
    const label = svg("text", { "font-size": 13, style: `fill: ${colour(name)}` }, `bank (${name})`);
    plane.append(dot, label);
    dots[name] = { dot, label };
  }

  function render(k) {
    for (const name of names) {
      const step = data[name].steps[k];
      cells[name].t.textContent = fmt(step.t, 1);
      step.row.forEach((v, c) => { cells[name].coords[c].textContent = fmt(v, 3); });
      const [px, py] = [x(step.row[wx]), y(step.row[fy])];
      dots[name].dot.setAttribute("cx", px);
      dots[name].dot.setAttribute("cy", py);
      dots[name].label.setAttribute("x", px + 10);
      dots[name].label.setAttribute("y", py - (name === "river" ? 10 : -18));
    }
  }

  const s = slider(uid("p2-t"), "Update added", 0, steps.length - 1, 0, (k) => `t = ${fmt(steps[k].t, 1)}`, render);
  element.append(el("div", { style: "display: flex; gap: 24px; align-items: flex-start" }, [
    el("div", {}, [el("div", { class: "p2-controls" }, [s.node]), grid,
      el("p", { class: "small muted" },
        "Dashed circles: where the whole update leads. With nothing added, both points sit on plain “bank”.")]),
    plane,
  ]));
  s.update();
}
