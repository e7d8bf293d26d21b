"""Answers vector top-k from a cached float32 matrix instead of a Python call per row.

One matrix per indexed (table, column). Triggers created with the vector index stamp a random
version into ORA$VERSIONS on every write; the cache compares that stamp (read inside the
caller's snapshot, so its own uncommitted writes count) before each use and reloads on change.
That keeps it correct after INSERT/UPDATE/DELETE, commit, rollback and writes by other processes.
"""
from __future__ import annotations

import sqlite3

import numpy as np

from . import values as V
from .builtins import jaccard_needs_binary, vector_elements
from .catalog import stored_name
from .errors import EngineError


class _Matrix:
    __slots__ = ("version", "rowids", "matrix", "norms", "fmt")

    def __init__(self, version, rowids, matrix, norms, fmt):
        self.version, self.rowids, self.matrix, self.norms, self.fmt = version, rowids, matrix, norms, fmt


def _elements(blob: bytes) -> np.ndarray:
    """A vector's dimensions as float32: a BINARY vector's bits, one per dimension, as VECTOR_DISTANCE sees them
    (its bytes, eight dimensions each, would make HAMMING count differing bytes)."""
    return vector_elements(blob).astype(np.float32)


class VectorCache:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._entries: dict[tuple[str, str], _Matrix] = {}

    def _version(self, table: str) -> int | None:
        row = self.conn.execute('SELECT version FROM "ORA$VERSIONS" WHERE table_name = ?', (table,)).fetchone()
        return row[0] if row else None

    def matrix(self, table: str, column: str) -> _Matrix:
        version = self._version(table)
        entry = self._entries.get((table, column))
        if entry is not None and version is not None and entry.version == version:
            return entry
        rowids, blobs = [], []
        storage = stored_name(self.conn, table)
        for rowid, blob in self.conn.execute(f'SELECT rowid, CAST("{column}" AS BLOB) FROM "{storage}" '
                                             f'WHERE "{column}" IS NOT NULL'):
            rowids.append(rowid)
            blobs.append(blob)
        if blobs:
            dims = {V.vector_dimension(b) for b in blobs}
            if len(dims) != 1:
                raise EngineError(51808, f"vectors of different dimensions in {table}.{column}")
            fmt = V.vector_format(blobs[0])
            matrix = np.stack([_elements(b) for b in blobs])
        else:
            fmt, matrix = "FLOAT32", np.zeros((0, 0), dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) if len(matrix) else np.zeros(0, dtype=np.float32)
        entry = _Matrix(version, np.asarray(rowids, dtype=np.int64), matrix, norms, fmt)
        self._entries[(table, column)] = entry
        return entry

    def nearest(self, table: str, column: str, query_blob: bytes, metric: str):
        """A function take -> the `take` nearest rowids in distance order (exact), plus the row count."""
        entry = self.matrix(table, column)
        total = len(entry.rowids)
        if total == 0:
            return (lambda take: entry.rowids), 0
        q = _elements(query_blob)
        if metric.upper() == "JACCARD" and (entry.fmt != "BINARY" or V.vector_format(query_blob) != "BINARY"):
            raise jaccard_needs_binary(entry.fmt, V.vector_format(query_blob))
        if q.shape[0] != entry.matrix.shape[1]:
            raise EngineError(51808, f"Incorrect vector dimension number: {q.shape[0]} vs {entry.matrix.shape[1]}")
        distances = self.distances(entry, q, metric)

        def take_nearest(take: int) -> np.ndarray:
            if take >= total:
                return entry.rowids[np.argsort(distances, kind="stable")]
            part = np.argpartition(distances, take)[:take]
            return entry.rowids[part[np.argsort(distances[part], kind="stable")]]
        return take_nearest, total

    @staticmethod
    def distances(entry: _Matrix, q: np.ndarray, metric: str) -> np.ndarray:
        m = entry.matrix
        metric = metric.upper()
        if metric == "COSINE":
            qn = float(np.linalg.norm(q))
            if qn == 0.0:
                raise EngineError(51819, "Cosine distance is undefined for a zero vector")
            with np.errstate(divide="ignore", invalid="ignore"):
                return 1.0 - (m @ q) / (entry.norms * qn)
        if metric in ("DOT",):
            return -(m @ q)
        if metric == "INNER_PRODUCT":
            return m @ q
        if metric in ("EUCLIDEAN", "L2", "EUCLIDEAN_SQUARED", "L2_SQUARED"):
            return np.einsum("ij,ij->i", m - q, m - q)
        if metric in ("MANHATTAN", "L1"):
            return np.abs(m - q).sum(axis=1)
        if metric == "HAMMING":
            return (m != q).sum(axis=1).astype(np.float32)
        if metric == "JACCARD":
            both = m @ q
            either = (np.maximum(m, q)).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(either == 0, 0.0, 1.0 - both / either).astype(np.float32)
        raise EngineError(51964, f"Invalid or unsupported metric specified for VECTOR_DISTANCE ({metric})")
