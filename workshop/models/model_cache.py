"""Cache built model files under `workshop.config.models_dir()`, verified by their pinned sha256.

A cached file is used only if its sha256 equals the pin; otherwise it is rebuilt. Writes go to a
temporary file in the same folder and are moved into place with os.replace, so two processes
(pytest-xdist workers) building at once never leave a half-written file behind.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from workshop.models.errors import ModelBuildError

#: (path, size, mtime_ns) -> sha256, so a process hashes each cached file once.
_verified: dict[tuple[str, int, int], str] = {}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _verified:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        _verified[key] = digest.hexdigest()
    return _verified[key]


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the Oracle container may read the file via a directory
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def ensure_cached(path: Path, expected_sha256: str | None, build: Callable[[], bytes]) -> Path:
    """Return `path`, building it first if it is missing or its sha256 is not the expected one.

    With expected_sha256=None (content-addressed caches, where the file name already encodes the
    inputs) an existing file is trusted. A fresh build whose sha256 differs from the pin raises:
    the pin is what guarantees Oracle and the embedded engine run byte-identical models.
    """
    if path.exists() and (expected_sha256 is None or sha256_file(path) == expected_sha256):
        return path
    data = build()
    actual = sha256_bytes(data)
    if expected_sha256 is not None and actual != expected_sha256:
        raise ModelBuildError(
            f"built {path.name} has sha256 {actual}, but {expected_sha256} is pinned; the build inputs changed "
            "(package weights, or the onnx version that serializes the file). Check the parity tests, then update the pin.")
    atomic_write(path, data)
    return path
