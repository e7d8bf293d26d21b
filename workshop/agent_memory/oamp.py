"""Can Oracle AI Agent Memory (the `oracleagentmemory` package, OAMP) run here, and the texts part 08 gives it.

OAMP builds its store from Oracle AI Database 26ai features the embedded engine does not have: a hybrid vector
index with FILTER BY columns (CREATE HYBRID VECTOR INDEX, a DBMS_VECTOR_CHAIN vectorizer preference),
DBMS_HYBRID_VECTOR.SEARCH, and a DBMS_SCHEDULER job that purges expired records. (It installs no PL/SQL package
of its own: the 26.6.0 wheel's SQL has no CREATE PACKAGE and no DBMS_AGENT_MEMORY_STORE.) It also requires oracledb<5, so it lives in its own virtualenv and kernel (scripts/setup_oamp_env.sh).
`unavailable_reason` gives the ONE reason an OAMP cell skips, or None when it can run.
"""
from __future__ import annotations

import importlib.util
import os
import uuid

import oracledb

from workshop import lesson_state

PACKAGE = "oracleagentmemory"
VERSION = "26.6.0"
KERNEL = "workshop-oamp"
SETUP_COMMAND = "scripts/setup_oamp_env.sh"
#: The LLM OAMP's extraction calls (LiteLLM-style model name, e.g. "openai/gpt-4o-mini"), its base URL and key.
LLM_ENV = ("OAMP_LLM_MODEL", "OAMP_LLM_API_BASE", "OAMP_LLM_API_KEY")
STORE_ID = "hybrid_blog"

SUPPORT_EXTRACTION_INSTRUCTIONS = """\
You extract durable memories for a customer-support agent.
Preserve: confirmed order IDs, return requests, delivery issues, escalation reasons, stable customer
preferences, tool-derived support facts, and exact identifiers (order, return and case IDs) verbatim.
Ignore: greetings, small talk, speculation, credentials, payment secrets, one-time verification or access
codes, and temporary conversational wording."""

ESCALATION_EXTRACTION_INSTRUCTIONS = """\
Extract only escalation memories: the escalation reason, the owner or team, the customer-facing deadline and
confirmed commitments. Ignore general troubleshooting and repeated background."""

TOOL_AWARE_EXTRACTION_INSTRUCTIONS = """\
Preserve tool-confirmed facts and exact identifiers. Say when a fact was confirmed by a tool and which tool,
and distinguish tool-confirmed facts from user claims. Never keep credentials or one-time codes."""


def engine_of(conn: oracledb.Connection) -> str:
    return "embedded" if type(conn).__module__.startswith("workshop.embedded") else "oracle"


def package_installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


def unavailable_reason(conn: oracledb.Connection | None) -> str | None:
    """Why OAMP cannot run in this kernel on this database (one line), or None."""
    if conn is None or engine_of(conn) == "embedded":
        return ("the embedded engine cannot run OAMP (its store needs a hybrid vector index with FILTER BY, "
                "DBMS_HYBRID_VECTOR.SEARCH and a DBMS_SCHEDULER purge job): run this part on Oracle (ORACLE_DSN) to "
                "see it; the mirror above teaches the same ideas")
    if not package_installed():
        return (f"{PACKAGE} is not installed in this kernel: run {SETUP_COMMAND} and choose the kernel "
                f"'{KERNEL}' (it needs oracledb<5, so it has its own environment)")
    return None


def llm_settings() -> dict[str, str] | None:
    """The extraction LLM from the environment, or None when OAMP_LLM_MODEL is not set."""
    model = os.environ.get("OAMP_LLM_MODEL", "").strip()
    if not model:
        return None
    return {"model": model, "api_base": os.environ.get("OAMP_LLM_API_BASE") or None,
            "api_key": os.environ.get("OAMP_LLM_API_KEY") or None}


def llm_missing_reason() -> str | None:
    if llm_settings() is None:
        return ("no extraction LLM configured: set OAMP_LLM_MODEL (and OAMP_LLM_API_BASE, OAMP_LLM_API_KEY) to run "
                "extraction; the retrieval cells below still run")
    return None


def ready(conn: oracledb.Connection | None, *, needs_llm: bool = False) -> bool:
    """True when an OAMP cell can run; otherwise prints the one reason it skips."""
    reason = unavailable_reason(conn) or (llm_missing_reason() if needs_llm else None)
    if reason:
        print(f"⏭ skipped: {reason}")
        return False
    return True


def _new_run_id() -> str:
    return os.environ.get("OAMP_RUN_ID") or uuid.uuid4().hex[:8]


#: Thread ids of one notebook run (the articles' RUN_ID): a rerun never meets the previous run's threads. A rerun
#: in the same kernel starts with reset_part(8), which draws a new one (workshop.lesson_state).
RUN_ID = _new_run_id()


def _next_run() -> None:
    global RUN_ID
    RUN_ID = _new_run_id()


lesson_state.register(__name__, "RUN_ID", parts=(8,), clear=_next_run)
