"""Tests for the authored workshop data sets: shape, integrity, labels and the lexical design.

The last group checks the property the golden set exists for: paraphrase queries share few
content words with the chunks that answer them (so keyword search cannot find them by
overlap), while exact-identifier queries carry a token that occurs verbatim in every chunk
that answers them (so keyword search can).
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter

import pytest

from workshop import data
from workshop.data import build, loaders

CHUNK_FIELDS = {
    "chunk_id": str, "doc_id": str, "seq": int, "title": str, "section": str,
    "section_type": str, "authors": list, "year": int, "collection": str, "tenant": str,
    "version": str, "is_current": bool, "text": str,
}
ARXIV_ID = re.compile(r"^(2[3-5])(0[1-9]|1[0-2])\.\d{5}$")


@pytest.fixture(scope="module")
def documents():
    return data.load_documents()


@pytest.fixture(scope="module")
def chunks():
    return data.load_chunks()


@pytest.fixture(scope="module")
def papers():
    return data.load_papers()


@pytest.fixture(scope="module")
def chunk_queries():
    return data.load_golden_queries("chunks")


@pytest.fixture(scope="module")
def paper_queries():
    return data.load_golden_queries("papers")


# --------------------------------------------------------------------------- counts, ids


def test_minimum_sizes(documents, chunks, papers, chunk_queries, paper_queries):
    assert len(documents) >= 32
    assert len(chunks) >= 220
    assert len(papers) >= 160
    assert len(chunk_queries) >= 40
    assert len(paper_queries) >= 15


def test_ids_are_unique(documents, chunks, papers, chunk_queries, paper_queries):
    for rows, key in ((documents, "doc_id"), (chunks, "chunk_id"), (papers, "arxiv_id"),
                      (chunk_queries + paper_queries, "query_id")):
        ids = [r[key] for r in rows]
        duplicates = [i for i, n in Counter(ids).items() if n > 1]
        assert not duplicates, f"duplicate {key}: {duplicates}"


def test_chunk_ids_encode_document_and_position(chunks):
    for c in chunks:
        assert c["chunk_id"] == f"{c['doc_id']}-C{c['seq']:02d}"
        assert re.fullmatch(r"DOC\d{2}", c["doc_id"])


# --------------------------------------------------------------------------- corpus


def test_every_chunk_has_every_field_with_allowed_values(chunks):
    for c in chunks:
        assert set(c) == set(CHUNK_FIELDS), c["chunk_id"]
        for field, kind in CHUNK_FIELDS.items():
            assert isinstance(c[field], kind), (c["chunk_id"], field)
        assert c["section_type"] in data.SECTION_TYPES, c["chunk_id"]
        assert c["collection"] in data.COLLECTIONS, c["chunk_id"]
        assert c["tenant"] in data.TENANTS, c["chunk_id"]
        assert re.fullmatch(r"\d+\.\d+", c["version"]), c["chunk_id"]
        assert 2020 <= c["year"] <= 2026
        assert c["authors"] and all(isinstance(a, str) and a for a in c["authors"])
        assert c["title"] and c["section"]


def test_chunk_word_counts_are_in_range(chunks):
    counts = {c["chunk_id"]: len(c["text"].split()) for c in chunks}
    outside = {cid: n for cid, n in counts.items() if not 60 <= n <= 180}
    assert not outside, outside


def test_chunks_inherit_their_document_metadata(documents, chunks):
    by_id = {d["doc_id"]: d for d in documents}
    per_doc = Counter(c["doc_id"] for c in chunks)
    for c in chunks:
        doc = by_id[c["doc_id"]]
        for field in ("title", "authors", "year", "collection", "tenant", "version"):
            assert c[field] == doc[field], (c["chunk_id"], field)
        assert c["is_current"] == (doc["superseded_by"] is None)
    for d in documents:
        assert d["chunk_count"] == per_doc[d["doc_id"]] > 0


def test_tenants_collections_and_section_types_are_all_used(documents, chunks):
    tenants = Counter(d["tenant"] for d in documents)
    assert set(tenants) == set(data.TENANTS)
    assert tenants.most_common(1)[0][0] == "acme"
    assert tenants["acme"] > len(documents) / 2
    assert {d["collection"] for d in documents} == set(data.COLLECTIONS)
    assert len({c["section_type"] for c in chunks}) >= 10


def test_some_documents_exist_in_two_tenants_as_different_versions(documents):
    by_title: dict[str, list[dict]] = {}
    for d in documents:
        by_title.setdefault(d["title"], []).append(d)
    cross_tenant = [ds for ds in by_title.values()
                    if len({d["tenant"] for d in ds}) > 1 and len({d["version"] for d in ds}) > 1]
    assert len(cross_tenant) >= 2


def test_supersession_is_within_a_tenant_and_newer(documents):
    by_id = {d["doc_id"]: d for d in documents}
    pairs = [(d, by_id[d["supersedes"]]) for d in documents if d["supersedes"]]
    assert pairs, "at least one document must supersede an older version"
    for new, old in pairs:
        assert old["superseded_by"] == new["doc_id"]
        assert new["tenant"] == old["tenant"] and new["title"] == old["title"]
        assert float(new["version"]) > float(old["version"]) and new["year"] >= old["year"]


def test_superseded_retention_facts_really_differ(chunks):
    text = {c["chunk_id"]: c["text"] for c in chunks}
    assert "memkeeper.episodic.retention_days = 90" in text["DOC28-C02"]
    assert "memkeeper.episodic.retention_days = 30" in text["DOC29-C02"]


@pytest.mark.parametrize("identifier", [
    "ORA-51805", "ORA-51962", "ORA-51803", "DRG-10599", "ORA-00942", "PLS-00201",
    "vector_memory_size", "23.26.0", "DBMS_VECTOR.LOAD_ONNX_MODEL", "EFCONSTRUCTION",
    "NEIGHBORS", "DBMS_HYBRID_VECTOR.SEARCH", "GRAPH_TABLE", "DBMS_RLS.ADD_POLICY",
    "UTL_TO_CHUNKS", "MK-4012", "lattice.chunk.max_words",
])
def test_exact_identifiers_appear_in_the_corpus(chunks, identifier):
    hits = [c["chunk_id"] for c in chunks if identifier.lower() in c["text"].lower()]
    assert hits, identifier


def test_loader_filters(chunks):
    globex = data.load_chunks(tenant="globex")
    assert globex and {c["tenant"] for c in globex} == {"globex"}
    current = data.load_chunks(current_only=True)
    assert len(current) < len(chunks) and all(c["is_current"] for c in current)
    assert {d["tenant"] for d in data.load_documents(tenant="initech")} == {"initech"}
    with pytest.raises(ValueError, match="unknown tenant 'hooli'"):
        data.load_chunks(tenant="hooli")
    with pytest.raises(ValueError, match="unknown golden corpus 'docs'"):
        data.load_golden_queries("docs")  # type: ignore[arg-type]


def test_loaders_return_fresh_objects():
    first = data.load_chunks()
    first[0]["text"] = "mutated"
    assert data.load_chunks()[0]["text"] != "mutated"


# --------------------------------------------------------------------------- papers


def test_paper_records_have_arxiv_shape(papers):
    for p in papers:
        assert ARXIV_ID.match(p["arxiv_id"]), p["arxiv_id"]
        yymm = p["arxiv_id"][:4]
        assert p["published"][2:4] + p["published"][5:7] == yymm, p["arxiv_id"]
        assert p["primary_subject"] in data.PRIMARY_SUBJECTS
        assert 60 <= len(p["abstract"].split()) <= 150, p["arxiv_id"]
        assert 150 <= len(p["text"].split()) <= 400, p["arxiv_id"]
        assert p["abstract"] in p["text"]
        assert p["title"] and p["authors"]
        assert len(p["authors"]) == len(p["author_ids"]) == len(set(p["author_ids"]))


def test_author_pool_and_graph_edges(papers):
    authors = data.load_authors()
    assert 55 <= len(authors) <= 70
    assert len({a["name"] for a in authors}) == len(authors)
    names = {a["author_id"]: a["name"] for a in authors}
    edges = data.authorship_edges()
    assert len(edges) == len(set(edges)) == sum(len(p["author_ids"]) for p in papers)
    per_author = Counter(aid for aid, _ in edges)
    assert set(per_author) == set(names)
    assert all(2 <= n <= 8 for n in per_author.values()), per_author
    for a in authors:
        assert a["paper_count"] == per_author[a["author_id"]]
    for p in papers:
        assert p["authors"] == [names[aid] for aid in p["author_ids"]]
    # Shared-author hops exist: most papers reach another paper through an author.
    by_author: dict[str, set[str]] = {}
    for aid, pid in edges:
        by_author.setdefault(aid, set()).add(pid)
    connected = {pid for pids in by_author.values() if len(pids) > 1 for pid in pids}
    assert len(connected) == len(papers)


def test_paper_ids_are_stable_across_builds(papers):
    rebuilt, _ = build.build_papers(loaders.DATA_DIR / "papers" / "src")
    assert [p["arxiv_id"] for p in rebuilt] == [p["arxiv_id"] for p in papers]


# --------------------------------------------------------------------------- golden sets


def test_chunk_judgements_reference_current_chunks_of_the_query_tenant(chunks, chunk_queries):
    by_id = {c["chunk_id"]: c for c in chunks}
    for q in chunk_queries:
        assert q["tenant"] in data.TENANTS, q["query_id"]
        assert q["intent"] in data.INTENTS, q["query_id"]
        assert q["relevance"] and any(g == 3 for g in q["relevance"].values()), q["query_id"]
        for cid, grade in q["relevance"].items():
            assert cid in by_id, (q["query_id"], cid)
            assert by_id[cid]["tenant"] == q["tenant"], (q["query_id"], cid)
            assert by_id[cid]["is_current"], (q["query_id"], cid)
            assert grade in (1, 2, 3), (q["query_id"], cid)
        for cid in q["traps"]:
            assert cid in by_id and cid not in q["relevance"], (q["query_id"], cid)
            trap = by_id[cid]
            assert trap["tenant"] != q["tenant"] or not trap["is_current"], (q["query_id"], cid)


def test_every_intent_is_represented(chunk_queries, paper_queries):
    intents = Counter(q["intent"] for q in chunk_queries)
    assert intents["exact-identifier"] >= 10 and intents["paraphrase"] >= 10
    assert intents["mixed"] >= 10 and intents["multi-hop"] >= 3
    assert {q["tenant"] for q in chunk_queries} == set(data.TENANTS)
    assert any(q["traps"] for q in chunk_queries if q["tenant"] != "acme")
    assert {q["intent"] for q in paper_queries} >= {"exact-identifier", "paraphrase", "multi-hop"}


def test_paper_judgements_reference_existing_papers(papers, paper_queries):
    ids = {p["arxiv_id"] for p in papers}
    for q in paper_queries:
        assert q["tenant"] is None
        assert q["intent"] in data.INTENTS
        assert q["relevance"] and set(q["relevance"]) <= ids, q["query_id"]
        assert all(g in (1, 2, 3) for g in q["relevance"].values())


def test_graph_hop_judgements_match_the_authorship_graph(papers, paper_queries):
    authors_of = {p["arxiv_id"]: set(p["author_ids"]) for p in papers}
    hops = [q for q in paper_queries if q["intent"] == "multi-hop"]
    assert len(hops) >= 2
    for q in hops:
        seed = q["seed"]
        expected = {}
        for pid, aids in authors_of.items():
            shared = len(aids & authors_of[seed])
            if pid != seed and shared:
                expected[pid] = 3 if shared >= 2 else 2
        assert q["relevance"] == expected, q["query_id"]


# --------------------------------------------------------------------------- lexical design

_STOPWORDS = set("""a an the of to in on for and or is are be by with what how do does i we our
it its this that when which why after from as at can should my me you your there their was were
has have had not no than then so if into about per any all more most much many each one two been
being who whom would could will just also only very while she her he his they them us""".split())


def _content_words(text: str) -> set[str]:
    """Lower-cased alphanumeric tokens minus stopwords, with a crude suffix stemmer."""
    words = set()
    for token in re.findall(r"[a-z0-9]+", text.lower()):
        if len(token) < 2 or token in _STOPWORDS:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if len(token) > len(suffix) + 3 and token.endswith(suffix):
                token = token[: -len(suffix)]
                break
        words.add(token)
    return words


def _documents_by_id(chunks, papers) -> dict[str, str]:
    out = {c["chunk_id"]: c["text"] for c in chunks}
    out.update({p["arxiv_id"]: p["title"] + " " + p["abstract"] for p in papers})
    return out


def test_paraphrase_queries_share_few_words_with_their_answers(chunks, papers, chunk_queries,
                                                               paper_queries):
    """At most a third of a paraphrase query's content words occur in any relevant item."""
    text = _documents_by_id(chunks, papers)
    paraphrases = [q for q in chunk_queries + paper_queries if q["intent"] == "paraphrase"]
    assert len(paraphrases) >= 15
    for q in paraphrases:
        query_words = _content_words(q["query"])
        assert len(query_words) >= 5, q["query_id"]
        for item, grade in q["relevance"].items():
            if grade < 2:
                continue
            item_words = _content_words(text[item])
            shared = query_words & item_words
            coverage = len(shared) / len(query_words)
            jaccard = len(shared) / len(query_words | item_words)
            assert coverage <= 0.34 and jaccard <= 0.08, (q["query_id"], item, sorted(shared))


_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+|[A-Z][A-Z0-9_]{4,}")


def test_exact_identifier_queries_carry_a_token_found_in_their_answers(chunks, papers,
                                                                       chunk_queries):
    """Every grade-3 chunk contains one of the query's identifier-shaped tokens verbatim."""
    text = _documents_by_id(chunks, papers)
    exact = [q for q in chunk_queries if q["intent"] == "exact-identifier"]
    assert len(exact) >= 10
    for q in exact:
        tokens = _IDENTIFIER.findall(q["query"])
        assert tokens, f"{q['query_id']} has no identifier-shaped token"
        for item, grade in q["relevance"].items():
            if grade == 3:
                assert any(t.lower() in text[item].lower() for t in tokens), (q["query_id"], item)
        # ... and the identifier is rare: it points at a handful of the tenant's chunks.
        holders = [c["chunk_id"] for c in chunks if c["tenant"] == q["tenant"]
                   and any(t.lower() in c["text"].lower() for t in tokens)]
        assert len(holders) <= 15, (q["query_id"], len(holders))


# --------------------------------------------------------------------------- integrity


def test_manifest_matches_shipped_files():
    data.verify_manifest()
    manifest = data.load_manifest()
    assert manifest["data_version"] == data.DATA_VERSION
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((loaders.DATA_DIR / rel).read_bytes()).hexdigest() == digest


def test_manifest_detects_an_edited_file(tmp_path, monkeypatch):
    copy = tmp_path / "data"
    shutil.copytree(loaders.DATA_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "src"))
    target = copy / "golden" / "queries.jsonl"
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    rows[0]["relevance"] = {}
    target.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(loaders, "DATA_DIR", copy)
    with pytest.raises(data.DataIntegrityError, match="golden/queries.jsonl"):
        data.verify_manifest()


def test_generated_files_are_up_to_date_with_their_sources():
    """Rebuilding from corpus/src and papers/src reproduces the committed files byte for byte."""
    for rel, text in build.render().items():
        assert (loaders.DATA_DIR / rel).read_text(encoding="utf-8") == text, rel


def test_builder_rejects_a_malformed_source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "DOC01.md").write_text(
        "---\ndoc_id: DOC01\ntitle: T\nauthors: A\nyear: 2025\ncollection: blog\n"
        "tenant: acme\nversion: 1.0\n---\n\n## C02 [body] Out of order\ntext\n",
        encoding="utf-8")
    with pytest.raises(build.SourceError, match="C02 is out of sequence"):
        build.build_corpus(src)
