"""The run loop: the planner proposes, the harness authorises, the environment acts, the verifier decides.

The planner is pluggable (`ScriptedPlanner` by default: deterministic, no model). Whatever it proposes goes
through the same gates, in this order: the allowlist (`denied` otherwise), the typed inputs (`invalid`), the
budgets (`budget_exhausted` ends the run), then the tool, which runs on the read-only session (reads) or on
the harness's own connection (the one governed write, bound to this run). Every step is an event of the run
record. An answer with no evidence behind it becomes INSUFFICIENT_CONTEXT; a claim of a saved finding counts
only when the verifier reads the row back.
"""
from __future__ import annotations

import functools
import re
import sys
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import oracledb

from . import approvals
from .budget import Budget, BudgetExhausted, budgeted_call
from .guard import GuardRefused, run_readonly_query
from .reports import REPORTS
from .runlog import RunRecorder, record_name, redact
from .toolset import check_toolset
from .verifier import finding_saved

#: Objects the read-only SQL tool may read.
QUERY_OBJECTS = ("FINANCE_LOANS", "FINANCE_CUSTOMERS", "FINANCE_ACCOUNTS", "FINANCE_MERCHANTS", "FINANCE_BRANCHES")
INSUFFICIENT_CONTEXT = "INSUFFICIENT_CONTEXT"


#: A tool name: an identifier of at most 64 characters (the run record's NAME column).
TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
#: Arguments deeper or larger than this are refused before any tool sees them.
MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_ITEMS = 8, 1000


class RunBound:
    """A tool the harness hands the run id to (never the planner): `save_finding` writes a finding of this run.
    A planner that passes `run_id` itself gets a TypeError, so an invalid call."""

    def __init__(self, function: Callable[..., Any]):
        self.function = function

    def __call__(self, run_id: str, **arguments: Any) -> Any:
        return self.function(run_id, **arguments)


def argument_problem(arguments: Any) -> str | None:
    """Why `arguments` cannot be a tool's arguments (None when they can): a dict with text keys, nested at
    most MAX_ARGUMENT_DEPTH levels and MAX_ARGUMENT_ITEMS values in all."""
    if not isinstance(arguments, dict):
        return f"arguments must be a dict, not {type(arguments).__name__}"
    if not all(isinstance(k, str) for k in arguments):
        return "argument names must be text"
    stack, items = [(arguments, 0)], 0
    while stack:
        value, depth = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return f"arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels"
        if isinstance(value, dict):
            children = list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            children = list(value)
        else:
            continue
        items += len(children)
        if items > MAX_ARGUMENT_ITEMS:
            return f"more than {MAX_ARGUMENT_ITEMS} argument values"
        stack.extend((child, depth + 1) for child in children)
    return None


def proposed_calls(action: Any) -> list[Any]:
    """The calls of a planner's action: a list of them; anything else is one call without a tool name (the
    harness refuses it and records the attempt instead of crashing)."""
    if isinstance(action, (list, tuple)):
        return list(action)
    return [Call(None, {"action": action})]  # type: ignore[arg-type]


def abandon_run(record: RunRecorder, error: BaseException | None) -> None:
    """End a run that stopped on an exception: `failed` for an error, `interrupted` for a KeyboardInterrupt or
    SystemExit, with an event saying which; never left `running`."""
    status = "failed" if error is None or isinstance(error, Exception) else "interrupted"
    reason = type(error).__name__ if error is not None else "unknown"
    record.event("RUNTIME", "run", status, outputs={"reason": reason})
    record.finish(status, "n/a", f"The run stopped: {reason}.")


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    text: str
    saved_case: str | None = None     # the finding this answer claims to have saved


class ScriptedPlanner:
    """A deterministic stand-in for the model: returns its script one action at a time (a list of Calls or an
    Answer); with `repeat_last` it keeps proposing the last action (a planner stuck in a loop)."""

    def __init__(self, script: Sequence[list[Call] | Answer], name: str = "scripted planner",
                 repeat_last: bool = False):
        self.script, self.name, self.repeat_last, self.position = list(script), name, repeat_last, 0

    def next_action(self, question: str, observations: list[dict], round: int | None = None,
                    context: Sequence[str] = ()) -> list[Call] | Answer:
        """The action of `round` (the graph passes it, so a resumed run gets the same step), else the next one.
        A script does not read `context` (the graph's assembled memory and passages); a planner may."""
        if round is not None:
            self.position = round
        if self.position >= len(self.script):
            if self.repeat_last and self.script:
                return self.script[-1]
            return Answer("I have nothing more to do.")
        action = self.script[self.position]
        self.position += 1
        return action


@dataclass
class RunResult:
    run_id: str
    status: str              # completed | budget_exhausted
    grounding: str           # READY | INSUFFICIENT_CONTEXT
    verified: str            # verified | unverified | n/a
    answer: str
    tool_calls: int


class Harness:
    """Tools, allowlist, budgets and the run record around one planner.

    `read_conn` is the read-only session every read tool uses; `write_conn` is the harness's own connection,
    which writes the run record and the one governed write (a finding of this run)."""

    def __init__(self, read_conn: oracledb.Connection, write_conn: oracledb.Connection, *,
                 allowed: Iterable[str], tools: dict[str, Callable[..., Any]] | None = None,
                 budget: Callable[[], Budget] = Budget,
                 verifier: Callable[[oracledb.Connection, str, str], bool] = finding_saved,
                 toolset_check: Callable[[Iterable[str], Iterable[str]], Any] = check_toolset,
                 call_with_budget: Callable[[Budget, Callable[..., Any], dict], Any] = budgeted_call,
                 redactor: Callable[[Any], Any] = redact, requires_approval: Iterable[str] = (),
                 actor: str | None = None, consume: Callable[..., bool] = approvals.consume_approval):
        self.read_conn, self.write_conn = read_conn, write_conn
        self.verifier, self.call_with_budget, self.redactor = verifier, call_with_budget, redactor
        #: high-risk tools: each call runs only by consuming a human's approval of exactly that call (H8)
        self.requires_approval, self.actor, self.consume = frozenset(requires_approval), actor, consume
        self.tools = tools if tools is not None else self.default_tools()
        self.allowed = frozenset(toolset_check(self.tools, allowed))         # refuse to start on any mismatch
        unknown = self.requires_approval - self.allowed
        if unknown:
            raise ValueError(f"tools needing approval must be allowed tools: {sorted(unknown)}")
        if self.requires_approval:
            approvals.create_approvals_table(write_conn)
        self.make_budget = budget

    def default_tools(self) -> dict[str, Callable[..., Any]]:
        """The reports, the read-only SQL tool and `save_finding`: every one of them, save_finding included, is
        a tool of the allowlist (a harness whose allowlist leaves it out cannot start)."""
        tools: dict[str, Callable[..., Any]] = {r.name: (lambda r: lambda **a: r.run(self.read_conn, **a))(r)
                                                for r in REPORTS}
        tools["query_finance"] = lambda sql, max_rows=20: run_readonly_query(self.read_conn, sql, QUERY_OBJECTS,
                                                                             max_rows)
        tools["save_finding"] = RunBound(self.save_finding)
        return tools

    def save_finding(self, run_id: str, case_ref: str, note: str) -> dict:
        if not isinstance(case_ref, str) or not 1 <= len(case_ref) <= 20 or not isinstance(note, str) or not note:
            raise ValueError("save_finding needs case_ref (1..20 characters) and a non-empty note")
        with self.write_conn.cursor() as cur:
            cur.execute("INSERT INTO agent_findings (run_id, case_ref, note) VALUES (:r, :c, :n)",
                        r=run_id, c=case_ref, n=note[:1000])
        self.write_conn.commit()
        return {"saved": case_ref}

    def run(self, question: str, planner: Any, *, thread_id: str = "default") -> RunResult:
        """One run of the loop. Whatever happens (a budget runs out, the planner raises, a KeyboardInterrupt),
        the run record ends in a final status: it never stays `running` after this returns or raises."""
        run_id = uuid.uuid4().hex
        record = RunRecorder(self.write_conn, run_id, thread_id, getattr(planner, "name", "planner"),
                             redactor=self.redactor)
        finished = False
        try:
            budget = self.make_budget()
            record.event("CONVERSATION", "user", "received", {"text": question})
            observations: list[dict] = []
            status, answer = "completed", None
            try:
                while answer is None:
                    budget.start_round()
                    action = planner.next_action(question, observations)
                    if isinstance(action, Answer):
                        answer = action
                        break
                    for call in proposed_calls(action):
                        observations.append(self._call(run_id, call, budget, record))
            except BudgetExhausted as exhausted:
                status = "budget_exhausted"
                record.event("RUNTIME", exhausted.which, "budget_exhausted", outputs={"reason": str(exhausted)})
            evidence = [o for o in observations if o["status"] == "success" and o["output"]]
            text = answer.text if answer is not None else "The run stopped: its budget ran out."
            grounding = "READY" if evidence else INSUFFICIENT_CONTEXT
            if answer is not None and not evidence:
                text = f"{INSUFFICIENT_CONTEXT}: no tool returned evidence for this question."
            verified = "n/a"
            if answer is not None and answer.saved_case is not None:
                verified = "verified" if self.verifier(self.write_conn, run_id, answer.saved_case) else "unverified"
                record.event("VERIFY", "finding_saved", verified, {"case_ref": answer.saved_case})
                if verified == "unverified":
                    text = f"NOT DONE (unverified): the claim that {answer.saved_case} was saved has no row behind it."
            record.event("CONVERSATION", "assistant", grounding, outputs={"text": text})
            record.finish(status, verified, text)
            finished = True
            return RunResult(run_id, status, grounding, verified, text, budget.tool_calls)
        finally:
            if not finished:
                abandon_run(record, sys.exc_info()[1])

    def _call(self, run_id: str, call: Any, budget: Budget, record: RunRecorder) -> dict:
        """Authorise and run one proposed call; every outcome is an observation and an event. A hostile call (no
        tool name, an unknown or over-long one, arguments that are not a flat-enough dict) is refused before
        anything runs; any exception the tool raises is a failed call; only a BaseException that is not an
        Exception (KeyboardInterrupt, SystemExit) ends the run, recorded, and propagates."""
        name, arguments = getattr(call, "name", None), getattr(call, "arguments", None)

        def observe(status: str, output: Any = None, reason: str | None = None, error: str | None = None) -> dict:
            detail = {"reason": reason} if reason is not None else {"error": error} if error is not None else output
            record.event("TOOL", name, status, arguments, detail)
            return {"name": name if isinstance(name, str) else record_name(name), "arguments": arguments,
                    "status": status, "output": output if status == "success" else None}

        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            budget.charge_refusal()
            return observe("denied", reason="not a tool name")
        if name not in self.allowed or name not in self.tools:
            budget.charge_refusal()
            return observe("denied", reason="not on the allowlist")
        problem = argument_problem(arguments)
        if problem:
            budget.charge_refusal()
            return observe("invalid", error=problem)
        if name in self.requires_approval and not self._approved(run_id, Call(name, arguments), record):
            return {"name": name, "arguments": arguments, "status": "approval_required", "output": None}
        tool = self.tools[name]
        if isinstance(tool, RunBound):
            tool = functools.partial(tool, run_id)
        try:
            output = self.call_with_budget(budget, tool, arguments)
        except BudgetExhausted:
            record.event("TOOL", name, "budget_exhausted", arguments)
            raise
        except (GuardRefused, ValueError, TypeError) as error:
            return observe("invalid", error=str(error))
        except oracledb.DatabaseError as error:
            text = str(error).splitlines()[0] if str(error) else type(error).__name__
            status = "timeout" if text.startswith("DPY-4024") else "denied" if "ORA-01031" in text else "error"
            return observe(status, error=text)
        except Exception as error:  # noqa: BLE001 - a tool's failure is a failed call, never a crashed harness
            return observe("error", error=f"{type(error).__name__}: {error}")
        except BaseException as error:
            observe("interrupted", error=type(error).__name__)
            raise
        return observe("success", output)

    def _approved(self, run_id: str, call: Call, record: RunRecorder) -> bool:
        """Consume the approval of exactly this call for this run and actor; without one, ask for it and refuse."""
        approval_id = approvals.approval_id_for(run_id, call.name, call.arguments)
        if self.actor and self.consume(self.write_conn, approval_id, run_id, call.name, call.arguments, self.actor):
            record.event("APPROVAL", call.name, "consumed", call.arguments, {"approval_id": approval_id})
            return True
        approvals.request_approval(self.write_conn, run_id, call.name, call.arguments)
        record.event("TOOL", call.name, "approval_required", call.arguments,
                     {"approval_id": approval_id, "approval": approvals.approval_status(self.write_conn, approval_id)})
        return False
