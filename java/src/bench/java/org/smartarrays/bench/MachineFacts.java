// Owns the machine facts a Java benchmark result carries: the library's own, read through the C ABI
// (schema smartarrays.machine/1, docs/cli.md#smartarraysmachine1-the-machine-facts), plus the JVM
// that ran the Java side.
package org.smartarrays.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.smartarrays.ParallelLoop;
import org.smartarrays.SmartArrays;

final class MachineFacts {
  private MachineFacts() {}

  /** The facts now: the library's machine object, then java_version, java_vm and java_workers. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> now() {
    Map<String, Object> m = new LinkedHashMap<>((Map<String, Object>) Json.parse(SmartArrays.machineFactsJson()));
    m.put("java_version", System.getProperty("java.version"));
    m.put("java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    m.put("java_workers", ParallelLoop.workers());
    return m;
  }
}
