"""In-database models for the embedded engine: DBMS_VECTOR.LOAD_ONNX_MODEL / DROP_ONNX_MODEL,
USER_MINING_MODELS, VECTOR_EMBEDDING and PREDICTION (batched per statement), and the
DBMS_VECTOR_CHAIN helpers langchain-oracledb's database provider calls (UTL_TO_EMBEDDING(S),
UTL_TO_CHUNKS).

Batching: a statement's model calls are computed before it runs. Inputs that are binds or
literals are gathered from every row of an executemany; inputs that read columns are gathered by
a first pass of the statement (inside a savepoint, rolled back) in which the model returns
placeholders; one batched model call then fills a cache the real pass reads.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import values as V
from .catalog import bump_ddl_version
from .errors import EngineError
from .translate import unsupported

if TYPE_CHECKING:
    from .hooks import EngineAPI as Engine
    from .translate import Plan

CATALOG = [
    # The model bytes live in their own table: a 90 MB BLOB in the same row would make every lookup of
    # a model's name or digest walk its overflow pages.
    """CREATE TABLE IF NOT EXISTS "ORA$MODEL_CATALOG" (model_name TEXT PRIMARY KEY, mining_function TEXT NOT NULL,
        metadata TEXT, sha256 TEXT, created TEXT, attributes TEXT, model_card TEXT, model_size INTEGER)""",
    """CREATE TABLE IF NOT EXISTS "ORA$MODEL_DATA" (model_name TEXT PRIMARY KEY, model_data BLOB NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS "ORA$DIRECTORIES" (directory_name TEXT PRIMARY KEY, directory_path TEXT NOT NULL)""",
]

VIEWS = {
    "USER_MINING_MODELS": """SELECT model_name AS MODEL_NAME, upper(mining_function) AS MINING_FUNCTION,
        'ONNX' AS ALGORITHM, 'NATIVE' AS ALGORITHM_TYPE, created AS CREATION_DATE, 0 AS BUILD_DURATION,
        model_size AS MODEL_SIZE, 'NO' AS PARTITIONED, model_card AS COMMENTS FROM "ORA$MODEL_CATALOG\"""",
    "ALL_MINING_MODELS": """SELECT 'WORKSHOP' AS OWNER, model_name AS MODEL_NAME, upper(mining_function) AS MINING_FUNCTION,
        'ONNX' AS ALGORITHM, created AS CREATION_DATE, model_size AS MODEL_SIZE FROM "ORA$MODEL_CATALOG\"""",
    "USER_MINING_MODEL_ATTRIBUTES": """SELECT m.model_name AS MODEL_NAME, j.value AS ATTRIBUTE_NAME,
        'TEXT' AS ATTRIBUTE_TYPE, 'VARCHAR2' AS DATA_TYPE, 'NO' AS TARGET FROM "ORA$MODEL_CATALOG" m,
        json_each(m.attributes) j""",
    "ALL_DIRECTORIES": """SELECT 'SYS' AS OWNER, directory_name AS DIRECTORY_NAME, directory_path AS DIRECTORY_PATH
        FROM "ORA$DIRECTORIES\"""",
}

#: (sha256, metadata) -> LoadedModel, shared by every engine of the process. A late-interaction model
#: keeps its passage token-state cache on this object, so the cache is keyed by the model's bytes.
_LOADED: dict[tuple[str, str], Any] = {}
_LOAD_LOCK = threading.Lock()


def _models_error(exc) -> EngineError:
    code = getattr(exc, "code", None) or 40284
    return EngineError(code, getattr(exc, "message", str(exc)))


def _ident(text: Any) -> str:
    text = str(text).strip()
    return text[1:-1] if text.startswith('"') else text.upper()


class ModelRegistry:
    """Models stored in one database file, opened lazily (and once per process) for scoring."""

    def __init__(self, engine: "Engine"):
        self.engine = engine

    def load(self, name: str):
        row = self.engine.db.execute('SELECT sha256, metadata FROM "ORA$MODEL_CATALOG" WHERE model_name = ?',
                                     (name,)).fetchone()
        if row is None:
            raise EngineError(40284, f"model {name} does not exist")
        sha, metadata = row
        with _LOAD_LOCK:
            model = _LOADED.get((sha, metadata))
            if model is None:
                from workshop import models
                blob = self.engine.db.execute('SELECT model_data FROM "ORA$MODEL_DATA" WHERE model_name = ?',
                                              (name,)).fetchone()[0]
                try:
                    model = models.load_model(name, bytes(blob), json.loads(metadata) if metadata else None)
                except models.ModelError as exc:
                    raise _models_error(exc) from None
                _LOADED[(sha, metadata)] = model
        return model

    def forget(self, name: str) -> None:
        """Before a model is dropped: close it for scoring and drop its cached passage states."""
        row = self.engine.db.execute('SELECT sha256, metadata FROM "ORA$MODEL_CATALOG" WHERE model_name = ?',
                                     (name,)).fetchone()
        if row is None:
            return
        with _LOAD_LOCK:
            model = _LOADED.pop(tuple(row), None)
        if model is not None and hasattr(model, "clear_cache"):
            model.clear_cache()

    def store(self, name: str, blob: bytes, metadata: Any) -> None:
        from workshop import models
        if isinstance(metadata, str):
            metadata = json.loads(metadata)
        if self.engine.db.execute('SELECT 1 FROM "ORA$MODEL_CATALOG" WHERE model_name = ?', (name,)).fetchone():
            # error reference: ORA-40204 "model string already exists" (ORA-40289 is duplicate USING attributes)
            raise EngineError(40204, f"model {name} already exists")
        if not re.fullmatch(r"[A-Za-z][\w$#]{0,122}", name):
            # ORA-40281 "invalid model name"; the 123-character rule is LOAD_ONNX_MODEL's usage notes
            raise EngineError(40281, f"invalid model name {name!r} (at most 123 characters: letters, digits, _ $ #, "
                                     "starting with a letter)")
        try:
            model = models.load_model(name, blob, metadata)
        except models.ModelError as exc:
            raise _models_error(exc) from None
        sha = hashlib.sha256(blob).hexdigest()
        stored_metadata = json.dumps(model.metadata)
        with _LOAD_LOCK:
            _LOADED[(sha, stored_metadata)] = model
        card = getattr(model, "card", None)
        self.engine.begin_write()
        self.engine.db.execute('INSERT INTO "ORA$MODEL_CATALOG" VALUES (?, ?, ?, ?, datetime(), ?, ?, ?)',
                               (name, model.function, stored_metadata, sha,
                                json.dumps(model.input_names), getattr(card, "label", None), len(blob)))
        self.engine.db.execute('INSERT INTO "ORA$MODEL_DATA" VALUES (?, ?)', (name, blob))
        bump_ddl_version(self.engine.db)
        self.engine.commit()


# ----------------------------------------------------------------------------- per-statement batching
def _placeholder(model) -> Any:
    if model.function == "embedding":
        dims = model.dimension or 1
        return V.encode_vector(np.full(dims, 1.0 / np.sqrt(dims)), model.vector_format or "FLOAT32")
    return 0.0


def _compute(model, function: str, input_names: list[str], arg_rows: list[tuple]) -> dict[tuple, Any]:
    """One batched model call for many rows; SQL NULL inputs give NULL results. The USING names are checked
    against the model's attributes before anything runs, even when every input is NULL."""
    wanted = "embedding" if function == "VECTOR_EMBEDDING" else "regression"
    if model.function != wanted:
        raise EngineError(40215, f"model {model.name} is incompatible with current operation "
                                 f"({function} needs {'an embedding' if wanted == 'embedding' else 'a regression'} "
                                 "model)")
    names = _map_inputs(model, input_names)
    position = {w.upper(): i for i, w in enumerate(input_names)}
    take = [position[n.upper()] for n in names]          # extra USING expressions are ignored (see _map_inputs)
    out: dict[tuple, Any] = {}
    rows = []
    for r in dict.fromkeys(arg_rows):
        if any(r[i] is None for i in take):
            out[r] = None
        else:
            rows.append(r)
    if not rows:
        return out
    columns = {n: [str(r[i]) for r in rows] for n, i in zip(names, take)}
    if function == "VECTOR_EMBEDDING":
        fmt = model.vector_format or "FLOAT32"
        for r, vec in zip(rows, model.embed_rows(columns)):
            out[r] = V.encode_vector(np.asarray(vec, dtype=np.float64), fmt)
    else:
        for r, score in zip(rows, model.predict(columns)):
            out[r] = float(score)
    return out


def _map_inputs(model, written: list[str]) -> list[str]:
    """The model's attributes (in the model's order), each matched BY NAME to the `AS name` of each
    USING expression (unquoted names are upper-case, as Oracle folds them). No aliases: a model loaded with
    FIRST_INPUT / SECOND_INPUT has no DATA1 / DATA2 (USER_MINING_MODEL_ATTRIBUTES lists its attributes).

    Oracle SQL Language Reference, PREDICTION, mining_attribute_clause
    (https://docs.oracle.com/en/database/oracle/oracle-database/26/sqlrf/PREDICTION.html): "If you specify more
    predictors in the mining_attribute_clause than there are predictors used by the model, then the extra
    expressions are silently ignored", so extra names are ignored here too. For fewer predictors the page says
    the operation proceeds "with the subset ... on a best-effort basis"; what an ONNX model (whose graph needs
    every input tensor) returns then is not documented, so the engine refuses, and the message says so.
    `python -m workshop.verify_oracle --full` records what Oracle answers (probe "PREDICTION with DATA1/DATA2")."""
    expected = list(model.input_names)
    by_name = {w.upper() for w in written}
    missing = [e for e in expected if e.upper() not in by_name]
    if missing:
        raise EngineError(40105, f"input data incompatible with model signature: model {model.name} has the "
                                 f"attributes {expected} (USER_MINING_MODEL_ATTRIBUTES); the statement supplies "
                                 f"{written}, without {missing}. Write USING <expr> AS {expected[0]}"
                                 f"{', ...' if len(expected) > 1 else ''}. (Oracle's PREDICTION reference says "
                                 "unmatched names are ignored and a missing attribute is scored best-effort; what "
                                 "an ONNX model returns then is undocumented, so the embedded engine refuses: "
                                 "python -m workshop.verify_oracle --full records Oracle's answer.)")
    return expected


def install(engine: "Engine") -> None:
    db = engine.db
    engine.hooks.views.update(VIEWS)
    engine.hooks.bootstrap.extend(CATALOG)
    registry = ModelRegistry(engine)
    engine.models = registry

    # -------------------------------------------------------------- statement hooks
    def prepare(engine_, plan: "Plan", param_rows: list[dict]) -> None:
        state = engine_.state
        models = {mc.slot: registry.load(mc.model) for mc in plan.model_calls}
        constant = all(mc.constant for mc in plan.model_calls)
        gathered: dict[int, list[tuple]] = {mc.slot: [] for mc in plan.model_calls}
        known: dict[int, dict[tuple, Any]] = {}
        if constant:
            for params in param_rows:
                for mc in plan.model_calls:
                    gathered[mc.slot].append(_evaluate_args(engine_, mc, params))
        else:
            state.collect = gathered
            state.placeholders = {slot: _placeholder(m) for slot, m in models.items()}
            # A model call on binds/literals alone (the query's VECTOR_EMBEDDING) is computed before the pass, so
            # the pass ranks with the real vector and collects the inputs the real pass will ask for: one batch,
            # not one model call per row the placeholder ranking missed.
            if len(param_rows) == 1:
                for mc in plan.model_calls:
                    if mc.constant:
                        key = _evaluate_args(engine_, mc, param_rows[0])
                        known[mc.slot] = _compute(models[mc.slot], mc.function, mc.input_names, [key])
                        state.placeholders[mc.slot] = known[mc.slot][key]
            for params in param_rows:
                _collection_pass(engine_, plan, params)
            state.collect = None
        for mc in plan.model_calls:
            state.model_outputs[mc.slot] = known[mc.slot] if mc.slot in known else _compute(
                models[mc.slot], mc.function, mc.input_names, gathered[mc.slot])

    def compute_missing(engine_, slot: int, keys: list[tuple]) -> dict:
        mc = engine_.state.plan.model_calls[slot]
        return _compute(registry.load(mc.model), mc.function, mc.input_names, keys)

    engine.hooks.prepare_model_calls = prepare
    engine.hooks.model_call = compute_missing

    # -------------------------------------------------------------- DBMS_VECTOR
    def read_directory_file(directory: str, file_name: str) -> bytes:
        row = db.execute('SELECT directory_path FROM "ORA$DIRECTORIES" WHERE directory_name = ?',
                         (_ident(directory),)).fetchone()
        if row is None:
            raise EngineError(29280, f"invalid directory object {directory}")
        path = Path(row[0]) / str(file_name)
        if not path.is_file():
            raise EngineError(29283, f"invalid file operation: {path} not found")
        return path.read_bytes()

    def load_onnx_model(engine_, *args, **kwargs):
        kw = {k.lower(): v for k, v in kwargs.items()}
        if "model_data" in kw or (len(args) >= 2 and isinstance(args[1], (bytes, bytearray))):
            name = kw.get("model_name", args[0] if args else None)
            blob = kw.get("model_data", args[1] if len(args) > 1 else None)
            metadata = kw.get("metadata", args[2] if len(args) > 2 else None)
        else:
            directory = kw.get("directory", args[0] if args else None)
            file_name = kw.get("file_name", args[1] if len(args) > 1 else None)
            name = kw.get("model_name", args[2] if len(args) > 2 else None)
            metadata = kw.get("metadata", args[3] if len(args) > 3 else None)
            if kw.get("external_data_file_name") or len(args) > 4:
                raise unsupported("ONNX models with external data files")
            if directory is None or file_name is None:
                raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'LOAD_ONNX_MODEL'")
            blob = read_directory_file(directory, file_name)
        if name is None or blob is None:
            raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'LOAD_ONNX_MODEL'")
        registry.store(_ident(name), bytes(blob), metadata)

    def drop_onnx_model(engine_, model_name=None, force=False, **_):
        registry.forget(_ident(model_name))
        engine_.begin_write()
        cur = db.execute('DELETE FROM "ORA$MODEL_CATALOG" WHERE model_name = ?', (_ident(model_name),))
        db.execute('DELETE FROM "ORA$MODEL_DATA" WHERE model_name = ?', (_ident(model_name),))
        if cur.rowcount == 0 and not force:
            engine_.rollback()
            raise EngineError(40284, f"model {_ident(model_name)} does not exist")
        bump_ddl_version(db)
        engine_.commit()

    engine.hooks.procedures["DBMS_VECTOR.LOAD_ONNX_MODEL"] = load_onnx_model
    engine.hooks.procedures["DBMS_DATA_MINING.IMPORT_ONNX_MODEL"] = lambda e, model_data=None, model_name=None, \
        metadata=None, *a: load_onnx_model(e, model_name=model_name, model_data=model_data, metadata=metadata)
    engine.hooks.procedures["DBMS_VECTOR.DROP_ONNX_MODEL"] = drop_onnx_model
    engine.hooks.procedures["DBMS_DATA_MINING.DROP_MODEL"] = drop_onnx_model

    # -------------------------------------------------------------- directories
    def create_directory(sql: str) -> None:
        m = re.match(r"(?is)^CREATE\s+(OR\s+REPLACE\s+)?DIRECTORY\s+(\"[^\"]+\"|\w+)\s+AS\s+'((?:[^']|'')*)'\s*;?\s*$",
                     sql.strip())
        if not m:
            raise EngineError(900, "invalid CREATE DIRECTORY statement")
        name = _ident(m.group(2))
        if not m.group(1) and db.execute('SELECT 1 FROM "ORA$DIRECTORIES" WHERE directory_name = ?', (name,)).fetchone():
            raise EngineError(955, "name is already used by an existing object")
        db.execute('INSERT OR REPLACE INTO "ORA$DIRECTORIES" VALUES (?, ?)', (name, m.group(3).replace("''", "'")))

    def drop_directory(sql: str) -> None:
        m = re.match(r"(?is)^DROP\s+DIRECTORY\s+(\"[^\"]+\"|\w+)", sql.strip())
        if db.execute('DELETE FROM "ORA$DIRECTORIES" WHERE directory_name = ?', (_ident(m.group(1)),)).rowcount == 0:
            raise EngineError(4043, f"object {_ident(m.group(1))} does not exist")

    for key in ("CREATE DIRECTORY", "CREATE OR REPLACE DIRECTORY"):
        engine.hooks.statements[key] = create_directory
    engine.hooks.statements["DROP DIRECTORY"] = drop_directory

    # -------------------------------------------------------------- DBMS_VECTOR_CHAIN
    def params_model(params: Any) -> str:
        data = json.loads(params) if isinstance(params, str) else (params or {})
        provider = str(data.get("provider", "database")).lower()
        if provider != "database":
            raise unsupported(f"embedding provider {provider!r} (the embedded engine runs in-database models only)")
        if "model" not in data:
            raise EngineError(20000, "missing model name in embedding parameters")
        return _ident(data["model"])

    def utl_to_embedding(text, params):
        if text is None:
            return None
        model = registry.load(params_model(params))
        return _compute(model, "VECTOR_EMBEDDING", ["DATA"], [(str(text),)])[(str(text),)]

    engine.register("ORA_UTL_TO_EMBEDDING", utl_to_embedding, 2, deterministic=True)
    engine.map_function("DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING", "ORA_UTL_TO_EMBEDDING", "VECTOR")
    engine.map_function("DBMS_VECTOR.UTL_TO_EMBEDDING", "ORA_UTL_TO_EMBEDDING", "VECTOR")

    def utl_to_embeddings(engine_, chunks, params):
        items = json.loads(chunks) if isinstance(chunks, str) else list(chunks or [])
        parsed = [json.loads(i) if isinstance(i, str) else i for i in items]
        model = registry.load(params_model(params))
        texts = [str(p.get("chunk_data", "")) if isinstance(p, dict) else str(p) for p in parsed]
        vectors = model.embed_rows({model.input_names[0]: texts}) if texts else []
        rows = []
        for i, (item, vector) in enumerate(zip(parsed, vectors), start=1):
            chunk_id = item.get("chunk_id", i) if isinstance(item, dict) else i
            rows.append((json.dumps({"embed_id": chunk_id, "embed_data": texts[i - 1],
                                     "embed_vector": json.dumps([float(x) for x in vector])}),))
        return rows

    def utl_to_chunks(engine_, text, params=None):
        return [(json.dumps(chunk),) for chunk in chunk_text(text, params)]

    for name, fn in (("UTL_TO_EMBEDDINGS", utl_to_embeddings), ("UTL_TO_CHUNKS", utl_to_chunks)):
        for package in ("DBMS_VECTOR_CHAIN", "DBMS_VECTOR"):
            engine.register_table_function(f"{package}.{name}", ["COLUMN_VALUE"], ["CLOB"], fn)

    class _VectorArrayType:
        name = "VECTOR_ARRAY_T"

        def newobject(self, values=None):
            return VectorArray(values or [])

    def gettype(name: str):
        if name.upper().split(".")[-1] == "VECTOR_ARRAY_T":
            return _VectorArrayType()
        raise EngineError(4043, f"object {name} does not exist")

    engine.hooks.gettype = gettype


class VectorArray(list):
    """SYS.VECTOR_ARRAY_T object (a list of JSON chunk strings); binds as a JSON array."""

    _embedded_object = True  # binds as DB_TYPE_OBJECT, like python-oracledb's DbObject

    def aslist(self) -> list:
        return list(self)


def chunk_text(text: Any, params: Any) -> list[dict]:
    """DBMS_VECTOR_CHAIN.UTL_TO_CHUNKS by words or characters, with max and overlap."""
    if text is None:
        return []
    text = str(text)
    options = json.loads(params) if isinstance(params, str) else dict(params or {})
    options = {k.lower(): v for k, v in options.items()}
    by = str(options.get("by", "words")).lower()
    size = int(options.get("max", 100))
    overlap = int(options.get("overlap", 0))
    split = str(options.get("split", "recursively")).lower()
    for key in options:
        if key not in ("by", "max", "overlap", "split", "normalize", "language", "extended"):
            raise unsupported(f"UTL_TO_CHUNKS parameter {key}")
    if by not in ("words", "characters", "chars"):
        raise unsupported(f"UTL_TO_CHUNKS by {by}")
    if size <= 0 or overlap < 0 or overlap >= size:
        raise EngineError(20000, "UTL_TO_CHUNKS: max must be positive and overlap smaller than max")
    if split not in ("none", "recursively", "newline", "blankline", "space", "sentence"):
        raise unsupported(f"UTL_TO_CHUNKS split by {split}")
    if by == "words":
        spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    else:
        spans = [(i, i + 1) for i in range(len(text))]
    chunks, start, chunk_id = [], 0, 1
    while start < len(spans):
        end = min(start + size, len(spans))
        begin_char, end_char = spans[start][0], spans[end - 1][1]
        chunks.append({"chunk_id": chunk_id, "chunk_offset": begin_char + 1, "chunk_length": end_char - begin_char,
                       "chunk_data": text[begin_char:end_char]})
        chunk_id += 1
        if end == len(spans):
            break
        start = end - overlap
    return chunks


def _evaluate_args(engine: "Engine", mc, params: dict) -> tuple:
    if not mc.args_sql:
        return ()
    row = engine.db.execute("SELECT " + ", ".join(mc.args_sql), params).fetchone()
    return tuple(row)


def _collection_pass(engine: "Engine", plan: "Plan", params: dict) -> None:
    """Run the statement once with placeholder model outputs, recording the model inputs."""
    if plan.kind == "query":
        engine.db.execute(plan.sql if plan.topk is None else plan.sql.replace(
            f":{plan.topk.candidates_param}", "NULL"), params).fetchall()
        return
    engine.db.execute('SAVEPOINT "ORA$MODELPASS"')
    try:
        engine.db.execute(plan.sql, params)
        for extra in plan.extra:
            engine.db.execute(extra, params)
    finally:
        engine.db.execute('ROLLBACK TO "ORA$MODELPASS"')
        engine.db.execute('RELEASE "ORA$MODELPASS"')


class Models:
    """ONNX models in the database: DBMS_VECTOR.LOAD_ONNX_MODEL, VECTOR_EMBEDDING, PREDICTION, directories, DBMS_VECTOR_CHAIN."""

    name = "models"

    def install(self, engine: "Engine") -> None:
        install(engine)
