# Nodes: 3 Edges: 1
# Nodes: 3 Edges: 2
0 1
1 2
