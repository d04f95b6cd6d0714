// A comment naming a header that does not exist: src/lib/gone.hpp.
