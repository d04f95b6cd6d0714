// A file in a folder that is no layer: the include check must reject the folder (tests/CMakeLists.txt).
#include "smartarrays/error.hpp"
