"""The fail-closed tool allowlist: the agent gets exactly the declared tools, or it does not start.

The seed's Java check is `if (!available.equals(requiredTools)) throw ...`: an extra tool is as much a
reason to refuse as a missing one, because an extra tool is authority nobody granted.
"""
from __future__ import annotations

from collections.abc import Iterable


class ToolsetMismatch(RuntimeError):
    """The tools discovered at start-up are not exactly the allowlist."""


def check_toolset(available: Iterable[str], allowed: Iterable[str]) -> frozenset[str]:
    """The allowlist when discovery returned exactly it; ToolsetMismatch naming the extra and missing tools."""
    found, wanted = frozenset(available), frozenset(allowed)
    if found != wanted:
        raise ToolsetMismatch(f"tool allowlist mismatch: unexpected {sorted(found - wanted)}, "
                              f"missing {sorted(wanted - found)}; refusing to start")
    return wanted
