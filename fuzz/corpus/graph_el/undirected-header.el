# Undirected graph: example.ungraph.txt
# Nodes: 6 Edges: 5
0 1
1 2
2 2
3 0
0 1
