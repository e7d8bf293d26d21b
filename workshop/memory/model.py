"""The in-database embedding model the memory stores use, and the LangChain object that calls it.

Embeddings are computed by the database (`VECTOR_EMBEDDING` / `DBMS_VECTOR_CHAIN`) with the model
named by `workshop.config.embedding_model_name()`: the text never leaves the database to be
embedded, and the query side uses the very same model as the stored side.
"""
from __future__ import annotations

import json

import oracledb
from langchain_oracledb import OracleEmbeddings

from workshop import config

#: The model this project builds and can load itself (the others, e.g. Oracle's prebuilt
#: ALL_MINILM_L12_V2, must be loaded by the DBA or `python -m workshop.setup`).
BUILDABLE_MODEL = "ALL_MINILM_L6_V2"


def model_loaded(conn: oracledb.Connection, model_name: str | None = None) -> bool:
    """True if USER_MINING_MODELS lists the model."""
    name = (model_name or config.embedding_model_name()).upper()
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_mining_models WHERE model_name = :name", name=name)
        return cur.fetchone()[0] > 0


def ensure_embedding_model_loaded(conn: oracledb.Connection) -> str:
    """Load the configured embedding model with DBMS_VECTOR.LOAD_ONNX_MODEL unless it is loaded; its name.

    Only ALL_MINILM_L6_V2 can be loaded from here (its ONNX file is built locally by
    workshop.models); any other configured model that is missing raises a RuntimeError that says
    how to load it.
    """
    name = config.embedding_model_name()
    if model_loaded(conn, name):
        return name
    if name != BUILDABLE_MODEL:
        raise RuntimeError(f"the embedding model {name} (EMBED_MODEL) is not loaded in this database; load it with "
                           "DBMS_VECTOR.LOAD_ONNX_MODEL, or unset EMBED_MODEL to use ALL_MINILM_L6_V2")
    from workshop import models
    path = models.ensure_embedding_model()
    with conn.cursor() as cur:
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :data, JSON(:meta)); END;",
                    name=name, data=path.read_bytes(), meta=json.dumps(models.embedding_metadata()))
    return name


def database_embeddings(conn: oracledb.Connection, model_name: str | None = None) -> OracleEmbeddings:
    """OracleEmbeddings with provider "database": LangChain asks the database to embed.

    Note: python-oracledb's global `oracledb.defaults.fetch_lobs` is set to False by
    OracleEmbeddings the first time it embeds (CLOBs are then fetched as str); the memory code
    accepts both forms (records.text_of).
    """
    return OracleEmbeddings(conn=conn, params={"provider": "database",
                                               "model": (model_name or config.embedding_model_name()).upper()})
