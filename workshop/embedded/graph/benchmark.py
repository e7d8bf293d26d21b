"""Benchmark GRAPH_TABLE compilation and execution on a synthetic research graph in SQLite.

Papers, authors, WROTE and SIMILAR_TO edges are generated with a fixed seed (the shape of the
reference workshop's research graph). Each query is compiled once and run for `--runs` different
seed papers; the table shows compile time, SQL size, UNION ALL branches and execution latency.

    .venv/bin/python -m workshop.embedded.graph.benchmark [--papers 5000] [--runs 30]
"""
from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import time

from . import parse_create_property_graph, rewrite_graph_tables

SEED = 20261130

DDL = """CREATE PROPERTY GRAPH research_graph
  VERTEX TABLES (
    paper KEY (arxiv_id) LABEL paper PROPERTIES (arxiv_id, title, year),
    author KEY (author_id) LABEL author PROPERTIES (author_id, name))
  EDGE TABLES (
    wrote KEY (author_id, arxiv_id)
      SOURCE KEY (author_id) REFERENCES author (author_id)
      DESTINATION KEY (arxiv_id) REFERENCES paper (arxiv_id) LABEL wrote,
    similar_to KEY (source_arxiv_id, target_arxiv_id)
      SOURCE KEY (source_arxiv_id) REFERENCES paper (arxiv_id)
      DESTINATION KEY (target_arxiv_id) REFERENCES paper (arxiv_id)
      LABEL similar_to PROPERTIES (sim_score, rank_no))"""

QUERIES = {
    "1-hop similar_to": "MATCH (src IS paper WHERE src.arxiv_id = :id)-[e IS similar_to]->(dst IS paper) "
                        "COLUMNS (dst.arxiv_id AS target, e.sim_score AS score)",
    "shared author (2 hops)": "MATCH (src IS paper WHERE src.arxiv_id = :id)<-[w1 IS wrote]-(a IS author)"
                              "-[w2 IS wrote]->(dst IS paper) WHERE src.arxiv_id <> dst.arxiv_id "
                              "COLUMNS (dst.arxiv_id AS target)",
    "similar_to {1,3} + LISTAGG": "MATCH (src IS paper WHERE src.arxiv_id = :id)-[e IS similar_to]->{1,3}(dst IS paper) "
                                  "COLUMNS (dst.arxiv_id AS target, LISTAGG(e.rank_no, ',') AS ranks)",
    "any direction {1,2}": "MATCH (src IS paper WHERE src.arxiv_id = :id)-[e IS similar_to]-{1,2}(dst) "
                           "COLUMNS (dst.arxiv_id AS target)",
    "unlabeled any direction": "MATCH (src IS paper WHERE src.arxiv_id = :id)-[e]-(x)-[f]-(y) "
                               "COLUMNS (y.arxiv_id AS target)",
}


SEEDS_CTE = "WITH seed AS (SELECT arxiv_id FROM paper WHERE arxiv_id IN ({ids}))"
HOPS = ("GRAPH_TABLE (research_graph MATCH (src IS paper)-[e IS similar_to]->{{1,3}}(dst IS paper) "
        "COLUMNS (src.arxiv_id AS s, dst.arxiv_id AS t))")
#: Whole statements over 25 seed papers. The last two show SQLite's plan trap: an aggregate directly
#: over a join with a multi-branch (UNION ALL) GRAPH_TABLE materializes the whole union first.
STATEMENTS = {
    "workshop retrieval (2 GRAPH_TABLEs)": SEEDS_CTE + """,
        sim_hops AS (SELECT s.arxiv_id AS src, gt.t AS cand FROM seed s JOIN GRAPH_TABLE (research_graph
            MATCH (a IS paper)-[e IS similar_to]->(b IS paper) COLUMNS (a.arxiv_id AS s, b.arxiv_id AS t)) gt
            ON gt.s = s.arxiv_id),
        author_hops AS (SELECT s.arxiv_id AS src, gt.t AS cand FROM seed s JOIN GRAPH_TABLE (research_graph
            MATCH (a IS paper)<-[w1 IS wrote]-(x IS author)-[w2 IS wrote]->(b IS paper)
            COLUMNS (a.arxiv_id AS s, b.arxiv_id AS t)) gt ON gt.s = s.arxiv_id WHERE gt.t <> s.arxiv_id),
        candidates AS (SELECT * FROM sim_hops UNION ALL SELECT * FROM author_hops)
        SELECT cand, COUNT(*) FROM candidates GROUP BY cand""",
    "seed JOIN {1,3} rows": SEEDS_CTE + f" SELECT gt.t FROM seed JOIN {HOPS} gt ON gt.s = seed.arxiv_id",
    "COUNT over seed JOIN {1,3} (trap)": SEEDS_CTE + f" SELECT COUNT(*) FROM seed JOIN {HOPS} gt ON gt.s = seed.arxiv_id",
    "same, join wrapped in LIMIT -1": SEEDS_CTE + f" SELECT COUNT(*) FROM (SELECT gt.t FROM seed JOIN {HOPS} gt "
                                                  "ON gt.s = seed.arxiv_id LIMIT -1)",
}


def build(papers: int) -> sqlite3.Connection:
    rng = random.Random(SEED)
    con = sqlite3.connect(":memory:")
    con.executescript("""
        CREATE TABLE paper (arxiv_id TEXT PRIMARY KEY, title TEXT, year INTEGER);
        CREATE TABLE author (author_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE wrote (author_id INTEGER, arxiv_id TEXT, PRIMARY KEY (author_id, arxiv_id));
        CREATE INDEX wrote_paper ON wrote (arxiv_id);
        CREATE TABLE similar_to (source_arxiv_id TEXT, target_arxiv_id TEXT, sim_score REAL, rank_no INTEGER,
                                 PRIMARY KEY (source_arxiv_id, target_arxiv_id));
        CREATE INDEX similar_target ON similar_to (target_arxiv_id);
    """)
    ids = [f"2401.{k:05d}" for k in range(papers)]
    authors = max(1, papers // 5)
    con.executemany("INSERT INTO paper VALUES (?, ?, ?)", [(i, f"paper {i}", rng.randint(2015, 2026)) for i in ids])
    con.executemany("INSERT INTO author VALUES (?, ?)", [(a, f"author {a}") for a in range(authors)])
    con.executemany("INSERT OR IGNORE INTO wrote VALUES (?, ?)",
                    [(rng.randrange(authors), i) for i in ids for _ in range(rng.randint(1, 4))])
    con.executemany("INSERT OR IGNORE INTO similar_to VALUES (?, ?, ?, ?)",
                    [(i, rng.choice(ids), round(rng.random(), 3), r) for i in ids for r in range(1, 6)])
    return con


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=30, help="seed papers per query (at least 25 recommended)")
    args = parser.parse_args()
    con = build(args.papers)
    graph = parse_create_property_graph(
        DDL, lambda t: [r[1].upper() for r in con.execute(f'PRAGMA table_info("{t}")')])
    graphs = {"RESEARCH_GRAPH": graph}
    seeds = random.Random(SEED + 1).sample([r[0] for r in con.execute("SELECT arxiv_id FROM paper")], args.runs)
    edges = con.execute("SELECT (SELECT COUNT(*) FROM wrote), (SELECT COUNT(*) FROM similar_to)").fetchone()
    print(f"papers={args.papers} authors={args.papers // 5} wrote={edges[0]} similar_to={edges[1]} runs={args.runs}")
    print(f"{'query (one seed paper per run)':36} {'compile ms':>10} {'SQL chars':>9} {'branches':>8} {'exec ms p50':>11} "
          f"{'exec ms max':>11} {'rows/run':>8}")
    for name, body in QUERIES.items():
        sql = f"SELECT * FROM GRAPH_TABLE (research_graph {body})"
        t0 = time.perf_counter()
        compiled = rewrite_graph_tables(sql, graphs.get)
        compile_ms = (time.perf_counter() - t0) * 1000
        times, rows = [], []
        for seed in seeds:
            t1 = time.perf_counter()
            rows.append(len(con.execute(compiled, {"id": seed}).fetchall()))
            times.append((time.perf_counter() - t1) * 1000)
        print(f"{name:36} {compile_ms:10.2f} {len(compiled):9d} {compiled.count('UNION ALL') + 1:8d} "
              f"{statistics.median(times):11.2f} {max(times):11.2f} {statistics.mean(rows):8.1f}")
    ids = ", ".join(f"'{s}'" for s in seeds[:25])
    print(f"\nwhole statements over {len(seeds[:25])} seed papers (one run each)")
    print(f"{'statement':36} {'compile ms':>10} {'exec ms':>10} {'rows':>8}")
    for name, template in STATEMENTS.items():
        t0 = time.perf_counter()
        compiled = rewrite_graph_tables(template.format(ids=ids), graphs.get)
        t1 = time.perf_counter()
        rows = con.execute(compiled).fetchall()
        t2 = time.perf_counter()
        print(f"{name:36} {(t1 - t0) * 1000:10.2f} {(t2 - t1) * 1000:10.1f} {len(rows):8d}")


if __name__ == "__main__":
    main()
