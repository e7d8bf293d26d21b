"""INSERT / UPDATE / DELETE / MERGE translation.

Every value written to a column passes through ORA_STORE(value, 'spec'), which applies Oracle's
column rules (VARCHAR2 length, NUMBER precision, vector dimensions and format, JSON syntax, RAW
hex conversion) and raises the ORA- error Oracle raises. MERGE becomes UPDATE ... FROM followed
by INSERT ... SELECT ... WHERE NOT EXISTS, run in one transaction.
"""
from __future__ import annotations

from sqlglot import exp

from . import errors
from .catalog import Column, Table
from .markers import Mark
from .translate import Plan, Scope, Translator, _conjuncts, _rownum_bound, normalize_identifiers, unsupported


def column_spec(table: Table, column: Column) -> str:
    """The literal ORA_STORE receives: type and limits, plus names for error messages."""
    parts = [column.data_type, str(column.length or ""), column.char_semantics or "",
             str(column.precision if column.precision is not None else ""),
             str(column.scale if column.scale is not None else ""),
             str(column.vector_dimensions or ""), column.vector_format or "", table.name, column.name]
    return "|".join(parts)


def store(value: exp.Expression, table: Table, column: Column) -> exp.Expression:
    return exp.Anonymous(this="ORA_STORE", expressions=[value, exp.Literal.string(column_spec(table, column))])


class DmlTranslator(Translator):
    """Adds the write statements to the query translator."""

    def _target(self, table_expr: exp.Expression) -> Table:
        if not isinstance(table_expr, exp.Table):
            raise unsupported("DML into a subquery or view expression")
        self._resolve_table_name(table_expr, set())
        table = self.catalog.table(table_expr.name)
        if table is None or table.kind != "TABLE":
            raise errors.EngineError(942, f'table or view "{table_expr.name}" does not exist')
        self.plan.table = table.name
        return table

    def _target_columns(self, table: Table, columns: list[exp.Expression] | None) -> list[Column]:
        if not columns:
            return list(table.columns)
        out = []
        for col in columns:
            name = col.name
            found = table.column(name)
            if found is None:
                raise errors.EngineError(904, f'"{name}": invalid identifier')
            out.append(found)
        return out

    def _check_identity(self, columns: list[Column], values: list[exp.Expression]) -> None:
        for col, value in zip(columns, values):
            if col.identity == "ALWAYS" and not isinstance(value, exp.Null):
                raise errors.EngineError(32795, "cannot insert into a generated always identity column")

    # ------------------------------------------------------------------ INSERT
    def translate_insert(self, tree: exp.Insert) -> Plan:
        self.plan.kind = "dml"
        tree = _normalize(tree)
        self._check_tables(tree)
        target = tree.this
        column_list = None
        if isinstance(target, exp.Schema):
            column_list = target.expressions
            target = target.this
        table = self._target(target)
        columns = self._target_columns(table, column_list)
        source = tree.expression
        names = ", ".join(f'"{c.name}"' for c in columns)
        if isinstance(source, exp.Values):
            rows = []
            for row in source.expressions:
                values = row.expressions if isinstance(row, exp.Tuple) else [row]
                _check_count(len(columns), len(values))
                self._check_identity(columns, values)
                rewritten = [self._rewrite(v, Scope()) for v in values]
                rows.append("(" + ", ".join(store(v, table, c).sql(dialect="sqlite")
                                             for v, c in zip(rewritten, columns)) + ")")
            self.plan.sql = f'INSERT INTO "{table.storage}" ({names}) VALUES {", ".join(rows)}'
        else:
            query = self._rewrite_query(source, None)
            width = _select_width(query)
            if width is not None:
                _check_count(len(columns), width)
            aliases = [f"C{i}" for i in range(len(columns))]
            stored = ", ".join(store(exp.column(a, quoted=True), table, c).sql(dialect="sqlite")
                               for a, c in zip(aliases, columns))
            alias_list = ", ".join(f'"{a}"' for a in aliases)
            self.plan.sql = (f'WITH "ORA$SRC"({alias_list}) AS ({query.sql(dialect="sqlite")}) '
                             f'INSERT INTO "{table.storage}" ({names}) SELECT {stored} FROM "ORA$SRC"')
        hint = tree.meta.get(Mark.IGNORE_DUPKEY)
        if hint is not None:
            self.plan.sql += self._ignore_dupkey(table, *hint, select=not isinstance(source, exp.Values))
        return self.plan

    def _ignore_dupkey(self, table: Table, hint_table: str, columns: list[str] | None, index: str | None,
                       select: bool) -> str:
        """IGNORE_ROW_ON_DUPKEY_INDEX(table index | table (columns)): rows that would violate that one unique key are
        skipped; every other constraint still raises (SQLite's upsert with DO NOTHING on exactly that key).
        An index that is not a unique key of the table is ORA-38913, as the hint's documentation says."""
        keys = self.catalog.unique_keys(table.name)
        key = keys.get(index) if index is not None else next(
            (cols for cols in keys.values() if columns is not None and sorted(cols) == sorted(columns)), None)
        if hint_table != table.name or key is None:
            raise errors.EngineError(38913, "Index specified in the index hint is invalid")
        target = ", ".join(f'"{c}"' for c in key)
        return f"{' WHERE true' if select else ''} ON CONFLICT ({target}) DO NOTHING"

    # ------------------------------------------------------------------ UPDATE
    def _single_target(self, tree: exp.Expression) -> tuple[exp.Expression, Table, str, Scope]:
        """UPDATE / DELETE: the target table, its alias, and a scope in which its columns resolve."""
        self.plan.kind = "dml"
        tree = _normalize(tree)
        self._check_tables(tree)
        table = self._target(tree.this)
        alias = tree.this.alias_or_name
        scope = Scope()
        scope.sources[alias] = table
        return tree, table, alias, scope

    def translate_update(self, tree: exp.Update) -> Plan:
        tree, table, alias, scope = self._single_target(tree)
        sets = []
        for assignment in tree.expressions:
            target = assignment.this
            if not isinstance(target, exp.Column):
                raise unsupported("UPDATE SET (column list) = (subquery)")
            column = self._target_columns(table, [target])[0]
            if column.identity == "ALWAYS":
                raise errors.EngineError(32796, "cannot update a generated always identity column")
            value = self._rewrite(assignment.expression, scope)
            sets.append(f'"{column.name}" = {store(value, table, column).sql(dialect="sqlite")}')
        where_sql = self._where_with_policy(tree.args.get("where"), table, "UPDATE", scope)
        alias_sql = f' AS "{alias}"' if alias != table.storage else ""
        self.plan.sql = f'UPDATE "{table.storage}"{alias_sql} SET {", ".join(sets)}{where_sql}'
        return self.plan

    def _where_with_policy(self, where, table: Table, statement_type: str, scope: Scope) -> str:
        """The statement's WHERE, plus the row-level security predicate for this statement type.
        `ROWNUM <= n` limits the rows the statement touches, as on Oracle."""
        conditions, limit = [], None
        if where is not None:
            for cond in _conjuncts(where.this):
                bound = _rownum_bound(cond)
                if bound is not None:
                    limit = self._rewrite(bound, scope)
                else:
                    conditions.append(self._rewrite(cond, scope))
        predicate = self.policy_predicate(table.name, statement_type)
        if predicate is not None:
            conditions.append(self.policy_condition(predicate, scope))
        text = " AND ".join(f"({c.sql(dialect='sqlite')})" for c in conditions)
        if limit is not None:
            alias = next(iter(scope.sources))
            inner = f' WHERE {text}' if text else ""
            return (f' WHERE rowid IN (SELECT "{alias}".rowid FROM "{table.storage}" AS "{alias}"{inner} '
                    f'LIMIT {limit.sql(dialect="sqlite")})')
        return f" WHERE {text}" if text else ""

    # ------------------------------------------------------------------ DELETE
    def translate_delete(self, tree: exp.Delete) -> Plan:
        tree, table, alias, scope = self._single_target(tree)
        where_sql = self._where_with_policy(tree.args.get("where"), table, "DELETE", scope)
        alias_sql = f' AS "{alias}"' if alias != table.storage else ""
        self.plan.sql = f'DELETE FROM "{table.storage}"{alias_sql}{where_sql}'
        return self.plan

    # ------------------------------------------------------------------ MERGE
    def translate_merge(self, tree: exp.Merge) -> Plan:
        self.plan.kind = "dml"
        tree = _normalize(tree)
        self._check_tables(tree)
        table = self._target(tree.this)
        t_alias = tree.this.alias_or_name
        source = tree.args["using"]
        s_alias, source_sql, source_scope_entry = self._merge_source(source)
        scope = Scope()
        scope.sources[t_alias] = table
        scope.sources[s_alias] = source_scope_entry
        on = self._rewrite(tree.args["on"], scope)
        on_columns = {c.name for c in on.find_all(exp.Column) if c.table in (t_alias, "")}
        statements = []
        for when in tree.args["whens"].expressions:
            then = when.args.get("then")
            if when.args.get("matched"):
                statements += self._merge_update(then, table, t_alias, s_alias, source_sql, on, on_columns, scope)
            else:
                statements.append(self._merge_insert(then, when.args.get("condition"), table, t_alias, s_alias,
                                                     source_sql, on, scope))
        if not statements:
            raise unsupported("MERGE without WHEN clauses")
        self.plan.sql = statements[0]
        self.plan.extra = statements[1:]
        return self.plan

    def _merge_source(self, source: exp.Expression):
        alias = source.alias_or_name
        if isinstance(source, exp.Values):
            names = [c.name for c in source.args["alias"].args.get("columns") or []]
            rows = []
            for row in source.expressions:
                values = [self._rewrite(v, Scope()) for v in row.expressions]
                if len(values) != len(names):
                    raise errors.EngineError(947, "not enough values")
                rows.append("SELECT " + ", ".join(f'{v.sql(dialect="sqlite")} AS "{n}"' for v, n in zip(values, names)))
            sql = " UNION ALL ".join(rows)
            entry = exp.select(*[exp.column(n, quoted=True) for n in names])
            return alias, sql, entry
        if isinstance(source, exp.Subquery):
            query = self._rewrite_query(source.this, None)
            return alias, query.sql(dialect="sqlite"), query
        if isinstance(source, exp.Table):
            table = self.catalog.table(source.name)
            if self.policy_predicate(source.name, "SELECT") is not None:
                # the USING table is read like any query: through its SELECT policies (Oracle's VPD applies to
                # every reference of the table in the statement)
                from .dialect import parse
                query = self._rewrite_query(normalize_identifiers(parse(f'SELECT * FROM "{source.name}"')), None)
                return alias, query.sql(dialect="sqlite"), table
            return alias, f'SELECT * FROM "{table.storage if table is not None else source.name}"', table
        raise unsupported("MERGE USING this source")

    def _merge_update(self, then, table, t_alias, s_alias, source_sql, on, on_columns, scope):
        if not isinstance(then, exp.Update):
            raise unsupported("MERGE WHEN MATCHED THEN DELETE")
        sets = []
        for assignment in then.expressions:
            column = self._target_columns(table, [assignment.this])[0]
            if column.name in on_columns:
                raise errors.EngineError(38104, f'Columns referenced in the ON Clause cannot be updated: '
                                                f'"{t_alias}"."{column.name}"')
            value = self._rewrite(assignment.expression, scope)
            sets.append(f'"{column.name}" = {store(value, table, column).sql(dialect="sqlite")}')
        where = then.args.get("where")
        condition = on.sql(dialect="sqlite")
        if where is not None:
            condition = f"({condition}) AND ({self._rewrite(where.this, scope).sql(dialect='sqlite')})"
        predicate = self.policy_predicate(table.name, "UPDATE")
        if predicate is not None:
            condition = f"({condition}) AND ({self._qualified_policy(predicate, table, t_alias)})"
        # each target row may be matched by one source row only (ORA-30926): count them, correlated on the target
        stable = (f'ORA_MERGE_SOURCE_ROWS((SELECT COUNT(*) FROM ({source_sql}) AS "{s_alias}" '
                  f'WHERE {on.sql(dialect="sqlite")}))')
        statements = [f'UPDATE "{table.storage}" AS "{t_alias}" SET {", ".join(sets)} '
                      f'FROM ({source_sql}) AS "{s_alias}" WHERE ({condition}) AND {stable}']
        delete = then.args.get("delete") if hasattr(then, "args") else None
        if delete is not None:
            raise unsupported("MERGE ... DELETE WHERE")
        return statements

    def _merge_insert(self, then, condition, table, t_alias, s_alias, source_sql, on, scope):
        if not isinstance(then, exp.Insert):
            raise unsupported("MERGE WHEN NOT MATCHED with this action")
        target_cols = then.this.expressions if isinstance(then.this, exp.Tuple) else [then.this]
        columns = self._target_columns(table, target_cols)
        values_node = then.expression
        values = values_node.expressions if isinstance(values_node, exp.Tuple) else [values_node]
        _check_count(len(columns), len(values))
        stored = ", ".join(store(self._rewrite(v, scope), table, c).sql(dialect="sqlite")
                           for v, c in zip(values, columns))
        names = ", ".join(f'"{c.name}"' for c in columns)
        probe_alias = "ORA$T"
        on_sql = on.copy()
        for col in on_sql.find_all(exp.Column):
            if col.table == t_alias:
                col.set("table", exp.to_identifier(probe_alias, quoted=True))
        probe = on_sql.sql(dialect="sqlite")
        predicate = self.policy_predicate(table.name, "SELECT")
        if predicate is not None:
            probe = f"({probe}) AND ({self._qualified_policy(predicate, table, probe_alias)})"
        filters = f'NOT EXISTS (SELECT 1 FROM "{table.storage}" AS "{probe_alias}" WHERE {probe})'
        if condition is not None:
            filters += f" AND ({self._rewrite(condition, scope).sql(dialect='sqlite')})"
        return (f'INSERT INTO "{table.storage}" ({names}) SELECT {stored} FROM ({source_sql}) AS "{s_alias}" '
                f'WHERE {filters}')

    def _qualified_policy(self, predicate: str, table: Table, alias: str) -> str:
        """A policy predicate whose column references point at `alias` (MERGE target or probe)."""
        from .dialect import parse
        condition = normalize_identifiers(parse(f"SELECT 1 FROM DUAL WHERE {predicate}").args["where"].this)
        for col in condition.find_all(exp.Column):
            if not col.table or col.table == table.name:
                if table.column(col.name) is not None:
                    col.set("table", exp.to_identifier(alias, quoted=True))
        scope = Scope()
        scope.sources[alias] = table
        return self._rewrite(condition, scope).sql(dialect="sqlite")

    # ------------------------------------------------------------------ RETURNING
    def add_returning(self, exprs: list[str], binds: list[str], parse) -> None:
        table = self.catalog.table(self.plan.table)
        scope = Scope()
        scope.sources[table.name] = table
        rendered = []
        for text in exprs:
            node = _normalize(parse(f"SELECT {text} FROM DUAL").expressions[0])
            for col in node.find_all(exp.Column):
                col.set("table", None)
            rendered.append(self._rewrite(node, scope).sql(dialect="sqlite"))
        if len(rendered) != len(binds):
            raise errors.EngineError(913 if len(rendered) > len(binds) else 947,
                                     "RETURNING expressions and INTO binds differ in number")
        self.plan.returning = rendered
        self.plan.returning_binds = [b.upper() for b in binds]


def _normalize(tree: exp.Expression) -> exp.Expression:
    from .translate import normalize_identifiers
    return normalize_identifiers(tree)


def _check_count(expected: int, given: int) -> None:
    if given < expected:
        raise errors.EngineError(947, "not enough values")
    if given > expected:
        raise errors.EngineError(913, "too many values")


def _select_width(query: exp.Expression) -> int | None:
    while isinstance(query, (exp.SetOperation, exp.Subquery)):
        query = query.this
    if isinstance(query, exp.Select) and not any(isinstance(p, exp.Star) for p in query.expressions):
        return len(query.expressions)
    return None


__all__ = ["DmlTranslator", "column_spec", "store", "_conjuncts"]
