// Checks how a fresh JVM finds libsmartarrays.so: the explicit overrides, the copy bundled in the
// jar's classes, and the clear error for an override that names no file.
package org.smartarrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoaderTest {
  @TempDir
  Path workingDirectory;

  private record Run(int exitCode, String output) {}

  private Run probe(Map<String, String> environment, String... jvmOptions) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), LoaderProbe.class.getName()));
    ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true);
    builder.environment().remove(NativeLibrary.PATH_ENV);
    builder.environment().putAll(environment);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(process.waitFor(), output);
  }

  @Test
  void aFreshJvmLoadsTheBundledCopy() throws Exception {
    Run run = probe(Map.of());
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().startsWith(SmartArrays.version() + " from "), run.output());
    assertTrue(run.output().contains("bundled"), run.output());
  }

  @Test
  void thePropertyAndTheEnvironmentOverrideIt() throws Exception {
    String library = System.getProperty(NativeLibrary.PATH_PROPERTY);
    assertTrue(library != null && Files.isRegularFile(Path.of(library)), "tests run with -D" + NativeLibrary.PATH_PROPERTY);
    Run byProperty = probe(Map.of(), "-D" + NativeLibrary.PATH_PROPERTY + "=" + library);
    assertEquals(0, byProperty.exitCode(), byProperty.output());
    assertTrue(byProperty.output().contains("system property"), byProperty.output());
    Run byEnvironment = probe(Map.of(NativeLibrary.PATH_ENV, library));
    assertEquals(0, byEnvironment.exitCode(), byEnvironment.output());
    assertTrue(byEnvironment.output().contains("environment variable"), byEnvironment.output());
  }

  @Test
  void anOverrideNamingNoFileFailsClearly() throws Exception {
    Run run = probe(Map.of(NativeLibrary.PATH_ENV, "/nonexistent/libsmartarrays.so"));
    assertTrue(run.exitCode() != 0);
    assertTrue(run.output().contains("SMARTARRAYS_LIBRARY names /nonexistent/libsmartarrays.so, which is not a file"),
        run.output());
  }
}
