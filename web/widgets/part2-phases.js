// Part II: attention at "bank" in two phases. Phase A scores every source
// (q·k, scaled, softmax); phase B weights the values and adds them. Clicking a
// score shows its dot product term by term. Table: part2_bank.
import { el, fmt, prepare, segmented, sub, table, vec } from "./part2-kit.js";

const steps = (i) => [
  `Phase A, step 1: score each source, q${i}·kⱼ`,
  "Phase A, step 2: divide by √d_k",
  "Phase A, step 3: softmax turns scores into weights α",
  "Phase B, step 1: scale each value row by its weight, α·v",
  `Phase B, step 2: add the weighted values, m${i} = Σ α·v`,
];

export function mount(element, data) {
  prepare(element);
  const state = { context: "river", step: 0, picked: null };
  const n = data.river.tokens.length;
  const i = sub(data.position);
  const STEPS = steps(i);
  const { table: grid, tbody } = table(["pos", "token", "q·k", `÷√${data.d_k}`, "α", "v water", "v finance",
    "αv water", "αv finance"]);
  const rows = [];
  for (let j = 0; j < n; j += 1) {
    const token = el("td");
    const scoreButton = el("button", { type: "button", "aria-pressed": "false", dataset: { key: `raw-${j}` },
      onclick: () => { state.picked = j; render(); } });
    const cells = ["scaled", "alpha", "v0", "v1", "wv0", "wv1"].map((k) => el("td", { dataset: { key: `${k}-${j}` } }));
    tbody.append(el("tr", {}, [el("td", {}, String(j + 1)), token, el("td", {}, scoreButton), ...cells]));
    rows.push({ token, scoreButton, cells });
  }
  const sumCells = [el("td", { dataset: { key: "alpha-sum" } }), el("td"), el("td"),
    el("td", { dataset: { key: "m-0" } }), el("td", { dataset: { key: "m-1" } })];
  tbody.append(el("tr", {}, [el("td"), el("td", {}, "sum"), el("td"), el("td"), ...sumCells]));

  const query = el("p", { class: "p2-readout", dataset: { key: "query" } });
  const stepLabel = el("p", { class: "p2-readout", "aria-live": "polite", dataset: { key: "step" } });
  const terms = el("p", { class: "p2-readout", "aria-live": "polite", dataset: { key: "terms" } });
  const stepBy = (delta) => () => { state.step += delta; render(); };
  const back = el("button", { type: "button", class: "p2-btn", onclick: stepBy(-1) }, "◀ Back");
  const next = el("button", { type: "button", class: "p2-btn", onclick: stepBy(1) }, "Next step ▶");

  function show(td, on, value, digits = 3) {
    td.textContent = on ? fmt(value, digits) : "·";
    td.classList.toggle("muted", !on);
  }

  function render() {
    const d = data[state.context];
    const s = state.step;
    back.disabled = s === 0;
    next.disabled = s === STEPS.length - 1;
    stepLabel.textContent = `${STEPS[s]} (${s + 1} of ${STEPS.length})`;
    query.textContent =
      `query q${i} (${d.tokens[data.position - 1]}) = ${vec(d.q, 2)}   axes: ${data.qk_axes.join(", ")}`;
    d.tokens.forEach((t, j) => {
      const r = rows[j];
      r.token.textContent = t;
      r.scoreButton.textContent = fmt(d.raw[j], 3);
      r.scoreButton.setAttribute("aria-label", `${fmt(d.raw[j], 3)}: score of ${t}, show the dot product`);
      r.scoreButton.setAttribute("aria-pressed", String(state.picked === j));
      show(r.cells[0], s >= 1, d.scaled[j]);
      show(r.cells[1], s >= 2, d.weights[j]);
      show(r.cells[2], s >= 3, d.values[j][0], 2);
      show(r.cells[3], s >= 3, d.values[j][1], 2);
      show(r.cells[4], s >= 3, d.weighted[j][0]);
      show(r.cells[5], s >= 3, d.weighted[j][1]);
    });
    show(sumCells[0], s >= 2, d.weight_sum);
    show(sumCells[3], s >= 4, d.message[0]);
    show(sumCells[4], s >= 4, d.message[1]);
    if (state.picked === null) {
      terms.textContent = "Click a score to see its dot product term by term.";
    } else {
      const j = state.picked;
      const parts = d.terms[j].map((_, l) => `${fmt(d.q[l], 2)}×${fmt(d.keys[j][l], 2)}`);
      terms.textContent = `q${i}·k${sub(j + 1)} (${d.tokens[j]}) = ${parts.join(" + ")} = `
        + `${d.terms[j].map((x) => fmt(x, 3)).join(" + ")} = ${fmt(d.raw[j], 3)}`;
    }
  }

  element.append(
    el("div", { class: "p2-controls" }, [
      segmented("Sentence", [["river", "River sentence"], ["cheque", "Cheque sentence"]], state.context,
        (v) => { state.context = v; render(); }),
      back, next,
    ]),
    stepLabel, query, grid, terms,
  );
  render();
}
