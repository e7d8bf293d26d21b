"""Benchmark the embedded Oracle Text index: build time and CONTAINS latency at 10k and 100k chunks.

Synthetic chunks (40-80 words) are drawn with a fixed seed from a Zipf-distributed vocabulary of
5,000 generated words, so every run indexes the same text. Each query runs `--runs` times; "cold"
clears the per-process caches before every run (postings read from SQLite), "warm" reuses them.

    .venv/bin/python benchmarks/bench_text.py [--sizes 10000 100000] [--runs 25]
"""
from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workshop.embedded.text import clear_caches, create_text_index, search  # noqa: E402

SEED = 20261130
VOCAB_SIZE = 5000


def vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < VOCAB_SIZE:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 10))))
    return sorted(words)


def chunks(n: int, vocab: list[str], rng: random.Random) -> list[str]:
    weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(vocab))]
    out = []
    for _ in range(n):
        out.append(" ".join(rng.choices(vocab, weights=weights, k=rng.randint(40, 80))) + ".")
    return out


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def timed(conn: sqlite3.Connection, query: str, runs: int, cold: bool) -> tuple[float, float, int]:
    times, hits = [], 0
    search(conn, "chunks_txt", query)
    for _ in range(runs):
        if cold:
            clear_caches()
        t0 = time.perf_counter()
        hits = len(search(conn, "chunks_txt", query))
        times.append((time.perf_counter() - t0) * 1000)
    return percentile(times, 0.5), percentile(times, 0.95), hits


def run(size: int, runs: int) -> list[tuple]:
    rng = random.Random(SEED)
    vocab = vocabulary(rng)
    texts = chunks(size, vocab, rng)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "bench.db")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, text TEXT)")
        conn.executemany("INSERT INTO chunks (text) VALUES (?)", [(t,) for t in texts])
        conn.commit()
        t0 = time.perf_counter()
        create_text_index(conn, "chunks_txt", "chunks", "text", kind="SEARCH")
        conn.commit()
        build = time.perf_counter() - t0
        rows.append((size, "index build", f"{build:.2f} s", f"{size / build:,.0f} rows/s", "", ""))
        words = texts[7].rstrip(".").split()
        common, rare = vocab_rank(vocab, 30), vocab_rank(vocab, 800)
        target = next(w for w in vocab[120:] if len(w) >= 7)
        typo = target[:3] + target[4:]
        queries = [
            ("1-word", common),
            ("2-word ACCUM", f'"{common}" ACCUM "{rare}"'),
            ("phrase (top words)", f"{words[3]} {words[4]}"),
            ("phrase (mid words)", mid_phrase(texts, vocab)),
            ("fuzzy", f"fuzzy({typo})"),
        ]
        for label, query in queries:
            for cold in (True, False):
                p50, p95, hits = timed(conn, query, runs, cold)
                rows.append((size, f"{label} ({'cold' if cold else 'warm'})", f"{p50:.1f} ms", f"{p95:.1f} ms",
                             hits, query))
        conn.close()
    return rows


def mid_phrase(texts: list[str], vocab: list[str]) -> str:
    """First adjacent word pair whose Zipf ranks are both between 100 and 2000."""
    rank = {w: i for i, w in enumerate(vocab)}
    for text in texts:
        words = text.rstrip(".").split()
        for a, b in zip(words, words[1:]):
            if 100 <= rank[a] <= 2000 and 100 <= rank[b] <= 2000:
                return f"{a} {b}"
    raise RuntimeError("no mid-frequency word pair")


def vocab_rank(vocab: list[str], rank: int) -> str:
    """The word drawn with Zipf rank `rank` (chunks() weights words by their list position)."""
    return vocab[rank]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--runs", type=int, default=25)
    args = ap.parse_args()
    header = ("chunks", "measure", "time / p50", "rate / p95", "hits", "query")
    table = [header]
    for size in args.sizes:
        table.extend(run(size, args.runs))
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    for i, r in enumerate(table):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
