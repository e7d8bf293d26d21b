"""What the FINANCE schema adds to `python -m workshop.setup`, and what part 04's knowledge steps cost.

Run: python benchmarks/bench_finance_setup.py [--repeats 3]
On a private copy of this checkout's set-up database (embedded engine), each repeat times, in turn:
generating the rows (Python), building FINANCE from nothing (CREATE + COMMENT + executemany INSERT of
~47,000 rows, the set-up's own step), the set-up's second, no-op pass over FINANCE, the schema scan,
and the first (embedding) and second (no-op) sync of the knowledge store. Prints medians; say what else
ran on the machine when you quote them.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workshop import config  # noqa: E402
from workshop.data.finance import FINANCE_TABLES, ensure_finance, generate  # noqa: E402
from workshop.embedded import connect  # noqa: E402

MODEL = "ALL_MINILM_L6_V2"


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    source = config.embedded_db_path()
    if not source.exists():
        sys.exit(f"no set-up database at {source}: run python -m workshop.setup first")
    from workshop.knowledge import (create_facts_table, open_knowledge_store, policy_facts, read_facts,
                                    scan_schema, sync_knowledge, write_facts)
    from workshop.reset import drop_objects, reset_part
    results: dict[str, list[float]] = {k: [] for k in ("generate rows", "build FINANCE (fresh)",
                                                        "set-up pass, FINANCE present", "scan_schema",
                                                        "first sync (embeds)", "second sync (no-op)")}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        with sqlite3.connect(source) as src, sqlite3.connect(path) as dst:
            src.backup(dst)
        os.environ["WORKSHOP_EMBEDDED_DB"] = str(path)
        for _ in range(args.repeats):
            conn = connect(path)
            drop_objects(conn, [("TABLE", t.name) for t in reversed(FINANCE_TABLES)])
            reset_part(4, conn, log=None)
            results["generate rows"].append(timed(generate))
            results["build FINANCE (fresh)"].append(timed(lambda: ensure_finance(conn, progress=False,
                                                                                   did=lambda _: None)))
            results["set-up pass, FINANCE present"].append(timed(lambda: ensure_finance(conn, progress=False,
                                                                                          did=lambda _: None)))
            facts: list = []
            results["scan_schema"].append(timed(lambda: facts.extend(scan_schema(conn))))
            create_facts_table(conn)
            write_facts(conn, facts + policy_facts())
            store = open_knowledge_store(conn, MODEL)
            results["first sync (embeds)"].append(timed(lambda: sync_knowledge(conn, store, read_facts(conn))))
            results["second sync (no-op)"].append(timed(lambda: sync_knowledge(conn, store, read_facts(conn))))
            conn.close()
    print(f"embedded engine, {os.cpu_count()} CPUs, {args.repeats} repeats (medians, seconds)")
    width = max(map(len, results))
    for name, values in results.items():
        print(f"  {name:<{width}}  {statistics.median(values):7.2f}   (min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
