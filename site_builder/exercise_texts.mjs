// Every text a learner can read in an exercise, with its numbers drawn: the
// question, the hint, the worked steps, each named mistake's message and the
// range message, for seeds 0 .. N-1 of every kind of every deck. Read by
// site_builder/exercise_texts.py (the notation check, N = its SEEDS, and the statement tests).
// Usage: node exercise_texts.mjs WEB N (WEB: the folder holding core/exercises.js)
//   -> {"maps": [{"id", "seed", "inputs", "answer", "texts": [...],
//                 "mistakes": [{"name", "message", "value"}], "shown": {...}}], ...}
// "shown" is what the widget shows for that seed (core/exercises.js shownTexts:
// seedLine, question, hint, steps, answer). N = "printed": only the seed the built
// pages print (PRINTED_SEED), for their copy of every exercise (site_builder/exercises.py).
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [web, count] = process.argv.slice(2);
const { DECKS, PRINTED_SEED, answer, draw, shownTexts } = await import(
  pathToFileURL(path.join(web, 'core', 'exercises.js')).href);
const seeds = count === 'printed' ? [PRINTED_SEED] : Array.from({ length: Number(count) || 1 }, (_, i) => i);
const out = {};
for (const [deck, kinds] of Object.entries(DECKS)) {
  out[deck] = [];
  for (const kind of kinds) {
    for (const seed of seeds) {
      const inputs = draw(kind.id, seed);
      const shown = shownTexts(kind.id, seed); // the question and steps as the widget shows them
      const texts = [...shown.question, shown.hint, ...shown.steps];
      for (const mistake of kind.mistakes) texts.push(mistake.message);
      if (kind.range) texts.push(kind.range.message);
      const mistakes = kind.mistakes.map((m) => ({ name: m.name, message: m.message, value: m.value(inputs) }));
      delete shown.inputs; // already above
      out[deck].push({ id: kind.id, seed, inputs, answer: answer(kind.id, inputs), texts, mistakes, shown });
    }
  }
}
process.stdout.write(JSON.stringify(out));
