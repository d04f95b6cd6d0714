% konect
3 9
1 0

# x
