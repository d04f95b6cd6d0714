# The Java binding (java/, Maven module org.smartarrays:smartarrays; Java 22+ Foreign Function &
# Memory API over the C ABI): `make java` builds the jar, bundling build/lib/libsmartarrays.so;
# `make test-java` runs its JUnit 5 tests against that library (part of `make test`);
# `make bench-java` runs its benchmarks (part of `make bench`): JMH scans, and the Java-driven
# aggregation and PageRank against the C++-driven ones.
.PHONY: java test-java bench-java

# Maven under a JDK >= 22 (java/find-jdk.sh: JAVA_HOME if it is one, else /usr/lib/jvm/*), quiet
# and in batch mode. Maven's own libraries call sun.misc.Unsafe, which JDK 24+ warns about on
# every run: the flag that silences it is passed only to JVMs that know it.
JAVA_ENV = JAVA_HOME="$$(java/find-jdk.sh)" || exit 1; export JAVA_HOME; JAVA_QUIET=; \
  if "$$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then \
    JAVA_QUIET=--sun-misc-unsafe-memory-access=allow; fi
# Maven 3.8 prints stray color codes even with -q, so its output goes to a log shown on failure.
# java_maven GOALS-AND-FLAGS
define java_maven
	@$(JAVA_ENV); MAVEN_OPTS="$${MAVEN_OPTS:-} $$JAVA_QUIET"; export MAVEN_OPTS; mkdir -p java/target; \
	  mvn -q -B -f java/pom.xml -Dsmartarrays.native.dir=$(abspath $(BUILD))/lib $(1) >java/target/maven.log 2>&1 || \
	  { sed 's/\x1b\[[0-9;]*m//g' java/target/maven.log; echo "mvn $(1) failed (log: java/target/maven.log)"; exit 1; }
endef

# Extra BenchMain options, e.g. JAVA_BENCH_ARGS="--only figure3" or "--only pagerank --pr-scale 18"
# (see BenchMain's usage text).
JAVA_BENCH_ARGS ?=
# The aggregation figure needs the project's .venv with matplotlib (`make venv`); without it the
# JSON files are still written.
JAVA_BENCH_PLOT = PLOT=; if .venv/bin/python -c 'import matplotlib' 2>/dev/null; then \
  PLOT="--plot $(abspath .venv/bin/python) --plot-script $(abspath bench/plot_aggregate.py)"; fi

java: build
	@echo "== Java binding (mvn package)"
	$(call java_maven,-DskipTests package)

test-java: build
	@echo "== Java binding tests (JUnit 5)"
	$(call java_maven,verify)
	@cat java/target/surefire-reports/*.txt | awk '/^Tests run:/ { n += $$3; f += $$5; e += $$7 } \
	  END { printf "Java tests: %d run, %d failures, %d errors\n", n, f, e }'

# JMH and its annotation processor come with the bench profile; BenchMain then runs on the test
# classpath, calling the command for the C++-driven aggregation it compares with.
bench-java: build
	@echo "== Java binding benchmarks (JMH)"
	$(call java_maven,-Pbench -DskipTests test-compile dependency:build-classpath \
	  -Dmdep.outputFile=$(abspath java/target/bench-classpath.txt))
	@$(JAVA_ENV); $(JAVA_BENCH_PLOT); cd java && "$$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED $$JAVA_QUIET \
	  -Dsmartarrays.library=$(abspath $(BUILD))/lib/libsmartarrays.so \
	  -cp target/classes:target/test-classes:$$(cat target/bench-classpath.txt) org.smartarrays.bench.BenchMain \
	  --results $(abspath $(BUILD))/bench-results --cli $(abspath $(BUILD))/bin/smartarrays $$PLOT \
	  $(JAVA_BENCH_ARGS)

EXTRA_TESTS += test-java
EXTRA_BENCHES += bench-java
