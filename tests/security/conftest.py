"""Fixtures of the attack suite: see protected.py for the shared protected database."""
from tests.security.protected import acme, secured_path  # noqa: F401 - pytest fixtures
