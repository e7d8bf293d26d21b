"""Read side of a text index, with per-process caches that are never stale across processes.

Each index row in ORA$TEXT_INDEXES carries a random ``generation`` that every index change replaces
(in the same transaction as the change). A search reads it first; cached postings and vocabulary
are reused only while it is unchanged. Random values (not counters) keep a rolled-back change from
ever matching a later one.
"""
from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from .errors import TextQueryError
from .expand import Vocabulary
from .storage import META, TextIndexInfo, q, shadow

_MAX_TOKENS = 2048          # cached posting lists per index
_MAX_POSITION_LISTS = 512   # cached position lists per index


@dataclass
class _Entry:
    generation: str
    ndocs: int
    vocabulary: Vocabulary | None = None
    postings: OrderedDict = field(default_factory=OrderedDict)
    positions: OrderedDict = field(default_factory=OrderedDict)


_MAX_INDEXES = 32          # cached indexes per process (least recently used are dropped)
_CACHE: OrderedDict[tuple[str, str], _Entry] = OrderedDict()
_LOCK = threading.Lock()


def clear_caches() -> None:
    """Forget every cached posting list and vocabulary (benchmarks measure cold queries with it)."""
    with _LOCK:
        _CACHE.clear()


def _database_key(conn: sqlite3.Connection) -> str:
    path = conn.execute("PRAGMA database_list").fetchone()[2]
    return path if path else f"memory:{id(conn)}"


class IndexReader:
    """Postings, positions, vocabulary and document lengths of one index, as of this statement."""

    def __init__(self, conn: sqlite3.Connection, info: TextIndexInfo):
        self.conn = conn
        self.info = info
        self.stopwords = info.stopwords
        row = conn.execute(f"SELECT generation, ndocs FROM {q(META)} WHERE index_name = ?",
                           (info.index_name,)).fetchone()
        if row is None:
            raise TextQueryError(10502, f"DRG-10502: index {info.index_name} does not exist")
        generation, ndocs = row
        key = (_database_key(conn), info.index_name.upper())
        with _LOCK:
            entry = _CACHE.get(key)
            if entry is None or entry.generation != generation:
                entry = _Entry(generation, ndocs)
                _CACHE[key] = entry
                if len(_CACHE) > _MAX_INDEXES:
                    _CACHE.popitem(last=False)
            else:
                _CACHE.move_to_end(key)
        self._entry = entry
        self.ndocs = ndocs
        self._i = shadow(info.index_name, "I")

    def postings(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """(rowids ascending, term frequencies) of the documents containing `token`."""
        cache = self._entry.postings
        hit = cache.get(token)
        if hit is not None:
            cache.move_to_end(token)
            return hit
        rows = self.conn.execute(f"SELECT rid, freq FROM {self._i} WHERE token = ? ORDER BY rid", (token,)).fetchall()
        if rows:
            rid_list, freq_list = zip(*rows)
            hit = (np.array(rid_list, dtype=np.int64), np.array(freq_list, dtype=np.int64))
        else:
            hit = (np.empty(0, np.int64), np.empty(0, np.int64))
        with _LOCK:
            cache[token] = hit
            if len(cache) > _MAX_TOKENS:
                cache.popitem(last=False)
        return hit

    def positions(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """One entry per occurrence: (rowid, word position), sorted by rowid then position."""
        cache = self._entry.positions
        hit = cache.get(token)
        if hit is not None:
            cache.move_to_end(token)
            return hit
        rows = self.conn.execute(f"SELECT rid, freq, pos FROM {self._i} WHERE token = ? ORDER BY rid",
                                 (token,)).fetchall()
        if rows:
            rid_list, freq_list, blobs = zip(*rows)
            rids = np.array(rid_list, dtype=np.int64)
            freqs = np.array(freq_list, dtype=np.int64)
            pos = np.frombuffer(b"".join(blobs), dtype="<u4").astype(np.int64)
            hit = (np.repeat(rids, freqs), pos)
        else:
            hit = (np.empty(0, np.int64), np.empty(0, np.int64))
        with _LOCK:
            cache[token] = hit
            if len(cache) > _MAX_POSITION_LISTS:
                cache.popitem(last=False)
        return hit

    @property
    def vocabulary(self) -> Vocabulary:
        if self._entry.vocabulary is None:
            rows = self.conn.execute(f"SELECT token, df FROM {shadow(self.info.index_name, 'V')} ORDER BY token").fetchall()
            vocab = Vocabulary([r[0] for r in rows], [r[1] for r in rows])
            with _LOCK:
                self._entry.vocabulary = vocab
        return self._entry.vocabulary

    def doc_lengths(self, rids: np.ndarray) -> np.ndarray:
        """Number of word positions of each document in `rids` (0 for documents not in the index)."""
        out = np.zeros(len(rids), dtype=np.int64)
        k_tab = shadow(self.info.index_name, "K")
        where = {int(r): i for i, r in enumerate(rids)}
        ids = list(where)
        for start in range(0, len(ids), 900):
            chunk = ids[start:start + 900]
            marks = ",".join("?" * len(chunk))
            for rid, n in self.conn.execute(f"SELECT rid, ntokens FROM {k_tab} WHERE rid IN ({marks})", chunk):
                out[where[rid]] = n
        return out
