"""The authored knowledge-base rows (workshop/data/kb/) are coherent, and the manifest guards them."""
import shutil

import pytest

from workshop import data
from workshop.data import COLLECTIONS, SECTION_TYPES, TENANTS, load_chunks, load_documents
from workshop.data.loaders import load_kb_chunks, load_kb_documents


def test_authored_rows_refer_to_known_documents_and_vocabularies():
    corpus = {d["doc_id"]: d for d in load_documents()}
    new = {d["id"]: d for d in load_kb_documents() if not d["from_corpus"]}
    assert all(d["id"] in corpus for d in load_kb_documents() if d["from_corpus"])
    assert not set(new) & set(corpus)
    assert all(d["tenant_id"] in TENANTS and d["collection"] in COLLECTIONS for d in new.values())
    chunk_ids = [c["id"] for c in load_kb_chunks()]
    assert len(set(chunk_ids)) == len(chunk_ids) and not set(chunk_ids) & {c["chunk_id"] for c in load_chunks()}
    for chunk in load_kb_chunks():
        owner = new.get(chunk["document_id"]) or corpus[chunk["document_id"]]
        assert chunk["tenant_id"] == owner.get("tenant_id", owner.get("tenant"))
        assert chunk["section_type"] in SECTION_TYPES


def test_the_cases_the_pipeline_must_filter_are_all_there():
    documents = load_kb_documents()
    assert {d["user_id"] for d in documents if d["user_id"]} == {"jane", "omar"}
    assert any(d["deleted_at"] for d in documents) and any(d["valid_until"] for d in documents)
    assert any(c["deleted_at"] for c in load_kb_chunks())
    assert any(d.get("tenant_id") == "globex" for d in documents)
    references = [c for c in load_kb_chunks() if c["section_type"] == "references"]
    assert len(references) >= 3 and all(c["content"].lower().count("memkeeper") >= 3 for c in references)


def test_the_manifest_detects_an_edited_kb_file(tmp_path, monkeypatch):
    copy = tmp_path / "data"
    shutil.copytree(data.DATA_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "src"))
    data.verify_manifest()
    (copy / "kb" / "chunks.jsonl").write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr("workshop.data.loaders.DATA_DIR", copy)
    with pytest.raises(data.DataIntegrityError, match="kb/chunks.jsonl"):
        data.verify_manifest()
