"""Can a golden set decide between designs? Measurements of the weaknesses issue 13 lists.

- `shared_content_words`: the content words a question shares with a chunk. A content word is a
  token (a run of letters and digits, lower-cased) of two characters or more that is not on Oracle
  Text's English default stoplist (`DEFAULT_STOPWORDS`, the list the keyword leg drops), reduced by
  `stem`: a deliberately simple suffix stripper (-ies -> -y; then -ing, -ed, -es, -s when three
  letters remain, never -ss; then a final -e), so "indexes", "indexed" and "indexing" all meet "index"
  and "rules" meets "rule". It errs towards finding overlap, which makes the paraphrase check stricter. A *true paraphrase* shares none with any of its
  grade-3 chunks; a test of golden set version 2 applies `paraphrase_violations` to every paraphrase.
- `bare_identifier`: a question that is nothing but codes (``ORA-51962``): vector search fails it by
  construction, so a set of only such questions decides "hybrid vs vector" by how it was built.
- `audit`: the whole report for one set, as a one-row-per-query DataFrame.
- `decision_report`: one row per set with the properties a set needs to decide between designs
  (issue 13): identifier questions in sentences as well as bare, paraphrases that share no content word
  with their answers, comparisons, scope questions, unanswerable questions, pooled judgements. Version 1
  fails them; version 2 is built to pass them (tests/evaluation/test_golden_audit.py).
- `saturated`: the questions every strategy already scores perfectly; they cannot tell strategies apart.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pandas as pd

from workshop.retrieval.keywords import DEFAULT_STOPWORDS

_WORD = re.compile(r"[^\W_]+")
#: A code-like token: digits or connectors inside (ORA-51962, trigger_tokens, 23.26.0), or ALL CAPS (EFCONSTRUCTION).
_IDENTIFIER = re.compile(r"^(?:[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+|[A-Z][A-Z0-9]{3,}|[A-Za-z]*\d[A-Za-z0-9]*)$")


def stem(word: str) -> str:
    """A simple, stated suffix stripper (see the module docstring); not Porter, on purpose."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def content_words(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in DEFAULT_STOPWORDS and len(w) > 1}


def shared_content_words(question: str, chunk_text: str) -> set[str]:
    return content_words(question) & content_words(chunk_text)


def bare_identifier(question: str) -> bool:
    parts = question.split()
    return bool(parts) and all(_IDENTIFIER.match(p.strip("?.,")) for p in parts)


def paraphrase_violations(queries: Sequence[Mapping], chunk_text: Mapping[str, str],
                          intent: str = "paraphrase") -> dict[str, dict[str, set[str]]]:
    """query_id -> {grade-3 chunk id: the content words it shares with the question}, only where any."""
    out: dict[str, dict[str, set[str]]] = {}
    for q in queries:
        if q["intent"] != intent:
            continue
        shared = {c: shared_content_words(q["query"], chunk_text[c]) for c, g in q["relevance"].items() if g == 3}
        shared = {c: words for c, words in shared.items() if words}
        if shared:
            out[q["query_id"]] = shared
    return out


def audit(queries: Sequence[Mapping], chunk_text: Mapping[str, str]) -> pd.DataFrame:
    """Per query: intent, bare identifier?, share of question content words found in its grade-3 chunks."""
    rows = []
    for q in queries:
        words = content_words(q["query"])
        best = [chunk_text[c] for c, g in q["relevance"].items() if g == 3 and c in chunk_text]
        found = set().union(*(content_words(t) for t in best)) if best else set()
        rows.append({"query_id": q["query_id"], "intent": q["intent"], "bare_identifier": bare_identifier(q["query"]),
                     "answerable": any(g >= 1 for g in q["relevance"].values()),
                     "word_overlap": len(words & found) / len(words) if words else 0.0})
    return pd.DataFrame(rows)


def chunk_texts() -> dict[str, str]:
    """Every chunk a golden judgement may name: the research corpus plus part 05's authored knowledge-base rows."""
    from workshop.data.loaders import load_chunks, load_kb_chunks
    return {c["chunk_id"]: c["text"] for c in load_chunks()} | {c["id"]: c["content"] for c in load_kb_chunks()}


def decision_report(sets: Mapping[str, Sequence[Mapping]], chunk_text: Mapping[str, str]) -> pd.DataFrame:
    """One row per golden set: how many questions of each kind it has, and the properties that let it decide.

    An identifier question is one of intent exact-identifier / identifier-in-sentence (v1: exact-identifier);
    a paraphrase *violates* when it shares a content word with one of its grade-3 chunks; a question is
    *pooled* when its judgements include grade 0 (judged, not relevant), which only pooled judging writes;
    a scope question has a `scope` (v2) or traps (another tenant's copy, a superseded version, ...)."""
    rows = {}
    for name, queries in sets.items():
        report = audit(queries, chunk_text)
        identifiers = report[report.intent.isin(("exact-identifier", "identifier-in-sentence"))]
        paraphrases = [q for q in queries if q["intent"] == "paraphrase"]
        violations = paraphrase_violations(queries, chunk_text)
        rows[name] = {
            "questions": len(queries),
            "judgements": sum(len(q["relevance"]) for q in queries),
            "identifier questions": len(identifiers),
            "bare codes among them": int(identifiers.bare_identifier.sum()),
            "paraphrases": len(paraphrases),
            "paraphrases sharing a word with a grade-3 chunk": len(violations),
            "paraphrase word overlap": round(float(report[report.intent == "paraphrase"].word_overlap.mean()), 3)
            if paraphrases else float("nan"),
            "comparisons": sum(q["intent"] in ("comparison", "multi-hop") for q in queries),
            "scope questions (a scope or traps)": sum(bool(q.get("scope") or q.get("traps")) for q in queries),
            "unanswerable": int((~report.answerable).sum()),
            "pooled (grade-0 judgements)": sum(any(g == 0 for g in q["relevance"].values()) for q in queries),
        }
    return pd.DataFrame({name: pd.Series(row, dtype=object) for name, row in rows.items()})


def saturated(scores: pd.DataFrame, metric: str = "ndcg@10") -> list[str]:
    """Query ids on which every strategy of `scores` (ablation.score_runs) reaches 1.0 on `metric`."""
    best = scores.groupby("query_id")[metric].min()
    return sorted(best[best >= 1.0 - 1e-12].index)
