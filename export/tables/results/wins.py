"""Where attention wins: the per-token loss difference MLP minus four heads
(and minus one head) over every test window, split by how far back the
target last appeared in the window, by its frequency band and by its
position in the story (export/attention_wins.py computes the splits), the
split by distance as a bar figure, and the windows where four heads help
and hurt most, as text."""

from __future__ import annotations

from common.palette import INK, LINE, MODELS, MUTED

from ..kit.draw import MIN_TEXT, PHONE, SLIDE, Drawing, arranged
from ..kit.registry import table
from ..kit.sources import Sources
from .head_cost import experiments_or_reason

SPLITS = {
    "distance": "last seen in the window",
    "frequency": "target's frequency rank",
    "position": "target's position in the story",
}
SHORT = {"mlp": "MLP", "attn1": "1 head", "attn4": "4 heads"}


def with_interval(value: float, ci: list[float] | None) -> str:
    """A difference and its bootstrap interval, as the tables show it."""
    return f"{value:+.2f}" if ci is None else f"{value:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]"


def add_intervals(bins: list[dict], intervals: list[dict] | None) -> list[dict]:
    """The bins with each difference's bootstrap interval (``mlp_minus_K_ci``) beside it."""
    if intervals is None:
        return bins
    by_label = {i["label"]: i for i in intervals}
    out = []
    for b in bins:
        i = by_label.get(b["label"], {})
        out.append(dict(b, **{f"{k}_ci": i[k] for k in ("mlp_minus_attn1", "mlp_minus_attn4") if k in i}))
    return out


def split_table(name: str, bins: list[dict]) -> dict:
    header = [SPLITS[name], "targets", "MLP", "1 head", "4 heads", "MLP − 1 head", "MLP − 4 heads"]
    body = []
    for b in bins:
        if not b["count"]:
            body.append([b["label"], "0"] + ["—"] * 5)
            continue
        loss = b["loss"]
        body.append(
            [b["label"], f"{b['count']:,}"]
            + [f"{loss[k]:.2f}" for k in ("mlp", "attn1", "attn4")]
            + [with_interval(b[k], b.get(f"{k}_ci")) for k in ("mlp_minus_attn1", "mlp_minus_attn4")]
        )
    return {"header": header, "rows": body}


def largest(bins: list[dict], key: str = "mlp_minus_attn4") -> dict:
    """The bin (with targets) where the difference is largest."""
    full = [b for b in bins if b["count"]]
    return max(full, key=lambda b: b[key])


def window_table(windows: list[dict]) -> dict:
    header = ["context (last tokens)", "next token", "MLP", "1 head", "4 heads"]
    body = [
        [w["context_text"], w["target"]] + [f"{w['loss'][k]:.1f}" for k in ("mlp", "attn1", "attn4")] for w in windows
    ]
    return {"header": header, "rows": body}


def _x(value: float, lo: float, hi: float, left: float, right: float) -> float:
    return left + (value - lo) / (hi - lo) * (right - left)


def difference_bars(bins: list[dict], ident: str, heading: str) -> str:
    """Horizontal bars: per bin, MLP minus 1 head and MLP minus 4 heads (mean
    nats per target). At a slide's width each bin's name and count sit left
    of its bars; on a phone (PHONE units) above them, and the key takes two rows."""
    kinds = ("attn1", "attn4")
    values = [b[f"mlp_minus_{k}"] for b in bins if b["count"] for k in kinds]
    values += [x for b in bins if b["count"] for k in kinds for x in b.get(f"mlp_minus_{k}_ci") or []]
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    hi = hi + 0.18 * (hi - lo)  # room for the value labels
    desc = "Mean loss difference per target, MLP minus attention, in nats (positive: attention less surprised). " + (
        "; ".join(
            f"{b['label']} ({b['count']:,} targets): "
            + ", ".join(
                f"MLP − {SHORT[k]} {with_interval(b[f'mlp_minus_{k}'], b.get(f'mlp_minus_{k}_ci'))}" for k in kinds
            )
            for b in bins
            if b["count"]
        )
    )

    def draw(phone: bool) -> Drawing:
        bar, gap = 21, 12
        if phone:  # the key in two rows, each bin's name and count on a line above its bars
            left, right, top, head = 16, PHONE - 16, 2 * 30 + 14, 26
        else:
            left, right, top, head = 330, SLIDE - 80, 48, 0
        height = top + len(bins) * (head + 2 * bar + gap) + 10
        d = Drawing(PHONE if phone else SLIDE - 60, height, ident + ("-phone" if phone else ""), heading, desc)
        for i, k in enumerate(kinds):  # legend
            x, y = (left, 10 + i * 30) if phone else (left + i * 300, 10)
            d.rect(x, y, 28, 22, fill=MODELS[k], stroke=INK, width=1, radius=2)
            d.text(x + 38, y + 18, f"MLP − {SHORT[k]}", size=MIN_TEXT, anchor="start")
        zero = _x(0.0, lo, hi, left, right)
        y = top
        for b in bins:
            if phone:
                d.text(left, y + 18, b["label"], size=MIN_TEXT, anchor="start", weight="600")
                d.text(right, y + 18, f"{b['count']:,} targets", size=MIN_TEXT, anchor="end", fill=MUTED)
                y += head
            else:
                d.text(left - 14, y + bar - 4, b["label"], size=MIN_TEXT, anchor="end", weight="600")
                d.text(left - 14, y + 2 * bar - 1, f"{b['count']:,} targets", size=MIN_TEXT, anchor="end", fill=MUTED)
            for j, k in enumerate(kinds):
                if not b["count"]:
                    continue
                v = b[f"mlp_minus_{k}"]
                x1 = _x(v, lo, hi, left, right)
                top_j = y + j * bar
                d.rect(min(zero, x1), top_j + 2, abs(x1 - zero), bar - 4, fill=MODELS[k], stroke=INK, width=1, radius=2)
                ci = b.get(f"mlp_minus_{k}_ci")
                label_x = max(zero, x1)
                if ci:  # the bootstrap interval as a whisker through the bar's middle
                    lo_x, hi_x = (_x(c, lo, hi, left, right) for c in ci)
                    mid = top_j + bar / 2
                    d.polyline([(lo_x, mid), (hi_x, mid)], width=2, colour=INK, arrow=False)
                    for x in (lo_x, hi_x):
                        d.polyline([(x, mid - 5), (x, mid + 5)], width=2, colour=INK, arrow=False)
                    label_x = max(label_x, hi_x)
                d.text(label_x + 8, top_j + bar - 4, f"{v:+.2f}", size=MIN_TEXT, anchor="start")
            if phone:  # the zero line beside each bin's bars, clear of the names above them
                d.polyline([(zero, y - 2), (zero, y + 2 * bar + 2)], width=2, colour=LINE, arrow=False)
            y += 2 * bar + gap
        if not phone:
            d.polyline([(zero, top - 6), (zero, y - gap + 4)], width=2, colour=LINE, arrow=False)
        return d

    return arranged(draw(False).render(), draw(True))


@table("results_attention_wins", needs=["sources"])
def attention_wins(sources: Sources) -> dict:
    result, reason = experiments_or_reason(sources)
    if result is None:
        return reason
    wins = result["wins"]
    boot = result.get("bootstrap")
    splits = {
        name: add_intervals(bins, boot["wins"].get(name) if boot else None) for name, bins in wins["splits"].items()
    }
    overall = dict(wins["overall"])
    if boot:
        for k in ("attn1", "attn4"):
            overall[f"{k}_less_surprised_share_ci"] = boot["share"][k]
    return {
        "available": True,
        "total": wins["total"],
        "overall": overall,
        "bootstrap": None if boot is None else {k: boot[k] for k in ("seed", "draws", "stories", "level")},
        "level_percent": round(boot["level"] * 100) if boot else None,
        "share_percent": {
            k: {
                "value": wins["overall"][f"{k}_less_surprised_share"] * 100,
                "ci": [c * 100 for c in boot["share"][k]] if boot else None,
            }
            for k in ("attn1", "attn4")
        },
        "distance_rows": [
            [b["label"], f"{b['count']:,}"]
            + [with_interval(b[k], b.get(f"{k}_ci")) for k in ("mlp_minus_attn1", "mlp_minus_attn4")]
            for b in splits["distance"]
            if b["count"]
        ],
        "splits": splits,
        "tables": {name: split_table(name, bins) for name, bins in splits.items()},
        "largest": {name: largest(bins) for name, bins in splits.items()},
        "distance_svg": difference_bars(
            splits["distance"], "results-attention-wins", "Where attention wins: by how far back the target was"
        ),
        "helps": window_table(wins["windows"]["helps"]),
        "hurts": window_table(wins["windows"]["hurts"]),
        "windows": wins["windows"],
    }
