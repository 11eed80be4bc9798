// The story's real continuation beside the models' (issue 33): when a run's
// prompt is the start of a dataset story (a preset with its source story), the
// tokens that really come next in that story, as many as the run's token limit,
// under the three continuations, and a button that scores the whole story with
// all three models (teacher forcing: how likely each model found what really
// came next).

import { detokenizePieces } from '../core/tokenizer.js';
import { el, fmt } from '../core/dom.js';
import { analyse, schedulePreview, selectPreset, showPageError, showTask } from './controls.js';
import { score } from './job-score.js';
import { S, $ } from './state.js';
import { promptEcho } from './view.js';

// The section, empty and hidden until a run's prompt starts a dataset story.
export function realStoryView() {
  return el('section', { id: 'real-story', class: 'real-story', hidden: true, 'aria-labelledby': 'real-story-title' },
    el('h3', { id: 'real-story-title', text: 'What the story really says next' }),
    el('p', { class: 'note', id: 'real-story-note' }),
    el('p', { class: 'continuation', id: 'real-story-text', dir: 'auto' }),
    el('button', { type: 'button', class: 'link-button', id: 'score-real',
      text: 'Score the real story with all three models', onclick: scoreReal }));
}

// The preset whose source story starts with exactly these prompt tokens, and that
// story's tokens (null when the prompt starts no dataset story).
const storyTokens = new WeakMap(); // preset -> its source story's tokens, tokenized once

export function storyOf(promptTokens) {
  if (!promptTokens.length) return null;
  for (const preset of S.presets || []) {
    if (!preset.source?.text) continue;
    if (!storyTokens.has(preset)) storyTokens.set(preset, analyse(preset.source.text).tokens);
    const story = storyTokens.get(preset);
    if (story.length > promptTokens.length && promptTokens.every((t, i) => story[i] === t)) return { preset, story };
  }
  return null;
}

// The real next tokens (at most ``limit``; <EOS> where the story ends before), as text
// continuing the prompt the way the cards write a continuation.
export function realContinuation(promptTokens, story, limit) {
  const next = story.slice(promptTokens.length, promptTokens.length + limit);
  const ends = promptTokens.length + limit >= story.length;
  const pieces = detokenizePieces([...promptTokens, ...next]);
  return { tokens: next, ends, text: pieces.slice(promptTokens.length).join('') };
}

let shown = null; // the story shown: the preset the button scores

export function renderRealStory(run) {
  const section = $('real-story');
  if (!section) return;
  const found = storyOf(run.promptTokens);
  shown = found?.preset ?? null;
  section.hidden = !found;
  if (!found) return;
  const real = realContinuation(run.promptTokens, found.story, run.options.limit);
  const src = found.preset.source;
  const count = `${fmt.int(real.tokens.length)} token${real.tokens.length === 1 ? '' : 's'}`;
  $('real-story-note').textContent = `${found.preset.label}: ` +
    (real.ends ? `the rest of the story, ${count}` : `the next ${count} of the story, as many as your token limit`) +
    ` (${src.dataset}, our ${src.split} split); compare each model's continuation above with it.`;
  $('real-story-text').replaceChildren(...[
    promptEcho(run.promptTokens),
    el('span', { class: 'generated', text: real.text }),
    real.ends ? el('span', { class: 'story-end', text: ' <EOS>', title: 'the story ends here' }) : null]
    .filter(Boolean)); // (replaceChildren writes a null as the text "null")
}

function scoreReal() {
  if (!shown) return;
  showTask('score');
  selectPreset(shown.id); // in Score mode: the whole story in the text box
  schedulePreview();
  score({ text: shown.source.text, eos: $('score-eos').checked }).catch((err) => showPageError(err.message));
}
