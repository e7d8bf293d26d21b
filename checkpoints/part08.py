"""Checkpoints of part 08, Oracle AI Agent Memory and its embedded mirror (notebooks/08_oracle_ai_agent_memory.ipynb).

The mirror's two TODOs are checked on both engines, against the checker's own copy of the policy
(`workshop.agent_memory.policy.reference_extract`) and its own hybrid statement
(`workshop.agent_memory.store.hybrid_search_sql`). The search runs on a recording proxy of the connection, under a
scope of the checker's own (a fresh user id), over committed probe rows that are deleted afterwards: so a search
that ignores the scope, drops a leg of the fusion, breaks ties differently or formats values into the SQL fails.
The OAMP TODO runs on Oracle with the oracleagentmemory package (the Oracle CI job) and skips with its one reason
elsewhere.

    from checkpoints import part08
    part08.check_extract_memories(conn, extract_memories)
    part08.check_search_memories(conn, search_memories)
    part08.check_make_hybrid_memory(conn, make_hybrid_memory)
"""
from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable
from typing import Any

import oracledb

from workshop import config, schema
from workshop.agent_memory import conversation as conv
from workshop.agent_memory import evaluation as ev
from workshop.agent_memory import oamp, policy, store
from workshop.retrieval import keyword_terms

from .framework.sql import parse
from .framework import (RecordingConnection, checkpoint, expect, expect_at_most_k, expect_bound, expect_filled,
                        expect_table, fail, restore_rows)

NOTEBOOK = "08_oracle_ai_agent_memory.ipynb"

EXTRACT_HINT = ("An extraction policy decides sentence by sentence what is durable, typed and scoped (section 1, "
                "'What to keep').",
                ("For each sentence: skip greetings and anything with a secret FIRST (a one-time code looks like an "
                "identifier), then a tool message is a 'fact' with confirmed_by='tool:<name>', a preference is a "
                "'preference', an identifier or confirmed state is a 'memory'; every record inherits the message's "
                "tenant/source/tags."))
SEARCH_HINT = ("Hybrid memory search is one statement: two scoped pools fused by Reciprocal Rank Fusion (section 2, "
               "'How to find it again').",
               ("One statement: a vector pool (ROW_NUMBER over VECTOR_DISTANCE) and a lexical pool (DENSE_RANK over "
               "SCORE(1)), BOTH with user_id = :user_id AND agent_id = :agent_id, FULL OUTER JOIN, "
               "COALESCE(1 / (:rrf_k + rank), 0) summed, ORDER BY the score DESC, memory_id, FETCH FIRST :k ROWS "
               "ONLY."))

#: A second conversation the notebook never shows: another scope, other metadata, no tags, a planted PIN.
PROBE_CONVERSATION = [
    {"role": "user", "content": "Good morning! My case CASE-7710 is still open.", "metadata": {"tenant": "globex",
                                                                                               "source": "chat"}},
    {"role": "user", "content": "My PIN is 4412 if you need it. Please always reply in French. "
                                "Please always quote CASE-7710 in the subject line.",
     "metadata": {"tenant": "globex", "source": "chat", "channel": "web"}},
    {"role": "tool", "tool": "case_lookup", "content": "Case CASE-7710 was escalated to billing on 3 May.",
     "metadata": {"tenant": "globex", "source": "case-db"}},
    {"role": "assistant", "content": "Thanks, all confirmed! Cheers, talk soon.",
     "metadata": {"tenant": "globex", "source": "chat"}},
]


def _key(record: dict) -> tuple:
    return (record.get("content"), record.get("record_type"), record.get("user_id"), record.get("agent_id"),
            json.dumps(record.get("metadata"), sort_keys=True, default=str))


def _compare_records(got: list, expected: list[dict], what: str) -> None:
    expect(isinstance(got, list) and all(isinstance(r, dict) for r in got),
           f"{what}: extract_memories returned {type(got).__name__}, expected a list of record dicts")
    texts = [str(r.get("content")) for r in got]
    for needle, name in ((conv.ONE_TIME_CODE, "the one-time code"), ("PIN", "the PIN")):
        kept = [t for t in texts if needle in t]
        if kept:
            fail(f"{what}: a memory keeps {name}: {kept[0]!r}",
                 "Drop sentences with a secret before you look for identifiers: LOBBY-7731 matches IDENTIFIER too.")
    greetings = [t for t in texts if policy.is_greeting(t)]
    if greetings:
        fail(f"{what}: a memory keeps a greeting: {greetings[0]!r}", "is_greeting(sentence) -> skip.")
    for r in got:
        expect({"content", "record_type", "user_id", "agent_id", "metadata"} <= set(r),
               f"{what}: a record lacks keys (has {sorted(r)}): build it with record(...)")
    exp_by_content = {r["content"]: r for r in expected}
    for r in got:
        want = exp_by_content.get(r["content"])
        if want is None:
            continue
        expect((r["user_id"], r["agent_id"]) == (want["user_id"], want["agent_id"]),
               f"{what}: {r['content'][:40]!r} is stored under user/agent {r['user_id']}/{r['agent_id']}, "
               f"expected {want['user_id']}/{want['agent_id']} (the scope passed in)")
        missing = {k: v for k, v in want["metadata"].items() if r["metadata"].get(k) != v}
        expect(not missing, f"{what}: {r['content'][:40]!r} loses inherited metadata {missing}",
               "metadata = inherited_metadata(message, inherit), then add confirmed_by for a tool message.")
        extra = sorted(set(r["metadata"]) - set(want["metadata"]))
        expect(not extra, f"{what}: {r['content'][:40]!r} has metadata keys the policy does not inherit: {extra}",
               "Inherit only the keys in `inherit`.")
        expect(r["record_type"] == want["record_type"],
               f"{what}: {r['content'][:40]!r} is typed {r['record_type']!r}, expected {want['record_type']!r}",
               "A tool message gives a 'fact'; a preference is a 'preference' even when it names an id.")
    got_keys, exp_keys = sorted(map(_key, got)), sorted(map(_key, expected))
    lost = [k[0] for k in exp_keys if k not in got_keys]
    extra = [k[0] for k in got_keys if k not in exp_keys]
    if lost:
        fail(f"{what}: the policy drops {lost[0]!r}", EXTRACT_HINT)
    if extra:
        fail(f"{what}: the policy keeps {extra[0]!r}, which is not durable", EXTRACT_HINT)


@checkpoint("extract_memories, the support extraction policy", hint=EXTRACT_HINT)
def check_extract_memories(conn: oracledb.Connection, extract_memories: Callable[..., list]) -> str:
    got = extract_memories(conv.SUPPORT_CONVERSATION, user_id=conv.USER_ID, agent_id=conv.AGENT_ID)
    expect_filled(got, "extract_memories(...)")
    expected = policy.reference_extract(conv.SUPPORT_CONVERSATION, user_id=conv.USER_ID, agent_id=conv.AGENT_ID)
    _compare_records(got, expected, "the support conversation")
    expect(any(conv.ORDER_ID in r["content"] for r in got), f"no memory keeps the order id {conv.ORDER_ID} verbatim")
    probe_user, probe_agent = "probe_user", "probe_agent"
    for inherit in (policy.INHERITED_KEYS, ("tenant",)):
        got = extract_memories(PROBE_CONVERSATION, user_id=probe_user, agent_id=probe_agent, inherit=inherit)
        _compare_records(got, policy.reference_extract(PROBE_CONVERSATION, user_id=probe_user, agent_id=probe_agent,
                                                       inherit=inherit), f"a second conversation (inherit={inherit})")
    kinds = sorted({r["record_type"] for r in expected})
    return f"{len(expected)} records ({', '.join(kinds)}); no greeting, no code; metadata inherited"


# --------------------------------------------------------------------------- TODO 2
def _reference(conn: oracledb.Connection, query: str, user_id: str, k: int, model: str) -> list[int]:
    with conn.cursor() as cur:
        cur.execute(store.hybrid_search_sql(model), query=query, lex_query=keyword_terms(query, "or"),
                    user_id=user_id, agent_id=ev.AGENT_ID, pool_size=store.POOL_SIZE, rrf_k=store.RRF_K, k=int(k))
        return [int(r[0]) for r in cur.fetchall()]


def _ids(rows: Any, call: str) -> list[int]:
    expect(isinstance(rows, list), f"{call} returned {type(rows).__name__}, expected a list of dicts")
    for row in rows:
        expect(isinstance(row, dict) and "memory_id" in row and "content" in row,
               f"{call}: each row needs 'memory_id' and 'content' (the evaluation cell reads them); got {row!r}"[:200])
    return [int(r["memory_id"]) for r in rows]


def _ends_with_memory_id(sql: str) -> bool:
    """The outer query's last ORDER BY key is MEMORY_ID (by name, alias or select-list position), read with sqlglot
    as Oracle parses it: fused ties are broken. An equal result on one database can hide a missing tie-break."""
    from sqlglot import exp
    try:
        tree = parse(sql)
    except ValueError:
        return True                                   # unreadable here: the result comparison judges it
    order = tree.args.get("order") if isinstance(tree, exp.Select) else None
    if order is None or not order.expressions:
        return False
    last = order.expressions[-1].this
    if isinstance(last, exp.Literal) and not last.is_string:
        index = int(last.this) - 1
        return 0 <= index < len(tree.expressions) and tree.expressions[index].alias_or_name.upper() == "MEMORY_ID"
    return isinstance(last, exp.Column) and last.name.upper() == "MEMORY_ID"


#: A scope where RRF's constant decides the top 2: the first memory is the vector pool's first and has no query word;
#: the other two contain the words (lexical ranks 1 and 2) and sit at vector ranks 2 and 3. With 1 / (60 + rank)
#: agreement wins (the two found by both pools); with 1 / rank a single first place outranks the second of both.
RRF_QUERY = "Which ledger is reconciled?"
RRF_MEMORIES = ("Reconciling the general ledgers: which ledgers are reconciliations done for each month.",
                "Garden hoses: ledger, ledger, reconciled, reconciled, ledger (a word list for a spelling game).",
                "The ledger printer on floor two jams when its paper tray runs empty.")


def _rrf_constant_probe(conn: oracledb.Connection, search_memories: Callable[..., list], user: str, model: str) -> None:
    store.add_memories(conn, [{"content": text, "record_type": "memory", "user_id": user, "agent_id": ev.AGENT_ID,
                               "metadata": {"probe": "rrf"}} for text in RRF_MEMORIES], model)
    call = f"search_memories(conn, {RRF_QUERY!r}, user_id={user!r}, ..., k=2)"
    got = _ids(search_memories(RecordingConnection(conn), RRF_QUERY, user_id=user, agent_id=ev.AGENT_ID, k=2), call)
    want = _reference(conn, RRF_QUERY, user, 2, model)
    expect(got == want, f"{call} returned ids {got}, expected {want}: a memory only the vector pool found (at rank 1) "
           "outranks two that both pools found; that is RRF without its constant (1 / rank lets one first place beat "
           "agreement, 1 / (60 + rank) rewards it)",
           ("Reciprocal Rank Fusion adds 1 / (k + rank) per list with k = 60 (the prose of TODO 2).",
            "COALESCE(1 / (60 + v.vec_rank), 0) + COALESCE(1 / (60 + l.lex_rank), 0) AS rrf_score"))


@checkpoint("search_memories, hybrid memory search in one scope", hint=SEARCH_HINT)
def check_search_memories(conn: oracledb.Connection, search_memories: Callable[..., list]) -> str:
    expect_table(conn, store.TABLE)
    model = schema.identifier(config.embedding_model_name())
    user, other = f"ckpt_{uuid.uuid4().hex[:10]}", f"ckpt_other_{uuid.uuid4().hex[:6]}"
    rows = [dict(r, user_id=user if r["user_id"] == ev.USER_ID else other) for r in ev.memory_records()]
    # the other user's words again, now under this user but another agent: the agent is part of the scope too
    rows += [dict(r, user_id=user, agent_id=f"{ev.AGENT_ID}_other") for r in ev.memory_records()
             if r["user_id"] != ev.USER_ID]
    with restore_rows(conn, store.TABLE, "MEMORY_ID"):
        store.add_memories(conn, rows, model)          # committed: the CONTEXT index syncs ON COMMIT
        ranks = []
        for kind, query, key in ev.QUERIES:
            rec = RecordingConnection(conn)
            call = f"search_memories(conn, {query!r}, user_id={user!r}, ...)"
            got = search_memories(rec, query, user_id=user, agent_id=ev.AGENT_ID, k=5)
            expect_filled(got, call)
            ids = _ids(got, call)
            expect_at_most_k(got, 5)
            selects = [s for s in rec.statements if s.sql.lstrip().upper().startswith(("SELECT", "WITH"))]
            expect(len(selects) == 1, f"{call} ran {len(selects)} queries: vector pool, lexical pool and fusion "
                                      "belong in ONE statement", SEARCH_HINT)
            expect_bound(rec, {"query": query, "user_id": user}, call)
            statement = selects[0].sql
            with conn.cursor() as cur:
                cur.execute("SELECT memory_id, user_id FROM agent_memories WHERE user_id <> :u OR agent_id <> :a "
                            "ORDER BY memory_id", u=user, a=ev.AGENT_ID)
                foreign = {r[0]: r[1] for r in cur.fetchall()}
            leaked = [i for i in ids if i in foreign]
            whose = "another user" if any(foreign[i] != user for i in leaked) else "another agent of this user"
            expect(not leaked, f"{call} returns memories of {whose} (ids {leaked}): the scope (user AND agent) must "
                               "restrict BOTH pools", "user_id = :user_id AND agent_id = :agent_id in the vector AND "
                                                      "the lexical pool.")
            want = _reference(conn, query, user, 5, model)
            if ids != want:
                vec_only = [r["memory_id"] for r in store.vector_search(conn, query, user_id=user,
                                                                          agent_id=ev.AGENT_ID, model=model)]
                if ids == vec_only:
                    fail(f"{call} gives the vector-only order {ids}: the lexical leg is missing from the fusion, or "
                         "finds nothing (CONTAINS takes keyword_terms(query, 'or'), not the raw question)", SEARCH_HINT)
                fail(f"{call} returned ids {ids}, expected {want} (hybrid RRF, ties by memory_id)", SEARCH_HINT)
            expected_text = ev.MEMORIES[key]
            ranks.append(ev.rank_of(got, expected_text))
        expect(_ends_with_memory_id(statement), "search_memories: the final ORDER BY does not end with memory_id, so "
               "memories with one fused score come back in whatever order the database reads them",
               "ORDER BY rrf_score DESC, memory_id")
        got = search_memories(RecordingConnection(conn), "INV-48291", user_id=user, agent_id=ev.AGENT_ID, k=2)
        expect_at_most_k(got, 2)
        expect(_ids(got, "search_memories(..., k=2)") == _reference(conn, "INV-48291", user, 2, model),
               "search_memories(..., k=2) does not return the best two", "FETCH FIRST :k ROWS ONLY at the end.")
        _rrf_constant_probe(conn, search_memories, f"{user}_rrf", model)
        nobody = search_memories(RecordingConnection(conn), "INV-48291", user_id=f"{user}_nobody",
                                 agent_id=ev.AGENT_ID, k=5)
        expect(not nobody, f"a user with no memories gets {len(nobody)} results: the scope is not applied")
    return f"five queries, ranks {ranks}; scope respected; one statement, bound values"


# --------------------------------------------------------------------------- TODO 3 (Oracle + OAMP only)
def _oracle_only(check_function: Callable[..., Any]) -> Callable[..., Any]:
    """Run the check on Oracle with oracleagentmemory installed; elsewhere print the one reason it skips."""
    @functools.wraps(check_function)
    def run(conn: oracledb.Connection, *args: Any, **kwargs: Any) -> None:
        reason = oamp.unavailable_reason(conn)
        if reason:
            print(f"⏭ {check_function.label_now()} — skipped: {reason}")
            return None
        return check_function(conn, *args, **kwargs)
    run.live = None  # type: ignore[attr-defined]
    return run


@_oracle_only
@checkpoint("make_hybrid_memory, an OAMP client with hybrid search", hint=(
    "An OAMP client is configured once: the database embedder, hybrid search synced on commit, a fixed store id "
    "(section 3, 'Oracle AI Agent Memory').",
    "OracleAgentMemory(connection=conn, embedder=OracleDBEmbedder(...), search_strategy=SearchStrategy.HYBRID, "
    "search_index_sync=SearchIndexSyncMode.ON_COMMIT, memory_store_id=\"hybrid_blog\", schema_policy=...)"))
def check_make_hybrid_memory(conn: oracledb.Connection, make_hybrid_memory: Callable[..., Any]) -> str:
    from oracleagentmemory.core import SearchIndexSyncMode, SearchStrategy  # type: ignore[import-not-found]
    memory = make_hybrid_memory(conn)
    expect_filled(memory, "make_hybrid_memory(conn)")
    settings = {name: getattr(memory, name, None) for name in ("search_strategy", "search_index_sync",
                                                                "memory_store_id")}
    for name, want in (("search_strategy", SearchStrategy.HYBRID), ("search_index_sync", SearchIndexSyncMode.ON_COMMIT),
                       ("memory_store_id", oamp.STORE_ID)):
        if settings[name] is not None:
            expect(settings[name] == want, f"{name} is {settings[name]!r}, expected {want!r}")
    try:
        again = make_hybrid_memory(conn, require_existing=True)
    except Exception as exc:  # noqa: BLE001 - any failure of the second initialisation is the learner's to see
        fail(f"a second initialisation with SchemaPolicy.REQUIRE_EXISTING failed: {exc}",
             "The first call (CREATE_IF_NECESSARY) creates the store; the second must find it as it is.")
    expect_filled(again, "make_hybrid_memory(conn, require_existing=True)")
    return f"store {oamp.STORE_ID!r}, HYBRID, ON_COMMIT; REQUIRE_EXISTING reopens it"
