"""CREATE / DROP PROPERTY GRAPH parsing: defaults, label/property variants, JSON storage, errors."""
import json

import pytest

from workshop.embedded.graph import GraphDef, GraphError, parse_create_property_graph, parse_drop_property_graph

COLUMNS = {
    "PAPER": ["ARXIV_ID", "TITLE", "YEAR", "ABSTRACT"],
    "AUTHOR": ["AUTHOR_ID", "NAME"],
    "WROTE": ["AUTHOR_ID", "ARXIV_ID", "POSITION"],
    "SIMILAR_TO": ["SOURCE_ARXIV_ID", "TARGET_ARXIV_ID", "SIM_SCORE", "RANK_NO"],
    "Mixed": ["id", "Label"],
}
PRIMARY_KEYS = {"PAPER": ["ARXIV_ID"], "AUTHOR": ["AUTHOR_ID"], "WROTE": ["AUTHOR_ID", "ARXIV_ID"],
                "SIMILAR_TO": ["SOURCE_ARXIV_ID", "TARGET_ARXIV_ID"], "Mixed": ["id"]}


def columns_of(table):
    return COLUMNS.get(table, [])


def primary_key_of(table):
    return PRIMARY_KEYS.get(table, [])


def parse(sql, pk=primary_key_of):
    return parse_create_property_graph(sql, columns_of, pk)


def props(element, label):
    found = next(l for l in element.labels if l.name == label)
    return [(p.name, p.column, p.expression_text) for p in found.properties]


WORKSHOP_DDL = """
CREATE PROPERTY GRAPH research_graph
  VERTEX TABLES (
    paper KEY (arxiv_id) LABEL paper PROPERTIES (arxiv_id, title, year),
    author KEY (author_id) LABEL author PROPERTIES (author_id, name)
  )
  EDGE TABLES (
    wrote KEY (author_id, arxiv_id)
      SOURCE KEY (author_id) REFERENCES author (author_id)
      DESTINATION KEY (arxiv_id) REFERENCES paper (arxiv_id)
      LABEL wrote,
    similar_to KEY (source_arxiv_id, target_arxiv_id)
      SOURCE KEY (source_arxiv_id) REFERENCES paper (arxiv_id)
      DESTINATION KEY (target_arxiv_id) REFERENCES paper (arxiv_id)
      LABEL similar_to PROPERTIES (sim_score, rank_no)
  )
"""


def test_workshop_graph_definition():
    g = parse(WORKSHOP_DDL)
    assert (g.name, g.schema, g.or_replace, g.if_not_exists) == ("RESEARCH_GRAPH", None, False, False)
    paper, author = g.vertex_tables
    assert (paper.name, paper.table, paper.key) == ("PAPER", "PAPER", ["ARXIV_ID"])
    assert props(paper, "PAPER") == [("ARXIV_ID", "ARXIV_ID", None), ("TITLE", "TITLE", None), ("YEAR", "YEAR", None)]
    wrote, similar = g.edge_tables
    assert wrote.key == ["AUTHOR_ID", "ARXIV_ID"]
    assert (wrote.source.vertex_table, wrote.source.edge_columns, wrote.source.vertex_columns) == \
        ("AUTHOR", ["AUTHOR_ID"], ["AUTHOR_ID"])
    assert (wrote.destination.vertex_table, wrote.destination.edge_columns) == ("PAPER", ["ARXIV_ID"])
    assert [l.name for l in wrote.labels] == ["WROTE"]
    # LABEL without PROPERTIES exposes all columns
    assert [p.name for p in wrote.labels[0].properties] == ["AUTHOR_ID", "ARXIV_ID", "POSITION"]
    assert props(similar, "SIMILAR_TO") == [("SIM_SCORE", "SIM_SCORE", None), ("RANK_NO", "RANK_NO", None)]


def test_defaults_label_is_table_name_properties_all_columns_keys_from_primary_key():
    g = parse("""create property graph g vertex tables (paper, author)
                 edge tables (wrote source key (author_id) references author
                                    destination key (arxiv_id) references paper)""")
    paper, author = g.vertex_tables
    assert [l.name for l in paper.labels] == ["PAPER"]
    assert [p.name for p in paper.labels[0].properties] == COLUMNS["PAPER"]
    assert paper.key == ["ARXIV_ID"] and author.key == ["AUTHOR_ID"]
    wrote = g.edge_tables[0]
    assert wrote.key == ["AUTHOR_ID", "ARXIV_ID"]
    # REFERENCES without a column list means the vertex key
    assert wrote.source.vertex_columns == ["AUTHOR_ID"] and wrote.destination.vertex_columns == ["ARXIV_ID"]
    assert [l.name for l in wrote.labels] == ["WROTE"]


def test_alias_default_label_no_properties_all_columns_except_and_expressions():
    g = parse("""CREATE OR REPLACE PROPERTY GRAPH lib.g2
      VERTEX TABLES (
        paper AS doc KEY (arxiv_id)
          DEFAULT LABEL PROPERTIES ARE ALL COLUMNS EXCEPT (abstract)
          LABEL dated PROPERTIES (year AS pub_year, year + 1 AS next_year, UPPER(title) AS title_uc)
          LABEL marker NO PROPERTIES,
        author PROPERTIES (name)
      )
      EDGE TABLES (
        wrote AS authored
          SOURCE KEY (author_id) REFERENCES author (author_id)
          DESTINATION KEY (arxiv_id) REFERENCES doc (arxiv_id)
          PROPERTIES ALL COLUMNS
      );""")
    assert (g.schema, g.name, g.or_replace) == ("LIB", "G2", True)
    doc = g.vertex_tables[0]
    assert (doc.name, doc.table) == ("DOC", "PAPER")
    assert [l.name for l in doc.labels] == ["DOC", "DATED", "MARKER"]
    assert props(doc, "DOC") == [("ARXIV_ID", "ARXIV_ID", None), ("TITLE", "TITLE", None), ("YEAR", "YEAR", None)]
    assert props(doc, "DATED") == [("PUB_YEAR", "YEAR", None), ("NEXT_YEAR", None, "year + 1"),
                                   ("TITLE_UC", None, "UPPER(title)")]
    assert props(doc, "MARKER") == []
    assert doc.properties()["NEXT_YEAR"].expression == [{"column": "YEAR"}, "+ 1"]
    assert doc.properties()["NEXT_YEAR"].sql("d") == '("d"."YEAR" + 1)'
    author = g.vertex_tables[1]
    assert [l.name for l in author.labels] == ["AUTHOR"] and props(author, "AUTHOR") == [("NAME", "NAME", None)]
    authored = g.edge_tables[0]
    assert (authored.name, authored.destination.vertex_table, [l.name for l in authored.labels]) == \
        ("AUTHORED", "DOC", ["AUTHORED"])


def test_quoted_identifiers_keep_their_case_and_unquoted_are_upper_cased():
    g = parse('CREATE PROPERTY GRAPH "myGraph" VERTEX TABLES ("Mixed" LABEL "Thing" PROPERTIES ("Label" AS "lbl", "id"))')
    assert g.name == "myGraph"
    mixed = g.vertex_tables[0]
    assert (mixed.table, mixed.key, [l.name for l in mixed.labels]) == ("Mixed", ["id"], ["Thing"])
    assert props(mixed, "Thing") == [("lbl", "Label", None), ("id", "id", None)]


def test_columns_reported_in_another_case_are_matched_case_insensitively():
    lower = {"PAPER": ["arxiv_id", "title"]}
    g = parse_create_property_graph("CREATE PROPERTY GRAPH g VERTEX TABLES (paper KEY (arxiv_id) PROPERTIES (title AS t, arxiv_id))",
                                    lower.get)
    paper = g.vertex_tables[0]
    assert paper.key == ["arxiv_id"]
    assert props(paper, "PAPER") == [("T", "title", None), ("arxiv_id", "arxiv_id", None)]


def test_if_not_exists_flag_and_json_round_trip():
    g = parse("CREATE PROPERTY GRAPH IF NOT EXISTS g VERTEX TABLES (paper KEY (arxiv_id) "
              "LABEL p PROPERTIES (title, year * 2 AS twice)) -- trailing comment")
    assert g.if_not_exists
    text = g.to_json()
    assert json.loads(text)["vertex_tables"][0]["labels"][0]["name"] == "P"
    again = GraphDef.from_json(text)
    assert again == g and again.to_json() == text
    workshop = parse(WORKSHOP_DDL)
    assert GraphDef.from_json(workshop.to_json()) == workshop


@pytest.mark.parametrize("sql, code, fragment", [
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper) EDGE TABLES (wrote SOURCE KEY (author_id) REFERENCES writer "
     "DESTINATION KEY (arxiv_id) REFERENCES paper)", 904, "WRITER"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper, paper)", 42404, "PAPER"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper, author) EDGE TABLES (wrote SOURCE author DESTINATION paper)",
     42413, "WROTE"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (nosuch)", 942, "NOSUCH"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper KEY (nosuch))", 904, "NOSUCH"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper PROPERTIES (nosuch))", 904, "NOSUCH"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper PROPERTIES (year + 1))", 998, "alias"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper, author) EDGE TABLES (wrote SOURCE KEY (author_id, position) "
     "REFERENCES author (author_id) DESTINATION KEY (arxiv_id) REFERENCES paper)", 2256, "SOURCE"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper LABEL a PROPERTIES (title AS t) LABEL b PROPERTIES (year AS t))",
     957, "T"),
    ("CREATE OR REPLACE PROPERTY GRAPH IF NOT EXISTS g VERTEX TABLES (paper)", 11541, "REPLACE"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper) OPTIONS (ENFORCED MODE)", 3001, "ENFORCED MODE"),
    ("CREATE PROPERTY GRAPH g EDGE TABLES (wrote)", 905, "VERTEX"),
    ("CREATE PROPERTY GRAPH g VERTEX TABLES (paper KEY (arxiv_id) LABEL p PROPERTIES (title)", 907, ")"),
])
def test_ddl_errors_carry_oracle_codes(sql, code, fragment):
    with pytest.raises(GraphError) as info:
        parse(sql)
    assert info.value.code == code
    assert fragment in info.value.message
    assert str(info.value).startswith(f"ORA-{code:05d}: ")


def test_missing_key_without_primary_key_is_ora_42402():
    with pytest.raises(GraphError) as info:
        parse("CREATE PROPERTY GRAPH g VERTEX TABLES (paper)", pk=None)
    assert info.value.code == 42402 and "PAPER" in info.value.message


def test_drop_property_graph():
    d = parse_drop_property_graph("DROP PROPERTY GRAPH research_graph")
    assert (d.name, d.schema, d.if_exists) == ("RESEARCH_GRAPH", None, False)
    d = parse_drop_property_graph('drop property graph if exists lib."g x";')
    assert (d.name, d.schema, d.if_exists) == ("g x", "LIB", True)
    with pytest.raises(GraphError) as info:
        parse_drop_property_graph("DROP PROPERTY GRAPH g CASCADE")
    assert info.value.code == 933
