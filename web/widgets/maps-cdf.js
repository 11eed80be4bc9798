// Sampling by a draw from the CDF: a slider sets u in [0, 1); the widget shows
// each token's interval and which token the draw selects. Table: maps_generation
// (labels, p and cdf over the toy vocabulary).
import { el } from "../core/dom.js";

export function choose(cdf, u) {
  // tokens with zero probability (the blocked ones) own an empty interval and are never chosen
  // first index whose cumulative probability reaches u (torch.searchsorted, left)
  const i = cdf.findIndex((c, j) => c >= u && (j === 0 ? c : c - cdf[j - 1]) > 0);
  return i === -1 ? cdf.length - 1 : i;
}

export function mount(element, table) {
  const labels = table.bars.labels;
  const cdf = table.cdf;
  const p = table.p;
  if (!Array.isArray(labels) || !Array.isArray(cdf) || labels.length !== cdf.length) {
    throw new Error("maps_generation table lacks labels/cdf");
  }
  const id = `cdf-draw-${Math.random().toString(36).slice(2, 8)}`;
  const input = el("input", { type: "range", min: "0", max: "0.999", step: "0.001", id });
  input.value = String(table.draw);
  const label = el("label", { for: id, text: "Draw u = " });
  const uText = el("output", { for: id });
  const result = el("p", { class: "cdf-result" });
  result.setAttribute("aria-live", "polite");
  const strip = el("div", { class: "cdf-strip" });
  strip.setAttribute("aria-hidden", "true");
  const marker = el("div", { class: "cdf-marker" });
  let start = 0;
  const cells = labels.map((name, i) => {
    const width = Math.max(0, cdf[i] - start) * 100;
    const cell = el("span", { class: "cdf-cell", title: `${name}: ${start.toFixed(3)}–${cdf[i].toFixed(3)}` });
    cell.style.width = `${width}%`;
    cell.textContent = width > 6 ? name : "";
    start = cdf[i];
    return cell;
  });
  strip.append(...cells, marker);

  function update() {
    const u = Number(input.value);
    const i = choose(cdf, u);
    uText.textContent = u.toFixed(3);
    cells.forEach((c, j) => c.classList.toggle("chosen", j === i));
    marker.style.left = `${u * 100}%`;
    const lo = i === 0 ? 0 : cdf[i - 1];
    result.textContent = `u = ${u.toFixed(3)} falls in [${lo.toFixed(3)}, ${cdf[i].toFixed(3)}]: ` +
      `the sampled token is ${labels[i]} (p = ${p[i].toFixed(4)}).`;
    element.dataset.chosen = labels[i];
  }
  input.addEventListener("input", update);
  // reveal.js uses the arrow keys for slides; keep them for the slider while it has focus
  input.addEventListener("keydown", (e) => e.stopPropagation());
  element.append(el("div", { class: "cdf-controls" }, label, input, " ", uText), strip, result);
  update();
}
