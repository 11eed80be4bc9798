// Part III: the two-head explorer for the fisherman worksheet. Pick a head and
// a query slot; see that head's weights over the allowed (earlier) slots
// and the message AV for that query token. Table: part3_fisherman.
// All text is set with textContent.

import { el, num as fmt } from "../core/dom.js";

const vec = (xs, digits = 3) => `[${xs.map((x) => fmt(x, digits)).join(", ")}]`;
let counter = 0;

export function mount(element, data) {
  counter += 1;
  const id = `p3h-${counter}`;
  const n = data.tokens.length;
  const state = { head: 0, row: n - 1 };

  const headField = el("fieldset", { style: "display:inline-block;border:none;margin:0 18px 0 0;padding:0" },
    [el("legend", { text: "Head", style: "font-weight:600;float:left;margin-right:8px" })]);
  data.heads.forEach((head, h) => {
    const input = el("input", { type: "radio", name: `${id}-head`, id: `${id}-head-${h}`, value: String(h) });
    if (h === state.head) input.checked = true;
    input.addEventListener("change", () => { state.head = h; render(); });
    headField.append(input, el("label", { for: `${id}-head-${h}`, text: ` head ${head.head} `,
      style: "font-weight:400;margin-right:10px" }));
  });

  const slider = el("input", { type: "range", id: `${id}-row`, min: "1", max: String(n), step: "1",
    value: String(state.row + 1), style: "width:260px;vertical-align:middle" });
  const sliderText = el("span", { style: "display:inline-block;min-width:9em;margin-left:8px" });
  slider.addEventListener("input", () => { state.row = Number(slider.value) - 1; render(); });

  const tbody = el("tbody");
  const grid = el("table", { class: "data", style: "margin-top:8px" }, [
    el("thead", {}, el("tr", {}, [el("th", { scope: "col", text: "source" }),
      el("th", { scope: "col", text: "weight" }), el("th", { scope: "col", text: "" }),
      el("th", { scope: "col", text: "value row" })])),
    tbody,
  ]);
  const readout = el("p", { class: "p3-readout", "aria-live": "polite", style: "margin:6px 0 0" });

  function render() {
    const head = data.heads[state.head];
    const weights = head.weights_all[state.row];
    tbody.replaceChildren();
    for (let j = 0; j < n; j += 1) {
      const allowed = j <= state.row;
      const bar = el("span", { style: `display:inline-block;height:0.8em;width:${Math.round(weights[j] * 220)}px;`
        + `background:var(--head-${head.head});vertical-align:middle` });
      const tr = el("tr", allowed ? {} : { style: "color:var(--muted)" }, [
        el("td", { text: `${j + 1} ${data.tokens[j]}` }),
        el("td", { text: allowed ? fmt(weights[j]) : "masked" }),
        el("td", { style: "width:230px;text-align:left" }, allowed ? bar : []),
        el("td", { text: vec(head.V[j], 1) }),
      ]);
      tbody.append(tr);
    }
    sliderText.textContent = `${state.row + 1} “${data.tokens[state.row]}”`;
    slider.setAttribute("aria-valuetext", sliderText.textContent);
    element.dataset.head = String(head.head);
    element.dataset.row = String(state.row + 1);
    const sum = weights.reduce((a, b) => a + b, 0);
    readout.textContent = `Head ${head.head}, query ${state.row + 1} “${data.tokens[state.row]}”: `
      + `${state.row + 1} allowed source(s), weights sum to ${fmt(sum)}; message AV = ${vec(head.H[state.row])}.`;
  }

  element.append(
    el("div", {}, [headField, el("label", { for: `${id}-row`, text: "Query slot " }), slider, sliderText]),
    grid, readout,
  );
  render();
}
