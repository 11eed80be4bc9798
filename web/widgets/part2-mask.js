// Part II: the causal mask on row 5 ("the") of the river sentence. With the
// mask off, the weights move onto future tokens. Table: part2_mask.
import { checkbox, el, fmt, prepare, sub, table, uid, vec } from "./part2-kit.js";

export function mount(element, data) {
  prepare(element);
  const state = { mask: true };
  const n = data.tokens.length;
  const { table: grid, tbody } = table(["", ...data.tokens.map((t, j) => `${j + 1} ${t}`)]);
  const scoreCells = data.tokens.map((_, j) => el("td", { dataset: { key: `score-${j}` } }));
  const alphaCells = data.tokens.map((_, j) => el("td", { dataset: { key: `alpha-${j}` } }));
  tbody.append(el("tr", {}, [el("td", {}, "score + M"), ...scoreCells]),
    el("tr", {}, [el("td", {}, "α"), ...alphaCells]));
  const message = el("span", { dataset: { key: "message" } });
  const future = el("span", { dataset: { key: "future" } });
  const readout = el("p", { class: "p2-readout", "aria-live": "polite" },
    [`Message m${sub(data.row)} = `, message, ". Weight on future tokens: ", future, "."]);

  function render() {
    const weights = state.mask ? data.weights_on : data.weights_off;
    for (let j = 0; j < n; j += 1) {
      const blocked = state.mask && !data.allowed[j];
      scoreCells[j].textContent = blocked ? "−∞" : fmt(data.scaled[j], 3);
      alphaCells[j].textContent = fmt(weights[j], 3);
      scoreCells[j].classList.toggle("muted", blocked);
      alphaCells[j].classList.toggle("muted", blocked);
      alphaCells[j].classList.toggle("hl", j === data.row - 1);
    }
    message.textContent = vec(state.mask ? data.message_on : data.message_off, 3);
    future.textContent = fmt(state.mask ? data.future_mass_on : data.future_mass_off, 3);
  }

  element.append(
    el("div", { class: "p2-controls" }, [
      el("span", {}, [`Query row ${data.row}: “${data.token}”`]),
      checkbox(uid("p2-mask"), "Causal mask on", true, (v) => { state.mask = v; render(); }),
    ]),
    grid, readout,
  );
  render();
}
