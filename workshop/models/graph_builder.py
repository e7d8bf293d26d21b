"""A small helper to write ONNX graphs by hand: nodes and initializers with stable, explicit names.

Stable names matter: the builders must produce byte-identical files on every run (the sha256 of
the embedding model is pinned), and the runtime finds the batchable part of a graph by name.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

OPSET = 17
IR_VERSION = 8
CONTRIB_DOMAIN = "ai.onnx.contrib"
PRODUCER = "workshop.models"


class GraphBuilder:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._names: set[str] = set()

    def has(self, name: str) -> bool:
        return name in self._names

    def _claim(self, name: str) -> str:
        if name in self._names:
            raise ValueError(f"graph name {name!r} defined twice")
        self._names.add(name)
        return name

    def const(self, name: str, value: np.ndarray | Sequence | float | int, dtype=None) -> str:
        """Add an initializer (a copy, C-ordered) and return its name."""
        array = np.array(value, dtype=dtype, copy=True, order="C")
        self.initializers.append(numpy_helper.from_array(array, self._claim(name)))
        return name

    def int64s(self, name: str, values: Sequence[int]) -> str:
        return self.const(name, list(values), np.int64)

    def shared(self, name: str, value, dtype=None) -> str:
        """Like const, but reuse an initializer of that name if one exists (weights shared by two towers)."""
        return name if self.has(name) else self.const(name, value, dtype)

    def op(self, op_type: str, inputs: Sequence[str], output: str | Sequence[str], domain: str = "", **attrs) -> str:
        """Add a node; returns its (first) output name."""
        outputs = [output] if isinstance(output, str) else list(output)
        for name in outputs:
            self._claim(name)
        self.nodes.append(helper.make_node(op_type, list(inputs), outputs, name=outputs[0], domain=domain, **attrs))
        return outputs[0]


def make_model(builder: GraphBuilder, graph_name: str, inputs: list[onnx.ValueInfoProto],
               outputs: list[onnx.ValueInfoProto], props: dict[str, str], doc: str) -> onnx.ModelProto:
    """Wrap the builder's graph as an IR 8 / opset 17 model (+ the extensions domain) and check it."""
    graph = helper.make_graph(builder.nodes, graph_name, inputs, outputs, builder.initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(CONTRIB_DOMAIN, 1)],
        ir_version=IR_VERSION,
        producer_name=PRODUCER,
        producer_version="1",
        doc_string=doc,
    )
    helper.set_model_props(model, props)
    onnx.checker.check_model(model)
    return model
