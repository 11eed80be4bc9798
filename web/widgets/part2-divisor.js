// Part II: the raw scores of "bank" (cheque sentence) divided by a chosen
// divisor, then softmax. A larger divisor flattens the weights, a smaller one
// sharpens them; the order never changes. Table: part2_divisor.
import { el, fmt, prepare, slider, table, uid } from "./part2-kit.js";

export function mount(element, data) {
  prepare(element);
  const { table: grid, tbody } = table(["source", "raw score q·k", "weight α", ""]);
  const rows = data.tokens.map((token, j) => {
    const weight = el("td", { dataset: { key: `w-${j}` } });
    const bar = el("span", { class: "p2-hbar" });
    tbody.append(el("tr", {}, [el("td", {}, token), el("td", {}, fmt(data.raw[j], 3)), weight,
      el("td", { style: "width: 170px; text-align: left" }, bar)]));
    return { weight, bar };
  });
  const readout = el("p", { class: "p2-readout", "aria-live": "polite" });
  function render(index) {
    const s = data.settings[index];
    s.weights.forEach((w, j) => {
      rows[j].weight.textContent = fmt(w, 3);
      rows[j].bar.style.width = `${Math.round(160 * w)}px`;
    });
    readout.textContent = `divisor ${fmt(s.divisor, 1)}: top weight ${fmt(s.top, 3)}`
      + ` (√d_k = ${fmt(data.sqrt_d_k, 3)} is what the model uses)`;
  }
  const sl = slider(uid("p2-div"), "Divisor", 0, data.settings.length - 1, 1,
    (i) => fmt(data.settings[i].divisor, 1), render);
  element.append(el("div", { class: "p2-controls" }, [sl.node]), readout, grid);
  sl.update();
}
