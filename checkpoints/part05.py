"""Checkpoints of part 05, the six-stage hybrid pipeline (notebooks/05_hybrid_pipeline.ipynb).

The expected answers come from the shipped data files (which chunk is a bibliography, deleted,
superseded, private or another tenant's), from the checker's own pool statements fused in Python,
and from the reranker re-run with and without the title. The learner's search runs on a recording
proxy of the connection, so "the right rows by the wrong method" (several statements, filtering in
Python, the question formatted into the SQL text) fails too. Every check leaves the session's
tenant as it found it and rolls back what it wrote.

    from checkpoints import part05
    part05.check_understand_query(conn, understand_query)              # stage 1: the plan, a braced expression
    part05.check_protect_tenant_tables(conn, protect_tenant_tables)    # stage 2: a policy per TENANT_ID table
    part05.check_search_knowledge_base(conn, search_knowledge_base)    # stages 3-5 in one statement
    part05.check_budget_context(conn, budget_context)                  # stage 6: greedy budgeting
"""
from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from typing import Any

import oracledb

from workshop import config
from workshop.data import load_chunks, load_documents
from workshop.data.loaders import load_kb_chunks, load_kb_documents
from workshop.memory.tokens import estimate_tokens
from workshop.pipeline import security
from workshop.pipeline.query import content_terms
from workshop.pipeline.query import understand_query as reference_plan
from workshop.pipeline.running_question import QUESTION, TENANT, USER
from workshop.pipeline.search import fuse, lexical_pool_sql, plan_binds, pool

from .framework import RecordingConnection, checkpoint, expect, expect_bound, expect_keys, fail

NOTEBOOK = "05_hybrid_pipeline.ipynb"

PLAIN_QUESTION = "where do models attend least within a long context?"
NEAR_QUESTION = "Which runbook says what to do near midnight and NOT during the purge?"
QUOTED_QUESTION = 'What does the "odd}name" runbook say about retention?'
ROW_KEYS = ("id", "content", "chunk_index", "metadata", "document_id", "title", "source_uri", "version", "vec_rank",
            "lex_rank", "rrf_score", "rerank_score")     # the results cell shows vec_rank and lex_rank
OTHER_TENANT = "globex"                               # the notebook's own tenant cell asks as globex too
SECOND_QUESTION = "How does the memkeeper summariser alert MK-4012 relate to rolling summaries?"

PLAN_HINT = ("The plan's lexical expression is braced terms, the entities, the expansions and the question's own "
             "content words, so every term is searched (stage 1, 'Understanding the query').",
             ("Braces around every term: ' ACCUM '.join(escape_braces(t) for t in "
              "dict.fromkeys(entities + expansions + content_terms(question))): the question's own content words are "
              "always searched, not only its entities."))
POLICY_HINT = ("The tenant boundary is a policy on every table with a TENANT_ID, found in the dictionary (stage 2, "
               "'The tenant boundary').",
               ("Loop over every table with a TENANT_ID column (USER_TAB_COLUMNS), not only the names ending in "
                "_MEMORY, and add the policy where USER_POLICIES does not list it yet."))
SEARCH_HINT = ("Pools, fusion and rerank are one statement with the same scope in both pools (stages 3-5, 'One "
               "statement').",
               ("One statement: vec_pool (ROW_NUMBER over VECTOR_DISTANCE) and lex_pool (DENSE_RANK over SCORE(1)) "
                "with "
               "the same stage-2 predicates, FULL OUTER JOIN + COALESCE(1 / (60 + rank), 0), the top :top_k, then "
               "PREDICTION(<reranker> USING :query AS first_input, d.title || '. ' || c.content AS second_input)."))
BUDGET_HINT = ('Budgeting is a greedy walk over the reranked rows: a cliff, diversity, duplicates and whole rows '
               '(stage 6).',
               ("Walk the reranked rows greedily: stop at a score cliff, take each source's best row first when "
               "diversify_by is set, skip near-duplicates and rows that do not fit whole."))


# --------------------------------------------------------------------------- TODO 1
def _terms(expression: str) -> list[str]:
    """The braced terms of an OR/ACCUM/AND expression (parentheses may group them); fails if anything else sits
    outside braces."""
    terms, position, depth = [], 0, 0
    pattern = re.compile(r"\{((?:[^}]|\}\})*)\}(?!\})")
    while position < len(expression):
        opening = re.match(r"\s*\(\s*", expression[position:])
        if opening:
            depth += 1
            position += opening.end()
            continue
        m = pattern.match(expression, position)
        expect(m is not None, f"lex_query {expression!r} has text outside braces at {expression[position:][:25]!r}",
               PLAN_HINT)
        terms.append(m.group(1).replace("}}", "}"))
        position = m.end()
        closing = re.match(r"(\s*\))+", expression[position:])
        if closing:
            depth -= closing.group(0).count(")")
            expect(depth >= 0, f"lex_query {expression!r} closes a parenthesis it never opened", PLAN_HINT)
            position += closing.end()
        joiner = re.match(r"\s+(OR|ACCUM|AND)\s+", expression[position:])
        if joiner:
            expect(joiner.group(1) != "AND", f"lex_query {expression!r} joins its terms with AND: only chunks that "
                   "contain every term would match, and the lexical pool comes back (nearly) empty", PLAN_HINT)
            position += joiner.end()
        elif position < len(expression):
            fail(f"lex_query {expression!r}: expected OR between braced terms at {expression[position:][:25]!r}",
                 PLAN_HINT)
    expect(depth == 0, f"lex_query {expression!r} leaves a parenthesis open", PLAN_HINT)
    return terms


def _runs_in_contains(conn: oracledb.Connection, expression: str, question: str) -> None:
    with conn.cursor() as cur:
        try:
            cur.execute("SELECT COUNT(*) FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0", q=expression)
            cur.fetchone()
        except oracledb.DatabaseError as exc:
            fail(f"the lex_query of {question!r} breaks CONTAINS: {str(exc).splitlines()[0]}", PLAN_HINT)


@checkpoint("understand_query, the plan of a question", hint=PLAN_HINT)
def check_understand_query(conn: oracledb.Connection, understand_query: Callable[[str], dict]) -> str:
    plan = understand_query(QUESTION)
    expect(isinstance(plan, Mapping), f"understand_query returned {type(plan).__name__}, expected a dict")
    expect_keys(plan, ["question", "entities", "expansions", "intent", "collections", "token_budget", "diversify_by",
                       "lex_query"], what="plan")
    expect(plan["question"] == QUESTION, f"plan['question'] is {plan['question']!r}, expected the question itself "
           "(stages 3-5 bind it as :query)", "\"question\": question in the plan.")
    reference = reference_plan(QUESTION)
    entities = [e.lower() for e in plan["entities"]]
    for name in ("rolling summaries", "memkeeper"):
        expect(name in entities, f"the plan of the running question lacks the entity {name!r} (has {plan['entities']})",
               "Use find_entities(question).")
    expect(plan["expansions"], "the plan of the running question has no thesaurus expansion",
           "Use find_expansions(question): 'evicting' has paraphrases in THESAURUS.")
    expect(plan["intent"] == "comparison", f"intent is {plan['intent']!r}, expected 'comparison'",
           "Use classify_intent(question).")
    expect(plan["diversify_by"] == "document_id",
           f"diversify_by is {plan['diversify_by']!r} for a comparison, expected 'document_id'",
           "A comparison needs passages from several sources: diversify_by='document_id'.")
    expect(isinstance(plan["token_budget"], int) and plan["token_budget"] > 0,
           f"token_budget is {plan['token_budget']!r}, expected a positive int", "TOKEN_BUDGETS[intent].")
    expect(plan["token_budget"] == reference["token_budget"],
           f"token_budget is {plan['token_budget']!r} for a {plan['intent']}, expected {reference['token_budget']} "
           f"(TOKEN_BUDGETS[{plan['intent']!r}]): stage 6 budgets the context by it", "TOKEN_BUDGETS[intent].")
    expect(sorted(plan["collections"] or []) == sorted(reference["collections"]),
           f"collections is {plan['collections']!r}, expected {reference['collections']} "
           "(choose_collections(question)): the search reads only these collections", "choose_collections(question).")
    terms = [t.lower() for t in _terms(plan["lex_query"])]
    expect({"rolling summaries", "memkeeper"} <= set(terms) and any(e.lower() in terms for e in plan["expansions"]),
           f"lex_query {plan['lex_query']!r} does not hold the entities and the expansions", PLAN_HINT)
    left_out = [t for t in list(plan["entities"]) + list(plan["expansions"]) if t.lower() not in terms]
    expect(not left_out, f"lex_query leaves out {left_out[:3]} of the plan's entities and expansions: the lexical pool "
           "then misses the chunks that use only those words", PLAN_HINT)
    dropped = [w for w in content_terms(QUESTION) if w.lower() not in terms]
    expect(not dropped, f"lex_query leaves out the question's own words {dropped[:4]}: a question whose only entity "
           "is one word would be searched for that word alone (content_terms(question) lists them)", PLAN_HINT)
    _runs_in_contains(conn, plan["lex_query"], QUESTION)

    plain = understand_query(PLAIN_QUESTION)
    expect(plain.get("lex_query"), f"the lex_query of {PLAIN_QUESTION!r} is {plain.get('lex_query')!r}: a question "
           "with no entity and no thesaurus hit needs the fallback", PLAN_HINT)
    words = set(re.findall(r"\w+", PLAIN_QUESTION.lower()))
    plain_terms = _terms(plain["lex_query"])
    expect(all(set(re.findall(r"\w+", t.lower())) <= words for t in plain_terms),
           f"the fallback {plain['lex_query']!r} has words that are not in the question", PLAN_HINT)
    _runs_in_contains(conn, plain["lex_query"], PLAIN_QUESTION)
    expect(plain["diversify_by"] is None, f"diversify_by is {plain['diversify_by']!r} for a lookup, expected None")
    plain_reference = reference_plan(PLAIN_QUESTION)
    expect(plain.get("intent") == plain_reference["intent"], f"intent of {PLAIN_QUESTION!r} is "
                                                             f"{plain.get('intent')!r}, "
           f"expected {plain_reference['intent']!r}: the intent comes from the question (classify_intent(question))",
           "classify_intent(question).")
    expect(plain.get("token_budget") == plain_reference["token_budget"],
           f"token_budget of {PLAIN_QUESTION!r} ({plain_reference['intent']}) is {plain.get('token_budget')!r}, "
           f"expected "
           f"{plain_reference['token_budget']} (TOKEN_BUDGETS[{plain_reference['intent']!r}]): the budget follows the "
           "intent of each question, it is not one number for all", "TOKEN_BUDGETS[intent].")
    expect(sorted(plain.get("collections") or []) == sorted(reference_plan(PLAIN_QUESTION)["collections"]),
           f"collections of {PLAIN_QUESTION!r} is {plain.get('collections')!r}, expected "
           f"{reference_plan(PLAIN_QUESTION)['collections']} (choose_collections(question))",
           "choose_collections(question).")

    quoted = understand_query(QUOTED_QUESTION)["lex_query"]
    expect("{odd}}name}" in quoted, f"the quoted entity odd}}name came out as {quoted!r}: a '}}' inside a term must be "
                                    "doubled", "escape_braces(term) doubles '}'.")
    for question in (NEAR_QUESTION, QUOTED_QUESTION):
        other = understand_query(question)
        _terms(other["lex_query"])
        _runs_in_contains(conn, other["lex_query"], question)
    return f"entities {plan['entities']}, {len(plan['expansions'])} expansions, fallback {plain['lex_query']}"


# --------------------------------------------------------------------------- TODO 2
@contextmanager
def _tenant(conn: oracledb.Connection, tenant: str | None):
    """Run with `tenant` in the session's context, then restore what the learner had."""
    before = security.current_tenant(conn)
    security.set_tenant(conn, tenant)
    try:
        yield
    finally:
        conn.rollback()
        security.set_tenant(conn, before)


def _policy_tables(conn: oracledb.Connection) -> set[str]:
    with conn.cursor() as cur:
        cur.execute("SELECT object_name FROM user_policies WHERE sel = 'YES' AND enable = 'YES' ORDER BY object_name")
        return {r[0] for r in cur.fetchall()}


def _scalar(conn: oracledb.Connection, sql: str, **binds: Any) -> Any:
    with conn.cursor() as cur:
        cur.execute(sql, binds)
        return cur.fetchone()[0]


@contextmanager
def _probe_tenant_table(conn: oracledb.Connection):
    """CKPT_<token>_NOTES, a new table with a TENANT_ID column (so a hard-coded list of tables is seen), dropped
    again with its policy."""
    name = f"CKPT_{uuid.uuid4().hex[:8].upper()}_NOTES"
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {name.lower()} (note_id NUMBER, tenant_id VARCHAR2(30))")
    try:
        yield name
    finally:
        conn.rollback()
        with conn.cursor() as cur:
            cur.execute(f"DROP TABLE {name.lower()} PURGE")


@checkpoint("a tenant policy on every table with a TENANT_ID", hint=POLICY_HINT)
def check_protect_tenant_tables(conn: oracledb.Connection, protect_tenant_tables: Callable[[oracledb.Connection], Any]) -> str:
    with _probe_tenant_table(conn) as probe:
        return _check_protect(conn, protect_tenant_tables, probe)


def _check_protect(conn: oracledb.Connection, protect_tenant_tables: Callable[[oracledb.Connection], Any],
                   probe: str) -> str:
    recorder = RecordingConnection(conn)
    returned = protect_tenant_tables(recorder)
    try:
        protect_tenant_tables(conn)
    except oracledb.DatabaseError as exc:
        fail(f"running protect_tenant_tables a second time raised {str(exc).splitlines()[0]}",
             "Skip the tables USER_POLICIES already lists, so the cell can run again.")
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tab_columns WHERE column_name = 'TENANT_ID' ORDER BY table_name")
        tenant_tables = [r[0] for r in cur.fetchall()]
    expect(tenant_tables, "no table has a TENANT_ID column: run the knowledge-base cell first")
    protected = _policy_tables(conn)
    for table in tenant_tables:
        if table != probe:
            expect(table in protected, f"{table} has tenant_id but no policy (your loop matched only %_MEMORY?)")
    expect(probe in protected, f"the checkpoint's new table {probe}, which has a TENANT_ID column, got no policy: "
           "a fixed list of table names misses every table added later",
           ('Find the tables in the data dictionary (USER_TAB_COLUMNS), not in a list you typed (stage 2).',
                "Ask the dictionary: SELECT table_name FROM user_tab_columns WHERE column_name = 'TENANT_ID'."))
    expect_bound(recorder, {"table_name": probe}, "protect_tenant_tables(conn)",
                 ("The table name is a value of the call: bind it, as every value (stage 2, 'The tenant boundary').",
                "Bind the table name: cur.execute(security.ADD_POLICY_SQL, table_name=table)."))
    expect(returned is not None, "protect_tenant_tables returned None, expected the tables it protects",
           "End the function with `return tables`.")
    returned = [str(t).upper() for t in returned]
    expect(sorted(returned) == tenant_tables, f"protect_tenant_tables returned {sorted(returned)}, expected every "
           f"table with a TENANT_ID column: {tenant_tables}", "Return the list of tables the loop visited.")
    for table in ("KNOWLEDGE_BASE_DOCUMENT", "KNOWLEDGE_BASE_CHUNK"):
        with _tenant(conn, TENANT):
            leaked = _scalar(conn, f"SELECT COUNT(*) FROM {table} WHERE tenant_id <> :t", t=TENANT)
            mine = _scalar(conn, f"SELECT COUNT(*) FROM {table}")
        expect(leaked == 0, f"with the context set to {TENANT}, {table} shows {leaked} rows of other tenants",
               "The policy function returns 'tenant_id = SYS_CONTEXT(''kb_ctx'', ''tenant_id'')'.")
        expect(mine > 0, f"with the context set to {TENANT}, {table} shows no row at all")
        with _tenant(conn, None):
            anything = _scalar(conn, f"SELECT COUNT(*) FROM {table}")
        expect(anything == 0, f"with no tenant in the context, {table} shows {anything} rows, expected none")
    with _tenant(conn, TENANT):
        try:
            with conn.cursor() as cur:
                cur.execute("INSERT INTO knowledge_base_document (id, tenant_id, collection, title, source_uri, "
                            "version) VALUES ('CHK-X1', 'globex', 'runbooks', 'probe', 'kb://probe', '1.0')")
        except oracledb.DatabaseError as exc:
            expect("ORA-28115" in str(exc), f"a cross-tenant insert failed with {str(exc).splitlines()[0]}, "
                                            "expected ORA-28115")
        else:
            fail("acme's session inserted a globex document: the policy has no update_check",
                 "Add the policy with statement_types => 'SELECT,INSERT,UPDATE,DELETE' and update_check => TRUE.")
    return (f"{len(tenant_tables) - 1} tables protected (and the checkpoint's new one); no rows cross tenants; "
            "ORA-28115 on a cross-tenant insert")


# --------------------------------------------------------------------------- TODO 3
def _scope_facts() -> dict[str, dict]:
    """Chunk id -> facts from the shipped files: tenant, document, collection, user, lifecycle, section."""
    documents = {d["doc_id"]: {"tenant": d["tenant"], "collection": d["collection"], "user": None,
                               "gone": d["superseded_by"] is not None} for d in load_documents()}
    for d in load_kb_documents():
        if d["from_corpus"]:
            documents[d["id"]].update(user=d["user_id"], gone=documents[d["id"]]["gone"] or bool(
                d["valid_until"] or d["deleted_at"]))
        else:
            documents[d["id"]] = {"tenant": d["tenant_id"], "collection": d["collection"], "user": d["user_id"],
                                  "gone": bool(d["valid_until"] or d["deleted_at"])}
    chunks = {c["chunk_id"]: {"document": c["doc_id"], "references": c["section_type"] == "references",
                              "deleted": False} for c in load_chunks()}
    chunks.update({c["id"]: {"document": c["document_id"], "references": c["section_type"] == "references",
                             "deleted": bool(c["deleted_at"])} for c in load_kb_chunks()})
    return {cid: {**facts, **documents[facts["document"]]} for cid, facts in chunks.items()}


def _records(result: Any) -> list[dict]:
    expect(isinstance(result, list), f"search_knowledge_base returned {type(result).__name__}, expected a list of "
                                     f"dicts")
    for n, row in enumerate(result, 1):
        expect(isinstance(row, Mapping), f"row {n} is a {type(row).__name__}, expected a dict",
               "dict(zip([d[0].lower() for d in cur.description], row)) for each fetched row.")
    return [{str(k).lower(): v for k, v in row.items()} for row in result]


def _rerank_scores(conn: oracledb.Connection, question: str, ids: list[str], with_title: bool) -> dict[str, float]:
    second = "d.title || '. ' || c.content" if with_title else "c.content"
    marks = ", ".join(f":id_{n}" for n in range(len(ids)))
    reranker = config.reranker_model_name()
    with conn.cursor() as cur:
        cur.execute(f"SELECT c.id, PREDICTION({reranker} USING :query AS first_input, {second} AS second_input) "
                    f"FROM knowledge_base_chunk c JOIN knowledge_base_document d ON d.id = c.document_id "
                    f"WHERE c.id IN ({marks}) ORDER BY c.id", {"query": question, **{f"id_{n}": i for n, i in
                                                                                   enumerate(ids)}})
        return {r[0]: float(r[1]) for r in cur.fetchall()}


def _row_number_pool(conn: oracledb.Connection, plan: Mapping, user_id: str) -> list[tuple[str, int]]:
    collection_list, binds = plan_binds(plan, user_id, 40)
    sql = lexical_pool_sql(collection_list).replace("DENSE_RANK() OVER (ORDER BY SCORE(1) DESC)",
                                                    "ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, c.id)")
    with conn.cursor() as cur:
        cur.execute(sql, {k: v for k, v in binds.items() if k not in ("query", "rrf_k", "top_k")})
        return [(r[0], int(r[1])) for r in cur.fetchall()]


def _check_search(conn: oracledb.Connection, search: Callable[..., Any], question: str, user_id: str,
                  top_k: int, facts: dict[str, dict], tenant: str = TENANT) -> int:
    plan = reference_plan(question)
    call = f"search_knowledge_base(conn, plan, user_id={user_id!r}, top_k={top_k})"
    if tenant != TENANT:
        call += f" in a {tenant} session"
    recorder = RecordingConnection(conn)
    rows = _records(search(recorder, plan, user_id=user_id, top_k=top_k))
    queries = recorder.queries()
    expect(len(queries) == 1, f"{call} ran {len(queries)} queries, expected one statement for stages 3-5",
           "Pools, fusion and rerank belong in ONE statement (WITH vec_pool, lex_pool, fused, candidates SELECT ...).")
    expect_bound(recorder, {"query": plan["question"], "lex_query": plan["lex_query"], "user_id": user_id,
                            "top_k": top_k}, call)
    expect_bound(recorder, {"collection": c for c in plan["collections"][:1]}, call,
                 "collection_binds(plan['collections']) gives the IN list of bind names (:c0, :c1, ...) and their "
                 "values: put the list into the SQL and the values into the binds.")
    unlimited = _unlimited_lexical_pools(queries[0].sql)
    expect(not unlimited, f"{call}: the lexical pool has no row limit, so it ranks every matching chunk",
           ('Both pools are top-N lists: the lexical pool is limited like the vector pool (stages 3-5).',
                "End lex_pool with ORDER BY SCORE(1) DESC, c.id FETCH FIRST :pool_size ROWS ONLY, like vec_pool."))
    bound = set(map(str, queries[0].bind_values()))
    for value, what in ((plan["question"], "the question"), (plan["lex_query"], "the lexical expression"),
                        (user_id, "the user id")):
        expect(value in bound, f"{call} does not bind {what} ({value!r})",
               "Bind it (:query, :lex_query, :user_id); only the model names are written into the SQL.")
    expect(len(rows) <= top_k, f"{call} returned {len(rows)} rows, expected at most {top_k}",
           "FETCH FIRST :top_k ROWS ONLY in the candidates CTE.")
    if not rows and pool(conn, "vector", plan, user_id=user_id):
        fail(f"{call} returned no rows, although {tenant}'s session can read matching chunks: is a tenant written into "
             "the statement? The tenant comes from the session (the row-level security policy of TODO 2), never from "
             "a literal or an argument", ("Stage 2's tenant boundary is the policy's job (section 'The tenant "
                                          "boundary'); the statement names no tenant.",
                                          "Remove every tenant_id predicate from the statement; keep the user, "
                                          "lifecycle, collection and section predicates."))
    expect(rows, f"{call} returned no rows")
    expect_keys(rows, list(ROW_KEYS), what="row", hint=("The next cells read each row's chunk, its document and the "
                                                        "three "
                "scores by name (the results cell of stages 3-5).", "Select every column the next cells read: c.id, "
                "c.content, c.chunk_index, c.metadata, d.id AS document_id, d.title, d.source_uri, d.version, "
                "k.vec_rank, k.lex_rank, k.rrf_score and the rerank_score."))
    nulls = [r["id"] for r in rows if r["rrf_score"] is None]
    expect(not nulls, f"{call}: rrf_score is NULL for {len(nulls)} rows (e.g. {nulls[:2]}), the chunks only one pool "
           "found: 1 / (60 + NULL) is NULL, and NULL + x is NULL", ('A chunk found by one pool only has no rank in '
                                                                    'the other: its missing share is 0, not NULL '
                                                                    '(stages 3-5, fusion).',
                "COALESCE(1 / (:rrf_k + v.vec_rank), 0) + "
           "COALESCE(1 / (:rrf_k + l.lex_rank), 0)."))
    scores = [r["rerank_score"] for r in rows]
    expect(all(a >= b for a, b in zip(scores, scores[1:])), f"{call}: rows are not ordered by rerank_score DESC",
           "ORDER BY rerank_score DESC (ties by the fused score and id).")
    for r in rows:
        f = facts.get(r["id"])
        expect(f is not None, f"{call} returned an unknown chunk {r['id']!r}")
        expect(f["tenant"] == tenant, f"{call} returned {r['id']} of tenant {f['tenant']}")
        expect(not f["references"], f"{call} returned the bibliography chunk {r['id']} (section_type 'references'): "
               "are the stage-2 filters in both pools?", "The same stage-2 predicates go in vec_pool AND lex_pool.")
        expect(not f["gone"] and not f["deleted"], f"{call} returned {r['id']}, which is superseded or deleted: are "
                                                   f"the "
               "stage-2 filters in both pools?", ("Superseded and deleted rows are out of scope, in both pools (stage "
                                                  "2, 'Scope before ranking').",
                "d.valid_until IS NULL AND d.deleted_at IS NULL AND c.deleted_at IS "
               "NULL, in both pools."))
        expect(f["user"] in (None, user_id), f"{call} returned {r['id']}, private to user {f['user']}",
               ("Shared documents (user_id NULL) and the user's own are both in scope (stage 2).",
                "(d.user_id IS NULL OR d.user_id = :user_id)"))
        expect(f["collection"] in plan["collections"], f"{call} returned {r['id']} of collection {f['collection']}, "
               f"outside the plan's {plan['collections']}")
    vector = pool(conn, "vector", plan, user_id=user_id)
    lexical = pool(conn, "lexical", plan, user_id=user_id)
    expected = fuse(vector, lexical, top_k=top_k)
    expected_ids = {e[0] for e in expected}
    got_ids = {r["id"] for r in rows}
    expect(any(facts[i]["user"] is None for i in got_ids),
           f"{call} returned no shared document (user_id NULL): `user_id = :user_id` alone hides them",
           ("Shared documents (user_id NULL) and the user's own are both in scope (stage 2).",
                "(d.user_id IS NULL OR d.user_id = :user_id)"))
    single = {i for i, _, v, lx in expected if v is None or lx is None}
    # an INNER JOIN shows in the learner's own ranks: every row has both (a ROW_NUMBER lexical pool can also push the
    # expected one-pool chunks out of the top 40, with one-pool rows of its own)
    both_ranks = all(r.get("vec_rank") is not None and r.get("lex_rank") is not None for r in rows)
    if single and not single & got_ids and both_ranks:
        fail(f"{call} lost every chunk found by only one pool ({len(single)} expected, e.g. {sorted(single)[:3]}): "
             "an INNER JOIN keeps only chunks both pools found",
             "FULL OUTER JOIN the pools and COALESCE(1 / (60 + rank), 0) for the missing rank.")
    expected_score = {i: s for i, s, _, _ in expected}
    vec_part = {i: 1 / (60 + r) for i, r in vector}
    wrong = [r["id"] for r in rows if r["id"] not in expected_score
             or abs(float(r["rrf_score"]) - expected_score[r["id"]]) > 1e-9]
    if wrong:
        row_number = {i: s for i, s, _, _ in fuse(vector, _row_number_pool(conn, plan, user_id), top_k=50)}
        if all(i in row_number and abs(float(r["rrf_score"]) - row_number[i]) < 1e-9
               for r in rows for i in [r["id"]] if i in wrong) or _distinct_lexical_ranks(rows, vec_part, lexical):
            fail(f"{call}: chunks with the same Oracle Text SCORE got different lexical ranks ({wrong[:3]}): "
                 f"ROW_NUMBER "
                 "reads an arbitrary order of ties as signal", ('Equal Oracle Text scores must share a rank in the '
                                                                'lexical pool (stages 3-5).',
                "DENSE_RANK() OVER (ORDER BY SCORE(1) DESC) in lex_pool."))
        fail(f"{call}: rrf_score or the candidates differ from the checker's fusion of the two pools for "
             f"{wrong[:3]} (expected e.g. {[(i, round(expected_score.get(i, 0), 6)) for i in wrong[:2]]})", SEARCH_HINT)
    expect(got_ids == {i for i, *_ in expected}, f"{call}: the candidates differ from the top {top_k} of the fusion "
           f"(missing {sorted(expected_ids - got_ids)[:3]})", SEARCH_HINT)
    head = [r["id"] for r in rows[:10]]
    titled = _rerank_scores(conn, plan["question"], head, True)
    bare = _rerank_scores(conn, plan["question"], head, False)
    for r in rows[:10]:
        score = float(r["rerank_score"])
        if abs(score - titled[r["id"]]) > 1e-4:
            if abs(score - bare[r["id"]]) <= 1e-4:
                fail(f"{call}: {r['id']} was reranked on its bare content; the reranker must read the title too",
                     ("The reranker reads each chunk with its document's title (stages 3-5, the rerank).",
                "d.title || '. ' || c.content AS second_input"))
            fail(f"{call}: rerank_score of {r['id']} is {score:.4f}, PREDICTION with the title gives "
                 f"{titled[r['id']]:.4f}", SEARCH_HINT)
    return len(rows)


def _unlimited_lexical_pools(sql: str) -> list[str]:
    """The SELECTs that filter with CONTAINS and have no row limit, neither their own nor an enclosing one in the
    same CTE (read with sqlglot, the engine's dialect)."""
    from sqlglot import exp

    from .framework.sql import parse
    try:
        tree = parse(sql)
    except ValueError:
        return []
    unlimited = []
    for select in tree.find_all(exp.Select):
        where = select.args.get("where")
        if where is None or where.find(exp.Contains) is None:
            continue
        node, limited = select, False
        while node is not None and not isinstance(node, exp.CTE):
            if isinstance(node, exp.Select) and node.args.get("limit") is not None:
                limited = True
                break
            node = node.parent
        if not limited:
            unlimited.append(select.sql())
    return unlimited


def _distinct_lexical_ranks(rows: list[dict], vec_part: dict[str, float], lexical: list[tuple[str, int]]) -> bool:
    """True when the learner's scores imply distinct lexical ranks where the dense pool has ties."""
    dense = dict(lexical)
    implied = {}
    for r in rows:
        rest = float(r["rrf_score"]) - vec_part.get(r["id"], 0.0)
        if rest > 1e-12 and r["id"] in dense:
            implied[r["id"]] = round(1 / rest - 60)
    tied = [i for i in implied if sum(dense[j] == dense[i] for j in implied) > 1]
    return bool(tied) and len({implied[i] for i in tied}) == len(tied)


@checkpoint("stages 3-5 in one statement", hint=SEARCH_HINT)
def check_search_knowledge_base(conn: oracledb.Connection, search_knowledge_base: Callable[..., Any]) -> str:
    unprotected = sorted({"KNOWLEDGE_BASE_CHUNK", "KNOWLEDGE_BASE_DOCUMENT"} - _policy_tables(conn))
    expect(not unprotected, f"{', '.join(unprotected)} has no tenant policy yet, so this check cannot tell your "
           "search's scope from the database's", "Finish TODO 2 (protect_tenant_tables) and run its checkpoint "
           "first: the tenant boundary is the policy's job, not this statement's.")
    facts = _scope_facts()
    before = security.current_tenant(conn)
    try:
        security.set_tenant(conn, TENANT)
        first = _check_search(conn, search_knowledge_base, QUESTION, USER, 40, facts)
        second = _check_search(conn, search_knowledge_base, SECOND_QUESTION, "omar", 12, facts)
        security.set_tenant(conn, OTHER_TENANT)       # the session's identity changed: nothing typed in may hold
        third = _check_search(conn, search_knowledge_base, QUESTION, USER, 12, facts, tenant=OTHER_TENANT)
    finally:
        conn.rollback()
        security.set_tenant(conn, before)
    return (f"{first} + {second} rows (acme), {third} ({OTHER_TENANT}): one statement, bound values, scope kept, "
            f"dense RRF equal to the checker's, "
            "reranked with the title")


# --------------------------------------------------------------------------- TODO 4
def _row(rid: str, doc: str, score: float, text: str) -> dict:
    return {"id": rid, "document_id": doc, "version": "1.0", "title": f"Title {doc}", "source_uri": f"kb://{doc}",
            "content": text, "rerank_score": score}


def _text(seed: str, words: int) -> str:
    return " ".join(f"{seed}{n}" for n in range(words))


def _kept(result: Any, what: str) -> tuple[list[dict], Any]:
    expect(isinstance(result, tuple) and len(result) == 2,
           f"budget_context returned {type(result).__name__}, expected a pair (working_set, report)",
           "return working_set, report")
    working_set, report = result
    expect(isinstance(working_set, list) and all(isinstance(r, Mapping) for r in working_set),
           f"{what}: the working set is not a list of dicts")
    return working_set, report


@checkpoint("budget_context, greedy budgeting", hint=BUDGET_HINT)
def check_budget_context(conn: oracledb.Connection, budget_context: Callable[..., Any]) -> str:
    try:
        empty = budget_context([], max_tokens=500, diversify_by="document_id")
    except (IndexError, KeyError, ValueError) as error:
        fail(f"budget_context failed on an empty list of rows ({type(error).__name__}: {error}): a search that finds "
             "nothing hands stage 6 an empty list", "Walk the rows you are given; an empty list gives an empty "
                                                    "working set.")
    working_set, report = _kept(empty, "an empty list of rows")
    expect(working_set == [] and isinstance(report, Mapping) and report.get("tokens", 0) == 0,
           f"an empty list of rows gave the working set {working_set!r} and the report {report!r}")
    ranked = [_row(f"A{n}", "DOC-A", 0.90 - n * 0.01, _text(f"alpha{n}x", 40)) for n in range(1, 6)]
    ranked.append(_row("B1", "DOC-B", 0.84, _text("beta", 40)))
    source = {r["id"]: r for r in ranked}
    budget = sum(estimate_tokens(r["content"]) for r in ranked[:3])
    working_set, report = _kept(budget_context([dict(r) for r in ranked], max_tokens=budget,
                                               diversify_by="document_id"), "comparison fixture")
    expect(working_set, "the working set of the comparison fixture is empty")
    total = sum(estimate_tokens(r["content"]) for r in working_set)
    expect(total <= budget, f"the working set holds {total} tokens, over the budget of {budget}")
    for r in working_set:
        expect(r.get("content") == source.get(r.get("id"), {}).get("content"),
               f"{r.get('id')} was cut: a chunk is kept whole or not at all", "Skip a row that does not fit.")
        expect(r.get("document_id") and r.get("version"), f"{r.get('id')} lost its document_id or version")
    expect("B1" in {r["id"] for r in working_set}, "the top 5 are all from DOC-A and DOC-B's chunk was left out: "
           "plain truncation ignores diversity", "With diversify_by, take each document's best row first.")
    order = [r["id"] for r in ranked]
    got = [r["id"] for r in working_set]
    expect(got == sorted(got, key=order.index), f"the working set {got} is not in rerank order",
           "Return the kept rows in the order of the reranked list.")
    expect(isinstance(report, Mapping) and "dropped" in report, "the report lacks 'dropped' (what was left out and "
                                                                "why)")
    expect("A2" in got, f"the comparison fixture kept {got} with budget left for A2: after each source's best row, go "
           "on with the other rows in rerank order", "Diversity orders the walk (each source's best row first, then "
           "the rest); it does not drop the rest.")
    expect_keys(report, ["kept", "dropped", "tokens"], what="report",
                hint="The next cell prints report['tokens'] and len(report['dropped']): return {\"kept\": [ids], "
                     "\"dropped\": [(id, reason), ...], \"tokens\": n}.")
    expect(list(report["kept"]) == got and report["tokens"] == total,
           f"the report says kept {report['kept']} and tokens {report['tokens']!r}, the working set is {got} with "
           f"{total} tokens", "Build the report from the working set you return.")
    untold = [r["id"] for r in working_set if r.get("tokens") != estimate_tokens(r["content"])]
    expect(not untold, f"the rows {untold[:3]} carry no (or a wrong) 'tokens' count: the next cell shows each row's "
           "tokens", "dict(row, tokens=estimate_tokens(row['content'])) for each kept row.")

    twin_text = _text("gamma", 60)
    duplicates = [_row("G1", "DOC-G", 0.95, twin_text), _row("G2", "DOC-H", 0.94, twin_text + " again"),
                  _row("G3", "DOC-I", 0.90, _text("delta", 30))]
    working_set, _ = _kept(budget_context(duplicates, max_tokens=10_000, diversify_by=None), "duplicate fixture")
    ids = {r["id"] for r in working_set}
    expect(not {"G1", "G2"} <= ids, "two near-identical chunks were both kept", "Drop a near-duplicate of a kept row.")
    expect({"G1", "G3"} <= ids, f"the duplicate fixture kept {sorted(ids)}, expected G1 and G3")

    cliff = [_row("C1", "DOC-C", 0.91, _text("c1w", 20)), _row("C2", "DOC-D", 0.89, _text("c2w", 20)),
             _row("C3", "DOC-E", 0.88, _text("c3w", 20)), _row("C4", "DOC-F", 0.06, _text("c4w", 20)),
             _row("C5", "DOC-J", 0.05, _text("c5w", 20))]
    working_set, _ = _kept(budget_context(cliff, max_tokens=10_000, diversify_by="document_id"), "cliff fixture")
    ids = {r["id"] for r in working_set}
    expect({"C1", "C2", "C3"} <= ids, f"the cliff fixture kept {sorted(ids)}, expected C1-C3 (above the cliff)")
    expect(not ids & {"C4", "C5"}, "rows below a score cliff (0.88 -> 0.06) were kept although budget was left",
           "Stop at the first big drop in score: more tokens of bad context are just more expensive.")
    slope = [_row(f"S{n}", f"DOC-S{n}", 0.90 - n * 0.10, _text(f"s{n}w", 20)) for n in range(6)]
    working_set, _ = _kept(budget_context(slope, max_tokens=10_000, diversify_by=None), "slope fixture")
    ids = [r["id"] for r in working_set]
    expect(ids == [r["id"] for r in slope], f"a gentle slope of scores (0.90, 0.80, ..., 0.40: each drop 0.10) kept "
           f"only {ids}: no drop between neighbours is a cliff", "A cliff is a drop between two neighbours "
           "(rows[i - 1] to rows[i]), not the distance from the top score.")

    fits = [_row("F1", "DOC-K", 0.90, _text("f1w", 30)), _row("F2", "DOC-L", 0.89, _text("f2w", 300)),
            _row("F3", "DOC-M", 0.88, _text("f3w", 30))]
    room = estimate_tokens(fits[0]["content"]) + estimate_tokens(fits[2]["content"]) + 5
    working_set, _ = _kept(budget_context(fits, max_tokens=room, diversify_by=None), "fit fixture")
    ids = [r["id"] for r in working_set]
    expect(ids == ["F1", "F3"], f"with room for F1 and F3 but not F2 the working set is {ids}: a row that does not "
           "fit whole is skipped, and the walk goes on to the rows after it", "Skip it (continue), do not stop "
                                                                              "(break).")
    return "budget kept, both sources, no duplicate, nothing after the cliff, rerank order, a row too big skipped"
