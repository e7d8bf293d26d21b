"""A token cursor with Oracle-style syntax errors, shared by the DDL and pattern parsers."""
from __future__ import annotations

from .errors import (COMMAND_NOT_PROPERLY_ENDED, GraphError, INVALID_IDENTIFIER, MISSING_KEYWORD,
                     MISSING_RIGHT_PARENTHESIS)
from .lexer import IDENT, OP, QIDENT, Token, identifier_name


class Cursor:
    def __init__(self, tokens: list[Token], what: str):
        self.tokens = tokens
        self.pos = 0
        self.what = what   # named in error messages, e.g. "CREATE PROPERTY GRAPH"

    def peek(self, ahead: int = 0) -> Token | None:
        k = self.pos + ahead
        return self.tokens[k] if k < len(self.tokens) else None

    def next(self) -> Token:
        token = self.peek()
        if token is None:
            raise GraphError(COMMAND_NOT_PROPERLY_ENDED, f"unexpected end of {self.what}")
        self.pos += 1
        return token

    def at_end(self) -> bool:
        return self.pos >= len(self.tokens)

    def at_word(self, *words: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token is not None and token.is_word(*words)

    def at_op(self, *ops: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token is not None and token.is_op(*ops)

    def accept_word(self, *words: str) -> Token | None:
        return self.next() if self.at_word(*words) else None

    def accept_words(self, *words: str) -> bool:
        """Consume the exact keyword sequence `words` if it is next."""
        if all(self.at_word(w, ahead=k) for k, w in enumerate(words)):
            self.pos += len(words)
            return True
        return False

    def accept_op(self, *ops: str) -> Token | None:
        return self.next() if self.at_op(*ops) else None

    def expect_word(self, *words: str) -> Token:
        if not self.at_word(*words):
            raise GraphError(MISSING_KEYWORD, f"missing keyword {' or '.join(words)} in {self.what}{self._near()}")
        return self.next()

    def expect_op(self, op: str) -> Token:
        if not self.at_op(op):
            code = MISSING_RIGHT_PARENTHESIS if op == ")" else COMMAND_NOT_PROPERLY_ENDED
            raise GraphError(code, f"expected \"{op}\" in {self.what}{self._near()}")
        return self.next()

    def at_identifier(self) -> bool:
        token = self.peek()
        return token is not None and token.kind in (IDENT, QIDENT)

    def identifier(self, role: str) -> str:
        """Consume an identifier and return its Oracle-resolved name."""
        if not self.at_identifier():
            raise GraphError(INVALID_IDENTIFIER, f"expected {role} in {self.what}{self._near()}")
        return identifier_name(self.next())

    def qualified_name(self, role: str) -> tuple[str | None, str]:
        """`[schema.]name` -> (schema, name)."""
        first = self.identifier(role)
        if self.at_op(".") and self.peek(1) is not None and self.peek(1).kind in (IDENT, QIDENT):
            self.next()
            return first, self.identifier(role)
        return None, first

    def until_close(self, stop_words: tuple[str, ...] = (), stop_ops: tuple[str, ...] = ()) -> list[Token]:
        """Tokens up to (not including) a stop word/op at bracket depth 0, or an unmatched closer."""
        out: list[Token] = []
        depth = 0
        while not self.at_end():
            token = self.peek()
            if token.kind == OP and token.text in "([{":
                depth += 1
            elif token.kind == OP and token.text in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (token.is_word(*stop_words) or token.is_op(*stop_ops)):
                break
            out.append(self.next())
        return out

    def _near(self) -> str:
        token = self.peek()
        return f" near \"{token.text}\"" if token is not None else " at end of text"
