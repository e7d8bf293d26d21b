"""What a model is, stored inside the ONNX file itself (metadata_props), so whoever loads the bytes
(the embedded engine, a notebook banner, a result table) can say which model actually ran.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import onnx

_PREFIX = "workshop."
#: Names of the per-row tensors [1, S] that feed the batch-generic part of the graph (comma-separated).
BATCH_INPUTS_KEY = "workshop.batch.inputs"
#: Name of the tensor [B, ...] whose row i is the result for input row i.
BATCH_OUTPUT_KEY = "workshop.batch.output"


@dataclass(frozen=True)
class ModelCard:
    kind: str            # "embedding", "cross-encoder", "late-interaction-maxsim", "bi-encoder-cosine", "external"
    label: str           # one line for banners and result tables
    description: str
    is_stand_in: bool    # True when it is not the kind of model a production set-up would load (untrained for the task)
    source: str          # where the weights came from

    def as_dict(self) -> dict:
        return asdict(self)

    def props(self) -> dict[str, str]:
        return {f"{_PREFIX}{k}": (str(v).lower() if isinstance(v, bool) else v) for k, v in asdict(self).items()}


EXTERNAL_CARD = ModelCard(
    kind="external",
    label="user-supplied ONNX model",
    description="An ONNX model that was not built by workshop.models; no card inside the file.",
    is_stand_in=False,
    source="unknown",
)


def read_card(model: onnx.ModelProto) -> ModelCard:
    props = {p.key: p.value for p in model.metadata_props}
    if f"{_PREFIX}kind" not in props:
        return EXTERNAL_CARD
    return ModelCard(
        kind=props[f"{_PREFIX}kind"],
        label=props.get(f"{_PREFIX}label", ""),
        description=props.get(f"{_PREFIX}description", ""),
        is_stand_in=props.get(f"{_PREFIX}is_stand_in") == "true",
        source=props.get(f"{_PREFIX}source", ""),
    )


def batch_props(inputs: list[str], output: str) -> dict[str, str]:
    return {BATCH_INPUTS_KEY: ",".join(inputs), BATCH_OUTPUT_KEY: output}
