"""Every workshop database object in one place: the DDL that `python -m workshop.setup` runs, the
comments learners read in the data dictionary, and the registry of objects the notebooks create.

The same text runs on Oracle AI Database 26ai and on the embedded engine. Two groups of objects:

- setup-owned (`TABLES`, `INDEXES`, `GRAPHS`, `MODELS`): created by the set-up, never by a notebook;
  notebooks are written against these names and columns, so they are a contract.
- learner-owned (`LEARNER_OBJECTS`): created by the notebooks of one part; `workshop.reset.reset_part(n)`
  and `python -m workshop.setup --reset` drop them. Notebook authors add their objects there.

    print(ddl_script())          # the whole schema as one SQL script
"""
from __future__ import annotations

import re
from dataclasses import dataclass

EMBEDDING_DIMENSIONS = 384
#: The vector column type every embedded table uses; a model with another dimension cannot fill it.
VECTOR_TYPE = f"VECTOR({EMBEDDING_DIMENSIONS}, FLOAT32)"

#: What each table's embedding is computed from (SQL over the row), shown in comments and WORKSHOP_META.
PAPER_EMBEDDING_SOURCE = "title || '. ' || abstract"
CHUNK_EMBEDDING_SOURCE = "text"

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$#]{0,127}")


def identifier(name: str) -> str:
    """An unquoted Oracle identifier in upper case; anything else is refused (names are formatted into SQL)."""
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"{name!r} is not a plain Oracle identifier (letter, then letters, digits, _ $ #)")
    return name.upper()


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# --------------------------------------------------------------------------- setup-owned objects
@dataclass(frozen=True)
class Column:
    name: str
    type: str
    comment: str
    constraint: str = ""          # inline constraint text, e.g. "NOT NULL"

    def sql(self) -> str:
        return f"{self.name.lower()} {self.type}" + (f" {self.constraint}" if self.constraint else "")


@dataclass(frozen=True)
class Table:
    name: str
    comment: str
    columns: tuple[Column, ...]
    constraints: tuple[str, ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name.upper() for c in self.columns)

    def create_sql(self) -> str:
        lines = [c.sql() for c in self.columns] + list(self.constraints)
        return f"CREATE TABLE {self.name.lower()} (\n  " + ",\n  ".join(lines) + "\n)"

    def comment_sql(self) -> list[str]:
        """COMMENT ON TABLE / COLUMN statements, so learners can explore USER_TAB_COMMENTS / USER_COL_COMMENTS."""
        statements = [f"COMMENT ON TABLE {self.name.lower()} IS {_quote(self.comment)}"]
        statements += [f"COMMENT ON COLUMN {self.name.lower()}.{c.name.lower()} IS {_quote(c.comment)}"
                       for c in self.columns]
        return statements


@dataclass(frozen=True)
class Index:
    name: str
    table: str
    kind: str                     # 'VECTOR' or 'TEXT' (Oracle Text CONTEXT)
    create_sql: str


@dataclass(frozen=True)
class Graph:
    name: str
    create_sql: str


@dataclass(frozen=True)
class Model:
    """An in-database model the set-up loads from `workshop.models` (and so may drop again)."""
    name: str
    function: str                 # 'EMBEDDING' or 'REGRESSION', as USER_MINING_MODELS reports it


WORKSHOP_META = Table(
    "WORKSHOP_META",
    "Facts about this workshop database written by python -m workshop.setup: data version, embedding model "
    "and its sha256, reranker, engine, set-up times. The doctor (python -m workshop.doctor) reads it.",
    (
        Column("key", "VARCHAR2(100)", "Name of the fact, e.g. data_version or embedding_model.",
               "CONSTRAINT workshop_meta_pk PRIMARY KEY"),
        Column("value", "VARCHAR2(4000)", "Value of the fact, as text."),
    ),
)

PAPERS = Table(
    "PAPERS",
    "arXiv-shaped research papers (fictitious, authored for the workshop; CC BY 4.0) used in parts 01-02. "
    f"EMBEDDING is VECTOR_EMBEDDING of {PAPER_EMBEDDING_SOURCE}, computed in the database.",
    (
        Column("arxiv_id", "VARCHAR2(20)", "arXiv-style identifier (YYMM.NNNNN), fictitious but well formed.",
               "CONSTRAINT papers_pk PRIMARY KEY"),
        Column("title", "VARCHAR2(500)", "Paper title.", "NOT NULL"),
        Column("abstract", "VARCHAR2(4000)", "Paper abstract; Oracle Text index PAPERS_TEXT covers it.", "NOT NULL"),
        Column("body", "CLOB", "Short paper body text (a few paragraphs)."),
        Column("authors", "JSON", "JSON array of author names in byline order; ids are in PAPER_AUTHORS."),
        Column("primary_subject", "VARCHAR2(20)", "arXiv primary subject class, e.g. cs.IR or cs.CL."),
        Column("published", "DATE", "Publication date (consistent with the YYMM of the id)."),
        Column("embedding", VECTOR_TYPE,
               f"Embedding of {PAPER_EMBEDDING_SOURCE} by the model named in WORKSHOP_META.embedding_model; "
               "vector index PAPERS_HNSW (COSINE)."),
    ),
)

AUTHORS = Table(
    "AUTHORS",
    "Invented author pool with stable ids; vertex label AUTHOR of RESEARCH_GRAPH.",
    (
        Column("author_id", "VARCHAR2(10)", "Stable author id, A001 ...", "CONSTRAINT authors_pk PRIMARY KEY"),
        Column("name", "VARCHAR2(200)", "Author name (fictitious).", "NOT NULL"),
    ),
)

PAPER_AUTHORS = Table(
    "PAPER_AUTHORS",
    "Authorship: one row per (author, paper); edge label WROTE (author -> paper) of RESEARCH_GRAPH.",
    (
        Column("author_id", "VARCHAR2(10)", "The author (AUTHORS.author_id).", "NOT NULL"),
        Column("arxiv_id", "VARCHAR2(20)", "The paper (PAPERS.arxiv_id).", "NOT NULL"),
    ),
    (
        "CONSTRAINT paper_authors_pk PRIMARY KEY (author_id, arxiv_id)",
        "CONSTRAINT paper_authors_author_fk FOREIGN KEY (author_id) REFERENCES authors (author_id)",
        "CONSTRAINT paper_authors_paper_fk FOREIGN KEY (arxiv_id) REFERENCES papers (arxiv_id)",
    ),
)

PAPER_SIMILARITY = Table(
    "PAPER_SIMILARITY",
    "The 5 nearest papers of every paper by COSINE distance between PAPERS.embedding vectors, computed in SQL "
    "at set-up; edge label SIMILAR_TO (src -> dst) of RESEARCH_GRAPH.",
    (
        Column("src_id", "VARCHAR2(20)", "The paper whose neighbours these are (PAPERS.arxiv_id).", "NOT NULL"),
        Column("dst_id", "VARCHAR2(20)", "A nearest neighbour of src_id (PAPERS.arxiv_id).", "NOT NULL"),
        Column("similarity", "NUMBER", "1 - VECTOR_DISTANCE(src.embedding, dst.embedding, COSINE).", "NOT NULL"),
        Column("rank_no", "NUMBER", "1 = most similar neighbour of src_id, up to 5 (ties broken by dst_id).",
               "NOT NULL"),
    ),
    (
        "CONSTRAINT paper_similarity_pk PRIMARY KEY (src_id, dst_id)",
        "CONSTRAINT paper_similarity_src_fk FOREIGN KEY (src_id) REFERENCES papers (arxiv_id)",
        "CONSTRAINT paper_similarity_dst_fk FOREIGN KEY (dst_id) REFERENCES papers (arxiv_id)",
    ),
)

DOCUMENTS = Table(
    "DOCUMENTS",
    "Research corpus on agent memory and retrieval: one row per document version; three tenants (acme, globex, "
    "initech) share the platform. Chunks are in RESEARCH_CHUNKS.",
    (
        Column("doc_id", "VARCHAR2(20)", "Document id, DOC01 ...", "CONSTRAINT documents_pk PRIMARY KEY"),
        Column("title", "VARCHAR2(500)", "Document title; the same title in two tenants is two versions.", "NOT NULL"),
        Column("authors", "JSON", "JSON array of author names."),
        Column("year", "NUMBER(4)", "Year written."),
        Column("collection", "VARCHAR2(30)", "ingested-papers, vendor-docs, blog or runbooks.", "NOT NULL"),
        Column("tenant", "VARCHAR2(20)", "Owning tenant: acme, globex or initech.", "NOT NULL"),
        Column("version", "VARCHAR2(10)", "Document version, e.g. 1.0 or 2.0.", "NOT NULL"),
        Column("supersedes", "VARCHAR2(20)", "doc_id of the older version this one replaces (same tenant), or NULL."),
        Column("superseded_by", "VARCHAR2(20)", "doc_id of the newer version that replaces this one, or NULL."),
        Column("chunk_count", "NUMBER(4)", "Number of chunks of this document in RESEARCH_CHUNKS.", "NOT NULL"),
    ),
)

RESEARCH_CHUNKS = Table(
    "RESEARCH_CHUNKS",
    "The research corpus cut into 60-180-word chunks, one section each, with tenant and version metadata for "
    f"filtering. EMBEDDING is VECTOR_EMBEDDING of {CHUNK_EMBEDDING_SOURCE}, computed in the database.",
    (
        Column("chunk_id", "VARCHAR2(20)", "Chunk id: document id plus position, e.g. DOC07-C03.",
               "CONSTRAINT research_chunks_pk PRIMARY KEY"),
        Column("doc_id", "VARCHAR2(20)", "The document (DOCUMENTS.doc_id).", "NOT NULL"),
        Column("seq", "NUMBER(4)", "1-based position of the chunk in its document.", "NOT NULL"),
        Column("tenant", "VARCHAR2(20)", "Owning tenant: acme, globex or initech; filter on it.", "NOT NULL"),
        Column("collection", "VARCHAR2(30)", "ingested-papers, vendor-docs, blog or runbooks.", "NOT NULL"),
        Column("section", "VARCHAR2(200)", "Heading of the section the chunk was cut from."),
        Column("section_type", "VARCHAR2(30)", "Kind of section: abstract, method, procedure, faq, troubleshooting ..."),
        Column("version", "VARCHAR2(10)", "Version of the document the chunk belongs to.", "NOT NULL"),
        Column("is_current", "NUMBER(1)",
               "1 = the document's current version, 0 = superseded by a newer version in the same tenant.",
               "NOT NULL CONSTRAINT research_chunks_current_ck CHECK (is_current IN (0, 1))"),
        Column("title", "VARCHAR2(500)", "Title of the document.", "NOT NULL"),
        Column("text", "CLOB", "Chunk text; Oracle Text index RESEARCH_CHUNKS_TEXT covers it.", "NOT NULL"),
        Column("embedding", VECTOR_TYPE,
               f"Embedding of {CHUNK_EMBEDDING_SOURCE} by the model named in WORKSHOP_META.embedding_model; "
               "vector index RESEARCH_CHUNKS_HNSW (COSINE)."),
    ),
    ("CONSTRAINT research_chunks_doc_fk FOREIGN KEY (doc_id) REFERENCES documents (doc_id)",),
)

#: Setup-owned tables in creation order (parents before children); dropped in reverse.
TABLES: tuple[Table, ...] = (WORKSHOP_META, PAPERS, AUTHORS, PAPER_AUTHORS, PAPER_SIMILARITY, DOCUMENTS,
                             RESEARCH_CHUNKS)
TABLES_BY_NAME = {t.name: t for t in TABLES}


def _hnsw(name: str, table: str) -> Index:
    return Index(name, table, "VECTOR",
                 f"CREATE VECTOR INDEX {name.lower()} ON {table.lower()} (embedding)\n"
                 "  ORGANIZATION INMEMORY NEIGHBOR GRAPH\n"
                 "  DISTANCE COSINE\n"
                 "  WITH TARGET ACCURACY 95")


def _context(name: str, table: str, column: str) -> Index:
    return Index(name, table, "TEXT",
                 f"CREATE INDEX {name.lower()} ON {table.lower()} ({column})\n"
                 "  INDEXTYPE IS CTXSYS.CONTEXT\n"
                 "  PARAMETERS ('SYNC (ON COMMIT)')")


INDEXES: tuple[Index, ...] = (
    _hnsw("PAPERS_HNSW", "PAPERS"),
    _context("PAPERS_TEXT", "PAPERS", "abstract"),
    _hnsw("RESEARCH_CHUNKS_HNSW", "RESEARCH_CHUNKS"),
    _context("RESEARCH_CHUNKS_TEXT", "RESEARCH_CHUNKS", "text"),
)

RESEARCH_GRAPH = Graph("RESEARCH_GRAPH", """CREATE PROPERTY GRAPH research_graph
  VERTEX TABLES (
    papers KEY (arxiv_id)
      LABEL paper PROPERTIES (arxiv_id, title, primary_subject),
    authors KEY (author_id)
      LABEL author PROPERTIES (author_id, name)
  )
  EDGE TABLES (
    paper_authors KEY (author_id, arxiv_id)
      SOURCE KEY (author_id) REFERENCES authors (author_id)
      DESTINATION KEY (arxiv_id) REFERENCES papers (arxiv_id)
      LABEL wrote NO PROPERTIES,
    paper_similarity KEY (src_id, dst_id)
      SOURCE KEY (src_id) REFERENCES papers (arxiv_id)
      DESTINATION KEY (dst_id) REFERENCES papers (arxiv_id)
      LABEL similar_to PROPERTIES (similarity, rank_no)
  )""")

GRAPHS: tuple[Graph, ...] = (RESEARCH_GRAPH,)

#: The models the set-up loads from workshop.models under their default names. A model chosen with
#: EMBED_MODEL / RERANK_MODEL that is not one of these (Oracle's prebuilt ALL_MINILM_L12_V2) is used, never dropped.
EMBEDDING_MODEL = Model("ALL_MINILM_L6_V2", "EMBEDDING")
RERANKER_MODEL = Model("RERANKER", "REGRESSION")
MODELS: tuple[Model, ...] = (EMBEDDING_MODEL, RERANKER_MODEL)


# --------------------------------------------------------------------------- learner-owned objects
OBJECT_KINDS = ("PROPERTY GRAPH", "VIEW", "INDEX", "TABLE", "SEQUENCE")


@dataclass(frozen=True)
class LearnerObject:
    """An object a notebook creates. Dropping a table drops its indexes, so list an INDEX only when it is
    created on a setup-owned table (e.g. a B-tree index on PAPERS)."""
    kind: str
    name: str

    def __post_init__(self) -> None:
        if self.kind not in OBJECT_KINDS:
            raise ValueError(f"unknown object kind {self.kind!r}; expected one of {OBJECT_KINDS}")
        object.__setattr__(self, "name", identifier(self.name))


def tables(*names: str) -> tuple[LearnerObject, ...]:
    return tuple(LearnerObject("TABLE", n) for n in names)


#: Objects each part's notebooks create, keyed by part number. Notebook authors: add yours here, so that
#: reset_part(n) and --reset find them. Names only; the notebooks own the DDL.
LEARNER_OBJECTS: dict[int, tuple[LearnerObject, ...]] = {
    1: tables("PAPER_VECTORS", "PAPERS_VS"),
    2: (),
    3: tables("CONVERSATION_MEMORY", "KNOWLEDGE_BASE_VS", "WORKFLOW_VS", "TOOLBOX_VS", "ENTITY_VS",
              "SUMMARY_VS", "TOOL_LOG"),
    4: tables("KNOWLEDGE_FACTS", "AML_KNOWLEDGE_VS", "AML_CHAT_HISTORY", "AML_SEMANTIC_CACHE"),
    # part 05: the knowledge-base tables (workshop.pipeline.kb); their indexes and RLS policies go with them
    5: tables("KNOWLEDGE_BASE_CHUNK", "KNOWLEDGE_BASE_DOCUMENT"),
    # part 07: the harness's run record and the findings its one governed write stores (workshop.harness.runlog)
    7: tables("AGENT_RUNS", "AGENT_RUN_EVENTS", "AGENT_FINDINGS", "AGENT_CASES", "AGENT_APPROVALS", "CHECKPOINTS",
              "CHECKPOINT_BLOBS",
              "CHECKPOINT_WRITES", "CHECKPOINT_MIGRATIONS"),     # the last four: langgraph-oracledb's OracleSaver
    # part 08: the OAMP mirror's memory table (workshop.agent_memory.store); its CONTEXT index goes with it
    8: tables("AGENT_MEMORIES"),
}


def learner_objects(part: int | None = None) -> tuple[LearnerObject, ...]:
    """The learner-owned objects of one part, or of every part."""
    if part is None:
        return tuple(o for p in sorted(LEARNER_OBJECTS) for o in LEARNER_OBJECTS[p])
    if part not in LEARNER_OBJECTS:
        raise ValueError(f"no part {part!r}; the parts with registered objects are {sorted(LEARNER_OBJECTS)}")
    return LEARNER_OBJECTS[part]


def setup_owned_names() -> set[str]:
    return ({t.name for t in TABLES} | {i.name for i in INDEXES} | {g.name for g in GRAPHS}
            | {m.name for m in MODELS})


# --------------------------------------------------------------------------- drop statements
#: SQLCODEs that mean "already gone" for each kind of DROP.
_MISSING_CODES = {
    "TABLE": (-942,),
    "VIEW": (-942,),
    "PROPERTY GRAPH": (-942,),
    "INDEX": (-1418,),
    "SEQUENCE": (-2289,),
}


def _ignore_missing(statement: str, codes: tuple[int, ...]) -> str:
    """The PL/SQL idiom: run the statement, ignore only the error that says the object does not exist."""
    test = f"SQLCODE != {codes[0]}" if len(codes) == 1 else f"SQLCODE NOT IN ({', '.join(map(str, codes))})"
    return (f"BEGIN\n  {statement};\n"
            f"EXCEPTION WHEN OTHERS THEN\n  IF {test} THEN RAISE; END IF;\nEND;")


def drop_sql(kind: str, name: str) -> str:
    """A DROP for one object that succeeds whether or not the object exists (runs on both engines)."""
    name = identifier(name)
    if kind == "MINING MODEL":
        return _ignore_missing(f"DBMS_VECTOR.DROP_ONNX_MODEL(model_name => '{name}', force => TRUE)", (-40284,))
    if kind not in _MISSING_CODES:
        raise ValueError(f"cannot drop objects of kind {kind!r}")
    suffix = " CASCADE CONSTRAINTS PURGE" if kind == "TABLE" else ""
    # 26ai documents DROP PROPERTY GRAPH IF EXISTS; the handler stays for the idiom's uniformity.
    exists = " IF EXISTS" if kind == "PROPERTY GRAPH" else ""
    return _ignore_missing(f"EXECUTE IMMEDIATE 'DROP {kind}{exists} {name}{suffix}'", _MISSING_CODES[kind])


# --------------------------------------------------------------------------- the script, for reading
def ddl_script() -> str:
    """The whole setup-owned schema as one SQL script (tables, comments, indexes, graph), for reading."""
    parts: list[str] = []
    for table in TABLES:
        parts.append(table.create_sql() + ";")
        parts.extend(s + ";" for s in table.comment_sql())
    parts.extend(i.create_sql + ";" for i in INDEXES)
    parts.extend(g.create_sql + ";" for g in GRAPHS)
    return "\n\n".join(parts) + "\n"

