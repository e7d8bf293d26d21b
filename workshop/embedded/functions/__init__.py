"""Oracle SQL function library of the embedded engine; the public surface is ``oracle_functions``."""
