"""A batched fast path cut from the very same graph Oracle loads.

A text model takes one string per call (two strings would be tokenized as a pair), so a batch
is n calls. For models built by workshop.models the file records where tokenization ends: the
per-row tensors [1, S] that feed the batch-generic encoder (`workshop.batch.inputs`) and the
encoder result [B, ...] (`workshop.batch.output`). The runtime cuts the loaded graph there into
a per-row *stage* graph and a batched *core* graph, tokenizes each row, pads rows of similar
length with zeros (attention masks keep padding out of every result) and runs the core once per
batch. No node is rewritten; the tests check the result equals the one-call-per-row path.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper

from workshop.models.model_card import BATCH_INPUTS_KEY, BATCH_OUTPUT_KEY

#: Limits of one core run: rows, and rows x longest row (padded tokens). Rows are sorted by length
#: first, so a batch holds rows of similar length and padding stays small. 512 tokens measured as the
#: robust middle on 2 shared cores: bigger batches win when the machine is idle and lose under load.
MAX_BATCH_ROWS = 32
MAX_BATCH_TOKENS = 512


@dataclass(frozen=True)
class BatchPlan:
    inputs: tuple[str, ...]
    output: str


def read_batch_plan(model: onnx.ModelProto) -> BatchPlan | None:
    props = {p.key: p.value for p in model.metadata_props}
    if BATCH_INPUTS_KEY not in props or BATCH_OUTPUT_KEY not in props:
        return None
    return BatchPlan(tuple(props[BATCH_INPUTS_KEY].split(",")), props[BATCH_OUTPUT_KEY])


def _subgraph(model: onnx.ModelProto, graph_inputs: list[onnx.ValueInfoProto], outputs: list[onnx.ValueInfoProto],
              name: str) -> onnx.ModelProto:
    """The nodes (in original order) and initializers needed to compute `outputs` from `graph_inputs`."""
    nodes = list(model.graph.node)
    producer = {out: i for i, node in enumerate(nodes) for out in node.output}
    stop = {v.name for v in graph_inputs}
    needed_nodes: set[int] = set()
    needed_tensors: set[str] = set()
    todo = [v.name for v in outputs]
    while todo:
        tensor = todo.pop()
        if tensor in needed_tensors or tensor in stop or tensor == "":
            continue
        needed_tensors.add(tensor)
        index = producer.get(tensor)
        if index is not None and index not in needed_nodes:
            needed_nodes.add(index)
            todo.extend(nodes[index].input)
    kept = [node for i, node in enumerate(nodes) if i in needed_nodes]
    inits = [t for t in model.graph.initializer if t.name in needed_tensors]
    graph = helper.make_graph(kept, name, graph_inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=list(model.opset_import), ir_version=model.ir_version)


def stage_model(model: onnx.ModelProto, plan: BatchPlan) -> onnx.ModelProto:
    """Original inputs -> the per-row encoder inputs [1, S]."""
    outs = [helper.make_tensor_value_info(t, TensorProto.INT64, [1, None]) for t in plan.inputs]
    return _subgraph(model, list(model.graph.input), outs, "stage")


def core_model(model: onnx.ModelProto, plan: BatchPlan, output_type: int) -> onnx.ModelProto:
    """Encoder inputs [B, S] -> the batch result [B, ...]."""
    ins = [helper.make_tensor_value_info(t, TensorProto.INT64, ["batch", f"seq_{i}"]) for i, t in enumerate(plan.inputs)]
    return _subgraph(model, ins, [helper.make_tensor_value_info(plan.output, output_type, None)], "core")


def pad_rows(rows: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Per row, one [1, S_i] array per core input -> per core input, one zero-padded [B, max S_i] array."""
    batched = []
    for k in range(len(rows[0])):
        width = max(r[k].shape[1] for r in rows)
        out = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            out[i, : r[k].shape[1]] = r[k][0]
        batched.append(out)
    return batched


def batch_order(rows: list[list[np.ndarray]], max_rows: int | None = None,
                max_tokens: int | None = None) -> list[list[int]]:
    """Row indices grouped into batches of similar length (longest first) within both limits; a row's
    length is its widest tensor (the padded width it imposes on its batch)."""
    max_rows = MAX_BATCH_ROWS if max_rows is None else max_rows
    max_tokens = MAX_BATCH_TOKENS if max_tokens is None else max_tokens
    length = [max(t.shape[1] for t in r) for r in rows]
    batches: list[list[int]] = []
    for i in sorted(range(len(rows)), key=lambda i: -length[i]):
        current = batches[-1] if batches else None
        if current and len(current) < max_rows and (len(current) + 1) * length[current[0]] <= max_tokens:
            current.append(i)
        else:
            batches.append([i])
    return batches
