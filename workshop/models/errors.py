"""Errors of the model package, carrying the Oracle error number where Oracle has one.

The embedded engine turns these into `oracledb.DatabaseError` (`code` and `message` map onto
`ORA-<code>: <message>`); `code` is None where Oracle documents no number for the failure.
"""
from __future__ import annotations

ENGINE_NOTE = "(embedded engine model runtime)"


class ModelError(Exception):
    """A model could not be built, loaded or scored."""

    def __init__(self, message: str, code: int | None = None):
        self.code = code
        self.message = message
        super().__init__(f"ORA-{code:05d}: {message}" if code is not None else message)


class MetadataError(ModelError):
    """The JSON metadata passed to LOAD_ONNX_MODEL is invalid for this model (ORA-54xxx family)."""


class InvalidModelError(ModelError):
    """The ONNX bytes are not a usable model (not parseable, or rejected by onnxruntime)."""


class UnsupportedModelError(ModelError):
    """Valid for Oracle, but outside what the embedded engine's model runtime implements."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(f"{message} {ENGINE_NOTE}", code)


class ModelBuildError(ModelError):
    """A model file could not be built from its source weights."""


class ModelUsageError(ModelError):
    """A loaded model was called the wrong way (wrong function, missing input, bad value)."""
