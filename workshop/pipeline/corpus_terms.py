"""What the data says about a term: how many chunks contain it, and which names the corpus itself gives.

Stage 1 calls a word an entity because the data says it is rare or names something, not because it
is capitalised ("Prior", "Photocopied" start sentences and name nothing). The statistics are computed
once per process from the loaded data, the same text part 05's knowledge-base tables hold (the corpus
chunks and the authored knowledge-base rows), tokenised the way Oracle Text's BASIC_LEXER tokenises
(runs of letters and digits, lower case), so a document frequency here is the number of chunks a
braced term of the lexical pool can match at all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from workshop.data import load_chunks, load_documents
from workshop.data.loaders import load_kb_chunks, load_kb_documents

_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """BASIC_LEXER tokens of `text`, lower case (`_`, `-`, `.` separate tokens)."""
    return _TOKEN.findall(text.lower())


@dataclass(frozen=True)
class TermStatistics:
    chunk_texts: tuple[str, ...]        # each chunk as " tok tok tok " (for phrase lookups)
    df: dict[str, int]                  # token -> chunks containing it
    names: tuple[str, ...]              # document-level names: the part of a title before ':' (paper names)

    @property
    def chunks(self) -> int:
        return len(self.chunk_texts)

    def document_frequency(self, term: str) -> int:
        """Chunks containing `term`'s tokens adjacent and in order (one token: its df)."""
        toks = tokens(term)
        if not toks:
            return 0
        if len(toks) == 1:
            return self.df.get(toks[0], 0)
        needle = " " + " ".join(toks) + " "
        return sum(needle in text for text in self.chunk_texts)


def title_name(title: str) -> str | None:
    """The name a title gives its document: the words before ':' ("Rolling Summaries: ..." -> "Rolling
    Summaries"), when there are two to five of them; None for a title without a colon."""
    head = title.split(":", 1)[0].strip() if ":" in title else ""
    return head if 2 <= len(head.split()) <= 5 and not head.lower().startswith(("runbook", "postmortem")) else None


@lru_cache(maxsize=1)
def general_vocabulary() -> frozenset[str]:
    """The whole words of the embedding model's word-piece vocabulary (all-MiniLM-L6-v2's `vocab.txt`, about
    30,000 pieces): words common enough in general English to have a piece of their own. "say" and "mean" are
    in it; "memkeeper", "pgvector" and "oraclevs" are not. A word rare in a 238-chunk corpus is often just
    an ordinary word; rare there *and* outside this list, it is a name."""
    from workshop.models.embedding_model import minilm_folder
    lines = (minilm_folder() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(p for p in lines if not p.startswith(("##", "[")))


@lru_cache(maxsize=1)
def term_statistics() -> TermStatistics:
    """The statistics of part 05's knowledge-base text (corpus chunks plus authored rows), computed once."""
    texts = [c["text"] for c in load_chunks()] + [c["content"] for c in load_kb_chunks()]
    df: dict[str, int] = {}
    chunk_texts = []
    for text in texts:
        toks = tokens(text)
        chunk_texts.append(" " + " ".join(toks) + " ")
        for t in set(toks):
            df[t] = df.get(t, 0) + 1
    titles = [d["title"] for d in load_documents()] + [d["title"] for d in load_kb_documents() if d.get("title")]
    names = tuple(dict.fromkeys(n for n in map(title_name, titles) if n))
    return TermStatistics(tuple(chunk_texts), df, names)
