"""Run in-database models: what DBMS_VECTOR.LOAD_ONNX_MODEL receives (ONNX bytes + JSON metadata)
in, VECTOR_EMBEDDING vectors and PREDICTION scores out.

One onnxruntime session per model, created at load time so a broken graph fails at
LOAD_ONNX_MODEL like on Oracle. Threads: `WORKSHOP_ORT_THREADS` (default 2) intra-op threads, which
sleep instead of spinning between calls.
Models built by workshop.models also get a batched fast path (see batching.py), used by default;
late-interaction rerankers get one that keeps passage token states across statements
(late_interaction.py; `WORKSHOP_RERANK_CACHE_MB`, default 256, bounds the memory it holds per model).
"""
from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import onnxruntime as ort
from google.protobuf.message import DecodeError
from onnx import TensorProto
from onnxruntime_extensions import get_library_path

from workshop.models import batching, late_interaction
from workshop.models.errors import InvalidModelError, ModelUsageError, UnsupportedModelError
from workshop.models.metadata import ModelSignature, parse_metadata, validate_metadata
from workshop.models.model_card import ModelCard, read_card
from workshop.models.model_cache import sha256_bytes

# Hugging Face tokenizers (if a notebook imports them) must not spin threads against onnxruntime's.
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

THREADS_ENV = "WORKSHOP_ORT_THREADS"
CACHE_ENV = "WORKSHOP_RERANK_CACHE_MB"
#: LOAD_ONNX_MODEL_CLOUD's documented model size limit; ORA-54400 names an invalid BLOB size.
MAX_MODEL_BYTES = 1 << 30
_OUTPUT_TYPES = {"FLOAT32": TensorProto.FLOAT, "FLOAT64": TensorProto.DOUBLE}


def session_options() -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    options.intra_op_num_threads = int(os.environ.get(THREADS_ENV, "2"))
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # Idle worker threads must not spin: between model calls the same two cores run the SQL engine,
    # the notebook and other processes (measured: spinning halved throughput under such load).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return options


def _session(model_bytes: bytes, what: str) -> ort.InferenceSession:
    try:
        return ort.InferenceSession(model_bytes, session_options(), providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for invalid graphs
        raise InvalidModelError(f"onnxruntime rejected the {what}: {exc}") from None


def _parse(onnx_bytes: bytes) -> onnx.ModelProto:
    if not isinstance(onnx_bytes, (bytes, bytearray, memoryview)):
        raise ModelUsageError(f"model data must be bytes (the BLOB's content), not {type(onnx_bytes).__name__}")
    if not 0 < len(onnx_bytes) <= MAX_MODEL_BYTES:
        raise InvalidModelError(f"Invalid BLOB size ({len(onnx_bytes)} bytes)", 54400)
    try:
        model = onnx.ModelProto.FromString(bytes(onnx_bytes))
    except DecodeError as exc:
        raise InvalidModelError(f"the BLOB is not an ONNX model ({exc})") from None
    if not model.HasField("graph") or not model.graph.output:
        raise InvalidModelError("the BLOB is not an ONNX model (no graph outputs)")
    if any(t.data_location == TensorProto.EXTERNAL for t in model.graph.initializer):
        raise UnsupportedModelError("the model depends on external initializers; load a self-contained ONNX file")
    return model


class LoadedModel:
    """A model as LOAD_ONNX_MODEL stored it: `function`, Oracle attribute names, and scoring calls."""

    def __init__(self, name: str, model: onnx.ModelProto, signature: ModelSignature, metadata: dict, sha256: str):
        self.name = name
        self.signature = signature
        self.metadata = metadata
        self.sha256 = sha256
        self.card: ModelCard = read_card(model)
        self._session = _session(model.SerializeToString(), f"model {name}")
        self._plan = batching.read_batch_plan(model)
        self._late_plan = late_interaction.read_late_plan(model)
        self._model = model if self._plan or self._late_plan else None  # kept to cut the fast-path graphs lazily
        self._fast: tuple[ort.InferenceSession, ort.InferenceSession] | None = None
        self._late: late_interaction.LateScorer | None = None
        #: Passage token states of a late-interaction model, keyed by exact text (this model's bytes only).
        self.state_cache = late_interaction.StateCache(int(float(os.environ.get(CACHE_ENV, "256")) * (1 << 20)))
        self._lock = threading.Lock()

    # -- what the engine shows in USER_MINING_MODELS / USER_MINING_MODEL_ATTRIBUTES -----------------
    @property
    def function(self) -> str:
        return self.signature.function

    @property
    def input_names(self) -> list[str]:
        return self.signature.attribute_names

    @property
    def dimension(self) -> int | None:
        """Vector dimension of an embedding model (None for regression)."""
        return self.signature.dimension

    @property
    def vector_format(self) -> str:
        return self.signature.output_format

    @property
    def has_fast_path(self) -> bool:
        return self._plan is not None

    @property
    def is_late_interaction(self) -> bool:
        return self._late_plan is not None

    def __repr__(self) -> str:
        return f"LoadedModel({self.name!r}, function={self.function!r}, inputs={self.input_names}, card={self.card.label!r})"

    # -- scoring ---------------------------------------------------------------------------------------
    def embed(self, texts: Sequence[str], *, batched: bool | None = None) -> np.ndarray:
        """VECTOR_EMBEDDING for a one-attribute model: (n, dimension) vectors."""
        if len(self.input_names) != 1:
            raise ModelUsageError(f"model {self.name} has inputs {self.input_names}; use embed_rows()")
        return self.embed_rows({self.input_names[0]: texts}, batched=batched)

    def embed_rows(self, inputs: Mapping[str, Sequence[str]], *, batched: bool | None = None) -> np.ndarray:
        self._require("embedding", "VECTOR_EMBEDDING")
        return self._run(inputs, batched).reshape(-1, self.dimension)

    def predict(self, inputs: Mapping[str, Sequence[str]], *, batched: bool | None = None, late: bool | None = None,
                cache: bool = True) -> np.ndarray:
        """PREDICTION of a regression model: one float64 score per row, e.g. {"FIRST_INPUT": q, "SECOND_INPUT": d}.

        A late-interaction model runs its late path by default (`late=None`), reusing cached passage
        states unless `cache=False`; `batched=False` runs one call per row (Oracle's call shape) and
        `late=False, batched=True` the whole graph in padded batches."""
        self._require("regression", "PREDICTION")
        if late is None:
            late = self.is_late_interaction and batched is not False
        if late:
            if not self.is_late_interaction:
                raise ModelUsageError(f"model {self.name} is not a late-interaction model built by workshop.models")
            return self._run_late(inputs, cache).astype(np.float64)
        return self._run(inputs, batched).reshape(-1).astype(np.float64)

    def clear_cache(self) -> None:
        """Forget cached passage states (the engine calls this when the model is dropped)."""
        self.state_cache.clear()

    def _run_late(self, inputs: Mapping[str, Sequence[str]], cache: bool) -> np.ndarray:
        columns = self._columns(inputs)
        plan = self._late_plan
        assert plan is not None
        by_tensor = {inp.tensor: columns[inp.attributes[0]] for inp in self.signature.inputs}
        queries, passages = by_tensor[plan.query.text], by_tensor[plan.passage.text]
        if not queries:
            return np.empty((0,), dtype=np.float32)
        with self._lock:
            if self._late is None:
                assert self._model is not None
                self._late = late_interaction.LateScorer(self._model, plan, _session, self.state_cache)
                if self._fast is not None or self._plan is None:
                    self._model = None
        return self._late.score(queries, passages, use_cache=cache)

    def _require(self, function: str, operator: str) -> None:
        if self.function != function:
            raise ModelUsageError(f"model {self.name} is incompatible with current operation ({operator} needs a "
                                  f"{function} model; this one is {self.function})", 40215)

    def _columns(self, inputs: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
        """The attribute value lists, checked: every attribute present, equal lengths, text values."""
        names = self.input_names
        missing = [n for n in names if n not in inputs]
        extra = [n for n in inputs if n not in names]
        if missing or extra:
            raise ModelUsageError(f"model {self.name} takes the attributes {names}; missing {missing}, unknown {extra}")
        columns = [list(inputs[n]) for n in names]
        n_rows = len(columns[0])
        if any(len(c) != n_rows for c in columns):
            raise ModelUsageError(f"attribute value lists differ in length: {[len(c) for c in columns]}")
        for name, column in zip(names, columns):
            for value in column:
                if not isinstance(value, str):
                    raise ModelUsageError(f"attribute {name} must be text, got {type(value).__name__} "
                                          "(map SQL NULL to a NULL result before calling the model)")
        return dict(zip(names, columns))

    def _rows(self, inputs: Mapping[str, Sequence[str]]) -> tuple[int, list[dict[str, np.ndarray]]]:
        by_name = self._columns(inputs)
        n_rows = len(next(iter(by_name.values())))
        feeds = []
        for row in range(n_rows):
            feeds.append({inp.tensor: np.array([by_name[a][row] for a in inp.attributes], dtype=object).reshape(inp.shape)
                          for inp in self.signature.inputs})
        return n_rows, feeds

    def _run(self, inputs: Mapping[str, Sequence[str]], batched: bool | None) -> np.ndarray:
        n_rows, feeds = self._rows(inputs)
        if n_rows == 0:
            return np.empty((0,), dtype=np.float32)
        if batched is None:
            batched = self.has_fast_path
        if batched and not self.has_fast_path:
            raise ModelUsageError(f"model {self.name} was not built by workshop.models and has no batched fast path")
        return self._run_batched(feeds) if batched else self._run_per_row(feeds)

    def _run_per_row(self, feeds: list[dict[str, np.ndarray]]) -> np.ndarray:
        output = self.signature.output
        results = [self._session.run([output], feed)[0] for feed in feeds]
        return np.stack([r.reshape(-1) for r in results])

    def _fast_sessions(self) -> tuple[ort.InferenceSession, ort.InferenceSession]:
        with self._lock:
            if self._fast is None:
                assert self._plan is not None and self._model is not None
                out_type = _OUTPUT_TYPES[self.signature.output_format]
                stage = batching.stage_model(self._model, self._plan).SerializeToString()
                core = batching.core_model(self._model, self._plan, out_type).SerializeToString()
                self._fast = (_session(stage, f"tokenizer stage of {self.name}"),
                              _session(core, f"batched core of {self.name}"))
                if self._late is not None or self._late_plan is None:
                    self._model = None
            return self._fast

    def _run_batched(self, feeds: list[dict[str, np.ndarray]]) -> np.ndarray:
        stage, core = self._fast_sessions()
        assert self._plan is not None
        tensors = list(self._plan.inputs)
        rows = [stage.run(tensors, feed) for feed in feeds]
        results: list[np.ndarray | None] = [None] * len(rows)
        for group in batching.batch_order(rows):
            padded = batching.pad_rows([rows[i] for i in group])
            out = core.run([self._plan.output], dict(zip(tensors, padded)))[0]
            for k, i in enumerate(group):
                results[i] = out[k].reshape(-1)
        return np.stack(results)  # type: ignore[arg-type]


def load_model(name: str, onnx_bytes: bytes, metadata: dict | str | None = None) -> LoadedModel:
    """LOAD_ONNX_MODEL(name, blob, metadata): validate like Oracle, then open the model for scoring.

    metadata None means Oracle's default: {"function":"embedding","embeddingOutput":"embedding",
    "input":{"input":["DATA"]}}. Raises MetadataError / InvalidModelError (with ORA codes where Oracle
    has them) or UnsupportedModelError for valid Oracle models this runtime does not implement.
    """
    if not isinstance(name, str) or not name.strip():
        raise ModelUsageError("model name must be a non-empty string")
    model = _parse(onnx_bytes)
    meta = parse_metadata(metadata)
    signature = validate_metadata(meta, model)
    return LoadedModel(name, model, signature, meta, sha256_bytes(bytes(onnx_bytes)))
