// What each head is worth on the whole test set, beside the head toggles:
// the results deck's table (tables/results_head_cost.json, export/experiments.py),
// fetched the first time a head toggle is shown (never on the first visit),
// checked, and kept for the page's life. lab.headCost(kind) returns one model's entry.

import { el } from '../core/dom.js';
import { versioned } from '../core/version.js';

const FILE = 'tables/results_head_cost.json';
const URL_OF = () => versioned('../tables/results_head_cost.json', import.meta.url);
let loading = null;

const num = (v) => typeof v === 'number' && Number.isFinite(v);

// The table, checked for one attention model of `heads` heads: its state with
// every head on, each head's cost and the cost of all off; a missing field is named.
export function checkHeadCost(table, kind, heads) {
  if (!table || typeof table !== 'object') throw new Error(`${FILE} is not a JSON object`);
  if (table.available === false) throw new Error(`${FILE}: not measured yet (${table.reason ?? 'no reason given'})`);
  if (!Number.isInteger(table.test_windows)) throw new Error(`${FILE} lacks test_windows`);
  const entry = table.by_kind?.[kind];
  if (!entry) throw new Error(`${FILE} lacks by_kind.${kind}`);
  if (!num(entry.on?.loss) || !num(entry.all_off?.delta)) throw new Error(`${FILE} lacks ${kind}'s on or all_off`);
  if (heads > 1 && (!Array.isArray(entry.heads) || entry.heads.length !== heads ||
      entry.heads.some((h, i) => h.head !== i + 1 || !num(h.delta)))) {
    throw new Error(`${FILE}: by_kind.${kind}.heads must list heads 1 to ${heads}, each with its delta`);
  }
  return entry;
}

// The table, fetched once (checked per model by checkHeadCost).
export function loadHeadCost() {
  if (!loading) {
    loading = (async () => {
      let response;
      try {
        response = await fetch(URL_OF());
      } catch (err) {
        throw new Error(`could not load ${FILE}: ${err.message}`, { cause: err });
      }
      if (!response.ok) throw new Error(`${FILE} is missing (HTTP ${response.status})`);
      try {
        return await response.json();
      } catch (err) {
        throw new Error(`${FILE} is not valid JSON (${err.message})`, { cause: err });
      }
    })();
    loading.catch(() => { loading = null; }); // a later toggle tries again
  }
  return loading;
}

// A change in nats/token, signed, to 3 decimals (the head-cost line and the head sweep's table)
export const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

// The model a head's cost is weighed against: for four heads the one-head
// model, for one head the MLP (their test cross-entropy, from the same table).
export function referenceFor(table, kind) {
  if (kind === 'attn4' && num(table.by_kind?.attn1?.on?.loss)) {
    return { label: 'the one-head model', loss: table.by_kind.attn1.on.loss };
  }
  if (kind !== 'mlp' && num(table.mlp?.loss)) return { label: 'the MLP', loss: table.mlp.loss };
  return null;
}

// One line of text: each head's cost in nats, the perplexity it leads to and
// whether that is worse than the reference model's; then all off.
export function headCostText(entry, windows, reference = null) {
  const cost = (delta) => {
    const loss = entry.on.loss + delta;
    const ppl = Math.exp(loss).toFixed(2);
    if (!reference) return `${signed(delta)} (perplexity ${ppl})`;
    const way = loss > reference.loss ? 'worse than' : 'still better than';
    return `${signed(delta)} (perplexity ${ppl}, ${way} ${reference.label}'s ${Math.exp(reference.loss).toFixed(2)})`;
  };
  const parts = entry.heads?.length > 1 ? entry.heads.map((h) => `head ${h.head} off ${cost(h.delta)}`) : [];
  parts.push(`${entry.heads?.length > 1 ? 'all off' : 'its head off'} ${cost(entry.all_off.delta)}`);
  return `Cost of switching heads off, on all ${windows.toLocaleString('en-US')} test targets, in nats/token (test ` +
    `cross-entropy ${entry.on.loss.toFixed(3)} nats/token, perplexity ${Math.exp(entry.on.loss).toFixed(2)}, with ` +
    `every head on): ${parts.join('; ')}.`;
}

// The note beside a model's head toggles, filled when the table arrives.
export function headCostNote(kind, heads) {
  const note = el('p', { class: 'note head-cost', 'data-kind': kind, 'aria-live': 'polite',
    text: 'Test-set cost of each head: loading…' });
  loadHeadCost().then((table) => {
    note.textContent = headCostText(checkHeadCost(table, kind, heads), table.test_windows, referenceFor(table, kind));
    note.dataset.loaded = 'true';
  }).catch((err) => {
    note.textContent = `Test-set cost of each head: ${err.message}`;
    note.dataset.loaded = 'error';
  });
  return note;
}
