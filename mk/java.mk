# The Java binding (java/, Maven module org.smartarrays:smartarrays; Java 22+ Foreign Function &
# Memory API over the C ABI): `make java` builds the jar, bundling build/lib/libsmartarrays.so;
# `make test-java` runs its JUnit 5 tests against that library (part of `make test`);
# `make bench-java` runs its JMH benchmarks (part of `make bench`).
.PHONY: java test-java bench-java

# Maven under a JDK >= 22 (java/find-jdk.sh: JAVA_HOME if it is one, else /usr/lib/jvm/*), quiet
# and in batch mode. Maven's own libraries call sun.misc.Unsafe, which JDK 24+ warns about on
# every run: the flag that silences it is passed only to JVMs that know it.
JAVA_MAVEN = JAVA_HOME="$$(java/find-jdk.sh)" || exit 1; export JAVA_HOME; \
  if "$$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then \
    MAVEN_OPTS="$${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"; export MAVEN_OPTS; fi; \
  mvn -q -B -f java/pom.xml -Dsmartarrays.native.dir=$(abspath $(BUILD))/lib

java: build
	@echo "== Java binding (mvn package)"
	@$(JAVA_MAVEN) -DskipTests package

test-java: build
	@echo "== Java binding tests (JUnit 5)"
	@$(JAVA_MAVEN) verify

EXTRA_TESTS += test-java
