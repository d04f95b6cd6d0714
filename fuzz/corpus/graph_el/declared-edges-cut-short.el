# Directed graph
# Nodes: 4 Edges: 3
0	1
1	2
