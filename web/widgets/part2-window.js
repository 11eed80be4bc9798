// Part II: a fixed window of the last w token rows. Moving w shows which words
// reach the network and how the parameter counts grow. Table: part2_window.
import { el, prepare, sentence, slider, table, uid } from "./part2-kit.js";

export function mount(element, data) {
  prepare(element);
  const widths = data.widths;
  const river = widths[widths.length - 1].river_tokens;
  const cheque = widths[widths.length - 1].cheque_tokens;
  const sentences = el("div");
  const { table: grid, tbody } = table(["quantity", "formula", "value"], "data compact");
  const cell = (key) => el("td", { dataset: { key } });
  const rows = {
    inputs: cell("inputs"), w1: cell("w1"), mlp: cell("mlp"), linear: cell("linear"),
    river: cell("river-inside"), cheque: cell("cheque-inside"),
  };
  const add = (name, formula, td) => tbody.append(el("tr", {}, [el("td", {}, name), el("td", {}, formula), td]));
  add("input width", "w·d", rows.inputs);
  add("W₁ shape", "wd × H", rows.w1);
  add("MLP parameters", "wdH + H + HV + V", rows.mlp);
  add("direct linear head", "wdV + V", rows.linear);
  add("“river” inside?", `position ${data.river_position}`, rows.river);
  add("“cheque” inside?", `position ${data.cheque_position}`, rows.cheque);

  function render(w) {
    const x = widths.find((item) => item.w === w);
    const inside = (i) => (i + 1 >= x.first ? "in" : "out");
    sentences.replaceChildren(sentence(river, inside), sentence(cheque, inside));
    rows.inputs.textContent = String(x.inputs);
    rows.w1.textContent = `${x.W1_shape[0]} × ${x.W1_shape[1]}`;
    rows.mlp.textContent = String(x.mlp_parameters);
    rows.linear.textContent = String(x.linear_parameters);
    rows.river.textContent = x.river_inside ? "yes" : "no";
    rows.cheque.textContent = x.cheque_inside ? "yes" : "no";
  }

  const s = slider(uid("p2-w"), "Window width w", widths[0].w, widths[widths.length - 1].w, 3,
    (w) => `w = ${w}`, render);
  element.append(el("div", { class: "p2-controls" }, [s.node]), sentences, grid);
  s.update();
}
