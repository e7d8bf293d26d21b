"""DBMS_VECTOR_CHAIN.CREATE_PREFERENCE / DROP_PREFERENCE: vectorizer preferences.

A vectorizer preference (Oracle AI Vector Search User's Guide, "CREATE_PREFERENCE") is a named JSON
object holding the embedding model, the chunking parameters (as for UTL_TO_CHUNKS) and the vector
index parameters (distance, accuracy, vector_idxtype) that CREATE HYBRID VECTOR INDEX ...
PARAMETERS('VECTORIZER <name>') uses. The only preference type is DBMS_VECTOR_CHAIN.VECTORIZER.

Validation follows the documented value lists and ranges; a documented value the engine cannot
honour (vocabulary chunking, custom split lists, normalization, third-party embedders) raises
ORA-03001 naming it. Preferences are Oracle Text preferences underneath, so a missing or duplicate
name gives DRG-10700 / DRG-10701 inside ORA-20000, as CTX_DDL does.
"""
from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from ..errors import EngineError
from ..translate import unsupported

TABLE = "ORA$VECTORIZER_PREFERENCES"
BOOTSTRAP = [f'CREATE TABLE IF NOT EXISTS "{TABLE}" (pref_name TEXT PRIMARY KEY, pref_type TEXT NOT NULL, '
             f'params TEXT NOT NULL, created TEXT NOT NULL DEFAULT (datetime(\'now\')))']

VECTORIZER = "VECTORIZER"

CHUNK_KEYS = ("by", "max", "overlap", "split", "custom_list", "vocabulary", "language", "normalize",
              "norm_options", "extended")
INDEX_KEYS = ("distance", "accuracy", "vector_idxtype")
KNOWN_KEYS = ("model", "embedder_spec") + CHUNK_KEYS + INDEX_KEYS

#: Distances the docs list for hybrid vector indexes (HAMMING and JACCARD are excluded there).
DISTANCES = ("COSINE", "MANHATTAN", "DOT", "EUCLIDEAN", "L2_SQUARED", "EUCLIDEAN_SQUARED")
#: Units and ranges of `max` by chunking mode (CREATE_PREFERENCE, "Chunking Parameters").
MAX_RANGES = {"words": (10, 1000), "characters": (50, 4000), "chars": (50, 4000), "vocabulary": (10, 1000)}
SPLITS = ("none", "newline", "blankline", "space", "recursively", "sentence", "custom")
LANGUAGES = ("american", "english", "us")


def text_error(drg: str) -> EngineError:
    return EngineError(20000, f"Oracle Text error:\n{drg}")


def invalid(detail: str) -> EngineError:
    return text_error(f"DRG-50857: oracle error in vectorizer preference: {detail}")


def preference_name(raw: Any) -> str:
    if raw is None or not str(raw).strip():
        raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'CREATE_PREFERENCE'")
    text = str(raw).strip()
    if text.startswith('"') and text.endswith('"') and len(text) > 2:
        return text[1:-1]
    if not re.fullmatch(r"[A-Za-z][\w$#]{0,127}", text):
        raise text_error(f"DRG-10702: invalid preference name: {text}")
    return text.upper()


@dataclass(frozen=True)
class Vectorizer:
    """A validated vectorizer: the model and how to chunk and index (defaults filled in)."""
    model: str | None
    chunking: dict
    distance: str = "COSINE"
    accuracy: int | None = None
    vector_idxtype: str = "IVF"

    def as_json(self) -> dict:
        out = {**({"model": self.model} if self.model else {}), **self.chunking, "distance": self.distance,
               "vector_idxtype": self.vector_idxtype}
        if self.accuracy is not None:
            out["accuracy"] = self.accuracy
        return out


def _integer(params: dict, key: str) -> int:
    value = params[key]
    if isinstance(value, bool):
        raise invalid(f"{key} must be a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise invalid(f"{key} must be a number, not {value!r}") from None
    if not number.is_integer():
        raise invalid(f"{key} must be an integer, not {value!r}")
    return int(number)


def validate(params: Any) -> Vectorizer:
    """The PARAMS JSON of a VECTORIZER preference -> Vectorizer; Oracle's value rules enforced."""
    if params is None:
        params = {}
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except ValueError:
            raise EngineError(40441, "JSON syntax error") from None
    if not isinstance(params, dict):
        raise invalid("PARAMS must be a JSON object")
    lowered: dict[str, Any] = {}
    for key, value in params.items():
        k = str(key).lower()
        if k not in KNOWN_KEYS:
            raise invalid(f"unknown parameter {key}")
        lowered[k] = value
    params = lowered
    if "embedder_spec" in params:
        raise unsupported("vectorizer parameter embedder_spec (hybrid vector indexes use in-database ONNX models)")
    model = None
    if "model" in params:
        if not isinstance(params["model"], str) or not params["model"].strip():
            raise invalid("model must be a model name")
        model = params["model"].strip()
        model = model[1:-1] if model.startswith('"') and model.endswith('"') else model.upper()
    by = str(params.get("by", "words")).lower()
    if by not in MAX_RANGES:
        raise invalid(f"by must be words, characters, chars or vocabulary, not {params.get('by')!r}")
    if by == "vocabulary" or "vocabulary" in params:
        raise unsupported("vectorizer chunking by vocabulary")
    size = _integer(params, "max") if "max" in params else 100
    low, high = MAX_RANGES[by]
    if not low <= size <= high:
        raise invalid(f"max {size} is outside {low}..{high} for by {by}")
    overlap = _integer(params, "overlap") if "overlap" in params else 0
    if overlap < 0 or (overlap and not 0.05 * size <= overlap <= 0.2 * size):
        raise invalid(f"overlap {overlap} must be 0 or 5% to 20% of max ({size})")
    split = str(params.get("split", "recursively")).lower()
    if split not in SPLITS:
        raise invalid(f"split must be one of {', '.join(SPLITS)}, not {params.get('split')!r}")
    if split == "custom" or "custom_list" in params:
        raise unsupported("vectorizer split custom (custom_list)")
    if split == "sentence" and by in ("characters", "chars"):
        raise invalid("split sentence is only valid when splitting by words or vocabulary")
    normalize = str(params.get("normalize", "none")).lower()
    if normalize not in ("none", "all", "options"):
        raise invalid(f"normalize must be none, all or options, not {params.get('normalize')!r}")
    if normalize != "none" or "norm_options" in params:
        raise unsupported(f"vectorizer normalize {normalize}")
    if "language" in params and str(params["language"]).lower() not in LANGUAGES:
        raise unsupported(f"vectorizer language {params['language']}")
    if "extended" in params and not isinstance(params["extended"], bool):
        raise invalid("extended must be true or false")
    distance = str(params.get("distance", "COSINE")).upper()
    if distance in ("HAMMING", "JACCARD"):
        raise invalid(f"distance {distance} is not supported with hybrid vector indexes")
    if distance not in DISTANCES:
        raise EngineError(51806, f"invalid vector distance metric {distance}")
    accuracy = None
    if "accuracy" in params:
        accuracy = _integer(params, "accuracy")
        if not 0 < accuracy <= 100:
            raise invalid(f"accuracy {accuracy} must be > 0 and <= 100")
    idxtype = str(params.get("vector_idxtype", "IVF")).upper()
    if idxtype not in ("HNSW", "IVF"):
        raise invalid(f"vector_idxtype must be HNSW or IVF, not {params.get('vector_idxtype')!r}")
    chunking = {"by": by, "max": size, "overlap": overlap, "split": split}
    if "language" in params:
        chunking["language"] = str(params["language"]).lower()
    return Vectorizer(model, chunking, distance, accuracy, idxtype)


def create(db: sqlite3.Connection, name: Any, pref_type: Any, params: Any) -> None:
    pref = preference_name(name)
    if pref_type is None or str(pref_type).upper().replace("DBMS_VECTOR_CHAIN.", "") != VECTORIZER:
        raise text_error(f"DRG-10706: invalid preference type: {pref_type}")
    vectorizer = validate(params)
    if db.execute(f'SELECT 1 FROM "{TABLE}" WHERE pref_name = ?', (pref,)).fetchone():
        raise text_error(f"DRG-10701: preference {pref} already exists")
    db.execute(f'INSERT INTO "{TABLE}" (pref_name, pref_type, params) VALUES (?, ?, ?)',
               (pref, VECTORIZER, json.dumps(vectorizer.as_json())))


def drop(db: sqlite3.Connection, name: Any) -> None:
    pref = preference_name(name)
    if db.execute(f'DELETE FROM "{TABLE}" WHERE pref_name = ?', (pref,)).rowcount == 0:
        raise text_error(f"DRG-10700: preference does not exist: {pref}")


def load(db: sqlite3.Connection, name: str) -> Vectorizer:
    pref = preference_name(name)
    row = db.execute(f'SELECT params FROM "{TABLE}" WHERE pref_name = ?', (pref,)).fetchone()
    if row is None:
        raise text_error(f"DRG-10700: preference does not exist: {pref}")
    return validate(json.loads(row[0]))
