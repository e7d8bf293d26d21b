"""The one exception type of the graph package; the engine maps it to python-oracledb errors."""
from __future__ import annotations

ENGINE_SUFFIX = "(embedded engine; run against Oracle AI Database)"

# ORA codes used here, with the Oracle message each one stands for.
TABLE_OR_VIEW_DOES_NOT_EXIST = 942      # also what Oracle reports for an unknown graph
INVALID_IDENTIFIER = 904
MISSING_KEYWORD = 905
MISSING_RIGHT_PARENTHESIS = 907
COMMAND_NOT_PROPERLY_ENDED = 933
MISSING_EXPRESSION = 936
DUPLICATE_COLUMN_NAME = 957
MUST_NAME_EXPRESSION = 998              # must name this expression with a column alias
REFERENCING_COLUMNS_MISMATCH = 2256     # number of referencing columns must match referenced columns
UNIMPLEMENTED = 3001
PROPERTY_NEVER_DEFINED = 40983
GROUP_VARIABLE_IN_COLUMNS = 40990
VARIABLE_NOT_DECLARED = 40996
GROUP_VARIABLE_IN_WHERE = 40998
QUANTIFIED_PATTERN_WITHOUT_EDGE = 40999
CANNOT_INFER_KEY = 42402
ELEMENT_TABLE_ALREADY_DEFINED = 42404
CANNOT_INFER_EDGE_RELATIONSHIP = 42413
GROUP_VARIABLES_SAME_NAME = 49002
INVALID_START_OF_GRAPH_TABLE = 49006
GROUP_FUNCTION_INSIDE_QUANTIFIED = 49010
GROUP_FUNCTION_MULTIPLE_VARIABLES = 49012


class GraphError(Exception):
    """An Oracle-style error from graph DDL parsing or GRAPH_TABLE compilation."""

    def __init__(self, code: int, message: str):
        super().__init__(f"ORA-{code:05d}: {message}")
        self.code = code
        self.message = message


def unsupported(construct: str) -> GraphError:
    """ORA-03001 naming a GRAPH_TABLE construct the embedded engine does not implement."""
    return GraphError(UNIMPLEMENTED, f"unimplemented feature: {construct} in GRAPH_TABLE {ENGINE_SUFFIX}")


def unsupported_ddl(construct: str) -> GraphError:
    """ORA-03001 for a CREATE PROPERTY GRAPH construct the embedded engine does not implement."""
    return GraphError(UNIMPLEMENTED, f"unimplemented feature: {construct} in CREATE PROPERTY GRAPH {ENGINE_SUFFIX}")
