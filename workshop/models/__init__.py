"""In-database AI models for both engines: the files Oracle loads with DBMS_VECTOR.LOAD_ONNX_MODEL,
and the runtime the embedded engine scores them with.

    path = ensure_embedding_model()                       # all-MiniLM-L6-v2, cached under models_dir()
    model = load_model("ALL_MINILM_L6_V2", path.read_bytes(), None)   # None = Oracle's default metadata
    vectors = model.embed(["some text"])                   # float32 (n, 384)

    reranker = load_model("RERANKER", ensure_reranker_model().read_bytes(), reranker_metadata())
    scores = reranker.predict({"FIRST_INPUT": [q] * len(docs), "SECOND_INPUT": docs})
    describe_reranker()   # the default: training-free late interaction (MaxSim), not a cross-encoder
"""
from workshop.models.cosine_reranker import (STAND_IN, STAND_IN_CARD, build_cosine_reranker,
                                             ensure_cosine_reranker_model)
from workshop.models.cross_encoder import build_cross_encoder, ensure_cross_encoder_model
from workshop.models.embedding_model import (EMBEDDING_METADATA, build_embedding_model, embedding_metadata,
                                             embedding_model_bytes, ensure_embedding_model)
from workshop.models.errors import (InvalidModelError, MetadataError, ModelBuildError, ModelError, ModelUsageError,
                                    UnsupportedModelError)
from workshop.models.maxsim_reranker import (MAXSIM_CARD, RERANKER_SUMMARY, build_maxsim_reranker,
                                             describe_reranker, ensure_reranker_model)
from workshop.models.metadata import DEFAULT_METADATA
from workshop.models.model_card import ModelCard
from workshop.models.reranker_graph import RERANKER_METADATA, RERANKER_METADATA_DATA12, reranker_metadata
from workshop.models.runtime import LoadedModel, load_model

__all__ = [
    "DEFAULT_METADATA", "EMBEDDING_METADATA", "MAXSIM_CARD", "RERANKER_METADATA", "RERANKER_METADATA_DATA12",
    "RERANKER_SUMMARY", "STAND_IN", "STAND_IN_CARD", "InvalidModelError", "LoadedModel", "MetadataError",
    "ModelBuildError", "ModelCard", "ModelError", "ModelUsageError", "UnsupportedModelError",
    "build_cosine_reranker", "build_cross_encoder", "build_embedding_model", "build_maxsim_reranker",
    "describe_reranker", "embedding_metadata", "embedding_model_bytes", "ensure_cosine_reranker_model",
    "ensure_cross_encoder_model", "ensure_embedding_model", "ensure_reranker_model", "load_model",
    "reranker_metadata",
]
