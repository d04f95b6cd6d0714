# A small directed graph for the loader tests: a repeated edge (0 1), a self-loop (4 4),
# a blank line, tabs and runs of spaces, and an isolated last vertex that only the header names.
# Nodes: 6 Edges: 7
0	1
0 2
1 2

2 0
3   2
4 4
0 1
