// Part II: retrieval from hard (argmax) to soft (softmax at temperature T) for
// one video-search query. Table: part2_video.
import { el, fmt, prepare, slider, table, uid } from "./part2-kit.js";

export function mount(element, data) {
  prepare(element);
  const settings = data.settings;
  const scores = data.scores[data.query_index];
  const { table: videos, tbody } = table(["video", "score q·k", "weight α", ""]);
  const rows = data.titles.map((title, j) => {
    const weight = el("td", { dataset: { key: `w-${j}` } });
    const bar = el("span", { class: "p2-hbar" });
    tbody.append(el("tr", {}, [el("td", {}, title), el("td", {}, fmt(scores[j], 1)), weight,
      el("td", { style: "width: 170px; text-align: left" }, bar)]));
    return { weight, bar };
  });
  const { table: returned, tbody: rbody } = table(["returned", ...data.topics]);
  const cells = data.topics.map((t, l) => el("td", { dataset: { key: `r-${l}` } }));
  rbody.append(el("tr", {}, [el("td", {}, "Σ α v"), ...cells]));

  function render(index) {
    const s = settings[index];
    s.weights.forEach((w, j) => {
      rows[j].weight.textContent = fmt(w, 3);
      rows[j].bar.style.width = `${Math.round(160 * w)}px`;
    });
    s.returned.forEach((v, l) => { cells[l].textContent = fmt(v, 2); });
  }

  const sl = slider(uid("p2-t"), "Retrieval", 0, settings.length - 1, 0,
    (i) => (settings[i].temperature === null ? "hard (highest score only)" : `soft, ${settings[i].label}`), render);
  element.append(
    el("p", { class: "p2-readout" }, ["Query: ", el("strong", {}, data.query)]),
    el("div", { class: "p2-controls" }, [sl.node]),
    videos, returned,
  );
  sl.update();
}
