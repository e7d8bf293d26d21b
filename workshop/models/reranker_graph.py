"""Pieces shared by both rerankers: Oracle's reranking interface and its metadata.

Oracle reranks with `PREDICTION(model USING :q AS FIRST_INPUT, text AS SECOND_INPUT)` on a
`regression` model whose string inputs are `first_input` and `second_input` and whose output is one
score per pair. The output is a scalar, the shape third-party rerankers have been loaded into
Oracle AI Database with (an [n, 1]-shaped batch output is kept inside the graph for the fast path).
"""
from __future__ import annotations

import copy

from onnx import TensorProto, helper

from workshop.models.graph_builder import GraphBuilder

FIRST_INPUT, SECOND_INPUT, OUTPUT = "first_input", "second_input", "output"
RERANKER_METADATA = {
    "function": "regression",
    "regressionOutput": OUTPUT,
    "input": {FIRST_INPUT: ["FIRST_INPUT"], SECOND_INPUT: ["SECOND_INPUT"]},
}
#: The spelling third-party tools use: PREDICTION(model USING :q AS DATA1, :d AS DATA2).
RERANKER_METADATA_DATA12 = {
    "function": "regression",
    "regressionOutput": OUTPUT,
    "input": {FIRST_INPUT: ["DATA1"], SECOND_INPUT: ["DATA2"]},
}


def reranker_metadata(attribute_names: tuple[str, str] = ("FIRST_INPUT", "SECOND_INPUT")) -> dict:
    """LOAD_ONNX_MODEL metadata for a reranker built here, with the chosen attribute names."""
    meta = copy.deepcopy(RERANKER_METADATA)
    meta["input"] = {FIRST_INPUT: [attribute_names[0]], SECOND_INPUT: [attribute_names[1]]}
    return meta


def reranker_io() -> tuple[list, list]:
    inputs = [helper.make_tensor_value_info(name, TensorProto.STRING, [1]) for name in (FIRST_INPUT, SECOND_INPUT)]
    return inputs, [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, [])]


def add_scalar_output(b: GraphBuilder, scores: str) -> str:
    """[1, 1] batch result -> the scalar Oracle output."""
    return b.op("Squeeze", [scores, b.int64s("output.axes", [0, 1])], OUTPUT)
