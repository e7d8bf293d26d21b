"""sqlglot's Oracle dialect, extended with the 23ai/26ai syntax the workshop and langchain-oracledb send.

Each override fixes one gap found in research (embedded-engine-findings.md §3): positional binds
`:1`, `VECTOR(n, FMT)` column types, `FETCH APPROX ... WITH TARGET ACCURACY`, `model USING expr AS
name` arguments, the distance operators `<=>`, `<->`, `<#>`, and JSON_QUERY wrapper clauses.
"""
from __future__ import annotations

import logging
import re

import sqlglot
from sqlglot import exp
from sqlglot.dialects.oracle import Oracle
from sqlglot.tokens import TokenType

logging.getLogger("sqlglot").setLevel(logging.ERROR)


class ModelUsing(exp.Expression, exp.Func):
    """VECTOR_EMBEDDING(model USING expr AS name, ...) and PREDICTION(...): keeps the model name."""

    arg_types = {"this": True, "model": True, "expressions": True}


class ModelArg(exp.Expression):
    """One `expr [AS name]` argument of a model function."""

    arg_types = {"this": True, "name": False}          # `USING col` names the attribute after the column


class JsonQuery(exp.Expression, exp.Func):
    """JSON_QUERY(doc, path [RETURNING t] [PRETTY] [WITH|WITHOUT [ARRAY] WRAPPER] [x ON ERROR])."""

    arg_types = {"this": True, "path": True, "wrapper": False, "on_error": False, "on_empty": False,
                 "returning": False}


#: Oracle functions kept as plain calls (name + Oracle argument order) instead of sqlglot's
#: generic nodes, whose transpilation changes Oracle semantics (format masks, NULL rules).
ORACLE_CALLS = (
    "SUBSTR", "INSTR", "LENGTH", "UPPER", "LOWER", "INITCAP", "LTRIM", "RTRIM", "REPLACE", "LPAD", "RPAD",
    "CONCAT", "CHR", "ASCII", "TRANSLATE", "REVERSE", "REGEXP_LIKE", "REGEXP_REPLACE", "REGEXP_SUBSTR",
    "REGEXP_INSTR", "REGEXP_COUNT", "NVL", "NVL2", "DECODE", "GREATEST", "LEAST", "ROUND", "TRUNC", "MOD",
    "REMAINDER", "CEIL", "FLOOR", "ABS", "SIGN", "POWER", "SQRT", "EXP", "LN", "LOG", "TO_CHAR", "TO_DATE",
    "TO_TIMESTAMP", "TO_TIMESTAMP_TZ", "ADD_MONTHS", "MONTHS_BETWEEN", "LAST_DAY", "NEXT_DAY", "NUMTODSINTERVAL",
    "NUMTOYMINTERVAL", "SYS_GUID", "SYS_EXTRACT_UTC", "HEXTORAW", "RAWTOHEX", "STANDARD_HASH", "ORA_HASH", "L2_DISTANCE",
    "SQUARE", "COSINE_DISTANCE", "INNER_PRODUCT", "L1_DISTANCE", "HAMMING_DISTANCE", "JACCARD_DISTANCE",
    "VECTOR_DISTANCE", "TO_VECTOR", "VECTOR_NORM", "VECTOR_DIMENSION_COUNT", "VECTOR_DIMS", "MEDIAN", "STDDEV", "VARIANCE", "STATS_MODE", "TO_CLOB", "TO_NCHAR",
)


def _plain_call(name: str):
    return lambda args: exp.Anonymous(this=name, expressions=args)


def _model_using_sql(self, e: exp.Expression) -> str:
    args = ", ".join(self.sql(a) for a in e.expressions)
    return f"{e.this.name}({self.sql(e.args['model'])} USING {args})"


def _model_arg_sql(self, e: exp.Expression) -> str:
    name = e.args.get("name")
    return f"{self.sql(e.this)} AS {self.sql(name)}" if name is not None else self.sql(e.this)


def _json_query_sql(self, e: exp.Expression) -> str:
    wrapper = e.args.get("wrapper")
    suffix = f" WITH {wrapper} WRAPPER" if wrapper and wrapper != "WITHOUT" else ""
    return f"JSON_QUERY({self.sql(e.this)}, {self.sql(e.args['path'])}{suffix})"


class OracleX(Oracle):
    class Generator(Oracle.Generator):
        TRANSFORMS = {**Oracle.Generator.TRANSFORMS, ModelUsing: _model_using_sql, ModelArg: _model_arg_sql,
                      JsonQuery: _json_query_sql}

    def to_json_path(self, path):
        # Keep SQL/JSON paths as the original string literal: our evaluator implements Oracle's grammar.
        return path

    class Tokenizer(Oracle.Tokenizer):
        KEYWORDS = {**Oracle.Tokenizer.KEYWORDS, "<#>": TokenType.LLRR_ARROW}

    class Parser(Oracle.Parser):
        COLON_PLACEHOLDER_TOKENS = Oracle.Parser.COLON_PLACEHOLDER_TOKENS | {TokenType.NUMBER}
        FUNC_TOKENS = Oracle.Parser.FUNC_TOKENS | {TokenType.SYSTIMESTAMP}

        FUNCTIONS = {**Oracle.Parser.FUNCTIONS, **{name: _plain_call(name) for name in ORACLE_CALLS},
                     # SYSTIMESTAMP(p), as LOCALTIMESTAMP(p) / CURRENT_TIMESTAMP(p) (sqlglot knows only the bare word)
                     "SYSTIMESTAMP": lambda args: exp.Systimestamp(this=args[0] if args else None)}

        FUNCTION_PARSERS = {
            **Oracle.Parser.FUNCTION_PARSERS,
            "VECTOR_EMBEDDING": lambda self: self._parse_model_using("VECTOR_EMBEDDING"),
            "PREDICTION": lambda self: self._parse_model_using("PREDICTION"),
            "JSON_QUERY": lambda self: self._parse_json_query(),
            "JSON_SERIALIZE": lambda self: self._parse_with_trailing_clauses("JSON_SERIALIZE"),
            "FROM_VECTOR": lambda self: self._parse_with_trailing_clauses("FROM_VECTOR"),
            "VECTOR_SERIALIZE": lambda self: self._parse_with_trailing_clauses("FROM_VECTOR"),
        }
        FUNCTION_PARSERS.pop("TO_NUMBER", None)

        def _parse_model_using(self, name: str) -> exp.Expression:
            model = self._parse_table_parts()
            if not self._match(TokenType.USING):
                self.raise_error(f"{name}: expected USING after the model name")
            args = self._parse_csv(self._parse_model_arg)
            return self.expression(ModelUsing(this=exp.Var(this=name), model=model, expressions=args))

        def _parse_model_arg(self) -> exp.Expression:
            value = self._parse_assignment()
            name = None
            if self._match(TokenType.ALIAS):
                name = self._parse_id_var(any_token=True)
            return self.expression(ModelArg(this=value, name=name))

        def _parse_with_trailing_clauses(self, name: str) -> exp.Expression:
            """`F(expr [RETURNING type] [PRETTY] [ASCII] [FORMAT ...])`: keeps expr, records options."""
            this = self._parse_assignment()
            options = []
            while not self._match(TokenType.R_PAREN, advance=False):
                if self._match_text_seq("RETURNING"):
                    options.append("RETURNING " + self._parse_types().sql(dialect="oracle"))
                elif self._curr is not None:
                    options.append(self._curr.text.upper())
                    self._advance()
                else:
                    break
            return exp.Anonymous(this=name, expressions=[this, *[exp.Literal.string(o) for o in options]])

        def _parse_json_query(self) -> exp.Expression:
            this = self._parse_assignment()
            self._match(TokenType.COMMA)
            path = self._parse_assignment()
            args = {"this": this, "path": path}
            while not self._match(TokenType.R_PAREN, advance=False):
                if self._match_text_seq("RETURNING"):
                    args["returning"] = self._parse_types()
                elif self._match_text_seq("PRETTY") or self._match_text_seq("ASCII"):
                    continue
                elif self._match_text_seq("WITHOUT"):
                    self._match_text_seq("ARRAY")
                    self._match_text_seq("WRAPPER")
                    args["wrapper"] = "WITHOUT"
                elif self._match_text_seq("WITH"):
                    kind = "UNCONDITIONAL"
                    if self._match_text_seq("CONDITIONAL"):
                        kind = "CONDITIONAL"
                    else:
                        self._match_text_seq("UNCONDITIONAL")
                    self._match_text_seq("ARRAY")
                    self._match_text_seq("WRAPPER")
                    args["wrapper"] = kind
                else:
                    handler = self._parse_on_handler()
                    if handler is None:
                        self.raise_error("JSON_QUERY: unsupported clause")
                    value, target = handler
                    args["on_" + target.lower()] = value
            return self.expression(JsonQuery(**args))

        def _parse_on_handler(self):
            """`NULL|ERROR|EMPTY [ARRAY|OBJECT] ON ERROR|EMPTY`."""
            for word in ("NULL", "ERROR", "EMPTY"):
                if self._match_text_seq(word):
                    if word == "EMPTY":
                        self._match_text_seq("ARRAY") or self._match_text_seq("OBJECT")
                    if self._match_text_seq("ON", "ERROR"):
                        return word, "ERROR"
                    if self._match_text_seq("ON", "EMPTY"):
                        return word, "EMPTY"
                    return None
            return None

        def _parse_limit(self, this=None, top=False, skip_limit_token=False):
            result = super()._parse_limit(this, top=top, skip_limit_token=skip_limit_token)
            if isinstance(result, exp.Fetch):
                if self._match_text_seq("WITH", "TARGET", "ACCURACY"):
                    result.set("target_accuracy", self._parse_number())
                elif self._match_text_seq("PARAMETERS"):
                    self._match_l_paren()
                    self._parse_csv(self._parse_assignment)
                    self._match_r_paren()
            return result

        def _parse_vector_expressions(self, expressions):
            # Oracle spells VECTOR(dimensions, format); keep both as plain values.
            return [exp.Var(this=e.sql()) if not isinstance(e, exp.Literal) else e for e in expressions]


_APPROX = re.compile(r"(?i)\bFETCH\s+(APPROX|APPROXIMATE|EXACT)\s+")
_VECTOR_STAR = re.compile(r"(?i)\bVECTOR\s*\(\s*\*\s*(,\s*(\*|\w+)\s*)?\)")


def normalise_for_parser(sql: str) -> str:
    """Token-level spellings sqlglot cannot parse, rewritten to ones it can (strings untouched)."""
    from .lexing import map_code

    def fix(code: str) -> str:
        code = _APPROX.sub("FETCH ", code)
        return _VECTOR_STAR.sub(lambda m: f"VECTOR(FLEX, {(m.group(2) or '*').replace('*', 'FLEX')})", code)

    return map_code(sql, fix)


def parse(sql: str) -> exp.Expression:
    """The statement's parse tree. Comments (hints included) are dropped first, each replaced by a space as
    Oracle reads it: a comment is a comment. Kept, sqlglot would attach them to nodes (and print them in a
    column heading) and fill `Expression.meta` from any comment containing `sqlglot.meta`; the engine's own
    marks live under keys no text can write (markers.Mark), this makes sure no text reaches meta at all. The one
    hint with a semantic effect is read from the text by lexing.statement_hint (Engine._parse)."""
    from .lexing import strip_comments
    return sqlglot.parse_one(normalise_for_parser(strip_comments(sql)), dialect=OracleX)
