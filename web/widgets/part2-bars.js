// Part II: next-word probabilities for the river and cheque sentences, with a
// switch that bypasses attention (the head then sees only the last row).
// A column per candidate (its value, its bar, its name) on a slide; on a phone
// (html.deck-phone, part2-kit.js's CSS) the same nodes are a row per candidate,
// name, bar and value side by side, so no value prints over its neighbour's.
// Table: part2_predict.
import { checkbox, el, fmt, prepare, segmented, sentence, uid } from "./part2-kit.js";

export function mount(element, data) {
  prepare(element);
  const state = { context: "river", bypass: false };
  const candidates = data.candidates;
  const ceiling = Math.max(...Object.values(data.contexts).flatMap((c) => [...c.probs, ...c.probs_bypass]));

  const words = el("div");
  const cols = el("div", { class: "p2-cols", role: "img", "aria-label": "probability of each candidate" });
  const bars = candidates.map((c, k) => {
    const value = el("span", { class: "v", dataset: { key: `p-${k}` } });
    const bar = el("span", { class: "b" });
    const name = el("span", { class: "n", "aria-hidden": "true" }, c);
    const col = el("div", { class: "p2-col", title: c }, [value, bar, name]);
    cols.append(col);
    return { col, value, bar };
  });
  const readout = el("p", { class: "p2-readout", "aria-live": "polite" });

  function render() {
    const ctx = data.contexts[state.context];
    const probs = state.bypass ? ctx.probs_bypass : ctx.probs;
    const max = Math.max(...probs);
    words.replaceChildren(sentence(ctx.tokens, (i) => (i === ctx.tokens.length - 1 ? "query" : "")));
    probs.forEach((p, k) => {
      bars[k].value.textContent = fmt(p, 2);
      bars[k].value.dataset.value = String(p);
      bars[k].bar.style.setProperty("--p", String(p / ceiling)); // of the tallest bar either way

      bars[k].col.classList.toggle("top", p === max);
    });
    const tops = candidates.filter((c, k) => probs[k] === max);
    readout.replaceChildren(
      state.bypass ? "Attention bypassed. Most likely: " : "With attention. Most likely: ",
      el("strong", { dataset: { key: "top" } }, tops.join(", ")),
      " at ",
      el("span", { dataset: { key: "top-p" } }, fmt(max, 3)),
      tops.length > 1 ? ` each (${tops.length}-way tie)` : "",
    );
  }

  const id = uid("p2-bypass");
  element.append(
    el("div", { class: "p2-controls" }, [
      segmented("Context", [["river", "River sentence"], ["cheque", "Cheque sentence"]], state.context,
        (v) => { state.context = v; render(); }),
      checkbox(id, "Bypass attention", false, (v) => { state.bypass = v; render(); }),
    ]),
    words, cols, readout,
  );
  render();
}
