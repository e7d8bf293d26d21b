"""What the embedded engine's async door costs per call: the same statements through the sync cursor and the
async cursor (one worker thread per session, a hop there and back per awaited call), and N sessions' queries
under asyncio.gather (their threads overlap where SQLite releases the GIL).

    .venv/bin/python benchmarks/bench_async.py [--runs 300] [--rows 2000] [--sessions 4]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workshop.embedded import connect, connect_async  # noqa: E402

POINT = "SELECT id, name FROM t WHERE id = :1"
SCAN = "SELECT COUNT(*), MAX(name) FROM t WHERE name LIKE :1"


def build(path: Path, rows: int) -> None:
    with connect(path) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (id NUMBER PRIMARY KEY, name VARCHAR2(40))")
        cur.executemany("INSERT INTO t VALUES (:1, :2)", [(i, f"name {i}") for i in range(rows)])
        conn.commit()


def sync_ms(path: Path, sql: str, binds, runs: int) -> float:
    with connect(path) as conn, conn.cursor() as cur:
        cur.execute(sql, binds).fetchall()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            cur.execute(sql, binds).fetchall()
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def async_ms(path: Path, sql: str, binds, runs: int) -> float:
    async with connect_async(path) as conn:
        cur = conn.cursor()
        await cur.execute(sql, binds)
        await cur.fetchall()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            await cur.execute(sql, binds)
            await cur.fetchall()
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def gather_ms(path: Path, sessions: int, runs: int) -> float:
    conns = [await connect_async(path) for _ in range(sessions)]

    async def one(conn):
        for _ in range(runs):
            await conn.fetchall(SCAN, ["name 1%"])
    t0 = time.perf_counter()
    await asyncio.gather(*(one(c) for c in conns))
    elapsed = (time.perf_counter() - t0) * 1000
    for conn in conns:
        await conn.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        build(path, args.rows)
        print(f"embedded engine, {args.rows} rows, median of {args.runs} runs, load {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
        print(f"| statement | sync ms | async ms | async - sync ms |\n|---|---|---|---|")
        for label, sql, binds in [("point query (PK)", POINT, [7]), ("scan + aggregate", SCAN, ["name 1%"])]:
            s = sync_ms(path, sql, binds, args.runs)
            a = asyncio.run(async_ms(path, sql, binds, args.runs))
            print(f"| {label} | {s:.3f} | {a:.3f} | {a - s:+.3f} |")
        one = asyncio.run(gather_ms(path, 1, args.runs // 10))
        many = asyncio.run(gather_ms(path, args.sessions, args.runs // 10))
        print(f"\n| sessions under gather | scans each | wall ms |\n|---|---|---|")
        print(f"| 1 | {args.runs // 10} | {one:.0f} |\n| {args.sessions} | {args.runs // 10} | {many:.0f} |")


if __name__ == "__main__":
    main()
