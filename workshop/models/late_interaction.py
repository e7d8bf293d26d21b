"""Late-interaction fast path: reuse passage token states across statements.

In a late-interaction reranker the passage tower never sees the query, so the passage's token
states depend only on the model and the passage text. A model built here records (in its
metadata_props, key `workshop.late`) each tower's graph input, its per-row encoder inputs, its
token-state tensor [B, S, H] and its attention mask [B, S]; the scoring tensor [B, 1] closes the plan.
The runtime cuts the loaded graph at those tensors (no node rewritten) into

    per-side tokenizer stage   string [1]      -> ids, mask, types [1, S]
    tower                      ids, mask, types [B, S] -> token states [B, S, H]
    score                      query states + mask, passage states + mask -> score [B, 1]

and keeps each passage's states (exactly its own S rows) in a `StateCache` keyed by the exact text,
owned by the loaded model (one per model sha256; cleared when the model is dropped). The tests hold
the result equal to Oracle's one-call-per-row shape to 1e-6, cache hit or not.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper

from workshop.models import batching

LATE_KEY = "workshop.late"
#: Rows of one score-graph run. Scoring is a small matmul per pair; the towers dominate the cost.
SCORE_BATCH_ROWS = 64


@dataclass(frozen=True)
class Tower:
    text: str                      # graph input (string [1])
    inputs: tuple[str, str, str]   # per-row encoder inputs: ids, attention mask, token types
    states: str                    # token states [B, S, H]
    mask: str                      # attention mask [B, S] (int64), also a score-graph input


@dataclass(frozen=True)
class LatePlan:
    query: Tower
    passage: Tower
    score: str                     # [B, 1]


def late_props(plan: LatePlan) -> dict[str, str]:
    def side(t: Tower) -> dict:
        return {"text": t.text, "inputs": list(t.inputs), "states": t.states, "mask": t.mask}
    return {LATE_KEY: json.dumps({"query": side(plan.query), "passage": side(plan.passage), "score": plan.score},
                                 sort_keys=True)}


def read_late_plan(model: onnx.ModelProto) -> LatePlan | None:
    props = {p.key: p.value for p in model.metadata_props}
    if LATE_KEY not in props:
        return None
    raw = json.loads(props[LATE_KEY])

    def side(d: dict) -> Tower:
        return Tower(d["text"], tuple(d["inputs"]), d["states"], d["mask"])  # type: ignore[arg-type]
    return LatePlan(side(raw["query"]), side(raw["passage"]), raw["score"])


def _input(model: onnx.ModelProto, name: str) -> onnx.ValueInfoProto:
    return next(v for v in model.graph.input if v.name == name)


def stage_model(model: onnx.ModelProto, tower: Tower) -> onnx.ModelProto:
    outs = [helper.make_tensor_value_info(t, TensorProto.INT64, [1, None]) for t in tower.inputs]
    return batching._subgraph(model, [_input(model, tower.text)], outs, "late_stage")


def tower_model(model: onnx.ModelProto, tower: Tower) -> onnx.ModelProto:
    ins = [helper.make_tensor_value_info(t, TensorProto.INT64, ["batch", "seq"]) for t in tower.inputs]
    out = helper.make_tensor_value_info(tower.states, TensorProto.FLOAT, ["batch", "seq", None])
    return batching._subgraph(model, ins, [out], "late_tower")


def score_model(model: onnx.ModelProto, plan: LatePlan) -> onnx.ModelProto:
    ins = []
    for tag, tower in (("q", plan.query), ("d", plan.passage)):
        ins.append(helper.make_tensor_value_info(tower.states, TensorProto.FLOAT, ["batch", f"{tag}_seq", None]))
        ins.append(helper.make_tensor_value_info(tower.mask, TensorProto.INT64, ["batch", f"{tag}_seq"]))
    out = helper.make_tensor_value_info(plan.score, TensorProto.FLOAT, ["batch", 1])
    return batching._subgraph(model, ins, [out], "late_score")


def same_computation(a: onnx.ModelProto, b: onnx.ModelProto) -> bool:
    """Do two tower graphs run the same ops on the same weights (names of intermediate tensors aside)?
    Then one session serves both sides and the weights are held once."""
    def shape(m: onnx.ModelProto) -> list:
        inits = {t.name for t in m.graph.initializer}
        return [(n.op_type, n.domain, tuple(i if i in inits else "" for i in n.input),
                 tuple(a.SerializeToString() for a in n.attribute)) for n in m.graph.node]
    return shape(a) == shape(b)


class StateCache:
    """Least-recently-used map from exact text to its token states, bounded by bytes held."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, text: str) -> np.ndarray | None:
        with self._lock:
            states = self._items.get(text)
            if states is None:
                self.misses += 1
                return None
            self._items.move_to_end(text)
            self.hits += 1
            return states

    def put(self, text: str, states: np.ndarray) -> None:
        size = states.nbytes + len(text)
        if size > self.max_bytes:
            return
        states.setflags(write=False)
        with self._lock:
            old = self._items.pop(text, None)
            if old is not None:
                self.bytes -= old.nbytes + len(text)
            self._items[text] = states
            self.bytes += size
            while self.bytes > self.max_bytes:
                key, evicted = self._items.popitem(last=False)
                self.bytes -= evicted.nbytes + len(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0

    def stats(self) -> dict[str, int]:
        return {"entries": len(self._items), "bytes": self.bytes, "max_bytes": self.max_bytes,
                "hits": self.hits, "misses": self.misses}


class LateScorer:
    """Scores (query, passage) pairs through the cut graphs; passage states come from the cache."""

    def __init__(self, model: onnx.ModelProto, plan: LatePlan, session, cache: StateCache):
        self.plan = plan
        self.cache = cache
        self._stages = {id(t): session(stage_model(model, t).SerializeToString(), "late-interaction tokenizer stage")
                        for t in (plan.query, plan.passage)}
        towers = {id(t): tower_model(model, t) for t in (plan.query, plan.passage)}
        q_tower, d_tower = towers[id(plan.query)], towers[id(plan.passage)]
        d_session = session(d_tower.SerializeToString(), "passage tower")
        shared = same_computation(q_tower, d_tower)
        q_session = d_session if shared else session(q_tower.SerializeToString(), "query tower")
        #: per side: the tower session and the tower whose tensor names that session uses
        self._towers = {id(plan.query): (q_session, plan.passage if shared else plan.query),
                        id(plan.passage): (d_session, plan.passage)}
        self._score = session(score_model(model, plan).SerializeToString(), "late-interaction score")

    def states(self, tower: Tower, texts: list[str]) -> list[np.ndarray]:
        """Token states [S_i, H] of each text: tokenize each row, run the tower in padded batches."""
        stage = self._stages[id(tower)]
        core, names = self._towers[id(tower)]
        rows = [stage.run(list(tower.inputs), {tower.text: np.array([t], dtype=object)}) for t in texts]
        out: list[np.ndarray | None] = [None] * len(rows)
        for group in batching.batch_order(rows):
            padded = batching.pad_rows([rows[i] for i in group])
            result = core.run([names.states], dict(zip(names.inputs, padded)))[0]
            for k, i in enumerate(group):
                out[i] = np.ascontiguousarray(result[k, : rows[i][0].shape[1]])
        return out  # type: ignore[return-value]

    def passage_states(self, texts: list[str], use_cache: bool) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if use_cache:
            for t in texts:
                hit = self.cache.get(t)
                if hit is not None:
                    found[t] = hit
        missing = [t for t in texts if t not in found]
        if missing:
            for t, s in zip(missing, self.states(self.plan.passage, missing)):
                found[t] = s
                if use_cache:
                    self.cache.put(t, s)
        return found

    def score(self, queries: list[str], passages: list[str], use_cache: bool = True) -> np.ndarray:
        q_states = dict(zip(unique := list(dict.fromkeys(queries)), self.states(self.plan.query, unique)))
        d_states = self.passage_states(list(dict.fromkeys(passages)), use_cache)
        order = sorted(range(len(queries)), key=lambda i: (-len(d_states[passages[i]]), queries[i]))
        scores = np.empty(len(queries), dtype=np.float32)
        for start in range(0, len(order), SCORE_BATCH_ROWS):
            group = order[start:start + SCORE_BATCH_ROWS]
            feed = {}
            for tower, states in ((self.plan.query, [q_states[queries[i]] for i in group]),
                                  (self.plan.passage, [d_states[passages[i]] for i in group])):
                width = max(s.shape[0] for s in states)
                batch = np.zeros((len(group), width, states[0].shape[1]), dtype=np.float32)
                mask = np.zeros((len(group), width), dtype=np.int64)
                for k, s in enumerate(states):
                    batch[k, : s.shape[0]] = s
                    mask[k, : s.shape[0]] = 1
                feed[tower.states], feed[tower.mask] = batch, mask
            result = self._score.run([self.plan.score], feed)[0].reshape(-1)
            scores[group] = result
        return scores
