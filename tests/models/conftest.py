"""Session fixtures: each 90 MB model is built (or taken from the models_dir() cache) once per session.

xdist workers may build the same file at the same time; the cache writes atomically, so that is safe.
"""
from __future__ import annotations

import pytest

from models_reference import ReferenceBert, WordPieceTokenizer
from workshop.models import (ensure_cosine_reranker_model, ensure_embedding_model, ensure_reranker_model, load_model,
                             reranker_metadata)
from workshop.models.embedding_model import minilm_folder


@pytest.fixture(scope="session")
def minilm_dir():
    return minilm_folder()


@pytest.fixture(scope="session")
def embedding_path():
    return ensure_embedding_model()


@pytest.fixture(scope="session")
def embedder(embedding_path):
    return load_model("ALL_MINILM_L6_V2", embedding_path.read_bytes(), None)


@pytest.fixture(scope="session")
def reranker_path():
    return ensure_reranker_model()


@pytest.fixture(scope="session")
def reranker(reranker_path):
    return load_model("RERANKER", reranker_path.read_bytes(), reranker_metadata())


@pytest.fixture(scope="session")
def cosine_reranker_path():
    return ensure_cosine_reranker_model()


@pytest.fixture(scope="session")
def cosine_reranker(cosine_reranker_path):
    return load_model("RERANKER_COSINE", cosine_reranker_path.read_bytes(), reranker_metadata())


@pytest.fixture(scope="session")
def reference_minilm(minilm_dir):
    return WordPieceTokenizer.from_folder(minilm_dir), ReferenceBert(minilm_dir)
