// A graph file that includes an algo header: the include check must reject it (tests/CMakeLists.txt).
#include "smartarrays/algo/pagerank.hpp"
