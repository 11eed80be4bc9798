// The JavaScript side of tests/test_exercises_parity.py. Reads one JSON request on
// stdin: {"draws": [{"id", "seeds": [...]}], "answers": [{"id", "inputs"}]} and
// prints {"kinds": {deck: [IDs]}, "draws": [{"id", "seed", "inputs", "answer"}],
// "answers": [number]}: what web/core/exercises.js draws and answers.
import { DECKS, answer, draw } from '../../web/core/exercises.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');

const draws = (request.draws || []).flatMap(({ id, seeds }) => seeds.map((seed) => {
  const inputs = draw(id, seed);
  return { id, seed, inputs, answer: answer(id, inputs) };
}));
const answers = (request.answers || []).map(({ id, inputs }) => answer(id, inputs));
const kinds = Object.fromEntries(Object.entries(DECKS).map(([deck, list]) => [deck, list.map((k) => k.id)]));
process.stdout.write(JSON.stringify({ kinds, draws, answers }));
