-- The indexes PostgreSQL gets after loading (the specification allows them): without them its plans
-- for the correlated subqueries of Q17 and Q20 scan lineitem once per outer row. DuckDB needs none.
CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey);
CREATE INDEX lineitem_order ON lineitem (l_orderkey);
ANALYZE;
