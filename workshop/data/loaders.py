"""Typed, read-only access to the workshop's authored data sets.

Everything here reads committed JSON Lines files next to this module; nothing is fetched or
generated at run time. Each call returns fresh objects, so callers may mutate what they get.
``verify_manifest`` compares the files with the sha256 digests in ``MANIFEST.json`` and is
what a setup step or a checkpoint calls before trusting the data.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal, TypedDict

DATA_DIR = Path(__file__).resolve().parent
DATA_VERSION = "1.0.0"

TENANTS = ("acme", "globex", "initech")
COLLECTIONS = ("ingested-papers", "vendor-docs", "blog", "runbooks")
SECTION_TYPES = (
    "abstract", "introduction", "overview", "method", "body", "results", "discussion",
    "conclusion", "references", "reference", "procedure", "example", "faq", "troubleshooting",
)
INTENTS = ("exact-identifier", "paraphrase", "mixed", "multi-hop", "tenant-scoped", "versioned")
#: The intents of golden set version 2 (workshop/data/golden/README.md explains each).
INTENTS_V2 = ("exact-identifier", "identifier-in-sentence", "paraphrase", "descriptive", "comparison", "scope",
              "unanswerable")
#: Which boundary a version-2 `scope` question tests.
SCOPES_V2 = ("tenant", "user", "superseded")
PRIMARY_SUBJECTS = ("cs.AI", "cs.CL", "cs.CR", "cs.DB", "cs.IR", "cs.LG")

_FILES = {
    "documents": "corpus/documents.jsonl",
    "chunks": "corpus/chunks.jsonl",
    "papers": "papers/papers.jsonl",
    "authors": "papers/authors.jsonl",
    "queries": "golden/queries.jsonl",
    "queries_v2": "golden/queries_v2.jsonl",
    "paper_queries": "golden/paper_queries.jsonl",
    "kb_documents": "kb/documents.jsonl",
    "kb_chunks": "kb/chunks.jsonl",
}


class Document(TypedDict):
    doc_id: str
    title: str
    authors: list[str]
    year: int
    collection: str
    tenant: str
    version: str
    supersedes: str | None      # doc_id of the older version this one replaces (same tenant)
    superseded_by: str | None
    chunk_count: int


class Chunk(TypedDict):
    chunk_id: str               # "DOC07-C03": document id plus position, stable across releases
    doc_id: str
    seq: int                    # 1-based position inside the document
    title: str                  # document title
    section: str                # section heading the chunk was cut from
    section_type: str
    authors: list[str]
    year: int
    collection: str
    tenant: str
    version: str
    is_current: bool            # False when a newer version of the document exists in the tenant
    text: str


class Paper(TypedDict):
    arxiv_id: str               # fictitious but well-formed new-style id, e.g. "2406.01234"
    title: str
    abstract: str
    text: str
    authors: list[str]
    author_ids: list[str]       # parallel to ``authors``
    primary_subject: str
    topic: str
    published: str              # ISO date consistent with the id's YYMM


class Author(TypedDict):
    author_id: str              # "A001" ... stable
    name: str
    group: str                  # invented research group
    paper_count: int


class GoldenQuery(TypedDict):
    query_id: str
    query: str
    tenant: str | None          # None for paper queries (the paper table has no tenants)
    intent: str
    relevance: dict[str, int]   # chunk_id or arxiv_id -> grade 1..3 (3 = answers the query)
    notes: str


class DataIntegrityError(RuntimeError):
    """A shipped data file does not match MANIFEST.json (edited by hand or truncated)."""


def _read_jsonl(name: str) -> list[dict]:
    path = DATA_DIR / _FILES[name]
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _check_tenant(tenant: str | None) -> None:
    if tenant is not None and tenant not in TENANTS:
        raise ValueError(f"unknown tenant {tenant!r}; expected one of {TENANTS}")


def load_documents(tenant: str | None = None) -> list[Document]:
    """All authored documents (one row per document version), optionally for one tenant."""
    _check_tenant(tenant)
    rows = _read_jsonl("documents")
    return [r for r in rows if tenant is None or r["tenant"] == tenant]  # type: ignore[misc]


def load_chunks(tenant: str | None = None, current_only: bool = False) -> list[Chunk]:
    """Chunks in corpus order; ``current_only`` drops chunks of superseded document versions."""
    _check_tenant(tenant)
    rows = _read_jsonl("chunks")
    return [r for r in rows  # type: ignore[misc]
            if (tenant is None or r["tenant"] == tenant) and (r["is_current"] or not current_only)]


def load_papers() -> list[Paper]:
    """The arXiv-shaped paper table used in parts 01-02."""
    return _read_jsonl("papers")  # type: ignore[return-value]


def load_authors() -> list[Author]:
    """The invented author pool with stable ids, in id order."""
    return _read_jsonl("authors")  # type: ignore[return-value]


def authorship_edges() -> list[tuple[str, str]]:
    """(author_id, arxiv_id) pairs, one per authorship, in paper order then author order."""
    return [(aid, p["arxiv_id"]) for p in load_papers() for aid in p["author_ids"]]


def load_golden_queries(corpus: Literal["chunks", "papers"] = "chunks", version: int = 1) -> list[GoldenQuery]:
    """Labelled queries with graded relevance over the chunk corpus or over the paper table.

    `version=2` (chunks only) is golden set version 2, pooled-judged over part 06's strategies on part
    05's knowledge-base tables: part 06 and benchmarks/bench_retrieval.py use it; parts 02 and 05 keep
    version 1 (workshop/data/golden/README.md says why)."""
    if version not in (1, 2):
        raise ValueError(f"unknown golden set version {version!r}; expected 1 or 2")
    if version == 2:
        if corpus != "chunks":
            raise ValueError("golden set version 2 exists for the chunks only")
        return _read_jsonl("queries_v2")  # type: ignore[return-value]
    if corpus == "chunks":
        return _read_jsonl("queries")  # type: ignore[return-value]
    if corpus == "papers":
        return _read_jsonl("paper_queries")  # type: ignore[return-value]
    raise ValueError(f"unknown golden corpus {corpus!r}; expected 'chunks' or 'papers'")


def load_kb_documents() -> list[dict]:
    """Part 05's knowledge-base additions: new documents (private, deleted, another tenant's) and overrides of
    corpus documents (`from_corpus`: user scope, valid_until of a superseded version)."""
    return _read_jsonl("kb_documents")


def load_kb_chunks() -> list[dict]:
    """Part 05's authored chunks: bibliography (`references`) chunks, a deleted chunk, the new documents' text."""
    return _read_jsonl("kb_chunks")


def load_manifest() -> dict:
    return json.loads((DATA_DIR / "MANIFEST.json").read_text(encoding="utf-8"))


def file_sha256(relative_path: str) -> str:
    return hashlib.sha256((DATA_DIR / relative_path).read_bytes()).hexdigest()


def verify_manifest() -> None:
    """Raise DataIntegrityError naming every file whose digest differs from MANIFEST.json."""
    manifest = load_manifest()
    if manifest.get("data_version") != DATA_VERSION:
        raise DataIntegrityError(
            f"MANIFEST.json is for data version {manifest.get('data_version')!r}, "
            f"the loader expects {DATA_VERSION!r}")
    listed = set(manifest["files"])
    expected = set(_FILES.values())
    if listed != expected:
        raise DataIntegrityError(f"MANIFEST.json lists {sorted(listed)}, expected {sorted(expected)}")
    bad = [rel for rel, digest in sorted(manifest["files"].items()) if file_sha256(rel) != digest]
    if bad:
        raise DataIntegrityError(
            "data files differ from MANIFEST.json: " + ", ".join(bad)
            + " (regenerate with `python -m workshop.data.build` if the change is intended)")


GOLDEN_V2_PATH = DATA_DIR / _FILES["queries_v2"]

GOLDEN_KEYS = ("query_id", "query", "tenant", "intent", "relevance")


def read_golden_jsonl(path: str | Path) -> list[GoldenQuery]:
    """A golden-set JSONL file of your own (e.g. exported by part 06's grader), checked like the shipped one."""
    records = []
    with Path(path).open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            missing = [k for k in GOLDEN_KEYS if k not in record]
            if missing:
                raise ValueError(f"{path}:{number}: missing {', '.join(missing)}")
            grades = record["relevance"]
            if not isinstance(grades, dict) or not all(
                    isinstance(g, int) and not isinstance(g, bool) and 0 <= g <= 3 for g in grades.values()):
                raise ValueError(f"{path}:{number}: relevance must map ids to grades 0..3")
            record.setdefault("traps", [])
            record.setdefault("notes", "")
            records.append(record)
    return records
