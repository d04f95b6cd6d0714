"""Writes networkx's PageRank (dangling rank spread uniformly, weight=None) of its bundled small
graphs, plus a directed random graph with dangling vertices, for tests/algo/pagerank_test.cpp.

Output, per graph: "graph NAME N M directed|undirected", then M lines "u v" (each undirected edge
once) and N lines with the rank of vertices 0..N-1. Vertices are relabelled 0..N-1 in node order.
"""
import sys

import networkx as nx


def graphs():
    yield "karate_club", nx.karate_club_graph()
    yield "davis_southern_women", nx.davis_southern_women_graph()
    yield "florentine_families", nx.florentine_families_graph()
    yield "les_miserables", nx.les_miserables_graph()
    yield "directed_gnp", nx.gnp_random_graph(80, 0.03, seed=7, directed=True)


def main(path):
    with open(path, "w") as out:
        for name, g in graphs():
            g = nx.convert_node_labels_to_integers(g)
            ranks = nx.pagerank(g, alpha=0.85, weight=None, tol=1e-15, max_iter=100000)
            kind = "directed" if g.is_directed() else "undirected"
            edges = list(g.edges())
            out.write(f"graph {name} {g.number_of_nodes()} {len(edges)} {kind}\n")
            for u, v in edges:
                out.write(f"{u} {v}\n")
            for v in range(g.number_of_nodes()):
                out.write(f"{ranks[v]!r}\n")


if __name__ == "__main__":
    main(sys.argv[1])
