"""Validate LOAD_ONNX_MODEL's JSON metadata against a model graph the way Oracle does.

Oracle's rules and error numbers (Database Error Messages, ORA-54400 to ORA-54475; JSON Metadata
Parameters for ONNX Models): `function` is mandatory and one of regression, classification,
clustering, embedding; every key of `input` must be a graph input and map to an array of
attribute names, one per element of that input tensor; an output named by `embeddingOutput` /
`regressionOutput` must exist, and without it the model must have a single output; an embedding
output has exactly one dimension of fixed size (the vector dimension).
"""
from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass

import onnx
from onnx import TensorProto

from workshop.models.errors import MetadataError, UnsupportedModelError

DEFAULT_METADATA = {"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}
FUNCTIONS = ("regression", "classification", "clustering", "embedding")
OUTPUT_FIELDS = {
    "embedding": "embeddingOutput",
    "regression": "regressionOutput",
    "classification": "classificationProbOutput",
    "clustering": "clusteringDistanceOutput",
}
#: Fields Oracle documents for ONNX model metadata that this runtime does not implement.
_UNSUPPORTED_FIELDS = ("defaultOnNull", "inputAsVector", "normalizeEmb", "normalizeProb", "labels",
                       "classificationProbOutput", "classificationLabelOutput", "clusteringDistanceOutput",
                       "clusteringProbOutput")
_KNOWN_FIELDS = {"function", "input", "embeddingOutput", "regressionOutput", *_UNSUPPORTED_FIELDS}
_FLOAT_FORMATS = {TensorProto.FLOAT: "FLOAT32", TensorProto.DOUBLE: "FLOAT64"}


@dataclass(frozen=True)
class ModelInput:
    tensor: str                 # graph input name
    attributes: tuple[str, ...]  # Oracle attribute names, one per tensor element
    shape: tuple[int, ...]      # the fed shape (the declared one, or (n_attributes,) when dynamic)


@dataclass(frozen=True)
class ModelSignature:
    function: str
    inputs: tuple[ModelInput, ...]
    output: str
    output_dims: tuple[int | None, ...]   # None marks a dynamic dimension
    output_format: str                    # FLOAT32 or FLOAT64

    @property
    def attribute_names(self) -> list[str]:
        return [name for inp in self.inputs for name in inp.attributes]

    @property
    def dimension(self) -> int | None:
        fixed = [d for d in self.output_dims if d is not None]
        return fixed[0] if self.function == "embedding" else None


def parse_metadata(metadata: dict | str | None) -> dict:
    """None means LOAD_ONNX_MODEL's default metadata; a string is parsed as JSON."""
    if metadata is None:
        return copy.deepcopy(DEFAULT_METADATA)
    if isinstance(metadata, (str, bytes)):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError as exc:
            raise MetadataError(f"Metadata descriptor must be specified using valid JSON ({exc.msg})", 40675) from None
    if not isinstance(metadata, dict):
        raise MetadataError("Metadata descriptor must be specified using valid JSON (a JSON object)", 40675)
    return copy.deepcopy(metadata)


def _dims(value: onnx.ValueInfoProto) -> tuple[int | None, ...] | None:
    tensor = value.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim)


def _graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    initializers = {t.name for t in model.graph.initializer}
    return [v for v in model.graph.input if v.name not in initializers]


def _check_function(meta: dict) -> str:
    if "function" not in meta:
        raise MetadataError('The "function" field is missing in the JSON metadata.', 54402)
    function = meta["function"]
    if not isinstance(function, str) or function.lower() not in FUNCTIONS:
        raise MetadataError(f'Invalid value for the "function" field in the JSON metadata: {function!r}', 54403)
    function = function.lower()
    if function not in ("embedding", "regression"):
        raise UnsupportedModelError(f'"function": "{function}" models are not supported; only embedding and '
                                    "regression (reranking) models run")
    return function


def _check_fields(meta: dict) -> None:
    for field in meta:
        if field not in _KNOWN_FIELDS:
            raise MetadataError(f"unsupported field {field} in the metadata", 40840)
        if field in _UNSUPPORTED_FIELDS:
            raise UnsupportedModelError(f'the "{field}" metadata field is not supported')


def _check_inputs(meta: dict, model: onnx.ModelProto) -> tuple[ModelInput, ...]:
    graph_inputs = _graph_inputs(model)
    by_name = {v.name: v for v in graph_inputs}
    mapping = meta.get("input", {})
    if not isinstance(mapping, dict):
        raise MetadataError('The "input" field in the JSON metadata must be an object mapping input tensors to '
                            "arrays of attribute names.")
    for tensor, names in mapping.items():
        if tensor not in by_name:
            raise MetadataError(f'The "input.{tensor}" field in the JSON metadata is not a model input.', 54408)
        if not isinstance(names, list):
            raise MetadataError(f'The "input.{tensor}" field in the JSON metadata must be an array of attribute names.')
        for i, name in enumerate(names):
            if not isinstance(name, str):
                raise MetadataError(f'The "input.{tensor}[{i}]" element in the JSON metadata is not a string.', 54409)
    inputs, seen = [], set()
    for value in graph_inputs:
        if value.type.tensor_type.elem_type != TensorProto.STRING:
            elem = TensorProto.DataType.Name(value.type.tensor_type.elem_type)
            raise UnsupportedModelError(f'model input "{value.name}" is a {elem} tensor; only text (string) inputs '
                                        "are supported")
        names = tuple(mapping.get(value.name, [value.name]))
        dims = _dims(value)
        if dims is not None and all(d is not None for d in dims):
            size = math.prod(dims)
            if len(names) != size:
                raise MetadataError(f'Incorrect number of elements in the "input.{value.name}" array in the JSON '
                                    f"metadata (JSON: {len(names)}, model: {size})", 54420)
            shape = tuple(dims)  # type: ignore[arg-type]
        else:
            shape = (len(names),)
        for name in names:
            if name in seen:
                raise MetadataError(f'attribute name "{name}" appears twice in the "input" field of the JSON metadata')
            seen.add(name)
        inputs.append(ModelInput(value.name, names, shape))
    return tuple(inputs)


def _check_output(meta: dict, model: onnx.ModelProto, function: str) -> onnx.ValueInfoProto:
    field = OUTPUT_FIELDS[function]
    outputs = {v.name: v for v in model.graph.output}
    if field in meta:
        name = meta[field]
        if not isinstance(name, str) or name not in outputs:
            raise MetadataError(f'Cannot find model output "{name}", specified by "{field}"', 54413)
        return outputs[name]
    if len(outputs) != 1:
        raise MetadataError(f'The "{field}" field in the JSON metadata is missing.', 54412)
    return next(iter(outputs.values()))


def validate_metadata(metadata: dict | str | None, model: onnx.ModelProto) -> ModelSignature:
    meta = parse_metadata(metadata)
    function = _check_function(meta)
    _check_fields(meta)
    inputs = _check_inputs(meta, model)
    output = _check_output(meta, model, function)
    elem = output.type.tensor_type.elem_type
    if elem not in _FLOAT_FORMATS:
        raise MetadataError(f'The type of the tensor "{output.name}" is not supported.', 54424)
    dims = _dims(output) or ()
    fixed = [d for d in dims if d is not None]
    if function == "embedding" and len(fixed) != 1:
        raise MetadataError(f'Tensor "{output.name}" has an invalid number of dimensions ({len(fixed)}) of fixed size '
                            "for an embedding output.", 54423)
    if function == "regression" and dims and all(d is not None for d in dims) and math.prod(fixed) != 1:
        raise MetadataError(f'regression output "{output.name}" has shape {list(dims)}; PREDICTION needs one '
                            "value per row")
    return ModelSignature(function, inputs, output.name, dims, _FLOAT_FORMATS[elem])
