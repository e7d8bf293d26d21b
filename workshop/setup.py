"""`python -m workshop.setup`: prepare the database the notebooks use, idempotently.

Creates what is missing and changes nothing that is already in place: the in-database models
(`DBMS_VECTOR.LOAD_ONNX_MODEL`, BLOB overload), the tables of `workshop.schema` with their comments,
the authored data of `workshop.data`, embeddings computed in the database with `VECTOR_EMBEDDING`,
the top-5 similarity edges, the vector and Oracle Text indexes and the property graph. A second run
checks the dictionary, finds everything and returns in seconds. `--reset` drops every workshop
object first (on the embedded engine: deletes the database file) and builds anew.

The same SQL runs on Oracle AI Database 26ai (ORACLE_DSN set) and on the embedded engine.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import oracledb

from . import config, db, models, schema
from .data import (DATA_VERSION, authorship_edges, load_authors, load_chunks, load_documents, load_papers,
                   verify_manifest)
from .models.maxsim_reranker import RERANKER_SHA256
from .data import finance
from .models.model_cache import sha256_file
from .reset import reset_everything
from .oracle_grants import readonly_user, share_with_reader

#: Rows per UPDATE ... SET embedding = VECTOR_EMBEDDING(...) statement (one progress-bar step each).
EMBED_BATCH = 32
#: Neighbours per paper in PAPER_SIMILARITY.
SIMILAR_PER_PAPER = 5

SLIM_IMAGE_ADVICE = ("Oracle Text is not installed in this database (no CTXSYS schema), so CONTEXT indexes and "
                     "CONTAINS cannot work. Use the full Oracle AI Database Free image, not the slim one "
                     "(see .devcontainer), then run: python -m workshop.setup")
VECTOR_POOL_ADVICE = ("The vector memory pool is empty or too small (ORA-51962), so HNSW indexes cannot be built. "
                      "As SYSDBA run: ALTER SYSTEM SET vector_memory_size = 512M SCOPE=SPFILE; restart the database, "
                      "then run: python -m workshop.setup")
_VECTOR_POOL_CODES = {51962, 51950, 51955}
_NO_INDEXTYPE_CODES = {29833}
#: WORKSHOP_META key holding the error with which Oracle refused the reranker (absent when it loaded).
RERANKER_REFUSED_KEY = "reranker_refused"
EMBEDDING_REFUSED_ADVICE = (
    "Oracle refused the embedding model {name}: {error}\nNothing can be embedded without it. Record this error in "
    "an issue (python -m workshop.verify_oracle prints a report to paste), and meanwhile either use Oracle's prebuilt "
    "ALL_MINILM_L12_V2 (load it as described in the README, then EMBED_MODEL=ALL_MINILM_L12_V2 python -m "
    "workshop.setup --reset) or unset ORACLE_DSN to use the embedded engine.")


def first_line(exc: BaseException) -> str:
    """The first line of an error (ORA-/DPY- code and message), for reports and WORKSHOP_META."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class SetupError(RuntimeError):
    """The database is in a state the set-up refuses to build on; the message says what to run."""


@dataclass
class SetupReport:
    engine: str
    banner: str
    location: str
    embedding_model: str
    reranker: str
    actions: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.actions)

    def text(self, with_actions: bool = True) -> str:
        """The report; `with_actions=False` when the actions were already logged as they happened."""
        lines = [f"engine:    {self.engine} | {self.banner} | {self.location}",
                 f"embedding: {self.embedding_model} ({schema.EMBEDDING_DIMENSIONS} dims)",
                 f"reranker:  {self.reranker}"]
        if self.actions and with_actions:
            lines.append("done:")
            lines += [f"  - {a}" for a in self.actions]
        elif self.actions:
            lines.append(f"done:      {len(self.actions)} change(s), listed above")
        else:
            lines.append("everything is present: nothing to do, nothing changed")
        width = max(len(n) for n in self.counts) if self.counts else 0
        if self.actions:
            lines.append("rows:")
            lines += [f"  {name:<{width}}  {count:>6,}" for name, count in self.counts.items()]
        else:       # a second run: the table was shown by the first (issue 21); the doctor checks every count
            lines.append(f"rows:      {len(self.counts)} tables, {sum(self.counts.values()):,} rows, unchanged")
        lines.append(f"took {self.seconds:.1f} s")
        return "\n".join(lines)


def expected_counts() -> dict[str, int]:
    """Rows each data table holds after set-up (from workshop.data), for the report and the doctor."""
    papers = load_papers()
    return {
        "PAPERS": len(papers),
        "AUTHORS": len(load_authors()),
        "PAPER_AUTHORS": len(authorship_edges()),
        "PAPER_SIMILARITY": SIMILAR_PER_PAPER * len(papers),
        "DOCUMENTS": len(load_documents()),
        "RESEARCH_CHUNKS": len(load_chunks()),
        **finance.expected_finance_counts(),
    }


def is_embedded(conn: oracledb.Connection) -> bool:
    from .embedded import EmbeddedConnection
    return isinstance(conn, EmbeddedConnection)


def engine_of(conn: oracledb.Connection) -> str:
    return "embedded" if is_embedded(conn) else "oracle"


# --------------------------------------------------------------------------- dictionary look-ups
def scalar(conn: oracledb.Connection, sql: str, binds: Sequence | dict | None = None):
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        row = cur.fetchone()
    return row[0] if row else None


def column(conn: oracledb.Connection, sql: str, binds: Sequence | dict | None = None) -> list:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return [r[0] for r in cur.fetchall()]


def banner(conn: oracledb.Connection) -> str:
    try:
        return scalar(conn, "SELECT banner FROM v$version")
    except oracledb.DatabaseError:          # V$VERSION not granted: the driver still knows the version
        return f"Oracle Database {conn.version}"


def existing_tables(conn) -> set[str]:
    return set(column(conn, "SELECT table_name FROM user_tables"))


def existing_indexes(conn) -> set[str]:
    return set(column(conn, "SELECT index_name FROM user_indexes"))


def existing_graphs(conn) -> set[str]:
    return set(column(conn, "SELECT graph_name FROM user_property_graphs"))


def existing_models(conn) -> dict[str, str]:
    with conn.cursor() as cur:
        cur.execute("SELECT model_name, mining_function FROM user_mining_models")
        return dict(cur.fetchall())


def read_meta(conn) -> dict[str, str]:
    if schema.WORKSHOP_META.name not in existing_tables(conn):
        return {}
    with conn.cursor() as cur:
        cur.execute("SELECT key, value FROM workshop_meta")
        return dict(cur.fetchall())


def oracle_text_installed(conn) -> bool:
    """Oracle only: is the CTXSYS schema (Oracle Text) there? Slim images leave it out."""
    return bool(scalar(conn, "SELECT COUNT(*) FROM all_users WHERE username = 'CTXSYS'"))


# --------------------------------------------------------------------------- the build
class _Builder:
    def __init__(self, conn: oracledb.Connection, progress: bool, log: Callable[[str], None]):
        self.conn = conn
        self.progress = progress
        self.log = log
        self.actions: list[str] = []
        #: WORKSHOP_META keys this run may overwrite (facts about models it loaded or the settings chose).
        self.replaced: set[str] = {"reranker_model", "reranker_label", "reranker_is_stand_in"}
        self.model = schema.identifier(config.embedding_model_name())
        self.reranker = schema.identifier(config.reranker_model_name())

    def did(self, action: str) -> None:
        self.actions.append(action)
        self.log(f"  {action}")

    def execute(self, sql: str, binds: Sequence | dict | None = None) -> int:
        with self.conn.cursor() as cur:
            cur.execute(sql, binds or {})
            return cur.rowcount

    # ------------------------------------------------------------------ checks before changing anything
    def preflight(self) -> dict[str, str]:
        if not is_embedded(self.conn) and not oracle_text_installed(self.conn):
            raise SetupError(SLIM_IMAGE_ADVICE)
        verify_manifest()
        for table in (*schema.TABLES, *finance.FINANCE_TABLES):
            self.check_columns(table)
        meta = read_meta(self.conn)
        recorded = meta.get("embedding_model")
        if recorded and recorded != self.model:
            raise SetupError(
                f"The workshop tables were embedded with {recorded}, but EMBED_MODEL selects {self.model}. "
                "Vectors of two models must never be mixed in one table. Either unset EMBED_MODEL (or set it to "
                f"{recorded}), or rebuild everything with the new model: python -m workshop.setup --reset")
        if meta.get("data_version") not in (None, DATA_VERSION):
            raise SetupError(
                f"The database holds workshop data version {meta['data_version']}, this checkout ships "
                f"{DATA_VERSION}. Rebuild with: python -m workshop.setup --reset")
        if not recorded and self.has_vectors():
            raise SetupError(
                "PAPERS or RESEARCH_CHUNKS hold embeddings, but WORKSHOP_META does not say which model made them, "
                "so new vectors could be mixed with vectors of another model. Rebuild with: "
                "python -m workshop.setup --reset")
        if schema.WORKSHOP_META.name not in existing_tables(self.conn):
            self.create_table(schema.WORKSHOP_META)
        return meta

    def has_vectors(self) -> bool:
        present = existing_tables(self.conn)
        return any(scalar(self.conn, f"SELECT COUNT(embedding) FROM {t.lower()}")
                   for t in ("PAPERS", "RESEARCH_CHUNKS") if t in present)

    def check_columns(self, table: schema.Table) -> None:
        found = set(column(self.conn, "SELECT column_name FROM user_tab_columns WHERE table_name = :t",
                           {"t": table.name}))
        missing = [c for c in table.column_names if c not in found]
        if found and missing:
            raise SetupError(
                f"Table {table.name} exists but has no column(s) {', '.join(missing)}: it was not made by this "
                "set-up (another workshop?). Rebuild with: python -m workshop.setup --reset")

    # ------------------------------------------------------------------ models
    def ensure_models(self, meta: dict[str, str]) -> dict[str, str]:
        """Load missing models; return the WORKSHOP_META facts about them."""
        present = existing_models(self.conn)
        facts: dict[str, str] = {}
        if self.model not in present:
            if self.model != schema.EMBEDDING_MODEL.name:
                raise SetupError(
                    f"EMBED_MODEL={self.model}, but no model of that name is loaded (USER_MINING_MODELS). The set-up "
                    f"loads only {schema.EMBEDDING_MODEL.name}; load {self.model} first (Oracle's prebuilt "
                    "ALL_MINILM_L12_V2, see the README) or unset EMBED_MODEL.")
            path = models.ensure_embedding_model()
            sha = sha256_file(path)
            if meta.get("embedding_model_sha256") not in (None, sha) and self.has_vectors():
                raise SetupError(
                    f"The tables were embedded with a {self.model} whose ONNX file had sha256 "
                    f"{meta['embedding_model_sha256']}; the file to load now has {sha}. Rebuild with: "
                    "python -m workshop.setup --reset")
            self.load_required_model(self.model, path.read_bytes(), models.embedding_metadata())
            facts["embedding_model_sha256"] = sha
            self.replaced.add("embedding_model_sha256")
        elif present[self.model] != "EMBEDDING":
            raise SetupError(f"Model {self.model} is a {present[self.model]} model, not an embedding model.")
        elif "embedding_model_sha256" not in meta:
            facts["embedding_model_sha256"] = ("unknown: the model was loaded before the set-up ran"
                                               if self.model == schema.EMBEDDING_MODEL.name
                                               else "n/a: model loaded outside the set-up")
        if "embedding_model_sha256" in facts:       # new to these tables: check its vectors fit the columns
            self.check_dimensions()

        if self.reranker == schema.RERANKER_MODEL.name and self.reranker in present:
            self.replace_stale_reranker(meta, present)
        if self.reranker not in present:
            if self.reranker != schema.RERANKER_MODEL.name:
                raise SetupError(f"RERANK_MODEL={self.reranker}, but no model of that name is loaded; load it first "
                                 f"or unset RERANK_MODEL to use the set-up's {schema.RERANKER_MODEL.name}.")
            path = models.ensure_reranker_model()
            refusal = self.load_optional_model(self.reranker, path.read_bytes(), models.reranker_metadata())
            if refusal:
                return {**facts, **self.refused_facts(self.reranker, refusal)}
            facts["reranker_model_sha256"] = sha256_file(path)
            self.replaced.add("reranker_model_sha256")
        if RERANKER_REFUSED_KEY in meta:         # loaded now (or by hand): forget an earlier refusal
            self.execute("DELETE FROM workshop_meta WHERE key = :k", {"k": RERANKER_REFUSED_KEY})
            self.conn.commit()
        card = models.describe_reranker()
        if self.reranker == schema.RERANKER_MODEL.name:
            facts["reranker_label"] = card["label"]
            facts["reranker_is_stand_in"] = "true" if card["is_stand_in"] else "false"
        else:
            facts["reranker_label"] = f"{self.reranker} (loaded outside the set-up)"
            facts["reranker_is_stand_in"] = "unknown"
        return facts

    def replace_stale_reranker(self, meta: dict[str, str], present: dict[str, str]) -> None:
        """The set-up's own RERANKER is replaced when WORKSHOP_META does not record the sha256 of the file
        this checkout builds (a database set up with an older reranker, e.g. the bi-encoder cosine one).
        Nothing depends on its scores, so dropping and loading again loses nothing."""
        if meta.get("reranker_model_sha256") == RERANKER_SHA256:
            return
        with self.conn.cursor() as cur:
            cur.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => :name, force => TRUE); END;",
                        {"name": self.reranker})
        self.did(f"dropped model {self.reranker}: it is not the reranker this checkout builds")
        del present[self.reranker]

    def check_dimensions(self) -> None:
        dims = scalar(self.conn, f"SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING({self.model} USING "
                                 "'dimension probe' AS data)) FROM dual")
        if dims != schema.EMBEDDING_DIMENSIONS:
            raise SetupError(f"Model {self.model} returns {dims}-dimension vectors; the workshop tables hold "
                             f"{schema.VECTOR_TYPE}. Choose a {schema.EMBEDDING_DIMENSIONS}-dimension model.")

    def load_required_model(self, name: str, data: bytes, metadata: dict) -> None:
        """The embedding model: without it nothing can be embedded, so a refusal stops the set-up with advice."""
        try:
            self.load_model(name, data, metadata)
        except oracledb.DatabaseError as exc:
            if is_embedded(self.conn):
                raise
            raise SetupError(EMBEDDING_REFUSED_ADVICE.format(name=name, error=first_line(exc))) from exc

    def load_optional_model(self, name: str, data: bytes, metadata: dict) -> str | None:
        """The reranker: on Oracle a refusal is reported and the set-up goes on without it (only the parts that
        rerank need it). Returns the error line, or None when it loaded. The embedded engine never refuses the
        project's own files, so there an error is a bug and is raised."""
        try:
            self.load_model(name, data, metadata)
        except oracledb.DatabaseError as exc:
            if is_embedded(self.conn):
                raise
            self.did(f"Oracle refused model {name} ({first_line(exc)}): going on without it; the doctor's "
                     "reranker check and the parts that rerank say it is missing")
            return first_line(exc)
        return None

    def refused_facts(self, name: str, error: str) -> dict[str, str]:
        self.replaced.add(RERANKER_REFUSED_KEY)
        return {RERANKER_REFUSED_KEY: error, "reranker_label": f"{name} not loaded: Oracle refused it ({error})",
                "reranker_is_stand_in": "unknown"}

    def load_model(self, name: str, data: bytes, metadata: dict) -> None:
        with self.conn.cursor() as cur:
            cur.setinputsizes(data=oracledb.DB_TYPE_BLOB)
            cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(model_name => :name, model_data => :data, "
                        "metadata => JSON(:meta)); END;",
                        {"name": name, "data": data, "meta": json.dumps(metadata)})
        self.did(f"loaded model {name} ({len(data) / 1e6:.0f} MB ONNX) with DBMS_VECTOR.LOAD_ONNX_MODEL")

    # ------------------------------------------------------------------ meta
    def write_meta(self, facts: dict[str, str], *, overwrite: Iterable[str] = ()) -> None:
        """Insert missing facts; replace only the keys in `overwrite`. Unchanged values are not written."""
        meta = read_meta(self.conn)
        overwrite = set(overwrite)
        changed = False
        for key, value in facts.items():
            if key not in meta:
                self.execute("INSERT INTO workshop_meta (key, value) VALUES (:k, :v)", {"k": key, "v": value})
                changed = True
            elif key in overwrite and meta[key] != value:
                self.execute("UPDATE workshop_meta SET value = :v WHERE key = :k", {"k": key, "v": value})
                changed = True
        if changed:
            self.conn.commit()

    # ------------------------------------------------------------------ tables and rows
    def create_table(self, table: schema.Table) -> None:
        self.execute(table.create_sql())
        for statement in table.comment_sql():
            self.execute(statement)
        self.did(f"created table {table.name} (with comments)")

    def ensure_tables(self) -> None:
        present = existing_tables(self.conn)
        for table in schema.TABLES:
            if table.name not in present:
                self.create_table(table)

    def insert_missing(self, table: str, key: Sequence[str], rows: list[dict], sql: str,
                       clobs: Sequence[str] = ()) -> None:
        have = {tuple(r) for r in self._rows(f"SELECT {', '.join(key)} FROM {table.lower()}")}
        todo = [r for r in rows if tuple(r[k] for k in key) not in have]
        if not todo:
            return
        with self.conn.cursor() as cur:
            if clobs:
                cur.setinputsizes(**{c: oracledb.DB_TYPE_CLOB for c in clobs})
            cur.executemany(sql, todo)
        self.conn.commit()
        self.did(f"inserted {len(todo)} rows into {table}")

    def _rows(self, sql: str) -> list[tuple]:
        with self.conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    def load_data(self) -> None:
        self.insert_missing("AUTHORS", ["author_id"],
                            [{"author_id": a["author_id"], "name": a["name"]} for a in load_authors()],
                            "INSERT INTO authors (author_id, name) VALUES (:author_id, :name)")
        self.insert_missing(
            "PAPERS", ["arxiv_id"],
            [{"arxiv_id": p["arxiv_id"], "title": p["title"], "abstract": p["abstract"], "body": p["text"],
              "authors": json.dumps(p["authors"]), "primary_subject": p["primary_subject"],
              "published": dt.date.fromisoformat(p["published"])} for p in load_papers()],
            "INSERT INTO papers (arxiv_id, title, abstract, body, authors, primary_subject, published) "
            "VALUES (:arxiv_id, :title, :abstract, :body, JSON(:authors), :primary_subject, :published)",
            clobs=["body"])
        self.insert_missing("PAPER_AUTHORS", ["author_id", "arxiv_id"],
                            [{"author_id": a, "arxiv_id": p} for a, p in authorship_edges()],
                            "INSERT INTO paper_authors (author_id, arxiv_id) VALUES (:author_id, :arxiv_id)")
        self.insert_missing(
            "DOCUMENTS", ["doc_id"],
            [{"doc_id": d["doc_id"], "title": d["title"], "authors": json.dumps(d["authors"]), "year": d["year"],
              "collection": d["collection"], "tenant": d["tenant"], "version": d["version"],
              "supersedes": d["supersedes"], "superseded_by": d["superseded_by"], "chunk_count": d["chunk_count"]}
             for d in load_documents()],
            "INSERT INTO documents (doc_id, title, authors, year, collection, tenant, version, supersedes, "
            "superseded_by, chunk_count) VALUES (:doc_id, :title, JSON(:authors), :year, :collection, :tenant, "
            ":version, :supersedes, :superseded_by, :chunk_count)")
        self.insert_missing(
            "RESEARCH_CHUNKS", ["chunk_id"],
            [{"chunk_id": c["chunk_id"], "doc_id": c["doc_id"], "seq": c["seq"], "tenant": c["tenant"],
              "collection": c["collection"], "section": c["section"], "section_type": c["section_type"],
              "version": c["version"], "is_current": 1 if c["is_current"] else 0, "title": c["title"],
              "text": c["text"]} for c in load_chunks()],
            "INSERT INTO research_chunks (chunk_id, doc_id, seq, tenant, collection, section, section_type, version, "
            "is_current, title, text) VALUES (:chunk_id, :doc_id, :seq, :tenant, :collection, :section, "
            ":section_type, :version, :is_current, :title, :text)",
            clobs=["text"])

    # ------------------------------------------------------------------ embeddings, in the database
    def embed(self, table: str, key: str, source: str) -> None:
        """UPDATE ... SET embedding = VECTOR_EMBEDDING(model USING <source> AS data) for rows without one."""
        todo = column(self.conn, f"SELECT {key} FROM {table.lower()} WHERE embedding IS NULL ORDER BY {key}")
        if not todo:
            return
        from tqdm.auto import tqdm
        with tqdm(total=len(todo), desc=f"embedding {table}", unit="row", disable=not self.progress,
                  file=sys.stderr) as bar:
            for start in range(0, len(todo), EMBED_BATCH):
                batch = todo[start:start + EMBED_BATCH]
                marks = ", ".join(f":{i + 1}" for i in range(len(batch)))
                self.execute(f"UPDATE {table.lower()} SET embedding = VECTOR_EMBEDDING({self.model} USING {source} "
                             f"AS data) WHERE {key} IN ({marks})", batch)
                self.conn.commit()
                bar.update(len(batch))
        self.did(f"embedded {len(todo)} rows of {table} in the database with VECTOR_EMBEDDING({self.model})")

    def ensure_similarity(self, expected: int) -> None:
        if scalar(self.conn, "SELECT COUNT(*) FROM paper_similarity") == expected:
            return
        inserted = self.execute(similarity_sql())
        self.conn.commit()
        if inserted:
            self.did(f"inserted {inserted} rows into PAPER_SIMILARITY (top-{SIMILAR_PER_PAPER} by COSINE, in SQL)")

    # ------------------------------------------------------------------ indexes and graph
    def ensure_indexes(self) -> None:
        present = existing_indexes(self.conn)
        for index in schema.INDEXES:
            if index.name in present:
                continue
            try:
                self.execute(index.create_sql)
            except oracledb.DatabaseError as exc:
                code = getattr(exc.args[0], "code", None)
                if index.kind == "VECTOR" and code in _VECTOR_POOL_CODES:
                    raise SetupError(f"{VECTOR_POOL_ADVICE}\n(creating {index.name}: {exc})") from exc
                if index.kind == "TEXT" and code in _NO_INDEXTYPE_CODES:
                    raise SetupError(f"{SLIM_IMAGE_ADVICE}\n(creating {index.name}: {exc})") from exc
                raise
            what = "vector index (HNSW, COSINE)" if index.kind == "VECTOR" else "Oracle Text index"
            self.did(f"created {what} {index.name} on {index.table}")

    def ensure_graphs(self) -> None:
        present = existing_graphs(self.conn)
        for graph in schema.GRAPHS:
            if graph.name not in present:
                self.execute(graph.create_sql)
                self.did(f"created property graph {graph.name}")


def similarity_sql(k: int = SIMILAR_PER_PAPER) -> str:
    """Top-k neighbours of every paper by COSINE distance, inserted where missing."""
    return f"""INSERT INTO paper_similarity (src_id, dst_id, similarity, rank_no)
SELECT src_id, dst_id, 1 - distance, rank_no
FROM (
  SELECT a.arxiv_id AS src_id, b.arxiv_id AS dst_id,
         VECTOR_DISTANCE(a.embedding, b.embedding, COSINE) AS distance,
         ROW_NUMBER() OVER (PARTITION BY a.arxiv_id
                            ORDER BY VECTOR_DISTANCE(a.embedding, b.embedding, COSINE), b.arxiv_id) AS rank_no
  FROM papers a JOIN papers b ON b.arxiv_id <> a.arxiv_id
) nearest
WHERE rank_no <= {int(k)}
  AND NOT EXISTS (SELECT 1 FROM paper_similarity s
                  WHERE s.src_id = nearest.src_id AND s.dst_id = nearest.dst_id)"""


def table_counts(conn: oracledb.Connection) -> dict[str, int]:
    present = existing_tables(conn)
    counts = {t.name: scalar(conn, f"SELECT COUNT(*) FROM {t.name.lower()}")
              for t in schema.TABLES if t.name in present}
    return {**counts, **finance.finance_counts(conn)}


def build(conn: oracledb.Connection, *, progress: bool = True,
          log: Callable[[str], None] = print) -> SetupReport:
    """Create whatever is missing on `conn`; return what was done and the row counts."""
    started = time.perf_counter()
    b = _Builder(conn, progress, log)
    meta = b.preflight()
    model_facts = b.ensure_models(meta)
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    b.write_meta({
        "data_version": DATA_VERSION,
        "embedding_model": b.model,
        "embedding_dimensions": str(schema.EMBEDDING_DIMENSIONS),
        "paper_embedding_source": schema.PAPER_EMBEDDING_SOURCE,
        "chunk_embedding_source": schema.CHUNK_EMBEDDING_SOURCE,
        "reranker_model": b.reranker,
        "engine": engine_of(conn),
        "created_at": now,
        **model_facts,
    }, overwrite=b.replaced)
    b.ensure_tables()
    b.load_data()
    finance.ensure_finance(conn, progress=progress, did=b.did)    # part 04's FINANCE schema (no embeddings)
    b.embed("PAPERS", "arxiv_id", schema.PAPER_EMBEDDING_SOURCE)
    b.embed("RESEARCH_CHUNKS", "chunk_id", schema.CHUNK_EMBEDDING_SOURCE)
    b.ensure_similarity(expected_counts()["PAPER_SIMILARITY"])
    b.ensure_indexes()
    b.ensure_graphs()
    shared = share_with_reader(conn)        # Oracle: what part 07's read-only user reads (idempotent GRANTs)
    if shared:
        log(f"read-only user {readonly_user()}: {len(shared)} grants of workshop.oracle_grants.reader_grants held")
    if b.actions:
        b.write_meta({"updated_at": now}, overwrite=["updated_at"])
    return SetupReport(
        engine=engine_of(conn), banner=banner(conn),
        location=conn.dsn,
        embedding_model=b.model,
        reranker=(model_facts["reranker_label"] if RERANKER_REFUSED_KEY in model_facts
                  else describe_reranker_line(b.reranker)),
        actions=b.actions, counts=table_counts(conn), seconds=time.perf_counter() - started)


def describe_reranker_line(name: str) -> str:
    card = models.describe_reranker()
    if name == schema.RERANKER_MODEL.name and card["is_stand_in"]:
        return f"{name}: {models.RERANKER_SUMMARY}"
    if name == schema.RERANKER_MODEL.name:
        return f"{name}: {card['label']}"
    return f"{name} (loaded outside the set-up)"


def run(*, reset: bool = False, progress: bool = True, log: Callable[[str], None] = print) -> SetupReport:
    """What the command does: optionally drop everything (`--reset`), then build on `db.connect()`."""
    if reset:
        log(reset_everything())
    log(f"Preparing the workshop database ({db.engine_name()} engine) ...")
    conn = db.connect()
    try:
        return build(conn, progress=progress, log=log)
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workshop.setup", description=__doc__.splitlines()[0])
    parser.add_argument("--reset", action="store_true",
                        help="drop every workshop object (embedded engine: delete the database file), then build")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    try:
        report = run(reset=args.reset, progress=not args.no_progress)
    except SetupError as exc:
        print(f"\nSet-up stopped: {exc}", file=sys.stderr)
        return 2
    print(report.text(with_actions=False))
    from workshop.working_copy import make_working_copy, next_step
    copied = [line for line in make_working_copy() if line.startswith("copied")]
    if copied:
        print(f"notebooks: {len(copied)} copied to {config.working_copy_dir()} (your working copy; existing files are "
              "never overwritten)")
    print(next_step())
    return 0


if __name__ == "__main__":
    sys.exit(main())
