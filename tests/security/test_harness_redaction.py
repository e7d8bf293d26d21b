"""Redaction inputs (issue 19, claim: redaction covers every value type, the usual key names and credential
shapes, and a tool name cannot carry a secret into the record).

Each row plants one secret in one shape; `redact` must return something in which the secret's text no longer
appears, and the run record written through the harness must not hold it either. Plain values must come back
unchanged (a log that redacts everything shows nothing).
"""
from __future__ import annotations

import json

import pytest

from tests.security.harness_support import pair, small_db  # noqa: F401 - fixtures
from workshop.harness.runlog import REDACTED, read_events, read_run, redact
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner

# Built from pieces, so no scanner mistakes this file for a leak.
GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GHO = "gho_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
GH_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
STRIPE = "sk_live_" + "51HqWERTYuiopASDFghjkl"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GOOGLE = "AIza" + "SyA-1234567890abcdefghijklmnopqrstu"
OPENAI = "sk-" + "proj-Abcdefghijklmnop0123456789"
ANTHROPIC = "sk-ant-" + "api03-abcdefghijklmnopqrstuvwxyz012345"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKl"
JWT = "eyJhbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
BASIC = "dXNlcjpodW50ZXIy"                 # base64("user:hunter2")
BEARER_TOKEN = "abc.def-ghi_jkl" + "12345"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nq1w2e3r4t5\n-----END RSA PRIVATE KEY-----"
DB_PASSWORD = "Tiger" + "Pass_42"
PLAIN_SECRET = "correct-horse-battery-" + "staple"

#: (id, value, the secret text that must not survive)
INPUTS = [
    ("github-classic", f"token {GH} here", GH),
    ("github-oauth", GHO, GHO),
    ("github-fine-grained", f"use {GH_PAT}", GH_PAT),
    ("stripe-live", f"key={STRIPE}", STRIPE),
    ("aws-access-key", f"aws {AWS} id", AWS),
    ("google-api-key", GOOGLE, GOOGLE),
    ("openai", OPENAI, OPENAI),
    ("anthropic", ANTHROPIC, ANTHROPIC),
    ("slack", SLACK, SLACK),
    ("jwt", f"session {JWT}", JWT),
    ("basic-header", f"Authorization: Basic {BASIC}", BASIC),
    ("basic-bare", f"header was Basic {BASIC}", BASIC),
    ("bearer-header", f"Authorization: Bearer {BEARER_TOKEN}", BEARER_TOKEN),
    ("pem", f"key:\n{PEM}\nend", PEM_BODY),
    ("pem-truncated", f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}", PEM_BODY),
    ("oracle-connect-string", f"connect scott/{DB_PASSWORD}@dbhost:1521/FREEPDB1", DB_PASSWORD),
    ("url-userinfo", f"oracle://scott:{DB_PASSWORD}@dbhost/FREEPDB1", DB_PASSWORD),
    ("key-value-password", f"password={PLAIN_SECRET}", PLAIN_SECRET),
    ("key-value-pwd", f"pwd: {PLAIN_SECRET}", PLAIN_SECRET),
    ("key-value-passphrase", f"passphrase = {PLAIN_SECRET}", PLAIN_SECRET),
    ("key-value-quoted", f'"api_key": "{PLAIN_SECRET}"', PLAIN_SECRET),
    ("dict-pwd", {"pwd": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-passphrase", {"passphrase": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-private-key", {"private_key": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-authorization", {"Authorization": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-api-key", {"X-Api-Key": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-secret", {"client_secret": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-token", {"refresh_token": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-cookie", {"Cookie": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-set-cookie", {"set-cookie": PLAIN_SECRET}, PLAIN_SECRET),
    ("dict-credentials-structure", {"credentials": {"user": "ana", "pin": PLAIN_SECRET}}, PLAIN_SECRET),
    ("dict-key-is-a-secret", {OPENAI: "value"}, OPENAI),
    ("dict-int-key-secret-value", {1: f"Bearer {BEARER_TOKEN}"}, BEARER_TOKEN),
    ("dict-tuple-key", {("user", OPENAI): 1}, OPENAI),
    ("bytes", f"token={PLAIN_SECRET}".encode(), PLAIN_SECRET),
    ("bytearray", bytearray(OPENAI.encode()), OPENAI),
    ("set", {OPENAI, "plain"}, OPENAI),
    ("frozenset", frozenset({GH}), GH),
    ("tuple", ("ok", STRIPE), STRIPE),
    ("nested", {"a": [{"b": ({"c": [f"Bearer {BEARER_TOKEN}"]},)}]}, BEARER_TOKEN),
    ("exception", ValueError(f"login failed for scott/{DB_PASSWORD}@db"), DB_PASSWORD),
    ("exception-in-dict", {"error": RuntimeError(f"key {ANTHROPIC} rejected")}, ANTHROPIC),
    ("json-in-string", json.dumps({"user": "ana", "password": PLAIN_SECRET}), PLAIN_SECRET),
    ("json-array-in-string", json.dumps([{"token": PLAIN_SECRET}]), PLAIN_SECRET),
    ("json-in-json-in-string", json.dumps({"body": json.dumps({"secret": PLAIN_SECRET})}), PLAIN_SECRET),
    ("object-with-str", type("Creds", (), {"__str__": lambda self: f"api_key={PLAIN_SECRET}"})(), PLAIN_SECRET),
]
#: Values without secrets come back equal (and numbers, dates and None with their type).
PLAIN = [
    ("sql", "SELECT COUNT(*) AS loans FROM finance_loans WHERE rate_bp > 1400"),
    ("prose", "Basic authentication is off; the token budget is 20000."),
    ("numbers", {"rate_bp": 1400, "ratio": 0.25, "flag": True, "none": None}),
    ("json-text", '{"a": 1, "b": [1, 2]}'),
    ("path", "solutions/07_agent_harness.ipynb"),
]


@pytest.mark.parametrize("value, secret", [(v, s) for _, v, s in INPUTS], ids=[i for i, _, _ in INPUTS])
def test_the_secret_does_not_survive_redaction(value, secret):
    out = redact(value)
    assert secret not in repr(out) and secret not in json.dumps(out, default=str)
    assert REDACTED in repr(out)


@pytest.mark.parametrize("value", [v for _, v in PLAIN], ids=[i for i, _ in PLAIN])
def test_plain_values_come_back_unchanged(value):
    assert redact(value) == value


def test_redaction_builds_new_objects():
    value = {"password": "x", "list": [{"token": "y"}]}
    before = json.dumps(value)
    redact(value)
    assert json.dumps(value) == before


def test_a_deeply_nested_value_is_cut_not_a_crash():
    value: list = []
    for _ in range(10_000):
        value = [value]
    assert "[TOO DEEP]" in json.dumps(redact(value))


@pytest.mark.parametrize("value, secret", [(v, s) for _, v, s in INPUTS], ids=[i for i, _, _ in INPUTS])
def test_the_run_record_holds_no_planted_secret(pair, value, secret):
    """The same secret in the user's question and the answer (text shapes), a tool's argument and output (every
    shape), and a tool's *name* (text shapes short enough to be one)."""
    rw, ro = pair
    harness = Harness(ro, rw, allowed=["echo"], tools={"echo": lambda **a: {"out": value}})
    text = value if isinstance(value, str) else ""
    name = text if 0 < len(text) <= 200 else "echo"
    planner = ScriptedPlanner([[Call(name, {"arg": value})], [Call("echo", {"arg": value})], Answer(f"done {text}")])
    result = harness.run(f"question with {text}", planner)
    events, run = read_events(rw, result.run_id), read_run(rw, result.run_id)
    assert secret not in repr(events) and secret not in repr(run)
    assert [e["status"] for e in events if e["kind"] == "TOOL"][-1] == "success"
