# Directed graph
# Nodes: 9 Edges: 3
0	1
1	1
4	2
