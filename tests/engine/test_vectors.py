"""Vector SQL against a numpy reference: distances, operators, constructors, top-k with an index."""
import array
import math

import numpy as np
import oracledb
import pytest

from tests.conftest import ora_code

RNG = np.random.default_rng(7)


def _ref(metric, a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return {
        "COSINE": 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b)),
        "EUCLIDEAN": np.linalg.norm(a - b),
        "EUCLIDEAN_SQUARED": float((a - b) @ (a - b)),
        "DOT": -(a @ b),
        "MANHATTAN": np.abs(a - b).sum(),
    }[metric]


@pytest.fixture
def vecs(cur):
    cur.execute("CREATE TABLE v (id NUMBER PRIMARY KEY, kind VARCHAR2(5), emb VECTOR(8, FLOAT32))")
    data = RNG.normal(size=(50, 8)).astype(np.float32)
    cur.executemany("INSERT INTO v VALUES (:1, :2, :3)",
                    [(i, "ab"[i % 2], array.array("f", row)) for i, row in enumerate(data)])
    cur.connection.commit()
    return cur, data


@pytest.mark.parametrize("metric", ["COSINE", "EUCLIDEAN", "EUCLIDEAN_SQUARED", "DOT", "MANHATTAN"])
def test_vector_distance_matches_numpy(vecs, metric):
    cur, data = vecs
    q = RNG.normal(size=8).astype(np.float32)
    cur.execute(f"SELECT id, VECTOR_DISTANCE(emb, :q, {metric}) FROM v ORDER BY id", q=array.array("f", q))
    got = np.array([r[1] for r in cur.fetchall()])
    want = np.array([_ref(metric, row, q) for row in data])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_shorthand_functions_and_operators(vecs):
    cur, data = vecs
    q = array.array("f", data[3])
    cur.execute("""SELECT VECTOR_DISTANCE(emb, :q), COSINE_DISTANCE(emb, :q), emb <=> :q,
                          L2_DISTANCE(emb, :q), emb <-> :q, INNER_PRODUCT(emb, :q), emb <#> :q
                   FROM v WHERE id = 5""", q=q)
    default, cosine, cos_op, l2, l2_op, ip, neg_ip = cur.fetchone()
    assert default == pytest.approx(cosine) == pytest.approx(cos_op) == pytest.approx(_ref("COSINE", data[5], data[3]))
    assert l2 == pytest.approx(l2_op) == pytest.approx(_ref("EUCLIDEAN", data[5], data[3]), rel=1e-5)
    assert ip == pytest.approx(float(data[5].astype(np.float64) @ data[3]), rel=1e-5)
    assert neg_ip == pytest.approx(-ip)


def test_constructors_and_fetch_types(cur):
    cur.execute("SELECT TO_VECTOR('[1, 2, 3]'), TO_VECTOR('[1, 2, 3]', 3, FLOAT64), VECTOR('[1,2]', 2, INT8), "
                "VECTOR_NORM(TO_VECTOR('[3, 4]')), VECTOR_DIMENSION_COUNT(TO_VECTOR('[3, 4, 5]')), "
                "FROM_VECTOR(TO_VECTOR('[1.5, 2]')) FROM dual")
    f32, f64, i8, norm, dims, text = cur.fetchone()
    assert f32 == array.array("f", [1, 2, 3]) and f32.typecode == "f"
    assert f64.typecode == "d" and i8 == array.array("b", [1, 2])
    assert norm == 5.0 and dims == 3
    assert text == "[1.5E+000,2.0E+000]"
    assert cur.description[0].type_code is oracledb.DB_TYPE_VECTOR
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT TO_VECTOR('[1, 2, 3]', 2) FROM dual")
    assert ora_code(exc) == 51803
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT TO_VECTOR('not a vector') FROM dual")
    assert ora_code(exc) == 51805


def test_list_and_float64_binds(cur):
    cur.execute("CREATE TABLE w (id NUMBER, emb VECTOR(3, FLOAT32))")
    cur.execute("INSERT INTO w VALUES (1, :v)", v=array.array("d", [0.5, 0.25, 0.125]))
    cur.setinputsizes(v=oracledb.DB_TYPE_VECTOR)
    cur.execute("INSERT INTO w VALUES (2, :v)", v=[1.0, 0.0, 0.0])
    cur.execute("SELECT emb FROM w ORDER BY id")
    first, second = (r[0] for r in cur.fetchall())
    assert first.typecode == "f" and list(first) == [0.5, 0.25, 0.125]
    assert list(second) == [1.0, 0.0, 0.0]


def _exact_topk(data, q, k, ids=None):
    ids = np.arange(len(data)) if ids is None else np.asarray(ids)
    d = 1 - data[ids] @ q / (np.linalg.norm(data[ids], axis=1) * np.linalg.norm(q))
    return [int(i) for i in ids[np.argsort(d, kind="stable")][:k]]


@pytest.mark.parametrize("approx", ["", "APPROX "])
def test_topk_with_index_equals_exact_scan(vecs, approx):
    cur, data = vecs
    q = RNG.normal(size=8).astype(np.float32)
    sql = (f"SELECT id FROM v WHERE kind = 'a' ORDER BY VECTOR_DISTANCE(emb, :q, COSINE) "
           f"FETCH {approx}FIRST 5 ROWS ONLY" + (" WITH TARGET ACCURACY 90" if approx else ""))
    cur.execute(sql, q=array.array("f", q))
    without_index = [r[0] for r in cur.fetchall()]
    cur.execute("CREATE VECTOR INDEX v_idx ON v (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE")
    cur.execute(sql, q=array.array("f", q))
    with_index = [r[0] for r in cur.fetchall()]
    expected = _exact_topk(data, q, 5, ids=[i for i in range(50) if i % 2 == 0])
    assert without_index == with_index == expected
    assert cur.connection._engine.plan_for(sql, ["SELECT"]).topk is not None


def test_vector_cache_stays_correct_after_writes(vecs, db_path):
    cur, data = vecs
    conn = cur.connection
    cur.execute("CREATE VECTOR INDEX v_idx ON v (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE")
    q = array.array("f", data[10])
    sql = "SELECT id FROM v ORDER BY VECTOR_DISTANCE(emb, :q, COSINE) FETCH FIRST 1 ROWS ONLY"
    assert cur.execute(sql, q=q).fetchone() == (10,)
    cur.execute("DELETE FROM v WHERE id = 10")
    assert cur.execute(sql, q=q).fetchone() != (10,)
    conn.rollback()
    assert cur.execute(sql, q=q).fetchone() == (10,)
    cur.execute("UPDATE v SET emb = :e WHERE id = 42", e=q)
    cur.execute("DELETE FROM v WHERE id = 10")
    conn.commit()
    assert cur.execute(sql, q=q).fetchone() == (42,)
    from workshop.embedded import connect
    other = connect(db_path)
    other.cursor().execute("INSERT INTO v VALUES (99, 'a', :e)", e=q)
    other.cursor().execute("DELETE FROM v WHERE id = 42")
    other.commit()
    other.close()
    assert cur.execute(sql, q=q).fetchone() == (99,)


def test_cosine_of_zero_vector_is_an_error(cur):
    with pytest.raises(oracledb.DatabaseError):
        cur.execute("SELECT VECTOR_DISTANCE(TO_VECTOR('[0,0]'), TO_VECTOR('[1,0]'), COSINE) FROM dual")


def test_binary_vectors_pack_eight_dimensions_per_byte(cur):
    cur.execute("SELECT VECTOR_DIMENSION_COUNT(TO_VECTOR('[206, 32]', 16, BINARY)), "
                "VECTOR_DISTANCE(TO_VECTOR('[255, 0]', 16, BINARY), TO_VECTOR('[15, 0]', 16, BINARY), HAMMING) "
                "FROM dual")
    assert cur.fetchone() == (16, 4.0)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT TO_VECTOR('[1,0,0,0,0,0,0,1]', 8, BINARY) FROM dual")
    assert ora_code(exc) == 51803


# --------------------------------------------------------------------------- BINARY vectors: HAMMING and JACCARD
def _bits(row) -> int:
    return int.from_bytes(bytes(int(b) for b in row), "big")


def _binary_ref(metric, a, b):
    """Reference distances over the bits, by Python's own bit counting."""
    x, y = _bits(a), _bits(b)
    if metric == "HAMMING":
        return float((x ^ y).bit_count())
    either = (x | y).bit_count()
    return 0.0 if either == 0 else 1.0 - (x & y).bit_count() / either


@pytest.fixture
def binary(cur):
    """300 BINARY vectors of 64 dimensions (8 bytes): more rows than the top-k's first candidate pool (64)."""
    cur.execute("CREATE TABLE bv (id NUMBER PRIMARY KEY, v VECTOR(64, BINARY))")
    data = RNG.integers(0, 256, size=(300, 8))
    cur.executemany("INSERT INTO bv VALUES (:1, TO_VECTOR(:2, 64, BINARY))",
                    [(i, "[" + ",".join(map(str, row)) + "]") for i, row in enumerate(data)])
    cur.connection.commit()
    return cur, data


def _vector_text(row) -> str:
    return "[" + ",".join(str(int(b)) for b in row) + "]"


@pytest.mark.parametrize("metric", ["HAMMING", "JACCARD"])
def test_binary_distances_match_bit_counting(binary, metric):
    cur, data = binary
    q = RNG.integers(0, 256, size=8)
    cur.execute(f"SELECT id, VECTOR_DISTANCE(v, TO_VECTOR(:q, 64, BINARY), {metric}) FROM bv ORDER BY id",
                q=_vector_text(q))
    got = cur.fetchall()
    assert [round(d, 9) for _, d in got] == [round(_binary_ref(metric, row, q), 9) for row in data]


@pytest.mark.parametrize("metric", ["HAMMING", "JACCARD"])
def test_binary_topk_with_an_index_is_the_exact_answer(binary, metric):
    """The vector cache once compared BINARY vectors byte by byte: HAMMING top-k through a vector index missed the
    nearest rows (a wrong answer to a query without APPROX)."""
    cur, data = binary
    cur.execute(f"CREATE VECTOR INDEX bv_idx ON bv (v) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE {metric}")
    for _ in range(5):
        q = RNG.integers(0, 256, size=8)
        distances = [_binary_ref(metric, row, q) for row in data]
        got = [r[0] for r in cur.execute(
            f"SELECT id FROM bv ORDER BY VECTOR_DISTANCE(v, TO_VECTOR(:q, 64, BINARY), {metric}) "
            f"FETCH FIRST 5 ROWS ONLY", q=_vector_text(q))]
        assert sorted(distances[i] for i in got) == sorted(distances)[:5]


def test_jaccard_takes_binary_vectors_only(cur):
    """Error reference DIA-51837; JACCARD_DISTANCE is VECTOR_DISTANCE(..., JACCARD)."""
    cur.execute("SELECT VECTOR_DISTANCE(TO_VECTOR('[255, 0]', 16, BINARY), TO_VECTOR('[15, 0]', 16, BINARY), "
                "JACCARD), JACCARD_DISTANCE(TO_VECTOR('[255, 0]', 16, BINARY), TO_VECTOR('[15, 0]', 16, BINARY)) "
                "FROM dual")
    assert cur.fetchone() == (0.5, 0.5)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT VECTOR_DISTANCE(TO_VECTOR('[1, 2]'), TO_VECTOR('[2, 1]'), JACCARD) FROM dual")
    assert ora_code(exc) == 51837
