// Part II: the whole ten-token walkthrough. Choose the query token; its row of
// scores (masked), weights, message, update and updated row appear. Clicking a
// score shows the dot product. Table: part2_walk.
import { el, fmt, prepare, segmented, sentence, sub, table, uid, vec } from "./part2-kit.js";

export function mount(element, data) {
  prepare(element);
  const n = data.river.tokens.length;
  const state = { context: "river", i: n - 1, picked: null };
  const words = el("div");
  const { table: grid, tbody } = table(["", ...Array.from({ length: n }, (_, j) => `j=${j + 1}`)]);
  const tokenCells = Array.from({ length: n }, () => el("td"));
  const scoreButtons = Array.from({ length: n }, (_, j) => el("button", {
    type: "button", "aria-pressed": "false", dataset: { key: `s-${j}` },
    onclick: () => { state.picked = j; render(); },
  }));
  const scoreCells = scoreButtons.map((b) => el("td", {}, b));
  const alphaCells = Array.from({ length: n }, (_, j) => el("td", { dataset: { key: `a-${j}` } }));
  tbody.append(el("tr", {}, [el("td", {}, "source"), ...tokenCells]),
    el("tr", {}, [el("td", {}, `q·k/√${data.d_k} + M`), ...scoreCells]),
    el("tr", {}, [el("td", {}, "α"), ...alphaCells]));

  const line = (label, key) => {
    const value = el("span", { dataset: { key } });
    return { node: el("div", {}, [el("span", { class: "muted" }, label), " ", value]), value };
  };
  const lines = {
    q: line("query qᵢ = eᵢ W_Q:", "q"),
    m: line("message mᵢ = Σ αⱼ vⱼ:", "m"),
    d: line("update Δeᵢ = mᵢ W_O:", "d"),
    e: line("input eᵢ:", "e"),
    en: line("output e′ᵢ = eᵢ + Δeᵢ:", "en"),
  };
  const terms = el("p", { class: "p2-readout", "aria-live": "polite", dataset: { key: "terms" } });

  const selectId = uid("p2-query");
  const select = el("select", { id: selectId });
  select.addEventListener("change", () => { state.i = Number(select.value); state.picked = null; render(); });

  function fillSelect() {
    const tokens = data[state.context].tokens;
    select.replaceChildren(...tokens.map((t, i) => el("option", { value: i }, `${i + 1} ${t}`)));
    select.value = String(state.i);
  }

  function render() {
    const d = data[state.context];
    const i = state.i;
    words.replaceChildren(sentence(d.tokens, (j) => (j === i ? "query" : j < i ? "in" : "out")));
    for (let j = 0; j < n; j += 1) {
      const ok = d.allowed[i][j];
      tokenCells[j].textContent = d.tokens[j];
      scoreButtons[j].textContent = ok ? fmt(d.S[i][j], 3) : "−∞";
      scoreButtons[j].disabled = !ok;
      scoreButtons[j].setAttribute("aria-pressed", String(state.picked === j));
      scoreButtons[j].setAttribute("aria-label",
        `${scoreButtons[j].textContent}: score of source ${j + 1} ${d.tokens[j]}, show the arithmetic`);
      alphaCells[j].textContent = fmt(d.A[i][j], 3);
      alphaCells[j].classList.toggle("muted", !ok);
    }
    lines.q.value.textContent = vec(d.Q[i], 3);
    lines.m.value.textContent = vec(d.H[i], 3);
    lines.d.value.textContent = vec(d.dE[i], 3);
    lines.e.value.textContent = vec(d.E[i], 3);
    lines.en.value.textContent = vec(d.E_new[i], 3);
    if (state.picked === null) {
      terms.textContent = "Click an allowed score to see its arithmetic.";
    } else {
      const j = state.picked;
      const t = d.terms[i][j];
      const products = d.Q[i].map((q, l) => `${fmt(q, 2)}×${fmt(d.K[j][l], 2)}`).join(" + ");
      terms.textContent = `q${sub(i + 1)}·k${sub(j + 1)} = ${products}`
        + ` = ${fmt(t.reduce((a, b) => a + b, 0), 3)}; ÷ √${data.d_k} = ${fmt(d.S[i][j], 3)}`;
    }
  }

  element.append(
    el("div", { class: "p2-controls" }, [
      segmented("Sentence", [["river", "River sentence"], ["cheque", "Cheque sentence"]], state.context,
        (v) => { state.context = v; state.picked = null; fillSelect(); render(); }),
      el("label", { for: selectId }, "Query token"), select,
    ]),
    words, grid, terms,
    el("div", { class: "small" }, Object.values(lines).map((x) => x.node)),
  );
  fillSelect();
  render();
}
