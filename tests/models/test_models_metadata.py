"""LOAD_ONNX_MODEL metadata validation and runtime misuse, on tiny hand-written graphs."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from workshop.models import (InvalidModelError, MetadataError, ModelUsageError, UnsupportedModelError, load_model)
from workshop.models.graph_builder import CONTRIB_DOMAIN

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "d"]


def _spec(spec, default_elem: int) -> tuple[int, list]:
    """A shape, or an (element type, shape) tuple."""
    return spec if isinstance(spec, tuple) else (default_elem, spec)


def tiny_model(inputs=None, outputs=None) -> bytes:
    """String inputs (name -> shape) and outputs (name -> shape) filled with ones; symbolic dims run as 1."""
    inputs = inputs if inputs is not None else {"input": [1]}
    outputs = outputs if outputs is not None else {"embedding": [4]}
    nodes, inits, out_infos = [], [], []
    for i, (name, spec) in enumerate(outputs.items()):
        elem, shape = _spec(spec, TensorProto.FLOAT)
        concrete = [1 if isinstance(d, str) else d for d in shape]
        inits.append(helper.make_tensor(f"shape{i}", TensorProto.INT64, [len(concrete)], concrete))
        nodes.append(helper.make_node("ConstantOfShape", [f"shape{i}"], [name], value=helper.make_tensor("v", elem, [1], [1])))
        out_infos.append(helper.make_tensor_value_info(name, elem, shape))
    in_infos = [helper.make_tensor_value_info(name, *_spec(spec, TensorProto.STRING)) for name, spec in inputs.items()]
    graph = helper.make_graph(nodes, "tiny", in_infos, out_infos, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8).SerializeToString()


def pair_token_count_model() -> bytes:
    """input [2] strings -> BertTokenizer pair -> number of second-segment tokens ([SEP] included)."""
    nodes = [
        helper.make_node("BertTokenizer", ["input"], ["ids", "types", "mask", "offsets"], domain=CONTRIB_DOMAIN,
                         vocab_file="\n".join(VOCAB), do_lower_case=1, strip_accents=1),
        helper.make_node("ReduceSum", ["types"], ["count"], keepdims=0),
        helper.make_node("Cast", ["count"], ["score"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(nodes, "pair", [helper.make_tensor_value_info("input", TensorProto.STRING, [2])],
                              [helper.make_tensor_value_info("score", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(CONTRIB_DOMAIN, 1)],
                              ir_version=8)
    return model.SerializeToString()


def code_of(exc_info) -> int | None:
    return exc_info.value.code


EMB = {"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}


@pytest.mark.parametrize("metadata, error, code", [
    ({"embeddingOutput": "embedding"}, MetadataError, 54402),
    ({"function": "ranking"}, MetadataError, 54403),
    ({"function": 7}, MetadataError, 54403),
    (EMB | {"input": {"text": ["DATA"]}}, MetadataError, 54408),
    (EMB | {"input": {"input": [1]}}, MetadataError, 54409),
    (EMB | {"input": {"input": ["DATA", "MORE"]}}, MetadataError, 54420),
    (EMB | {"embeddingOutput": "vector"}, MetadataError, 54413),
    (EMB | {"unknownField": 1}, MetadataError, 40840),
    ('{"function": "embedding",', MetadataError, 40675),
    (EMB | {"defaultOnNull": {"DATA": "x"}}, UnsupportedModelError, None),
    ({"function": "classification"}, UnsupportedModelError, None),
    ({"function": "clustering"}, UnsupportedModelError, None),
])
def test_invalid_metadata_is_rejected_with_oracle_code(metadata, error, code):
    with pytest.raises(error) as exc:
        load_model("M", tiny_model(), metadata)
    assert code_of(exc) == code
    if code is not None:
        assert str(exc.value).startswith(f"ORA-{code:05d}: ")


def test_function_is_case_insensitive_and_output_defaults_to_the_single_one():
    model = load_model("M", tiny_model(), {"function": "EMBEDDING"})
    assert model.function == "embedding" and model.signature.output == "embedding"
    assert model.input_names == ["input"]  # attribute names default to the tensor names


def test_missing_output_field_with_two_outputs():
    with pytest.raises(MetadataError) as exc:
        load_model("M", tiny_model(outputs={"a": [4], "b": [4]}), {"function": "embedding"})
    assert code_of(exc) == 54412


@pytest.mark.parametrize("shape, ok", [([4], True), (["batch", 4], True), ([1, 4], False), (["n"], False)])
def test_embedding_output_needs_exactly_one_fixed_dimension(shape, ok):
    data = tiny_model(outputs={"embedding": shape})
    if ok:
        model = load_model("M", data, None)
        assert model.dimension == 4
        assert model.embed(["x", "y"]).shape == (2, 4)
    else:
        with pytest.raises(MetadataError) as exc:
            load_model("M", data, None)
        assert code_of(exc) == 54423


def test_embedding_output_must_be_float():
    with pytest.raises(MetadataError) as exc:
        load_model("M", tiny_model(outputs={"embedding": (TensorProto.INT64, [4])}), None)
    assert code_of(exc) == 54424


def test_regression_output_must_hold_one_value_per_row():
    with pytest.raises(MetadataError, match="one value per row"):
        load_model("M", tiny_model(outputs={"output": [3]}), {"function": "regression"})


def test_non_text_inputs_are_unsupported():
    data = tiny_model(inputs={"input": (TensorProto.FLOAT, [1, 3])})
    with pytest.raises(UnsupportedModelError, match="FLOAT tensor"):
        load_model("M", data, None)


@pytest.mark.parametrize("blob, code", [(b"", 54400), (b"\x00not an onnx model\xff" * 3, None)])
def test_bad_blobs(blob, code):
    with pytest.raises(InvalidModelError) as exc:
        load_model("M", blob, None)
    assert code_of(exc) == code


def test_multi_element_input_feeds_attributes_in_order():
    model = load_model("PAIR", pair_token_count_model(),
                       {"function": "regression", "regressionOutput": "score", "input": {"input": ["DATA1", "DATA2"]}})
    assert model.input_names == ["DATA1", "DATA2"]
    scores = model.predict({"DATA1": ["a", "a b c d"], "DATA2": ["b c d", "a"]})
    assert scores.tolist() == [4.0, 2.0] and scores.dtype == np.float64


def test_wrong_operator_for_the_function():
    emb = load_model("E", tiny_model(), None)
    reg = load_model("R", tiny_model(outputs={"output": [1, 1]}), {"function": "regression", "input": {"input": ["Q"]}})
    with pytest.raises(ModelUsageError) as exc:
        emb.predict({"DATA": ["x"]})
    assert code_of(exc) == 40215
    with pytest.raises(ModelUsageError) as exc:
        reg.embed(["x"])
    assert code_of(exc) == 40215
    assert reg.predict({"Q": ["x", "y"]}).tolist() == [1.0, 1.0]


def test_bad_calls_name_the_problem():
    model = load_model("E", tiny_model(), None)
    with pytest.raises(ModelUsageError, match=r"missing \['DATA'\]"):
        model.embed_rows({"TEXT": ["x"]})
    with pytest.raises(ModelUsageError, match="NULL"):
        model.embed(["x", None])  # type: ignore[list-item]
    with pytest.raises(ModelUsageError, match="no batched fast path"):
        model.embed(["x"], batched=True)
