"""The built files: pinned bytes, deterministic builds, Oracle's shape rules, and the atomic cache."""
from __future__ import annotations

import threading
import time

import onnx
import pytest
from onnx import TensorProto

from workshop.models import EMBEDDING_METADATA, ModelBuildError, embedding_model_bytes, load_model
from workshop.models.cosine_reranker import COSINE_RERANKER_SHA256
from workshop.models.embedding_model import EMBEDDING_SHA256
from workshop.models.maxsim_reranker import RERANKER_SHA256, reranker_model_bytes
from workshop.models.model_cache import atomic_write, ensure_cached, sha256_bytes, sha256_file

# The pins, repeated here on purpose: changing the build must be a deliberate, reviewed change.
PINNED_EMBEDDING = "163687205c11e57b47a2826a470a7e17e2f4b586f8bd3f9a0819126547691b5c"
PINNED_RERANKER = "b95c7e06a514ae0c9eca315e8e8b0c7d15397e3e98b49f15ccba1c7a942d1118"     # MaxSim, the default
PINNED_COSINE_BASELINE = "86e934ed5e82aeb38b08651154bf19914374e3be6edce31b2eaff0df666403b1"


def test_embedding_file_matches_pin(embedding_path):
    assert EMBEDDING_SHA256 == PINNED_EMBEDDING
    assert sha256_file(embedding_path) == PINNED_EMBEDDING


def test_reranker_file_matches_pin(reranker_path):
    assert RERANKER_SHA256 == PINNED_RERANKER
    assert sha256_file(reranker_path) == PINNED_RERANKER


def test_cosine_baseline_file_matches_pin(cosine_reranker_path):
    assert COSINE_RERANKER_SHA256 == PINNED_COSINE_BASELINE
    assert sha256_file(cosine_reranker_path) == PINNED_COSINE_BASELINE


def test_fresh_build_is_byte_identical_to_cached_file(embedding_path, reranker_path):
    assert sha256_bytes(embedding_model_bytes()) == sha256_file(embedding_path)
    assert sha256_bytes(reranker_model_bytes()) == sha256_file(reranker_path)


def _dims(value):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in value.type.tensor_type.shape.dim]


def test_embedding_file_follows_oracle_rules(embedding_path):
    model = onnx.load(str(embedding_path))
    assert model.ir_version == 8
    assert {o.domain: o.version for o in model.opset_import} == {"": 17, "ai.onnx.contrib": 1}
    assert [(i.name, i.type.tensor_type.elem_type, _dims(i)) for i in model.graph.input] == [("input", TensorProto.STRING, [1])]
    # Oracle: an embedding output has exactly one fixed-size dimension (ORA-54423).
    assert [(o.name, o.type.tensor_type.elem_type, _dims(o)) for o in model.graph.output] == [
        ("embedding", TensorProto.FLOAT, [384])]
    assert not any(t.data_location == TensorProto.EXTERNAL for t in model.graph.initializer)
    assert embedding_path.stat().st_size < 1 << 30
    custom = [n for n in model.graph.node if n.domain]
    assert [(n.domain, n.op_type) for n in custom] == [("ai.onnx.contrib", "BertTokenizer")]
    attrs = {a.name: a for a in custom[0].attribute}
    assert attrs["strip_accents"].i == 1 and attrs["do_lower_case"].i == 1


def test_embedding_loads_with_default_metadata(embedder):
    assert embedder.function == "embedding"
    assert embedder.input_names == ["DATA"]
    assert embedder.dimension == 384 and embedder.vector_format == "FLOAT32"
    assert embedder.metadata == EMBEDDING_METADATA
    assert embedder.card.kind == "embedding" and not embedder.card.is_stand_in


def test_reranker_file_follows_oracle_reranking_interface(reranker_path):
    model = onnx.load(str(reranker_path))
    assert model.ir_version == 8
    assert {o.domain: o.version for o in model.opset_import} == {"": 17, "ai.onnx.contrib": 1}
    assert [(i.name, _dims(i)) for i in model.graph.input] == [("first_input", [1]), ("second_input", [1])]
    assert all(i.type.tensor_type.elem_type == TensorProto.STRING for i in model.graph.input)
    assert [(o.name, o.type.tensor_type.elem_type, _dims(o)) for o in model.graph.output] == [
        ("output", TensorProto.FLOAT, [])]
    assert not any(t.data_location == TensorProto.EXTERNAL for t in model.graph.initializer)
    assert reranker_path.stat().st_size < 1 << 30
    custom = [n for n in model.graph.node if n.domain]
    assert [(n.domain, n.op_type) for n in custom] == [("ai.onnx.contrib", "BertTokenizer")] * 2
    for node in custom:
        attrs = {a.name: a for a in node.attribute}
        assert attrs["strip_accents"].i == 1 and attrs["do_lower_case"].i == 1
    # one set of weights serves both towers: the file is the size of one MiniLM
    assert len({t.name for t in model.graph.initializer}) == len(model.graph.initializer)
    assert reranker_path.stat().st_size < 1.05 * 90_500_000


# -- the cache ---------------------------------------------------------------------------------------
class CountingBuild:
    def __init__(self, data: bytes, delay: float = 0.0):
        self.data, self.delay, self.calls = data, delay, 0

    def __call__(self) -> bytes:
        self.calls += 1
        time.sleep(self.delay)
        return self.data


def test_cache_builds_missing_file_then_reuses_it(tmp_path):
    build = CountingBuild(b"model-bytes")
    path = tmp_path / "m.onnx"
    assert ensure_cached(path, sha256_bytes(b"model-bytes"), build) == path
    assert ensure_cached(path, sha256_bytes(b"model-bytes"), build) == path
    assert build.calls == 1 and path.read_bytes() == b"model-bytes"
    assert path.stat().st_mode & 0o777 == 0o644


def test_cache_rebuilds_a_corrupt_file(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(b"truncated")
    build = CountingBuild(b"model-bytes")
    ensure_cached(path, sha256_bytes(b"model-bytes"), build)
    assert build.calls == 1 and path.read_bytes() == b"model-bytes"


def test_cache_refuses_a_build_that_misses_the_pin(tmp_path):
    path = tmp_path / "m.onnx"
    with pytest.raises(ModelBuildError, match="pinned"):
        ensure_cached(path, sha256_bytes(b"expected"), CountingBuild(b"something else"))
    assert list(tmp_path.iterdir()) == []


def test_concurrent_builders_leave_one_complete_file(tmp_path):
    path = tmp_path / "m.onnx"
    data = bytes(range(256)) * 4096
    builds = [CountingBuild(data, delay=0.05) for _ in range(4)]
    threads = [threading.Thread(target=ensure_cached, args=(path, sha256_bytes(data), b)) for b in builds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert path.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def test_atomic_write_keeps_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(b"old")

    with pytest.raises(TypeError):
        atomic_write(path, object())  # type: ignore[arg-type]
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def test_loaded_model_reports_sha(embedder, embedding_path):
    assert embedder.sha256 == sha256_file(embedding_path)


def test_embedding_metadata_round_trips_as_json_string(embedding_path):
    model = load_model("M", embedding_path.read_bytes(),
                       '{"function":"embedding","embeddingOutput":"embedding","input":{"input":["TEXT"]}}')
    assert model.input_names == ["TEXT"]
