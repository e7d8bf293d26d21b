"""RAW and hashing functions: SYS_GUID, HEXTORAW, RAWTOHEX, STANDARD_HASH, ORA_HASH.

RAW values are ``bytes``. Character input is hashed/converted as its UTF-8 bytes (AL32UTF8).
STANDARD_HASH and RAWTOHEX of numbers or datetimes would need Oracle's internal byte formats,
which the engine does not store, so they raise ORA-03001. ORA_HASH is deterministic (BLAKE2b of a
canonical encoding) but its values are not Oracle's: use it for bucketing, never compare them
with numbers computed by Oracle.
"""

from __future__ import annotations

import hashlib
import os
import re

from .errors import OracleFunctionError, unsupported
from .values import as_int, as_text, to_decimal

_HASH_METHODS = {"SHA1": "sha1", "SHA256": "sha256", "SHA384": "sha384", "SHA512": "sha512", "MD5": "md5"}
_HEX = re.compile(r"[0-9A-Fa-f]*\Z")
_UINT32 = 4_294_967_295


def sys_guid() -> bytes:
    """SYS_GUID(): 16 random bytes (RAW(16)); non-deterministic."""
    return os.urandom(16)


def hextoraw(char: object) -> bytes | None:
    """HEXTORAW: hex text to bytes (odd length gets a leading 0, as in Oracle)."""
    if isinstance(char, (bytes, bytearray)):
        return bytes(char) or None
    text = as_text(char)
    if text is None:
        return None
    if not _HEX.match(text):
        raise OracleFunctionError(1465)
    if len(text) % 2:
        text = "0" + text
    return bytes.fromhex(text)


def _bytes_of(value: object, function: str) -> bytes | None:
    if value is None or value == "":
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise unsupported(f"{function} of a {type(value).__name__} value (Oracle's internal byte format)")


def rawtohex(raw: object) -> str | None:
    """RAWTOHEX: upper-case hex of RAW bytes (character input: its UTF-8 bytes)."""
    data = _bytes_of(raw, "RAWTOHEX")
    return None if data is None else (data.hex().upper() or None)


def standard_hash(expr: object, method: object = "SHA1") -> bytes | None:
    """STANDARD_HASH(expr[, 'SHA1'|'SHA256'|'SHA384'|'SHA512'|'MD5']) -> RAW digest (NULL for NULL)."""
    name = (as_text(method) or "").strip().upper()
    if name not in _HASH_METHODS:
        raise OracleFunctionError(1760, f"STANDARD_HASH method {method!r}")
    data = _bytes_of(expr, "STANDARD_HASH")
    if data is None:
        return None
    return hashlib.new(_HASH_METHODS[name], data).digest()


def _canonical(value: object) -> bytes:
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (int, float)):
        return b"n" + str(to_decimal(value).normalize()).encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b"b" + bytes(value)
    return b"s" + str(value).encode("utf-8")


def ora_hash(expr: object, max_bucket: object = _UINT32, seed_value: object = 0) -> int | None:
    """ORA_HASH(expr[, max_bucket[, seed]]) -> 0..max_bucket; deterministic, not Oracle-identical."""
    bucket = as_int(max_bucket)
    seed = as_int(seed_value)
    if bucket is None or seed is None:
        return None
    if not 0 <= bucket <= _UINT32:
        raise OracleFunctionError(1428, str(bucket))
    if not 0 <= seed <= _UINT32:
        raise OracleFunctionError(1428, str(seed))
    if expr is None or expr == "":
        return None
    digest = hashlib.blake2b(_canonical(expr), digest_size=8, key=seed.to_bytes(4, "big")).digest()
    return int.from_bytes(digest, "big") % (bucket + 1)
