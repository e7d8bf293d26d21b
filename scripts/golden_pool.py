"""Print the pooled chunks of golden questions that have no judgement yet, so a maintainer can grade them.

Pooled judging (workshop/data/golden/README.md): every chunk any part 06 strategy returns in its top 20
for a question must carry a grade (0-3; 0 = judged, not relevant). This script runs the strategies of
workshop/evaluation/pooling.py on a private copy of the workshop database (the set-up must have run) and
prints, per question, each unjudged chunk with the strategies that returned it and the text a judge
reads. It never grades anything: read the question and each chunk, then write the grades into the file.

    .venv/bin/python scripts/golden_pool.py                       # every question of golden set v2
    .venv/bin/python scripts/golden_pool.py V2-017 V2-040         # some questions
    .venv/bin/python scripts/golden_pool.py --all V2-017          # the whole pool, with the grades it has
    .venv/bin/python scripts/golden_pool.py --file my.jsonl       # another file of the golden schema
    .venv/bin/python scripts/golden_pool.py --question "why is keyword search empty?" --tenant acme [--user jane]

Exit status 1 when some pooled chunk is unjudged (0 when the pool is complete).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workshop import config  # noqa: E402
from workshop.db import copy_embedded_database  # noqa: E402
from workshop.data.loaders import GOLDEN_V2_PATH, read_golden_jsonl  # noqa: E402


def private_copy(target: Path) -> Path:
    try:
        return copy_embedded_database(target)
    except FileNotFoundError as missing:
        sys.exit(str(missing))


def card_text(card: dict) -> str:
    flags = [f"tenant {card['tenant']}", f"v{card['version']}"]
    if card["user_id"]:
        flags.append(f"private to {card['user_id']}")
    if card["valid_until"]:
        flags.append("SUPERSEDED")
    if card["doc_deleted_at"] or card["deleted_at"]:
        flags.append("DELETED")
    head = f"{card['title']} / {card['section']} [{card['section_type']}] ({', '.join(flags)})"
    return head + "\n" + textwrap.fill(card["text"], 110, initial_indent="      ", subsequent_indent="      ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("query_ids", nargs="*", help="only these questions (default: all)")
    parser.add_argument("--file", type=Path, default=GOLDEN_V2_PATH, help="golden JSONL (default: version 2)")
    parser.add_argument("--all", action="store_true", help="print the whole pool, judged chunks included")
    parser.add_argument("--question", help="a new question, not in any file")
    parser.add_argument("--tenant", default="acme")
    parser.add_argument("--user", default=None, help="the asking user (default: the evaluation user)")
    parser.add_argument("--no-title", action="store_true", help="leave the title-experiment runs out of the pool")
    args = parser.parse_args()
    if args.question:
        queries = [{"query_id": "NEW", "query": args.question, "tenant": args.tenant, "user_id": args.user,
                    "intent": "new", "relevance": {}, "traps": []}]
    else:
        queries = read_golden_jsonl(args.file)
        if args.query_ids:
            wanted = set(args.query_ids)
            queries = [q for q in queries if q["query_id"] in wanted]
            if missing := wanted - {q["query_id"] for q in queries}:
                sys.exit(f"not in {args.file}: {', '.join(sorted(missing))}")
    with tempfile.TemporaryDirectory() as tmp:
        if config.oracle_dsn() is None:
            os.environ["WORKSHOP_EMBEDDED_DB"] = str(private_copy(Path(tmp) / "workshop.db"))
        from workshop.db import connect
        from workshop.evaluation import pooling, strategies
        from workshop.pipeline import security
        conn = connect()
        strategies.prepare_knowledge_base(conn)
        runs = pooling.pool_runs(conn, queries, title=not args.no_title)
        pools = pooling.pools(runs)
        cards: dict[str, dict] = {}
        for tenant in sorted({q["tenant"] for q in queries}):
            security.set_tenant(conn, tenant)
            cards.update(pooling.chunk_cards(conn))
        security.set_tenant(conn, None)
        conn.close()
    open_count = 0
    for q in queries:
        pool = pools.get(q["query_id"], {})
        judged = set(q["relevance"]) | set(q.get("traps") or ())
        shown = {c: s for c, s in pool.items() if args.all or c not in judged}
        open_count += sum(c not in judged for c in pool)
        if not shown:
            continue
        user = f", user {q.get('user_id')}" if q.get("user_id") else ""
        print(f"=== {q['query_id']} [{q['intent']}] ({q['tenant']}{user}): {q['query']}")
        print(f"    pool {len(pool)} chunks, {sum(c not in judged for c in pool)} unjudged")
        for chunk_id, names in shown.items():
            grade = "trap" if chunk_id in q.get("traps", ()) else q["relevance"].get(chunk_id, "?")
            print(f"  {chunk_id}  grade {grade}  <- {', '.join(names)}")
            print("    " + card_text(cards[chunk_id]))
        print()
    print(f"{open_count} unjudged pooled chunks in {len(queries)} questions")
    return 1 if open_count else 0


if __name__ == "__main__":
    sys.exit(main())
