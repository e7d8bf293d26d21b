"""Rebuild the shipped JSON Lines files from the authored sources, deterministically.

The workshop reads only the built files (``corpus/*.jsonl``, ``papers/*.jsonl``) and
``MANIFEST.json``. They are generated from human-friendly sources under ``*/src/`` so that
the prose can be reviewed as Markdown; the generated files are committed so that nothing
is computed at run time. A test rebuilds into a temporary folder and compares bytes.

    python -m workshop.data.build            # rewrite the built files and the manifest
    python -m workshop.data.build --check    # exit 1 if anything is out of date
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path

from workshop.data import paper_text
from workshop.data.loaders import DATA_DIR, DATA_VERSION

# Papers: one fixed seed drives arXiv-style ids, dates, author assignment and body text.
PAPER_SEED = 20260415

SHIPPED_FILES = (
    "corpus/documents.jsonl",
    "corpus/chunks.jsonl",
    "papers/papers.jsonl",
    "papers/authors.jsonl",
    "golden/queries.jsonl",
    "golden/queries_v2.jsonl",
    "golden/paper_queries.jsonl",
    "kb/documents.jsonl",      # part 05's knowledge-base additions, authored directly (no src/)
    "kb/chunks.jsonl",
)

_FRONT_MATTER_KEYS = (
    "doc_id", "title", "authors", "year", "collection", "tenant", "version", "supersedes",
)
_CHUNK_HEADER = re.compile(r"^## C(\d{2}) \[([a-z-]+)\] (.+)$")


class SourceError(ValueError):
    """An authored source file breaks the format this builder expects."""


# --------------------------------------------------------------------------- corpus


def _parse_front_matter(lines: list[str], path: Path) -> tuple[dict[str, str], int]:
    if not lines or lines[0].strip() != "---":
        raise SourceError(f"{path.name}: must start with a '---' front-matter block")
    meta: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return meta, i + 1
        key, sep, value = line.partition(":")
        if not sep or key.strip() not in _FRONT_MATTER_KEYS:
            raise SourceError(f"{path.name}:{i + 1}: unknown front-matter line {line!r}")
        meta[key.strip()] = value.strip()
    raise SourceError(f"{path.name}: front-matter block is not closed")


def parse_document_source(path: Path) -> tuple[dict, list[dict]]:
    """Parse one ``corpus/src/DOCnn.md`` file into a document row and its chunk rows."""
    lines = path.read_text(encoding="utf-8").splitlines()
    meta, body_start = _parse_front_matter(lines, path)
    missing = [k for k in _FRONT_MATTER_KEYS if k not in meta and k != "supersedes"]
    if missing:
        raise SourceError(f"{path.name}: front matter lacks {missing}")
    doc = {
        "doc_id": meta["doc_id"],
        "title": meta["title"],
        "authors": [a.strip() for a in meta["authors"].split(";") if a.strip()],
        "year": int(meta["year"]),
        "collection": meta["collection"],
        "tenant": meta["tenant"],
        "version": meta["version"],
        "supersedes": meta.get("supersedes") or None,
        "superseded_by": None,  # filled in once every document is known
    }
    chunks: list[dict] = []
    current: dict | None = None
    text_lines: list[str] = []

    def close() -> None:
        if current is not None:
            text = " ".join(" ".join(text_lines).split())
            if not text:
                raise SourceError(f"{path.name}: chunk {current['chunk_id']} has no text")
            current["text"] = text
            chunks.append(current)

    for line in lines[body_start:]:
        match = _CHUNK_HEADER.match(line)
        if match:
            close()
            number = int(match.group(1))
            if number != len(chunks) + 1:
                raise SourceError(f"{path.name}: chunk C{number:02d} is out of sequence")
            current = {
                "chunk_id": f"{doc['doc_id']}-C{number:02d}",
                "doc_id": doc["doc_id"],
                "seq": number,
                "title": doc["title"],
                "section": match.group(3).strip(),
                "section_type": match.group(2),
                "authors": doc["authors"],
                "year": doc["year"],
                "collection": doc["collection"],
                "tenant": doc["tenant"],
                "version": doc["version"],
                "is_current": True,
            }
            text_lines = []
        elif line.startswith("## "):
            raise SourceError(f"{path.name}: malformed chunk header {line!r}")
        else:
            if current is None and line.strip():
                raise SourceError(f"{path.name}: text before the first chunk header")
            text_lines.append(line)
    close()
    if not chunks:
        raise SourceError(f"{path.name}: no chunks")
    return doc, chunks


def build_corpus(src_dir: Path) -> tuple[list[dict], list[dict]]:
    documents: list[dict] = []
    chunks: list[dict] = []
    for path in sorted(src_dir.glob("DOC*.md")):
        doc, doc_chunks = parse_document_source(path)
        if path.stem != doc["doc_id"]:
            raise SourceError(f"{path.name}: doc_id {doc['doc_id']} does not match file name")
        documents.append(doc)
        chunks.extend(doc_chunks)
    by_id = {d["doc_id"]: d for d in documents}
    for doc in documents:
        older = doc["supersedes"]
        if older is None:
            continue
        if older not in by_id:
            raise SourceError(f"{doc['doc_id']} supersedes unknown document {older}")
        by_id[older]["superseded_by"] = doc["doc_id"]
    superseded = {d["doc_id"] for d in documents if d["superseded_by"]}
    for chunk in chunks:
        chunk["is_current"] = chunk["doc_id"] not in superseded
    for doc in documents:
        doc["chunk_count"] = sum(1 for c in chunks if c["doc_id"] == doc["doc_id"])
    return documents, chunks


# --------------------------------------------------------------------------- papers

_PAPER_HEADER = re.compile(r"^## (P\d{3}) \| ([a-z]+\.[A-Z]{2}) \| ([a-z-]+) \| (.+)$")


def parse_author_pool(path: Path) -> list[dict]:
    """``authors.tsv``: author_id, name, group, one per line (``#`` starts a comment)."""
    authors = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        author_id, name, group = (part.strip() for part in line.split("\t"))
        authors.append({"author_id": author_id, "name": name, "group": group})
    return authors


def parse_paper_source(path: Path) -> list[dict]:
    """``papers.md``: ``## Pnnn | subject | topic | Title`` followed by the abstract."""
    papers: list[dict] = []
    current: dict | None = None
    buf: list[str] = []

    def close() -> None:
        if current is not None:
            current["abstract"] = " ".join(" ".join(buf).split())
            if not current["abstract"]:
                raise SourceError(f"{path.name}: {current['key']} has no abstract")
            papers.append(current)

    for line in path.read_text(encoding="utf-8").splitlines():
        match = _PAPER_HEADER.match(line)
        if match:
            close()
            key, subject, topic, title = match.groups()
            if key != f"P{len(papers) + 1:03d}":
                raise SourceError(f"{path.name}: paper {key} is out of sequence")
            current = {"key": key, "primary_subject": subject, "topic": topic,
                       "title": title.strip()}
            buf = []
        elif line.startswith("## "):
            raise SourceError(f"{path.name}: malformed paper header {line!r}")
        elif current is not None:
            buf.append(line)
        elif line.strip() and not line.startswith("#"):
            raise SourceError(f"{path.name}: text before the first paper header")
    close()
    return papers


def _arxiv_ids(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """Well-formed but fictitious new-style arXiv ids (YYMM.NNNNN) with a matching date."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    months = [(y, m) for y in (2023, 2024, 2025) for m in range(1, 13)]
    while len(out) < count:
        year, month = rng.choice(months)
        number = rng.randrange(100, 19999)
        arxiv_id = f"{year % 100:02d}{month:02d}.{number:05d}"
        if arxiv_id in seen:
            continue
        seen.add(arxiv_id)
        day = rng.randrange(1, 29)
        out.append((arxiv_id, f"{year:04d}-{month:02d}-{day:02d}"))
    return out


def assign_authors(papers: list[dict], pool: list[dict], topic_groups: dict[str, list[str]],
                   rng: random.Random, max_papers: int = 8, min_papers: int = 2) -> None:
    """Give every paper 1-4 authors, mostly from the research group that owns its topic.

    Load balancing keeps each author on ``min_papers``..``max_papers`` papers, and a
    cross-group collaborator on about a quarter of the papers creates the shared-author
    hops that the graph part of the workshop walks.
    """
    by_group: dict[str, list[str]] = {}
    for author in pool:
        by_group.setdefault(author["group"], []).append(author["author_id"])
    load = {a["author_id"]: 0 for a in pool}

    def pick(candidates: list[str], exclude: set[str]) -> str | None:
        open_ = [c for c in candidates if c not in exclude and load[c] < max_papers]
        if not open_:
            return None
        lowest = min(load[c] for c in open_)
        weights = [3.0 if load[c] == lowest else 1.0 for c in open_]
        return rng.choices(open_, weights=weights, k=1)[0]

    for paper in papers:
        groups = topic_groups[paper["topic"]]
        home = [a for g in groups for a in by_group[g]]
        size = rng.choices([1, 2, 3, 4], weights=[15, 55, 24, 6], k=1)[0]
        chosen: list[str] = []
        everyone = [a["author_id"] for a in pool]
        for _ in range(size):
            # A group whose members are all at the cap borrows a collaborator from elsewhere.
            author = pick(home, set(chosen)) or pick(everyone, set(chosen))
            if author:
                chosen.append(author)
        if rng.random() < 0.27:
            others = [a["author_id"] for a in pool if a["group"] not in groups]
            guest = pick(others, set(chosen))
            if guest:
                chosen.insert(rng.randrange(1, len(chosen) + 1) if chosen else 0, guest)
        if not chosen:
            raise SourceError(f"{paper['key']}: no author with free capacity")
        for author in chosen:
            load[author] += 1
        paper["author_ids"] = chosen
    # Top up anyone below the minimum with papers of their own group that have room.
    for author in pool:
        aid = author["author_id"]
        for paper in papers:
            if load[aid] >= min_papers:
                break
            groups = topic_groups[paper["topic"]]
            if author["group"] in groups and aid not in paper["author_ids"] \
                    and len(paper["author_ids"]) < 4:
                paper["author_ids"].append(aid)
                load[aid] += 1
        if load[aid] < min_papers:
            raise SourceError(f"author {aid} could not reach {min_papers} papers")


def build_papers(src_dir: Path) -> tuple[list[dict], list[dict]]:
    pool = parse_author_pool(src_dir / "authors.tsv")
    papers = parse_paper_source(src_dir / "papers.md")
    rng = random.Random(PAPER_SEED)
    ids = _arxiv_ids(len(papers), rng)
    assign_authors(papers, pool, paper_text.TOPIC_GROUPS, rng)
    names = {a["author_id"]: a["name"] for a in pool}
    rows = []
    for paper, (arxiv_id, published) in zip(papers, ids):
        rows.append({
            "arxiv_id": arxiv_id,
            "title": paper["title"],
            "abstract": paper["abstract"],
            "text": paper_text.compose_body(paper, rng),
            "authors": [names[a] for a in paper["author_ids"]],
            "author_ids": paper["author_ids"],
            "primary_subject": paper["primary_subject"],
            "topic": paper["topic"],
            "published": published,
        })
    counts = {a["author_id"]: 0 for a in pool}
    for row in rows:
        for aid in row["author_ids"]:
            counts[aid] += 1
    authors = [{"author_id": a["author_id"], "name": a["name"], "group": a["group"],
                "paper_count": counts[a["author_id"]]} for a in pool]
    return rows, authors


# --------------------------------------------------------------------------- output


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n" for row in rows)


def render(data_dir: Path = DATA_DIR) -> dict[str, str]:
    """Return {relative path: file text} for every generated file, manifest included."""
    documents, chunks = build_corpus(data_dir / "corpus" / "src")
    papers, authors = build_papers(data_dir / "papers" / "src")
    out = {
        "corpus/documents.jsonl": _jsonl(documents),
        "corpus/chunks.jsonl": _jsonl(chunks),
        "papers/papers.jsonl": _jsonl(papers),
        "papers/authors.jsonl": _jsonl(authors),
    }
    hashes = {}
    for rel in SHIPPED_FILES:
        text = out[rel] if rel in out else (data_dir / rel).read_text(encoding="utf-8")
        hashes[rel] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    manifest = {"data_version": DATA_VERSION, "algorithm": "sha256", "files": hashes}
    out["MANIFEST.json"] = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale files, write nothing")
    args = parser.parse_args(argv)
    stale = []
    for rel, text in render().items():
        path = DATA_DIR / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(rel)
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    if args.check:
        for rel in stale:
            print(f"stale: {rel}")
        return 1 if stale else 0
    print(f"wrote {len(stale)} file(s)" if stale else "everything up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
