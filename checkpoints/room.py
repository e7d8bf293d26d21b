"""The facilitator's view of a room: many participants' progress exports merged into one table.

    # each participant (or a script on each Codespace):
    python -m checkpoints.progress --json progress-$GITHUB_USER.json
    # the facilitator, with the files collected in one folder:
    python -m checkpoints.room exports/

It answers the two questions a facilitator has in a room: where is the room (which TODO most participants are on),
and who is stuck (who has failed the same checkpoint several times in a row, and since when). The exports hold TODO
names, states and the checkpoints' one-line reasons only (see `checkpoints.progress.export`).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .progress import EXPORT_FORMAT, FAILING, PASS

STUCK_AFTER = 3     # failures in a row of one checkpoint before a participant is listed as stuck


@dataclass(frozen=True)
class Participant:
    name: str
    engine: str
    exported_at: str
    passed: int
    total: int
    current: str          # "part 04 TODO 2 (kinds_filter)": the first TODO, in series order, that does not pass
    current_status: str
    reason: str
    failures_in_a_row: int
    failing_since: str


class ExportError(ValueError):
    """A file that is not a progress export: the room table names it and goes on with the others."""


def read_export(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExportError(f"{path.name}: not readable JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT or not isinstance(data.get("todos"), list):
        raise ExportError(f"{path.name}: not a progress export (make it with python -m checkpoints.progress --json)")
    return data


def summarise(data: dict, fallback_name: str) -> Participant:
    todos = data["todos"]
    first_open = next((t for t in todos if t.get("status") != PASS), None)
    label = (f"part {first_open['part']} TODO {first_open['todo']} ({first_open['name']})"
             if first_open else "all done")
    return Participant(
        name=str(data.get("participant") or fallback_name), engine=str(data.get("engine", "?")),
        exported_at=str(data.get("exported_at", "")), passed=sum(t.get("status") == PASS for t in todos),
        total=len(todos), current=label, current_status=first_open.get("status", "") if first_open else PASS,
        reason=(first_open or {}).get("reason", ""),
        failures_in_a_row=int((first_open or {}).get("failures_in_a_row", 0) or 0),
        failing_since=(first_open or {}).get("failing_since", ""))


def stuck(data: dict, name: str, after: int = STUCK_AFTER) -> list[dict]:
    """Every checkpoint this participant has failed `after` times or more in a row (not only the current one)."""
    return [{"participant": name, "todo": f"part {t['part']} TODO {t['todo']} ({t['name']})",
             "failures_in_a_row": t.get("failures_in_a_row", 0), "failing_since": t.get("failing_since", ""),
             "reason": t.get("reason", "")}
            for t in data["todos"]
            if t.get("status") == FAILING and int(t.get("failures_in_a_row", 0) or 0) >= after]


def merge(folder: Path, after: int = STUCK_AFTER) -> tuple[list[Participant], list[dict], list[str]]:
    """(participants, stuck rows, files that could not be read), from every *.json file of `folder`."""
    participants, stuck_rows, problems = [], [], []
    for path in sorted(folder.glob("*.json")):
        try:
            data = read_export(path)
        except ExportError as exc:
            problems.append(str(exc))
            continue
        person = summarise(data, path.stem)
        participants.append(person)
        stuck_rows += stuck(data, person.name, after)
    stuck_rows.sort(key=lambda row: -row["failures_in_a_row"])
    return participants, stuck_rows, problems


def as_text(participants: list[Participant], stuck_rows: list[dict], problems: list[str],
            after: int = STUCK_AFTER) -> str:
    import pandas as pd

    if not participants:
        return "no progress exports found" + "".join(f"\n  skipped {p}" for p in problems)
    lines = []
    where = Counter(p.current for p in participants)
    most, count = where.most_common(1)[0]
    people = f"{len(participants)} participant{'s' if len(participants) != 1 else ''}"
    lines.append(f"{people}; most are on {most} ({count} of {len(participants)})")
    table = pd.DataFrame([{"participant": p.name, "passed": f"{p.passed}/{p.total}", "on": p.current,
                           "state": p.current_status, "fails in a row": p.failures_in_a_row or "",
                           "last reason": p.reason, "engine": p.engine, "exported": p.exported_at}
                          for p in sorted(participants, key=lambda p: (p.passed, p.name))])
    lines += ["", table.to_string(index=False)]
    lines += ["", "where the room is:"] + [f"  {n:>3}  {todo}" for todo, n in where.most_common()]
    if stuck_rows:
        lines += ["", f"stuck ({after} or more failures in a row of the same checkpoint):",
                  pd.DataFrame(stuck_rows).to_string(index=False)]
    else:
        lines += ["", f"nobody has failed the same checkpoint {after} times in a row"]
    lines += [f"skipped {p}" for p in problems]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checkpoints.room",
                                     description="Merge participants' progress exports into one table of the room.")
    parser.add_argument("folder", type=Path, help="a folder of files written by python -m checkpoints.progress --json")
    parser.add_argument("--stuck-after", type=int, default=STUCK_AFTER,
                        help=f"failures in a row that count as stuck (default {STUCK_AFTER})")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        print(f"{args.folder} is not a folder: collect the participants' *.json exports in one folder")
        return 2
    print(as_text(*merge(args.folder, args.stuck_after), after=args.stuck_after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
