"""The maps deck's token pictures (issue 20), drawn from its tables with
kit/tokens.py: the vocabulary as ID cards, the toy story as IDs, one window
and its target, every (window, target) pair (a window sliding over the
story), the batch, and how the window width decides what is visible.
Table: ``maps_token_figures``."""

from __future__ import annotations

from common.palette import ACCENT, ACCENT_SOFT, LINE, MUTED

from ..kit.cell_panels import natural_size
from ..kit.draw import MIN_TEXT, PHONE, Drawing, arranged, text_width
from ..kit.registry import table
from ..kit.tokens import LABEL_LINE, bracket, card_width, id_cards, pair_rows, pair_rows_width

GAP = 8
MARGIN = 20


def _row_width(n: int, card_w: float) -> float:
    return n * card_w + (n - 1) * GAP


def cuts(tokenize: dict) -> str:
    """The same text cut three ways: each piece a box as wide as its characters,
    so the rows line up under each other and differ only in where they cut."""
    rows = tokenize["choices"]["rows"]  # [choice, pieces, count]
    desc = f"Three ways to cut “{tokenize['text']}”: " + "; ".join(
        f"{r[0]}: {' | '.join(r[1])} ({r[2]} tokens)" for r in rows
    )
    per_char, row_h, gap = 54, 62, 6
    label_w = max(text_width(r[0], MIN_TEXT) for r in rows) + 40
    longest = max(sum(len(p) for p in r[1]) for r in rows) * (per_char + gap) - gap
    d = Drawing(
        label_w + longest + 140, 12 + row_h * len(rows), "maps-cuts", "One text, three ways to cut it", desc + "."
    )
    for k, (choice, pieces, count) in enumerate(rows):
        y, x = 8 + k * row_h, label_w
        d.text(label_w - 16, y + 33, choice, size=MIN_TEXT, anchor="end", fill=MUTED)
        for piece in pieces:
            w = len(piece) * (per_char + gap) - gap  # a piece spans its characters' cells
            d.box(x, y, w, 48, piece, kind="data")
            x += w + gap
        d.text(label_w + longest + 24, y + 33, f"{count} tokens", size=MIN_TEXT, anchor="start", weight="600")
    return natural_size(d)


def vocabulary(vocab: dict) -> str:
    itos, n_sp = vocab["itos"], vocab["n_specials"]
    pairs = ", ".join(f"{i} {t}" for i, t in enumerate(itos))
    desc = (
        f"The toy vocabulary as {len(itos)} cards, ID under token: {pairs}. The first {n_sp} are the special "
        f"tokens, then the words in alphabetical order."
    )
    cw = card_width(itos)
    x0 = MARGIN
    d = Drawing(
        _row_width(len(itos), cw) + 2 * MARGIN, 150, "maps-vocabulary", f"The toy vocabulary: C = {len(itos)} IDs", desc
    )
    cards = id_cards(d, x0, 16, itos, range(len(itos)), card_w=cw, faded=range(n_sp))
    bracket(d, cards[0].x, cards[n_sp - 1].x + cw, 90, f"{n_sp} special tokens", colour=MUTED)
    bracket(d, cards[n_sp].x, cards[-1].x + cw, 90, f"{len(itos) - n_sp} words, A to Z", colour=ACCENT)
    return natural_size(d)


def story_ids(story: dict) -> str:
    toks, ids = story["tokens"], story["ids"]
    desc = (
        "The toy story as IDs, position by position: "
        + ", ".join(f"{k + 1}: {t} ({i})" for k, (t, i) in enumerate(zip(toks, ids)))
        + ". One BOS opens the story and one EOS closes it."
    )
    cw = card_width(toks, 80)
    x0 = 100
    d = Drawing(
        x0 + _row_width(len(toks), cw) + MARGIN, 150, "maps-story-ids", f"The toy story becomes {len(ids)} IDs", desc
    )
    cards = id_cards(d, x0, 30, toks, ids, card_w=cw, highlight=[0, len(ids) - 1])
    for k, c in enumerate(cards):
        d.text(c.x + cw / 2, 18, f"{k + 1}", size=MIN_TEXT, fill=MUTED)
    d.text(x0 - 14, 18, "position", size=MIN_TEXT, anchor="end", fill=MUTED)
    d.text(x0 - 14, cards[0].y + cards[0].h / 2 - 4, "token", size=MIN_TEXT, anchor="end", fill=MUTED)
    d.text(x0 - 14, cards[0].y + cards[0].h - 9, "ID", size=MIN_TEXT, anchor="end", fill=MUTED)
    bracket(d, cards[1].x, cards[-2].x + cw, 104, f"{len(ids) - 2} ordinary tokens")
    return natural_size(d)


def unknown_word(vocab: dict) -> str:
    ids = vocab["blue_story_ids"]
    itos = vocab["itos"]
    toks = [itos[i] for i in ids]
    desc = (
        f"The story “blue” encoded: {', '.join(f'{t} ({i})' for t, i in zip(toks, ids))}. The word is not in "
        "the vocabulary, so its ID is UNK's."
    )

    def draw(phone: bool) -> Drawing:  # a phone's: narrower cards, closer to the word
        cw = card_width(toks, 64 if phone else 90)
        x0 = 130 if phone else 170
        margin = 8 if phone else MARGIN
        ident = "maps-unknown-word" + ("-phone" if phone else "")
        d = Drawing(x0 + _row_width(len(ids), cw) + margin, 100, ident, "The story “blue” becomes BOS, UNK, EOS", desc)
        d.text(x0 - (14 if phone else 20), 52, "“blue” →", size=24, anchor="end", weight="600")
        id_cards(d, x0, 14, toks, ids, card_w=cw, highlight=[1])
        return d

    return arranged(natural_size(draw(False)), natural_size(draw(True)) if draw(True).width <= PHONE else None)


def one_window(story: dict, w: int) -> str:
    toks, ids, t = story["tokens"], story["ids"], story["target_position"]
    ctx = list(range(t - w, t))
    desc = (
        f"The story's IDs with a bracket over positions {ctx[0] + 1} to {ctx[-1] + 1} "
        f"({' '.join(toks[k] for k in ctx)}): the context x of width {w}. Position {t + 1}, {toks[t]} "
        f"(ID {ids[t]}), is the target y. The positions after it play no part in this example."
    )
    cw = card_width(toks, 80)
    x0 = MARGIN
    d = Drawing(
        _row_width(len(toks), cw) + 2 * MARGIN, 176, "maps-one-window", f"One window of width {w} and its target", desc
    )
    later = list(range(t + 1, len(ids)))
    cards = id_cards(d, x0, 30, toks, ids, card_w=cw, highlight=[t], faded=later)
    for k, c in enumerate(cards):
        d.text(c.x + cw / 2, 18, f"{k + 1}", size=MIN_TEXT, fill=MUTED)
    bracket(d, cards[ctx[0]].x, cards[ctx[-1]].x + cw, 104, f"context x: the {w} IDs before")
    bracket(d, cards[t].x, cards[t].x + cw, 104, "target y", colour=ACCENT)
    d.text(cards[later[0]].x, 150, "not used", size=MIN_TEXT, anchor="start", fill=MUTED)
    return natural_size(d)


def all_pairs(windows: dict, vocab: dict) -> str:
    itos, ctxs, tg = vocab["itos"], windows["contexts"], windows["targets"]
    padded = [r for r, c in enumerate(ctxs) if vocab["ids"]["pad"] in c]
    desc = (
        f"The {windows['N']} (window, target) pairs of the story, one a row, the window sliding one position "
        "each row: "
        + "; ".join(f"{' '.join(itos[i] for i in c)} → {itos[y]}" for c, y in zip(ctxs, tg))
        + f". Rows {', '.join(str(r + 1) for r in padded)} are filled on the left with PAD."
    )
    labels = [f"pair {r + 1}" for r in range(len(ctxs))]
    heads = (f"context x (w = {windows['w']})", "target y")
    pairs = dict(labels=labels, contexts=ctxs, targets=tg, itos=itos, heads=heads, highlight_rows=padded, card_h=50)
    return _pairs("maps-all-pairs", "A window sliding over the story", desc, row_h=58, head_y=26, top=36, **pairs)


def _pairs(
    ident, title, desc, labels, contexts, targets, itos, heads, row_h, head_y, top, highlight_rows=(), card_h=58, pad=4
):
    """(window, target) rows (kit/tokens.py ``pair_rows``) under two heads, the
    context's and the target's; for a phone (kit/draw.py ``arranged``) the same
    rows with narrower cards and each row's label above it."""

    def draw(phone: bool) -> Drawing:
        cw = card_width(itos, 56 if phone else 78)
        margin = 8 if phone else MARGIN
        step = row_h + (LABEL_LINE if phone else 0)
        n = len(contexts[0])
        box_w = n * (cw + GAP) + 48 + cw if phone else pair_rows_width(labels, n, cw)
        name = ident + ("-phone" if phone else "")
        d = Drawing(box_w + 2 * margin, top + pad + step * len(contexts), name, title, desc)
        box = pair_rows(
            d,
            margin,
            top,
            labels,
            contexts,
            targets,
            itos,
            row_h=step,
            card_w=cw,
            highlight_rows=highlight_rows,
            card_h=card_h,
            labels_above=phone,
        )
        arrow_w = 48 if phone else 56
        d.text(box.x + box.w - cw - arrow_w - (n * (cw + GAP)) / 2, head_y, heads[0], size=MIN_TEXT)
        d.text(box.x + box.w - cw / 2, head_y, heads[1], size=MIN_TEXT, fill=ACCENT)
        return d

    phone = draw(True)
    return arranged(natural_size(draw(False)), natural_size(phone) if phone.width <= PHONE else None)


def batch(batch_t: dict, vocab: dict) -> str:
    itos = vocab["itos"]
    X, y = batch_t["X"], batch_t["y"]
    desc = (
        f"The batch of B = {len(X)} examples: X holds the context IDs of each example, one row each, and y their "
        "targets: "
        + "; ".join(f"example {b + 1}: {' '.join(itos[i] for i in X[b])} → {itos[y[b]]}" for b in range(len(X)))
        + "."
    )
    labels = [f"example {b + 1}" for b in range(len(X))]
    heads = (f"X: [{len(X)}, {len(X[0])}] IDs", f"y: [{len(y)}]")
    title = f"A batch: X of shape [{len(X)}, {len(X[0])}], y of shape [{len(y)}]"
    return _pairs("maps-batch", title, desc, labels, X, y, itos, heads, row_h=70, head_y=28, top=44, pad=12)


def widths(story: dict) -> str:
    toks, ids = story["history_tokens"], story["history"]
    rows = story["width_table"]["rows"]
    desc = (
        f"The history {' '.join(toks)} as IDs, with one bracket per window width: "
        + "; ".join(f"w = {r[0]} sees {' '.join(r[2])}" for r in rows)
        + ". A wider window reaches further back."
    )
    cw = card_width(toks, 80)
    x0 = 90
    d = Drawing(
        x0 + _row_width(len(toks), cw) + MARGIN,
        92 + 44 * len(rows),
        "maps-widths",
        "The window decides how much history the model sees",
        desc,
    )
    cards = id_cards(d, x0, 10, toks, ids, card_w=cw)
    right = cards[-1].x + cw
    for k, r in enumerate(rows):
        wd = r[0]
        y = 92 + k * 44
        left = cards[len(toks) - wd].x
        d.rect(left, y, right - left, 26, fill=ACCENT_SOFT, stroke=ACCENT, width=1.5, radius=4)
        d.text(left - 12, y + 20, f"w = {wd}", size=MIN_TEXT, anchor="end", fill=LINE)
    return natural_size(d)


def prompt_window(gen: dict) -> str:
    toks, ids, hist = gen["context_tokens"], gen["context"], gen["history"]
    n_pad = len(ids) - len(hist)
    desc = (
        f"The prompt “{gen['prompt']}” as a window of {len(ids)} IDs: "
        + ", ".join(f"{t} ({i})" for t, i in zip(toks, ids))
        + f". BOS and the prompt's IDs are the history; {n_pad} PAD fills the left of the window."
    )

    def draw(phone: bool) -> Drawing:  # a phone's: narrower cards
        cw = card_width(toks, 72 if phone else 90)
        x0 = MARGIN
        ident = "maps-prompt-window" + ("-phone" if phone else "")
        d = Drawing(_row_width(len(ids), cw) + 2 * x0, 124, ident, "The prompt's window, ready for the model", desc)
        cards = id_cards(d, x0, 10, toks, ids, card_w=cw)
        if n_pad:
            bracket(d, cards[0].x, cards[n_pad - 1].x + cw, 82, "left padding", colour=MUTED)
        bracket(d, cards[n_pad].x, cards[-1].x + cw, 82, "history: BOS + prompt", colour=ACCENT)
        return d

    return arranged(natural_size(draw(False)), natural_size(draw(True)) if draw(True).width <= PHONE else None)


def batches(windows: dict, batch_t: dict) -> str:
    n, B, sizes = windows["N"], batch_t["B"], batch_t["batch_sizes"]
    desc = (
        f"The {n} (window, target) pairs taken in order, B = {B} at a time: batches of sizes "
        f"{', '.join(str(k) for k in sizes)}, one optimiser step each."
    )
    cw, gap, group_gap = 104, 8, 40
    total = n * cw + (n - len(sizes)) * gap + (len(sizes) - 1) * group_gap
    x = MARGIN
    d = Drawing(total + 2 * MARGIN, 124, "maps-batches", f"{n} pairs, {len(sizes)} batches of at most {B}", desc)
    k = 0
    for b, size in enumerate(sizes):
        left = x
        for _ in range(size):
            d.box(x, 10, cw, 54, f"pair {k + 1}", kind="data")
            x += cw + gap
            k += 1
        x += group_gap - gap
        bracket(d, left, x - group_gap, 76, f"batch {b + 1}: step {b + 1}", colour=ACCENT)
    return natural_size(d)


def trace(gen: dict, vocab: dict) -> str:
    """The greedy generation trace: each step's window and the token chosen."""
    itos, rows = vocab["itos"], gen["trace"]["rows"]  # [step, window IDs, window tokens, chosen ID, chosen]
    desc = (
        "Greedy generation from the prompt, one step a row: "
        + "; ".join(f"step {r[0]}: {' '.join(r[2])} → {r[4]}" for r in rows)
        + ". Each chosen token joins the history, so the next window shifts by one."
    )
    labels = [f"step {r[0]}" for r in rows]
    heads = ("window: the latest w IDs", "chosen")
    ctxs, chosen = [r[1] for r in rows], [r[3] for r in rows]
    title = "Greedy generation, step by step"
    return _pairs("maps-trace", title, desc, labels, ctxs, chosen, itos, heads, row_h=62, head_y=24, top=36)


@table(
    "maps_token_figures",
    needs=["maps_tokenize", "maps_vocab", "maps_story", "maps_windows", "maps_batch", "maps_generation"],
)
def token_figures(maps_tokenize, maps_vocab, maps_story, maps_windows, maps_batch, maps_generation) -> dict:
    return {
        "cuts": cuts(maps_tokenize),
        "vocabulary": vocabulary(maps_vocab),
        "unknown_word": unknown_word(maps_vocab),
        "story_ids": story_ids(maps_story),
        "one_window": one_window(maps_story, maps_windows["w"]),
        "all_pairs": all_pairs(maps_windows, maps_vocab),
        "batch": batch(maps_batch, maps_vocab),
        "widths": widths(maps_story),
        "batches": batches(maps_windows, maps_batch),
        "prompt_window": prompt_window(maps_generation),
        "trace": trace(maps_generation, maps_vocab),
    }
