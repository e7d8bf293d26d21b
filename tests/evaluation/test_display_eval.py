"""Part 06's plots and grader widget (workshop/display.py): what they draw and what a click writes."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from workshop.display import grader_widget, plot_metric_bars, plot_per_query_scatter  # noqa: E402
from workshop.memory.retrieval_log import Retrieved  # noqa: E402


def test_bars_carry_their_intervals():
    diffs = pd.DataFrame({"comparison": ["b - a", "b - a", "c - a", "c - a"], "metric": ["ndcg@10", "mrr@10"] * 2,
                          "diff": [0.1, -0.05, 0.2, 0.0], "ci_low": [0.0, -0.1, 0.1, -0.1],
                          "ci_high": [0.2, 0.0, 0.3, 0.1]})
    fig = plot_metric_bars(diffs)
    ax = fig.axes[0]
    assert sorted(round(p.get_height(), 3) for p in ax.patches) == [-0.05, 0.0, 0.1, 0.2]
    assert len(ax.containers) == 4  # two bar containers and two error-bar containers


def test_the_scatter_has_one_point_per_query():
    scores = pd.DataFrame({"strategy": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2,
                           "intent": ["x", "y"] * 2, "ndcg@10": [0.1, 0.5, 0.3, 0.5]})
    ax = plot_per_query_scatter(scores, "a", "b").axes[0]
    points = [tuple(p) for c in ax.collections for p in c.get_offsets()]
    assert sorted(points) == [(0.1, 0.3), (0.5, 0.5)]


class _FakeGrader:
    def __init__(self):
        self.grades = []

    def pending(self):
        return pd.DataFrame([{"log_id": 1, "tenant": "acme", "question": "q <b>", "chunk_id": "C1", "position": 1},
                             {"log_id": 1, "tenant": "acme", "question": "q <b>", "chunk_id": "C2", "position": 2}])

    def grade(self, log_id, chunk_id, grade):
        self.grades.append((log_id, chunk_id, grade))


def test_the_widget_grades_through_the_api_and_escapes_text():
    grader = _FakeGrader()
    box = grader_widget(grader, {"C1": "text <script>"})
    header, body, buttons, status = box.children
    assert "&lt;b&gt;" in header.value and "&lt;script&gt;" in body.value
    buttons.children[3].click()
    buttons.children[0].click()
    assert grader.grades == [(1, "C1", 3), (1, "C2", 0)]
    assert "All pairs graded" in header.value


def test_retrieved_needs_id_strings():
    with pytest.raises(TypeError):
        Retrieved(["a"], "DOC01-C01")
    assert Retrieved(["t"], ["DOC01-C01"]).candidate_ids == ["DOC01-C01"]
