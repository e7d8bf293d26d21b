#!/bin/bash
# Runs inside the Oracle AI Database Free container (gvenzl image) on EVERY start, as the oracle OS user,
# from /container-entrypoint-startdb.d; the container reports healthy only after it has finished.
# Every start, so that an old volume is brought up to date too:
#   1. the workshop user exists, with the password of the environment (stale passwords on old volumes);
#   2. it holds exactly the grants of workshop/oracle_grants.py (a test keeps this list in sync);
#   3. the read-only user of part 07's tools (WORKSHOP_READONLY_USER) exists with its password, holds only
#      CREATE SESSION and is marked READ ONLY; the workshop user grants it READ on its own objects once they
#      exist (workshop.oracle_grants.share_with_reader), so nothing here names a workshop table;
#   4. the vector memory pool is at least WORKSHOP_VECTOR_POOL_MB (ORA-51962 otherwise): first
#      ALTER SYSTEM ... SCOPE=BOTH (the parameter is dynamic in 26ai), else SCOPE=SPFILE and a restart;
#      then it reads V$VECTOR_MEMORY_POOL back and prints what is in effect.
# It never exits non-zero (that would stop the container): failures are printed, and the doctor
# (python -m workshop.doctor) reports them with the one thing to do.
set -uo pipefail

WORKSHOP_USER="${WORKSHOP_USER:-WORKSHOP}"
WORKSHOP_PASSWORD="${WORKSHOP_PASSWORD:-}"
READONLY_USER="${WORKSHOP_READONLY_USER:-}"
READONLY_PASSWORD="${WORKSHOP_READONLY_PASSWORD:-}"
TARGET_MB="${WORKSHOP_VECTOR_POOL_MB:-512}"
PDB="${ORACLE_DATABASE:-FREEPDB1}"

say() { echo "WORKSHOP: $*"; }

if [ -z "${WORKSHOP_PASSWORD}" ] || [[ "${WORKSHOP_PASSWORD}" == *'"'* ]]; then
  say "ERROR: WORKSHOP_PASSWORD is empty or contains a double quote; the workshop user was not created."
  exit 0
fi
if ! [[ "${WORKSHOP_USER}" =~ ^[A-Za-z][A-Za-z0-9_]{0,29}$ ]] || ! [[ "${TARGET_MB}" =~ ^[0-9]+$ ]]; then
  say "ERROR: WORKSHOP_USER must be a plain identifier and WORKSHOP_VECTOR_POOL_MB a number of MB."
  exit 0
fi
if [ -n "${READONLY_USER}" ]; then
  if ! [[ "${READONLY_USER}" =~ ^[A-Za-z][A-Za-z0-9_]{0,29}$ ]] || [ -z "${READONLY_PASSWORD}" ] \
     || [[ "${READONLY_PASSWORD}" == *'"'* ]] || [ "${READONLY_USER^^}" = "${WORKSHOP_USER^^}" ]; then
    say "ERROR: WORKSHOP_READONLY_USER must be a plain identifier other than ${WORKSHOP_USER}, with a"
    say "ERROR: WORKSHOP_READONLY_PASSWORD that is not empty and has no double quote; no read-only user was created."
    READONLY_USER=""
  fi
fi

say "user ${WORKSHOP_USER} in ${PDB}: create if missing, reset the password, grant what the series needs"
sqlplus -s / as sysdba <<EOF
WHENEVER SQLERROR CONTINUE
SET FEEDBACK ON
ALTER SESSION SET CONTAINER = ${PDB};
DECLARE
  n NUMBER;
BEGIN
  SELECT COUNT(*) INTO n FROM dba_users WHERE username = UPPER('${WORKSHOP_USER}');
  IF n = 0 THEN
    EXECUTE IMMEDIATE 'CREATE USER ${WORKSHOP_USER} IDENTIFIED BY "${WORKSHOP_PASSWORD}" DEFAULT TABLESPACE USERS';
  END IF;
END;
/
ALTER USER ${WORKSHOP_USER} IDENTIFIED BY "${WORKSHOP_PASSWORD}" ACCOUNT UNLOCK;
-- grants: generated from workshop/oracle_grants.py (tests/oracle/test_devcontainer_sync.py checks it)
GRANT CREATE SESSION TO ${WORKSHOP_USER};
GRANT CREATE TABLE TO ${WORKSHOP_USER};
GRANT CREATE PROCEDURE TO ${WORKSHOP_USER};
GRANT CREATE MINING MODEL TO ${WORKSHOP_USER};
GRANT CREATE PROPERTY GRAPH TO ${WORKSHOP_USER};
GRANT CREATE ANY CONTEXT TO ${WORKSHOP_USER};
GRANT CREATE JOB TO ${WORKSHOP_USER};
GRANT CTXAPP TO ${WORKSHOP_USER};
GRANT EXECUTE ON SYS.DBMS_VECTOR TO ${WORKSHOP_USER};
GRANT EXECUTE ON CTXSYS.DBMS_VECTOR_CHAIN TO ${WORKSHOP_USER};
GRANT EXECUTE ON CTXSYS.DBMS_HYBRID_VECTOR TO ${WORKSHOP_USER};
GRANT EXECUTE ON SYS.DBMS_RLS TO ${WORKSHOP_USER};
GRANT SELECT ON SYS.V_\$VECTOR_MEMORY_POOL TO ${WORKSHOP_USER};
ALTER USER ${WORKSHOP_USER} QUOTA UNLIMITED ON USERS;
-- end of grants
exit
EOF

if [ -n "${READONLY_USER}" ]; then
  # A second, local user rather than a read-only session of the workshop user: a session can set its own
  # READ_ONLY parameter back to false, a user cannot grant itself privileges (workshop/oracle_grants.py says why).
  # READ ONLY is the 26ai read-only user property, for local users only (DIA-28192). Its object grants (READ on
  # the tables, EXECUTE on the context package, SELECT on the models) come from the owner, not from here.
  say "read-only user ${READONLY_USER} in ${PDB}: create if missing, reset the password, CREATE SESSION, READ ONLY"
  sqlplus -s / as sysdba <<EOF
WHENEVER SQLERROR CONTINUE
SET FEEDBACK ON
ALTER SESSION SET CONTAINER = ${PDB};
DECLARE
  n NUMBER;
BEGIN
  SELECT COUNT(*) INTO n FROM dba_users WHERE username = UPPER('${READONLY_USER}');
  IF n = 0 THEN
    EXECUTE IMMEDIATE 'CREATE USER ${READONLY_USER} IDENTIFIED BY "${READONLY_PASSWORD}"';
  END IF;
END;
/
ALTER USER ${READONLY_USER} IDENTIFIED BY "${READONLY_PASSWORD}" ACCOUNT UNLOCK;
-- read-only grants: generated from workshop/oracle_grants.py READONLY_USER_GRANTS
GRANT CREATE SESSION TO ${READONLY_USER};
-- end of read-only grants
ALTER USER ${READONLY_USER} READ ONLY;
exit
EOF
fi

pool_mb() {
  sqlplus -s / as sysdba <<'EOF' | tr -d '[:space:]'
SET HEADING OFF FEEDBACK OFF PAGESIZE 0 VERIFY OFF
SELECT TO_CHAR(TRUNC(NVL(SUM(alloc_bytes), 0) / 1048576)) FROM v$vector_memory_pool;
exit
EOF
}

# The pool is allocated in granules: 90% of the target counts as in effect.
MIN_MB=$(( TARGET_MB * 9 / 10 ))
current="$(pool_mb)"
if ! [[ "${current}" =~ ^[0-9]+$ ]]; then
  say "WARNING: could not read V\$VECTOR_MEMORY_POOL (${current}); leaving vector_memory_size alone"
  exit 0
fi
if [ "${current}" -lt "${MIN_MB}" ]; then
  say "vector memory pool is ${current} MB; setting vector_memory_size = ${TARGET_MB}M (SCOPE=BOTH)"
  if ! sqlplus -s / as sysdba <<EOF
WHENEVER SQLERROR EXIT 1
ALTER SYSTEM SET vector_memory_size = ${TARGET_MB}M SCOPE=BOTH;
exit
EOF
  then
    say "SCOPE=BOTH refused; setting it in the SPFILE and restarting the database"
    sqlplus -s / as sysdba <<EOF
WHENEVER SQLERROR CONTINUE
ALTER SYSTEM SET vector_memory_size = ${TARGET_MB}M SCOPE=SPFILE;
SHUTDOWN IMMEDIATE;
STARTUP;
ALTER PLUGGABLE DATABASE ALL OPEN;
exit
EOF
  fi
  current="$(pool_mb)"
fi
if [[ "${current}" =~ ^[0-9]+$ ]] && [ "${current}" -ge "${MIN_MB}" ]; then
  say "vector memory pool in effect: ${current} MB (V\$VECTOR_MEMORY_POOL)"
else
  say "WARNING: vector memory pool is ${current:-unknown} MB, below ${TARGET_MB} MB: HNSW indexes will fail with ORA-51962."
  say "WARNING: run python -m workshop.doctor in the workspace for what to do."
fi
exit 0
