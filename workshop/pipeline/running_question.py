"""The running question of part 05, our analogue of the seed's "Jane question".

One sentence that needs exact names (the Rolling Summaries paper, memkeeper), a concept with
paraphrases (evicting old turns ~ pruning, retention, purge, summarisation), a scope (tenant acme,
user jane, papers and runbooks only, live versions) and passages from two sources to compare.
`second_source_ranks` measures where the second source's answering passage sits in each list.
"""
from __future__ import annotations

import oracledb

from .query import understand_query
from .search import fuse, pool, search_knowledge_base

QUESTION = ("What does the Rolling Summaries paper say about evicting old turns, and how does that compare to "
            "what the memkeeper retention runbook recommends?")
TENANT = "acme"
USER = "jane"
#: Source A, the runbook, dominates the vector list; source B is the paper, and its passage on folding old turns
#: out of the context (trigger, window, summary prompt) is the one that answers the question.
SOURCE_A = "DOC29"
SOURCE_B = "DOC02"
ANSWERING_PASSAGE = "DOC02-C03"


def _rank(ids: list[str], wanted: str) -> int | None:
    return ids.index(wanted) + 1 if wanted in ids else None


def second_source_ranks(conn: oracledb.Connection, *, rows: list[dict] | None = None) -> dict:
    """Ranks of ANSWERING_PASSAGE: in the vector pool, the lexical pool, the fused 40 and after rerank."""
    plan = understand_query(QUESTION)
    vector = pool(conn, "vector", plan, user_id=USER)
    lexical = pool(conn, "lexical", plan, user_id=USER)
    fused = [f[0] for f in fuse(vector, lexical)]
    rows = rows if rows is not None else search_knowledge_base(conn, plan, user_id=USER)
    return {"passage": ANSWERING_PASSAGE,
            "vector rank": _rank([i for i, _ in vector], ANSWERING_PASSAGE),
            "lexical rank (dense)": dict(lexical).get(ANSWERING_PASSAGE),
            "fused rank": _rank(fused, ANSWERING_PASSAGE),
            "rerank rank": _rank([r["id"] for r in rows], ANSWERING_PASSAGE),
            "first source-B passage after rerank": next((n for n, r in enumerate(rows, 1)
                                                         if r["document_id"] == SOURCE_B), None)}
