"""CONTAINS query language: tokenizer, recursive-descent parser and the query tree it builds.

Grammar, loosest operator first (Oracle Text "Group 1" precedence; equal precedence binds left to
right)::

    query   := accum
    accum   := or    { (',' | ACCUM) or }
    or      := and   { ('|' | OR) and }
    and     := not   { ('&' | AND) not }                 WITHIN -> unsupported
    not     := minus { ('~' | NOT) minus }               binary: 'a NOT b'; MNOT -> unsupported
    minus   := weight { ('-' | MINUS) weight }
    weight  := near  { '*' number | '>' number }         weight 0.1..10, threshold 0..100
    near    := phrase { (';' | NEAR) phrase }            'a NEAR b' = NEAR((a, b), 100)
    phrase  := equiv { equiv }                           adjacent words form a phrase
    equiv   := atom  { ('=' | EQUIV) atom }
    atom    := word | '(' query ')' | '[' query ']' | ('$' | '?' | '!') atom
             | FUZZY '(' word [, score [, numresults [, weight]]] ')'
             | NEAR '(' '(' or {',' or} ')' [, max_span [, order]] ')'
             | ABOUT '(' text ')'

A word is a run of characters that are neither white space nor one of ``& | ~ , = ; * > - ( ) [ ]
$ ? ! { } \\``. ``{...}`` escapes everything inside (``}}`` is a literal ``}``), ``\\x`` escapes one
character; escaped text never acts as an operator or a wildcard. Double quotes are ordinary
characters (the lexer drops them), which is why langchain-oracledb's ``"hybrid" ACCUM "search"``
and ``"near"`` work as plain words. Each word goes through the BASIC_LEXER, so ``foo.bar`` is the
phrase "foo bar" and ``ORA-51805`` is ``ora MINUS 51805``, as on Oracle. Unescaped reserved words
(AND, OR, NOT, ABOUT, SYN, ... case-insensitive) are operators; used where the grammar has no room
for them they raise DRG-50901, as Oracle does.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import TextQueryError, TextUnsupportedError, syntax_error
from .lexer import has_wildcard, tokenize, tokenize_query_word

# --------------------------------------------------------------------------- query tree: phrase slots


@dataclass(frozen=True)
class Term:
    """One plain token; a stopword here matches any word (inside phrases) or nothing (alone)."""
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Wildcard:
    """Token with `%` (any characters) / `_` (one character), expanded over the index vocabulary."""
    pattern: str

    def __str__(self) -> str:
        return self.pattern


@dataclass(frozen=True)
class Fuzzy:
    """fuzzy(term, score, numresults, weight) / ?term: index terms spelled similarly to `text`."""
    text: str
    score: int = 60
    numresults: int = 100
    weighted: bool = False

    def __str__(self) -> str:
        return f"fuzzy({self.text}, {self.score}, {self.numresults}, {'W' if self.weighted else 'N'})"


@dataclass(frozen=True)
class Stem:
    """$term: index terms with the same (light English suffix) stem."""
    text: str

    def __str__(self) -> str:
        return f"${self.text}"


@dataclass(frozen=True)
class Soundex:
    """!term: index terms with the same American Soundex code."""
    text: str

    def __str__(self) -> str:
        return f"!{self.text}"


@dataclass(frozen=True)
class EquivSlot:
    """a = b: either token at this word position, scored as one term."""
    options: tuple

    def __str__(self) -> str:
        return "=".join(str(o) for o in self.options)


Slot = Term | Wildcard | Fuzzy | Stem | Soundex | EquivSlot

# --------------------------------------------------------------------------- query tree: operators


class QueryNode:
    """Base class of the parsed query; str(node) gives a fully parenthesised rendering."""


@dataclass(frozen=True)
class Phrase(QueryNode):
    """One word or adjacent words. No slots = the word had no indexable characters ('no_lex')."""
    slots: tuple
    column: int = 0

    def __str__(self) -> str:
        return " ".join(str(s) for s in self.slots) if self.slots else "<no_lex>"


@dataclass(frozen=True)
class And(QueryNode):
    left: QueryNode
    right: QueryNode

    def __str__(self) -> str:
        return f"({self.left} & {self.right})"


@dataclass(frozen=True)
class Or(QueryNode):
    left: QueryNode
    right: QueryNode

    def __str__(self) -> str:
        return f"({self.left} | {self.right})"


@dataclass(frozen=True)
class Not(QueryNode):
    """left NOT right: documents with left and without right, scored as left."""
    left: QueryNode
    right: QueryNode

    def __str__(self) -> str:
        return f"({self.left} ~ {self.right})"


@dataclass(frozen=True)
class Minus(QueryNode):
    """left MINUS right: documents with left, score lowered by right's score."""
    left: QueryNode
    right: QueryNode

    def __str__(self) -> str:
        return f"({self.left} - {self.right})"


@dataclass(frozen=True)
class Accum(QueryNode):
    items: tuple

    def __str__(self) -> str:
        return "(" + " , ".join(str(i) for i in self.items) + ")"


@dataclass(frozen=True)
class Weight(QueryNode):
    child: QueryNode
    factor: float

    def __str__(self) -> str:
        return f"({self.child}*{self.factor:g})"


@dataclass(frozen=True)
class Threshold(QueryNode):
    child: QueryNode
    limit: float

    def __str__(self) -> str:
        return f"({self.child}>{self.limit:g})"


@dataclass(frozen=True)
class Near(QueryNode):
    items: tuple
    span: int = 100
    ordered: bool = False

    def __str__(self) -> str:
        inner = ", ".join(str(i) for i in self.items)
        return f"NEAR(({inner}), {self.span}{', TRUE' if self.ordered else ''})"


@dataclass(frozen=True)
class About(QueryNode):
    """ABOUT(text): approximated as ACCUM of the text's words (no theme knowledge base here)."""
    text: str
    words: tuple

    def __str__(self) -> str:
        return f"ABOUT({self.text})"


# --------------------------------------------------------------------------- tokenizer

_OPCHARS = frozenset("&|~,=;*>-()[]$?!")

#: Reserved words acting as infix operators, mapped to their symbol.
_INFIX = {"AND": "&", "OR": "|", "NOT": "~", "ACCUM": ",", "MINUS": "-", "EQUIV": "=", "NEAR": ";",
          "WITHIN": "WITHIN", "MNOT": "MNOT"}
#: Reserved words that are functions the embedded engine does not implement.
_UNSUPPORTED_FUNCS = frozenset({
    "BT", "BTG", "BTI", "BTP", "NT", "NTG", "NTI", "NTP", "PT", "RT", "SQE", "SYN", "TR", "TRSYN", "TT",
    "HASPATH", "INPATH", "MDATA", "SDATA", "NDATA", "PATTERN", "DEFINESCORE", "DEFINEMERGE", "NEAR2",
    "NEAR_ACCUM"})
RESERVED_WORDS = frozenset(_INFIX) | _UNSUPPORTED_FUNCS | {"ABOUT", "FUZZY"}


@dataclass(frozen=True)
class _Tok:
    kind: str          # "WORD" | "OP" | "EOF"
    value: str         # WORD: text for the lexer (escaped % and _ blanked out); OP: the character
    column: int        # 1-based
    raw: str = ""      # WORD: characters as written (escapes resolved)
    escaped: bool = False

    @property
    def keyword(self) -> str | None:
        if self.kind != "WORD" or self.escaped:
            return None
        up = self.raw.upper()
        return up if up in RESERVED_WORDS else None


def _tokenize(query: str) -> list[_Tok]:
    toks: list[_Tok] = []
    chars: list[tuple[str, bool]] = []
    start = 0

    def flush() -> None:
        if chars:
            text = "".join(" " if esc and ch in "%_" else ch for ch, esc in chars)
            raw = "".join(ch for ch, _ in chars)
            toks.append(_Tok("WORD", text, start + 1, raw, any(esc for _, esc in chars)))
            chars.clear()

    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if c.isspace():
            flush()
            i += 1
        elif c == "{":
            if not chars:
                start = i
            j, buf = i + 1, []
            while j < n:
                if query[j] == "}":
                    if j + 1 < n and query[j + 1] == "}":
                        buf.append("}")
                        j += 2
                        continue
                    break
                buf.append(query[j])
                j += 1
            if j >= n:
                raise syntax_error(n + 1, "unterminated { escape")
            chars.extend((ch, True) for ch in buf)
            if not buf:  # '{}' escapes nothing but still marks the word as escaped text
                chars.append(("", True))
            i = j + 1
        elif c == "}":
            raise syntax_error(i + 1, "'}' without a matching '{'")
        elif c == "\\":
            if i + 1 >= n:
                raise syntax_error(n + 1, "'\\' at the end of the query escapes nothing")
            if not chars:
                start = i
            chars.append((query[i + 1], True))
            i += 2
        elif c in _OPCHARS:
            flush()
            toks.append(_Tok("OP", c, i + 1))
            i += 1
        else:
            if not chars:
                start = i
            chars.append((c, False))
            i += 1
    flush()
    toks.append(_Tok("EOF", "", n + 1))
    return toks


# --------------------------------------------------------------------------- parser


def parse_query(query: str) -> QueryNode:
    """Parse a CONTAINS query string; raises TextQueryError (DRG-50901 ...) or TextUnsupportedError."""
    if not isinstance(query, str):
        raise TextQueryError(50901, "DRG-50901: text query parser syntax error on line 1, column 1",
                             f"query must be text, not {type(query).__name__}")
    try:
        return _Parser(query).parse()
    except RecursionError:
        raise syntax_error(1, "the query nests too deeply") from None


class _Parser:
    def __init__(self, query: str):
        self.query = query
        self.toks = _tokenize(query)
        self.i = 0

    # -- token helpers
    def peek(self, k: int = 0) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        if tok.kind != "EOF":
            self.i += 1
        return tok

    def binop(self, tok: _Tok) -> str | None:
        if tok.kind == "OP" and tok.value in "&|~,-=;":
            return tok.value
        kw = tok.keyword
        if kw in _INFIX:
            return _INFIX[kw]
        return None

    def expect_op(self, symbol: str) -> _Tok:
        tok = self.peek()
        if tok.kind == "OP" and tok.value == symbol:
            return self.take()
        raise syntax_error(tok.column, f"expected '{symbol}'")

    # -- grammar
    def parse(self) -> QueryNode:
        if self.peek().kind == "EOF":
            raise syntax_error(1, "empty query")
        node = self.parse_accum()
        tok = self.peek()
        if tok.kind != "EOF":
            raise syntax_error(tok.column, f"unexpected {tok.raw or tok.value!r}")
        return node

    def parse_accum(self) -> QueryNode:
        items = [self.parse_or()]
        while self.binop(self.peek()) == ",":
            self.take()
            items.append(self.parse_or())
        return items[0] if len(items) == 1 else Accum(tuple(items))

    def parse_or(self) -> QueryNode:
        left = self.parse_and()
        while self.binop(self.peek()) == "|":
            self.take()
            left = Or(left, self.parse_and())
        return left

    def parse_and(self) -> QueryNode:
        left = self.parse_not()
        while True:
            op = self.binop(self.peek())
            if op == "WITHIN":
                raise TextUnsupportedError("WITHIN operator (section search)")
            if op != "&":
                return left
            self.take()
            left = And(left, self.parse_not())

    def parse_not(self) -> QueryNode:
        left = self.parse_minus()
        while True:
            op = self.binop(self.peek())
            if op == "MNOT":
                raise TextUnsupportedError("MNOT operator")
            if op != "~":
                return left
            self.take()
            left = Not(left, self.parse_minus())

    def parse_minus(self) -> QueryNode:
        left = self.parse_weight()
        while self.binop(self.peek()) == "-":
            self.take()
            left = Minus(left, self.parse_weight())
        return left

    def parse_weight(self) -> QueryNode:
        node = self.parse_near()
        while True:
            tok = self.peek()
            if tok.kind == "OP" and tok.value == "*":
                self.take()
                factor = self.parse_number()
                if not 0.1 <= factor <= 10:
                    raise syntax_error(tok.column, "weight must be between 0.1 and 10")
                node = Weight(node, factor)
            elif tok.kind == "OP" and tok.value == ">":
                self.take()
                limit = self.parse_number()
                if not 0 <= limit <= 100:
                    raise syntax_error(tok.column, "threshold must be between 0 and 100")
                node = Threshold(node, limit)
            else:
                return node

    def parse_near(self) -> QueryNode:
        items = [self.parse_phrase()]
        while self.binop(self.peek()) == ";":
            self.take()
            items.append(self.parse_phrase())
        return items[0] if len(items) == 1 else Near(tuple(items))

    def starts_phrase_unit(self, tok: _Tok) -> bool:
        if tok.kind == "OP":
            return tok.value in "$?!"
        if tok.kind != "WORD":
            return False
        kw = tok.keyword
        if kw is None:
            return True
        return kw == "FUZZY" and self.peek(1).kind == "OP" and self.peek(1).value == "("

    def parse_phrase(self) -> QueryNode:
        first = self.parse_equiv()
        if not self.starts_phrase_unit(self.peek()):
            return first
        slots = list(self._phrase_slots(first))
        column = first.column if isinstance(first, Phrase) else 0
        while self.starts_phrase_unit(self.peek()):
            slots.extend(self._phrase_slots(self.parse_equiv()))
        return Phrase(tuple(slots), column)

    def _phrase_slots(self, node: QueryNode) -> tuple:
        if isinstance(node, Phrase):
            return node.slots
        raise syntax_error(self.peek().column, f"{node} cannot be part of a phrase")

    def parse_equiv(self) -> QueryNode:
        left = self.parse_atom()
        while self.binop(self.peek()) == "=":
            tok = self.take()
            right = self.parse_atom()
            left = self._equiv(left, right, tok.column)
        return left

    def _equiv(self, left: QueryNode, right: QueryNode, column: int) -> QueryNode:
        options = []
        for side in (left, right):
            if not isinstance(side, Phrase):
                raise syntax_error(column, "EQUIV operands must be words")
            if len(side.slots) > 1:
                raise TextUnsupportedError("EQUIV with a multi-word operand")
            for slot in side.slots:
                options.extend(slot.options if isinstance(slot, EquivSlot) else (slot,))
        if not options:
            return Phrase((), column)
        if len(options) == 1:
            return Phrase((options[0],), column)
        return Phrase((EquivSlot(tuple(options)),), column)

    def parse_atom(self) -> QueryNode:
        tok = self.peek()
        if tok.kind == "EOF":
            raise syntax_error(tok.column, "query ends where an operand is expected")
        if tok.kind == "OP":
            if tok.value in "([":
                self.take()
                node = self.parse_accum()
                self.expect_op(")" if tok.value == "(" else "]")
                return node
            if tok.value in "$?!":
                self.take()
                nxt = self.peek()
                if nxt.kind == "OP" and nxt.value == "[":
                    raise syntax_error(nxt.column, "brackets stop expansion operators")
                operand = self.parse_atom()
                return _expand(operand, {"$": "stem", "?": "fuzzy", "!": "soundex"}[tok.value])
            raise syntax_error(tok.column, f"operator {tok.value!r} where an operand is expected")
        kw = tok.keyword
        if kw is None:
            self.take()
            return Phrase(_word_slots(tok.value), tok.column)
        followed_by_paren = self.peek(1).kind == "OP" and self.peek(1).value == "("
        if followed_by_paren and kw == "FUZZY":
            return self.parse_fuzzy()
        if followed_by_paren and kw == "ABOUT":
            return self.parse_about()
        if followed_by_paren and kw == "NEAR":
            return self.parse_near_function()
        if followed_by_paren and kw in _UNSUPPORTED_FUNCS:
            raise TextUnsupportedError(f"{kw} operator")
        raise syntax_error(tok.column, f"reserved word {tok.raw!r} used as a search term; escape it as {{{tok.raw}}}")

    def parse_number(self) -> float:
        tok = self.peek()
        if tok.kind == "WORD" and not tok.escaped:
            try:
                value = float(tok.raw)
            except ValueError:
                value = None
            if value is not None and value == value and abs(value) != float("inf"):
                self.take()
                return value
        raise syntax_error(tok.column, "a number is expected here")

    def _optional_args(self, limit: int) -> list[_Tok | None]:
        """After the first argument: ', arg' repeated (empty allowed), then ')'."""
        args: list[_Tok | None] = []
        while self.peek().kind == "OP" and self.peek().value == ",":
            self.take()
            if len(args) == limit:
                raise syntax_error(self.peek().column, "too many arguments")
            tok = self.peek()
            if tok.kind == "WORD":
                args.append(self.take())
            else:
                args.append(None)
        self.expect_op(")")
        return args

    def parse_fuzzy(self) -> QueryNode:
        name = self.take()
        self.expect_op("(")
        term = self.peek()
        if term.kind != "WORD":
            raise syntax_error(term.column, "fuzzy needs a term")
        self.take()
        args = self._optional_args(3) + [None, None, None]
        score = self._int_arg(args[0], 60, 1, 80, "fuzzy score")
        numresults = self._int_arg(args[1], 100, 1, 5000, "fuzzy numresults")
        weighted = False
        if args[2] is not None:
            flag = args[2].raw.upper()
            if flag not in ("WEIGHT", "W", "NOWEIGHT", "N"):
                raise syntax_error(args[2].column, "fuzzy weight must be WEIGHT, W, NOWEIGHT or N")
            weighted = flag in ("WEIGHT", "W")
        slots = []
        for slot in _word_slots(term.value):
            if isinstance(slot, Wildcard):
                raise TextUnsupportedError("fuzzy of a wildcard term")
            slots.append(Fuzzy(slot.text, score, numresults, weighted))
        return Phrase(tuple(slots), name.column)

    @staticmethod
    def _int_arg(tok: _Tok | None, default: int, low: int, high: int, what: str) -> int:
        if tok is None:
            return default
        try:
            value = int(tok.raw)
        except ValueError:
            raise syntax_error(tok.column, f"{what} must be an integer") from None
        if not low <= value <= high:
            raise syntax_error(tok.column, f"{what} must be between {low} and {high}")
        return value

    def parse_about(self) -> QueryNode:
        name = self.take()
        open_tok = self.expect_op("(")
        depth = 1
        while True:
            tok = self.take()
            if tok.kind == "EOF":
                raise syntax_error(tok.column, "ABOUT( is not closed")
            if tok.kind == "OP" and tok.value == "(":
                depth += 1
            elif tok.kind == "OP" and tok.value == ")":
                depth -= 1
                if depth == 0:
                    break
        text = self.query[open_tok.column:tok.column - 1].strip()
        words = tuple(tokenize(text))
        if not words:
            raise syntax_error(name.column, "ABOUT needs at least one word")
        return About(text, words)

    def parse_near_function(self) -> QueryNode:
        self.take()
        self.expect_op("(")
        self.expect_op("(")
        items = [self.parse_or()]
        while self.peek().kind == "OP" and self.peek().value == ",":
            self.take()
            items.append(self.parse_or())
        self.expect_op(")")
        span, ordered = 100, False
        if self.peek().kind == "OP" and self.peek().value == ",":
            self.take()
            tok = self.peek()
            value = self.parse_number()
            if value != int(value) or not 0 <= value <= 100:
                raise syntax_error(tok.column, "NEAR max_span must be an integer from 0 to 100")
            span = int(value)
            if self.peek().kind == "OP" and self.peek().value == ",":
                self.take()
                tok = self.peek()
                flag = tok.raw.upper() if tok.kind == "WORD" else ""
                if flag not in ("TRUE", "FALSE", "T", "F"):
                    raise syntax_error(tok.column, "NEAR order must be TRUE or FALSE")
                self.take()
                ordered = flag in ("TRUE", "T")
                if self.peek().kind == "OP" and self.peek().value == ",":
                    raise TextUnsupportedError("NEAR minreqd argument")
        self.expect_op(")")
        return Near(tuple(items), span, ordered)


def _word_slots(text: str) -> tuple:
    return tuple(Wildcard(t) if has_wildcard(t) else Term(t) for t in tokenize_query_word(text))


_EXPANSIONS = {"stem": Stem, "fuzzy": Fuzzy, "soundex": Soundex}


def _expand(node: QueryNode, kind: str) -> QueryNode:
    """Apply $ ? ! to every word of `node`: expansion operators penetrate parentheses."""
    make = _EXPANSIONS[kind]

    def slot(s: Slot) -> Slot:
        if isinstance(s, Term):
            return make(s.text)
        if isinstance(s, EquivSlot):
            return EquivSlot(tuple(slot(o) for o in s.options))
        raise TextUnsupportedError(f"{kind} expansion of {s}")

    if isinstance(node, Phrase):
        return Phrase(tuple(slot(s) for s in node.slots), node.column)
    if isinstance(node, (And, Or, Not, Minus)):
        return type(node)(_expand(node.left, kind), _expand(node.right, kind))
    if isinstance(node, Accum):
        return Accum(tuple(_expand(i, kind) for i in node.items))
    if isinstance(node, Near):
        return Near(tuple(_expand(i, kind) for i in node.items), node.span, node.ordered)
    if isinstance(node, Weight):
        return Weight(_expand(node.child, kind), node.factor)
    if isinstance(node, Threshold):
        return Threshold(_expand(node.child, kind), node.limit)
    raise TextUnsupportedError(f"{kind} expansion of {node}")
