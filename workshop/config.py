"""Settings read from the environment, in one place, so every module agrees on paths and names."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def state_dir() -> Path:
    """Ignored folder for everything the project generates (embedded DB, built models)."""
    return Path(os.environ.get("WORKSHOP_STATE_DIR", PROJECT_ROOT / ".state"))


def embedded_db_path() -> Path:
    """The embedded engine's SQLite file (`WORKSHOP_EMBEDDED_DB` overrides)."""
    explicit = os.environ.get("WORKSHOP_EMBEDDED_DB")
    return Path(explicit) if explicit else state_dir() / "embedded" / "workshop.db"


def working_copy_dir() -> Path:
    """The learner's own copy of the notebooks, `my-notebooks/` (git-ignored; `WORKSHOP_MY_NOTEBOOKS` overrides):
    the tracked `notebooks/` stay as the build made them, so saving a notebook never changes a tracked file."""
    explicit = os.environ.get("WORKSHOP_MY_NOTEBOOKS")
    return Path(explicit) if explicit else PROJECT_ROOT / "my-notebooks"


def models_dir() -> Path:
    """Cache folder for the ONNX files the model builders produce."""
    return state_dir() / "models"


def oracle_dsn() -> str | None:
    """`ORACLE_DSN` selects the real database; unset means the embedded engine."""
    return os.environ.get("ORACLE_DSN") or None


def embedding_model_name() -> str:
    """Name of the in-database embedding model (Oracle's prebuilt L12 may be chosen on Oracle)."""
    return os.environ.get("EMBED_MODEL", "ALL_MINILM_L6_V2").upper()


def reranker_model_name() -> str:
    return os.environ.get("RERANK_MODEL", "RERANKER").upper()
