"""The run loop: the planner proposes, the harness authorises, the environment acts, the verifier decides.

The planner is pluggable (`ScriptedPlanner` by default: deterministic, no model). Whatever it proposes goes
through the same gates, in this order: the allowlist (`denied` otherwise), the typed inputs (`invalid`), the
budgets (`budget_exhausted` ends the run), then the tool, which runs on the read-only session (reads) or on
the harness's own connection (the one governed write, bound to this run). Every step is an event of the run
record. An answer with no evidence behind it becomes INSUFFICIENT_CONTEXT; a claim of a saved finding counts
only when the verifier reads the row back.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import oracledb

from . import approvals
from .budget import Budget, BudgetExhausted, budgeted_call
from .guard import GuardRefused, run_readonly_query
from .reports import REPORTS
from .runlog import RunRecorder, redact
from .toolset import check_toolset
from .verifier import finding_saved

#: Objects the read-only SQL tool may read.
QUERY_OBJECTS = ("FINANCE_LOANS", "FINANCE_CUSTOMERS", "FINANCE_ACCOUNTS", "FINANCE_MERCHANTS", "FINANCE_BRANCHES")
INSUFFICIENT_CONTEXT = "INSUFFICIENT_CONTEXT"


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
        tools: dict[str, Callable[..., Any]] = {r.name: (lambda r: lambda **a: r.run(self.read_conn, **a))(r)
                                                for r in REPORTS}
        tools["query_finance"] = lambda sql, max_rows=20: run_readonly_query(self.read_conn, sql, QUERY_OBJECTS,
                                                                             max_rows)
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
        run_id = uuid.uuid4().hex
        record = RunRecorder(self.write_conn, run_id, thread_id, planner.name, redactor=self.redactor)
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
                for call in action:
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
        return RunResult(run_id, status, grounding, verified, text, budget.tool_calls)

    def _call(self, run_id: str, call: Call, budget: Budget, record: RunRecorder) -> dict:
        if call.name not in self.allowed and call.name != "save_finding":
            record.event("TOOL", call.name, "denied", call.arguments, {"reason": "not on the allowlist"})
            return {"name": call.name, "arguments": call.arguments, "status": "denied", "output": None}
        if call.name in self.requires_approval and not self._approved(run_id, call, record):
            return {"name": call.name, "arguments": call.arguments, "status": "approval_required", "output": None}
        tool = (lambda **a: self.save_finding(run_id, **a)) if call.name == "save_finding" else self.tools[call.name]
        try:
            output = self.call_with_budget(budget, tool, call.arguments)
        except BudgetExhausted:
            record.event("TOOL", call.name, "budget_exhausted", call.arguments)
            raise
        except (GuardRefused, ValueError, TypeError) as error:
            record.event("TOOL", call.name, "invalid", call.arguments, {"error": str(error)})
            return {"name": call.name, "arguments": call.arguments, "status": "invalid", "output": None}
        except oracledb.DatabaseError as error:
            status = "denied" if "ORA-01031" in str(error) else "error"
            record.event("TOOL", call.name, status, call.arguments, {"error": str(error).splitlines()[0]})
            return {"name": call.name, "arguments": call.arguments, "status": status, "output": None}
        record.event("TOOL", call.name, "success", call.arguments, output)
        return {"name": call.name, "arguments": call.arguments, "status": "success", "output": output}

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
