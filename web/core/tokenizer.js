// Word-level tokenizer, a line-for-line mirror of models/tokenizer.py.
// Normalization: Unicode NFKC, lowercase, every run of the explicit whitespace
// class collapsed to one space, ends stripped. Tokens: words [a-z]+('[a-z]+)?,
// digit runs [0-9]+, and every other non-space code point on its own.
// tests/test_decoding_parity.py checks this file against the Python original.

export const PAD = '<PAD>', BOS = '<BOS>', EOS = '<EOS>', UNK = '<UNK>';
export const SPECIALS = [PAD, BOS, EOS, UNK];
export const PAD_ID = 0, BOS_ID = 1, EOS_ID = 2, UNK_ID = 3;

// The same explicit class as the Python WHITESPACE pattern (not \s, which differs);
// its control characters (\x1c-\x1f, separators) are meant.
// eslint-disable-next-line no-control-regex
const WHITESPACE = /[ \t\n\r\f\v\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+/gu;
// The u flag makes [^ ] match one code point (an emoji is one token, as in Python).
const TOKEN = /[a-z]+(?:'[a-z]+)?|[0-9]+|[^ ]/gu;

const NO_SPACE_BEFORE = new Set(".,!?;:)]}%'");
const NO_SPACE_AFTER = new Set('([{');

export function normalize(text) {
  const lowered = String(text).normalize('NFKC').toLowerCase();
  return lowered.replace(WHITESPACE, ' ').replace(/^ +| +$/g, '');
}

export function tokenize(text) {
  return normalize(text).match(TOKEN) ?? [];
}

// One string per token (with its leading space, '' for PAD/BOS/EOS);
// joined they give detokenize(tokens).
export function detokenizePieces(tokens) {
  const out = [];
  let quoteOpen = false;
  let glueNext = true; // no space before the first token
  for (const tok of tokens) {
    if (tok === PAD || tok === BOS || tok === EOS) {
      out.push('');
      continue;
    }
    if (tok === '"') {
      if (quoteOpen) { // closing quote hugs the previous word
        out.push(tok);
        glueNext = false;
      } else {
        out.push(glueNext ? tok : ' ' + tok);
        glueNext = true;
      }
      quoteOpen = !quoteOpen;
      continue;
    }
    out.push(glueNext || NO_SPACE_BEFORE.has(tok) ? tok : ' ' + tok);
    glueNext = NO_SPACE_AFTER.has(tok);
  }
  return out;
}

export function detokenize(tokens) {
  return detokenizePieces(tokens).join('');
}

export class Vocab {
  constructor(itos) {
    if (!Array.isArray(itos) || SPECIALS.some((s, i) => itos[i] !== s)) {
      throw new Error(`vocabulary must start with ${SPECIALS.join(', ')}`);
    }
    this.itos = itos;
    this.stoi = new Map(itos.map((tok, i) => [tok, i]));
  }

  get size() { return this.itos.length; }

  encodeTokens(tokens) { return tokens.map((t) => this.stoi.get(t) ?? UNK_ID); }

  encode(text) { return this.encodeTokens(tokenize(text)); }

  token(id) { return this.itos[id] ?? UNK; }

  decode(ids) { return detokenize(ids.map((i) => this.token(i))); }
}
